"""Reading a stored game strictly: every field of the type and in the range the
bot writes, or a ``ValueError`` saying which is not.

A stored game comes from outside the process (another version, a hand edit, a
damaged disk), so nothing in it is trusted: :meth:`bot.hosting.Game.from_bytes`
reads it through these checks, and the game it builds is one every step of
hosting, the presenter and the renderer can use without meeting a surprise.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from engine import HOME

from ..players import LEVELS

#: the characters of a game's record (see ``encode_action``)
ACTIONS = frozenset("123456abcdef")
#: no Unix time (deadline, creation) in a stored game is beyond this
LATEST = 1e11


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def loads(data: bytes) -> dict[str, Any]:
    """The JSON object in ``data`` (no NaN or Infinity)."""
    d = json.loads(data, parse_constant=_constant)
    if not isinstance(d, dict):
        raise ValueError("not a JSON object")
    return d


def text(v: Any, what: str, *, empty: bool = False, limit: int = 1000) -> str:
    if not isinstance(v, str) or (not v and not empty) or len(v) > limit:
        raise ValueError(f"{what} must be a string")
    return v


def whole(v: Any, low: int, high: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high}")
    return v


def number(v: Any, what: str) -> float:
    """A time or duration: a finite number, not negative, not absurdly far."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{what} must be a number")
    if not (math.isfinite(v) and 0 <= v <= LATEST):
        raise ValueError(f"{what} is out of range")
    return float(v)


def flag(v: Any, what: str) -> bool:
    if v not in (True, False, 0, 1) or isinstance(v, float):
        raise ValueError(f"{what} must be true or false")
    return bool(v)


def person(v: Any, what: str) -> tuple[str, str, str]:
    """A stored user: ``[platform, id, name]``."""
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError(f"{what} must be [platform, id, name]")
    return (text(v[0], what), text(v[1], what), text(v[2], what, empty=True))


def colour(v: Any, colours: tuple[str, ...], what: str) -> str:
    if not isinstance(v, str) or v not in colours:
        raise ValueError(f"{what} must be one of the game's colours")
    return v


def language(v: Any) -> str:
    """A catalog's language (``en``, ``pt_BR``): letters and underscores only."""
    lang = text(v, "lang", limit=16)
    if not lang.replace("_", "").isascii() or not lang.replace("_", "").isalpha():
        raise ValueError("lang must name a language")
    return lang


def level(v: Any, what: str) -> str:
    """A computer level: one of :data:`bot.players.LEVELS`."""
    if not isinstance(v, str) or v not in LEVELS:
        raise ValueError(f"{what} must be one of {', '.join(LEVELS)}")
    return v


def word(v: Any, what: str) -> str:
    """A short name made of ASCII letters (a theme)."""
    name = text(v, what, limit=32)
    if not name.isascii() or not name.isalpha():
        raise ValueError(f"{what} must be a word")
    return name


def actions(v: Any) -> str:
    record = text(v, "acts", empty=True, limit=1_000_000)
    if not set(record) <= ACTIONS:
        raise ValueError("unreadable actions")
    return record


def last(v: Any, colours: tuple[str, ...]) -> dict[str, Any]:
    """What the last board shows: ``{"move": [colour, piece, from, to(, colour,
    square)], "roll": [colour, die]}``, each optional (nothing before a start)."""
    if v is None:
        return {}
    if not isinstance(v, dict) or set(v) - {"move", "roll"}:
        raise ValueError("last must hold a move and a roll")
    if v and not colours:
        raise ValueError("a last move in a game not started")
    out: dict[str, Any] = {}
    if "move" in v:
        m = v["move"]
        if not isinstance(m, list) or len(m) not in (4, 6):
            raise ValueError("last move must be [colour, piece, from, to]")
        out["move"] = [
            colour(m[0], colours, "last move"),
            whole(m[1], 0, 5, "last move's piece"),
            whole(m[2], 0, HOME, "last move's start"),
            whole(m[3], 0, HOME, "last move's end"),
        ]
        if len(m) == 6:
            out["move"] += [colour(m[4], colours, "capture"), whole(m[5], 0, HOME, "capture")]
    if "roll" in v:
        r = v["roll"]
        if not isinstance(r, list) or len(r) != 2:
            raise ValueError("last roll must be [colour, die]")
        out["roll"] = [colour(r[0], colours, "last roll"), whole(r[1], 1, 6, "last roll's die")]
    return out


