"""The live board in words, for screen readers: the names the page gives its pieces,
the moves a piece can make and the landing marks, and each action told once in the
page's live region (docs/web-protocol.md ``<game>``).

Pure, and said from the chat's catalogs in the viewer's language
(:mod:`bot.present.wording.access`, and the chat's own words where they fit: a
square of the track, what a move forms, the narration of each action).  A piece's
place is counted as the chat counts it: square ``n`` of its way round from its
start, square ``n`` of its home column, the yard, home.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import HOME, LAST_TRACK, Event, Move

from ..present import Text, say
from ..present.narrate import event_texts
from .names import isolated

#: an action of the game's record: its index (from 0) and the engine's events of it
Action = tuple[int, tuple[Event, ...]]


def capital(sentence: str) -> str:
    """``sentence`` with a capital first letter (a piece's name may begin it: "red 2")."""
    return sentence[:1].upper() + sentence[1:]


def name(colour: str, number: int) -> Text:
    """A piece by its colour and number (from 1), as the board draws it: "red 2"."""
    return Text("a11y.name", {"colour": colour, "piece": number})


def place(progress: int) -> Text:
    """Where a piece of that progress stands: "in the yard", "square 23", "square 3 of
    the home column", "at home"."""
    if progress <= 0:
        return Text("a11y.yard")
    if progress >= HOME:
        return Text("a11y.home")
    if progress > LAST_TRACK:
        return Text("a11y.column", {"n": progress - LAST_TRACK})
    return Text("sq.track", {"n": progress})


def piece(colour: str, number: int, progress: int) -> Text:
    """ "red 2, square 23"."""
    return Text("a11y.piece", {"name": name(colour, number), "where": place(progress)})


def piece_says(colour: str, number: int, progress: int, lang: str) -> str:
    """A piece's name on the page: "Red 2, square 23"."""
    return capital(say(piece(colour, number, progress), lang=lang))


def move_says(m: Move, number: int, progress: int, lang: str) -> str:
    """A movable piece's name: the piece (``number``, standing at ``progress``: any piece
    of the yard may be the one to come out) and what pressing it does: "Red 2, square
    23: moves to square 28 and captures a green piece"."""
    p: dict[str, Any] = {"piece": piece(m.colour, number, progress), "to": place(m.to)}
    if m.to == HOME:
        key = "a11y.move_home"
    else:
        key = "a11y.move_out" if m.enter else "a11y.move"
        if m.captures is not None:
            key += "_capture"
            p["victim_colour"] = m.captures[0]
    said = [say(Text(key, p), lang=lang)]
    if m.forms in ("tower", "barrier"):
        said.append(say(Text(f"term.forms.{m.forms}"), lang=lang))
    if m.bounce:
        said.append(say(Text("term.bounces"), lang=lang))
    return capital(", ".join(said))


def mark_says(m: Move, lang: str) -> str:
    """The landing mark of a move: "Red 2 lands here: square 28", "A red piece comes out
    here, on the start square"."""
    p: dict[str, Any] = {"name": name(m.colour, m.piece + 1), "to": place(m.to)}
    if m.enter:
        key = "a11y.mark_out"
        p["colour"] = m.colour
    elif m.to == HOME:
        key = "a11y.mark_home"
    else:
        key = "a11y.mark"
    if m.captures is not None and m.to != HOME:
        key += "_capture"
        p["victim_colour"] = m.captures[0]
    return capital(say(Text(key, p), lang=lang))


def told(
    actions: Sequence[Action], who_is: Callable[[str], str | Text], lang: str
) -> list[dict[str, Any]]:
    """Each action in words, as the chat narrates it (a roll, a move, a capture, a piece
    home, another roll, the end), numbered by its place in the game's record so that a
    page tells each one once: ``[{"n": 41, "says": "Ana rolled 6."}, ...]``."""
    out = []
    for n, events in actions:
        lines = [say(t, isolated, lang) for t in event_texts(events, who_is)]
        if lines:
            out.append({"n": n, "says": " ".join(lines)})
    return out
