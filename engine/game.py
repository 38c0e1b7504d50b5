"""The public pure API: starting a game, the legal moves, and applying an action.

:func:`apply` is pure: it copies the state and changes the copy with
:mod:`engine.play`.  Fast random play (``ludo-bot simulate``) calls the
in-place functions re-exported here (:func:`current_moves`,
:func:`roll_in_place`, :func:`move_in_place`) on a state it owns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .actions import Event, Move
from .board import COLOUR_INDEX, COLOURS
from .errors import RecordError
from .moves import current_moves
from .play import Action, act_in_place, all_home, move_in_place, roll_in_place, start_turn
from .refusals import move_for
from .rules import Options, rules_for
from .setup import build_occupancy, check_position, seats_for, start_position
from .state import GameState

__all__ = [
    "Action",
    "apply",
    "current_moves",
    "legal_moves",
    "move_for",
    "move_in_place",
    "new_game",
    "roll_in_place",
]


def new_game(
    rules: str | Options,
    players: Sequence[str] | int,
    *,
    options: Mapping[str, Any] | None = None,
    position: Mapping[str, Sequence[int]] | None = None,
    turn: str | None = None,
) -> GameState:
    """A new game of ``rules`` (a rule set name or an :class:`Options`).

    ``players`` is the list of colours in the game (or their number); the
    seating order is always clockwise from red.  ``position`` gives each
    colour's piece progress values (default: the rule set's start position);
    ``turn`` the colour to play first (default: the first seat).
    """
    if isinstance(rules, Options):
        opts = rules_for(rules.name, rules.overrides() | dict(options or {}))
    else:
        opts = rules_for(rules, options)
    seats = seats_for(opts, players)
    if position is None:
        pos = start_position(opts, seats)
    else:
        pos = check_position(opts, seats, position, check_over=True)
    s = GameState.__new__(GameState)
    s.options = opts
    s.seats = seats
    s.pos = pos
    s.occ = build_occupancy(pos)
    if turn is None:
        s.cur = seats[0]
    else:
        c = COLOUR_INDEX.get(turn) if isinstance(turn, str) else None
        if c is None or c not in seats:
            names = ", ".join(COLOURS[x] for x in seats)
            raise RecordError(
                f"turn must be one of the colours in the game ({names}), not {turn!r}"
            )
        if all_home(s, c):
            raise RecordError(f"turn: {turn} has all pieces home and cannot play")
        s.cur = c
    s.won = ()
    start_turn(s, s.cur)
    return s


def legal_moves(state: GameState) -> list[Move]:
    """The moves the player on turn may choose from now (empty unless a move is due).

    Pieces in the base are interchangeable: only the lowest-numbered one is
    listed for "bring a piece out", though moving any base piece is accepted
    (:func:`move_for` gives the move a chosen piece makes).
    """
    if state.phase == "move" or state.phase == "bonus":
        return list(current_moves(state))
    return []


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """Apply ``{"roll": d}`` or ``{"move": i}``; return the new state and what happened.

    Passes, extra turns, bonus moves, penalties and the end of the game
    happen here and are reported as events.  An illegal action raises
    :class:`IllegalAction` and changes nothing.
    """
    new = state.copy()
    events: list[Event] = []
    act_in_place(new, action, events)
    return new, events