def start(v: Any, colours: tuple[str, ...]) -> dict[str, Any] | None:
    """Where the record starts: ``{"players", "position", "turn"}`` (None before a start)."""
    if v is None:
        return None
    if not isinstance(v, dict) or set(v) != {"players", "position", "turn"}:
        raise ValueError("start must hold players, position and turn")
    players = v["players"]
    if not isinstance(players, list) or sorted(players) != sorted(colours):
        raise ValueError("start's players are not the game's")
    position = v["position"]
    if not isinstance(position, dict) or set(position) != set(colours):
        raise ValueError("start's position is not the game's")
    for pieces in position.values():
        if not isinstance(pieces, list) or not 1 <= len(pieces) <= 6:
            raise ValueError("start's position must list the pieces")
        for square in pieces:
            whole(square, 0, HOME, "start's position")
    return {
        "players": list(players),
        "position": {c: list(p) for c, p in position.items()},
        "turn": colour(v["turn"], colours, "start's turn"),
    }


def rated(v: Any, colours: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """A finished game's new ratings: colour -> [rating, change]."""
    if not isinstance(v, dict):
        raise ValueError("rt must be an object")
    out: dict[str, tuple[int, int]] = {}
    for c, pair in v.items():
        colour(c, colours, "a rated colour")
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError("a rating must be [rating, change]")
        shown, change = pair
        out[c] = (whole(shown, -(10**5), 10**5, "rating"), whole(change, -(10**5), 10**5, "change"))
    return out


def season(v: Any) -> tuple[str, str, tuple[tuple[str, str, int], ...]]:
    """A season's podium: ["YYYY-MM", rule set, [[who, name, rating], ...]] (three at most)."""
    if not isinstance(v, list) or len(v) != 3 or not isinstance(v[2], list) or len(v[2]) > 3:
        raise ValueError("ss must be [month, rules, [[who, name, rating], ...]]")
    month, rules, podium = text(v[0], "a season's month", limit=7), word(v[1], "rules"), v[2]
    if len(month) != 7 or month[4] != "-" or not (month[:4] + month[5:]).isdigit():
        raise ValueError("a season's month must be YYYY-MM")
    places = []
    for p in podium:
        if not isinstance(p, list) or len(p) != 3:
            raise ValueError("a podium place must be [who, name, rating]")
        places.append(
            (
                text(p[0], "a podium person", limit=200),
                text(p[1], "a podium name", empty=True, limit=200),
                whole(p[2], -(10**5), 10**5, "rating"),
            )
        )
    return month, rules, tuple(places)


def tour(v: Any) -> tuple[str, int, int]:
    """A tournament's table: ``[tournament id, round, table number]``."""
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError("tr must be [tournament, round, table]")
    return (text(v[0], "tr", limit=64), whole(v[1], 1, 999, "tr"), whole(v[2], 1, 99, "tr"))


def brief(e: BaseException) -> str:
    """An exception in one short line (a malformed value may be huge)."""
    said = f"{type(e).__name__}: {e}"
    return said if len(said) <= 200 else said[:199] + "…"


def salvage(data: bytes, key: str) -> str | None:
    """The plain string value of ``key`` still readable in the bytes of a damaged
    game (``"chan":"tg:-100"``), or None."""
    if not isinstance(data, bytes | bytearray):
        return None
    found = re.search(rb'"' + re.escape(key.encode()) + rb'":"([^"\\\x00-\x1f]{1,200})"', data)
    if found is None:
        return None
    try:
        return found.group(1).decode()
    except UnicodeDecodeError:
        return None
