"""The one button-data codec: what a button carries and what a press of it asks.

A game's button carries ``g:<game id>:<version>:<action>[<piece>]`` (at most
64 bytes on every platform; a level's button carries the level it sets, counted from 1
in :data:`bot.players.LEVELS`, in the piece's place).  The version is the game's button version when
the button was drawn: a press carrying another one is outdated.  The rule
chooser's buttons (a game not opened yet) carry ``n:<rules>[:teams]``.  A table
posted through Telegram's inline mode shows its lobby before its game exists: its
buttons carry ``i:<action>[<piece>]``, the game's own without id and version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..hosting import Intent
from ..players import LEVELS

#: action letter <-> intent kind
_LETTERS = {
    "j": "join",
    "l": "leave",
    "c": "add_computer",
    "x": "remove_computer",
    "s": "start",
    "r": "roll",
    "m": "move",
    "a": "rematch",
    "v": "level",
}
_KINDS = {kind: letter for letter, kind in _LETTERS.items()}
_GAME = re.compile(r"g:([0-9a-f]{8}):(\d{1,9}):([a-z])([1-6]?)")
_NEW = re.compile(r"n:([a-z]{1,16})(:teams)?")
_UNBORN = re.compile(r"i:([a-z])([1-6]?)")
_TOUR = re.compile(r"t:([0-9a-f]{8}):(\d{1,9}):([jlse])")
#: a tournament's sign-up button: letter <-> what it asks
TOUR_ACTIONS = {"j": "join", "l": "leave", "s": "start", "e": "end"}


@dataclass(frozen=True)
class Press:
    """A press of a game's button: which game, at which version, asking what."""

    game_id: str
    version: int
    intent: Intent


def game_button(game_id: str, version: int, kind: str, piece: int = 0) -> str:
    """The data of a game's button doing ``kind`` (and moving ``piece``, from 1)."""
    return f"g:{game_id}:{version}:{_KINDS[kind]}{piece if kind == 'move' else ''}"


def level_button(game_id: str, version: int, level: str) -> str:
    """The data of the button setting the table's computer level to ``level``."""
    return f"g:{game_id}:{version}:{_KINDS['level']}{LEVELS.index(level) + 1}"


def new_game_button(rules: str, teams: bool = False) -> str:
    """The data of a rule chooser's button."""
    return f"n:{rules}{':teams' if teams else ''}"


def parse_press(data: object) -> Press | None:
    """The press a game's button data asks for, or None (not ours, forged, malformed)."""
    m = _GAME.fullmatch(data) if isinstance(data, str) else None
    if m is None:
        return None
    game_id, version, letter, piece = m.group(1), int(m.group(2)), m.group(3), m.group(4)
    kind = _LETTERS.get(letter)
    if kind is None or (kind in ("move", "level")) != bool(piece):
        return None
    if kind == "level":
        if int(piece) > len(LEVELS):
            return None
        return Press(game_id, version, Intent(kind, level=LEVELS[int(piece) - 1]))
    return Press(game_id, version, Intent(kind, int(piece) if piece else 0))


def unborn_button(data: str) -> str:
    """The data a game's button ``data`` carries before the game exists (no id, no
    version): ``i:<action>``."""
    m = _GAME.fullmatch(data)
    assert m is not None, data
    return f"i:{m.group(3)}{m.group(4)}"


def parse_unborn(data: object) -> Intent | None:
    """What the button of a game not opened yet asks (see :func:`unborn_button`), or
    None (not one)."""
    m = _UNBORN.fullmatch(data) if isinstance(data, str) else None
    press = parse_press(f"g:00000000:0:{m.group(1)}{m.group(2)}") if m else None
    return press.intent if press is not None else None


def parse_new_game(data: object) -> tuple[str, bool] | None:
    """(rules, teams) of a rule chooser's button data, or None."""
    m = _NEW.fullmatch(data) if isinstance(data, str) else None
    return (m.group(1), bool(m.group(2))) if m else None


@dataclass(frozen=True)
class TourPress:
    """A press of a tournament's sign-up button: which tournament, at which version."""

    tour_id: str
    version: int
    what: str


def tour_button(tour_id: str, version: int, what: str) -> str:
    """The data of a tournament's button doing ``what`` (join, leave, start, end)."""
    letter = next(k for k, v in TOUR_ACTIONS.items() if v == what)
    return f"t:{tour_id}:{version}:{letter}"


def parse_tour_press(data: object) -> TourPress | None:
    """The press a tournament's button data asks for, or None (not one, or malformed)."""
    m = _TOUR.fullmatch(data) if isinstance(data, str) else None
    return TourPress(m.group(1), int(m.group(2)), TOUR_ACTIONS[m.group(3)]) if m else None


#: what a corner's button asks: mute a game's cards, bring a game's card, join a game a
#: chat's note told of, turn the cards on (Discord's "Tell me my turns")
CORNER_ACTIONS = ("mute", "card", "join", "on")
_CORNER = re.compile(r"k:([0-9a-f]{8})?:([a-z]{1,8})")


@dataclass(frozen=True)
class CornerPress:
    """A press of a button of a person's corner: what it asks, of which game (if any)."""

    what: str
    game_id: str = ""


def corner_button(what: str, game_id: str = "") -> str:
    """The data of a corner's button doing ``what`` (of game ``game_id``)."""
    assert what in CORNER_ACTIONS, what
    return f"k:{game_id}:{what}"


def parse_corner(data: object) -> CornerPress | None:
    """The press a corner's button data asks for, or None (not one, or malformed)."""
    m = _CORNER.fullmatch(data) if isinstance(data, str) else None
    if m is None or m.group(2) not in CORNER_ACTIONS:
        return None
    game_id = m.group(1) or ""
    if (m.group(2) == "on") != (not game_id):
        return None
    return CornerPress(m.group(2), game_id)
