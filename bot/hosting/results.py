"""What a finished game leaves behind for the stats: one entry per seat.

:func:`entries` reads a game played to the end (its record replayed through
the engine, so the counts are the rules' own) into one small entry per seat,
keyed by who played it: a person (``telegram:123``) or a computer
(``computer:red``).  A seat a person left (or lost to the timer) was the
computer's at the end, but counts as played by that person: leaving a game
that is going badly does not keep it out of their stats or their rating.
:func:`read_entry` reads one back; anything unreadable is skipped by the
caller, never shown.  Entries kept before the ratings have no game, team or
level: they read as a game of their own finishing time, no team, ``normal``.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import engine
from engine import HOME

from .game import OVER, Game, Seat, User

#: who played a computer's seat: ``computer:<colour>``
COMPUTER = "computer"


def person_key(user: User) -> str:
    """The key a person's stats are kept under."""
    return f"{user.platform}:{user.id}"


def seat_key(seat: Seat) -> str:
    """Who a seat's result counts for: the person in it, or who left it, or its computer."""
    person = seat.user or seat.was
    return person_key(person) if person is not None else f"{COMPUTER}:{seat.colour}"


@dataclass(frozen=True)
class Entry:
    """One seat of one finished game."""

    #: the name shown then (a computer's is empty)
    name: str
    rules: str
    #: Unix time the game finished
    finished: float
    #: 1 = first
    place: int
    won: bool
    #: seats at the table
    seats: int
    captures: int
    captured: int
    sixes: int
    home: int
    computer: bool
    #: the kept game's key (one game's entries are rated together); "" if kept before
    game: str = ""
    #: the seat's team in a team game (0: red and yellow, 1: green and blue), else -1
    team: int = -1
    #: a computer's level
    level: str = "normal"

    def to_bytes(self) -> bytes:
        return json.dumps(
            {
                "n": self.name,
                "r": self.rules,
                "f": round(self.finished, 3),
                "p": self.place,
                "w": int(self.won),
                "s": self.seats,
                "cm": self.captures,
                "cs": self.captured,
                "6": self.sixes,
                "h": self.home,
                "c": int(self.computer),
                "g": self.game,
                "t": self.team,
                "l": self.level,
            },
            separators=(",", ":"),
            ensure_ascii=False,
        ).encode()


def read_entry(data: bytes) -> Entry | None:
    """An entry as kept, or None if it cannot be read."""
    try:
        d = json.loads(data)
        entry = Entry(
            name=str(d["n"]),
            rules=str(d["r"]),
            finished=float(d["f"]),
            place=int(d["p"]),
            won=bool(d["w"]),
            seats=int(d["s"]),
            captures=int(d["cm"]),
            captured=int(d["cs"]),
            sixes=int(d["6"]),
            home=int(d["h"]),
            computer=bool(d["c"]),
            game=str(d.get("g", "")),
            team=int(d.get("t", -1)),
            level=str(d.get("l", "normal")),
        )
    except (ValueError, TypeError, KeyError):
        return None
    numbers = (entry.place, entry.seats, entry.captures, entry.captured, entry.sixes, entry.home)
    if entry.team not in (-1, 0, 1) or len(entry.game) > 64 or len(entry.level) > 16:
        return None
    return entry if min(numbers) >= 0 and entry.rules in engine.RULE_SETS else None


def entries(game: Game, finished: float) -> dict[str, bytes]:
    """The stats of ``game`` (played to the end, else none), one entry per seat
    (see :func:`seat_key`)."""
    state = game.state
    places = state.places if state is not None else None
    if game.status != OVER or state is None or places is None:
        return {}
    counts = _counts(game.record())
    winners = set(state.winner or ())
    teams = bool(state.options.teams)
    out: dict[str, bytes] = {}
    for seat in game.seats:
        colour = seat.colour or ""
        person = seat.user or seat.was
        out[seat_key(seat)] = Entry(
            name=person.name if person is not None else "",
            rules=game.rules,
            finished=finished,
            place=places.get(colour, len(game.seats)),
            won=colour in winners,
            seats=len(game.seats),
            captures=counts[("capture", colour)],
            captured=counts[("captured", colour)],
            sixes=counts[("six", colour)],
            home=state.pieces.get(colour, ()).count(HOME),
            computer=person is None,
            game=game.key,
            team=engine.COLOURS.index(colour) % 2 if teams and colour in engine.COLOURS else -1,
            level=seat.level,
        ).to_bytes()
    return out


def _counts(record: dict[str, Any]) -> Counter[tuple[str, str]]:
    """(what, colour) -> how often in the game: captures made, captured, sixes rolled."""
    counts: Counter[tuple[str, str]] = Counter()
    state = engine.start_of(record)
    for action in record["actions"]:
        state, events = engine.apply(state, action)
        for e in events:
            if e.kind == "roll" and e.die == 6:
                counts["six", e.colour] += 1
            elif e.kind == "capture":
                counts["capture", e.colour] += 1
                if e.target is not None:
                    counts["captured", e.target[0]] += 1
    return counts
