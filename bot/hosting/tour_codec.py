"""A tournament as the store keeps it: compact JSON, read back strictly (every field
of the type and in the range the bot writes, or a ``ValueError``)."""

from __future__ import annotations

import json
from typing import Any

import engine
from engine import LudoError

from . import reading
from .game import User
from .tour_model import (
    FORMATS,
    MAX_ROOMS,
    MAX_TABLES,
    ROUNDS_RANGE,
    SIZE_RANGE,
    STATUSES,
    TOUR_TIMER_RANGE,
    Entrant,
    Table,
    Tournament,
)


def dump(t: Tournament) -> bytes:
    """A tournament as stored: compact JSON."""
    d: dict[str, Any] = {
        "T": 1,
        "id": t.id,
        "ch": t.channel,
        "chat": t.chat,
        "rules": t.rules,
        "opts": t.options,
        "host": [t.host.platform, t.host.id, t.host.name],
        "fmt": t.fmt,
        "size": t.size,
        "rounds": t.rounds,
        "timer": t.timer,
        "lang": t.lang,
        "lvl": t.level,
        "st": t.status,
        "v": t.version,
        "e": [[e.user.platform, e.user.id, e.user.name, e.rating] for e in t.entrants],
        "tb": [
            {"r": x.round, "n": x.number, "p": x.players, "g": x.game, "pl": x.places}
            for x in t.tables
        ],
        "rd": t.round,
        "at": t.created,
    }
    if t.rooms or t.rooms_wanted:
        d["rm"], d["rw"] = t.rooms, t.rooms_wanted
    return json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode()


def load(data: bytes, rev: int = 0) -> Tournament:
    """Read a stored tournament strictly (:class:`ValueError` if anything is off)."""
    try:
        return _read(reading.loads(data), rev)
    except (ValueError, TypeError, KeyError, LudoError, RecursionError) as e:
        raise ValueError(f"unreadable tournament: {e}") from None


def _read(d: dict[str, Any], rev: int) -> Tournament:
    if d.get("T") != 1:
        raise ValueError("not a tournament of this version")
    rules = reading.text(d["rules"], "rules", limit=32)
    opts = d["opts"]
    if not isinstance(opts, dict):
        raise ValueError("opts must be an object")
    engine.rules_for(rules, opts)
    fmt, status = d["fmt"], d["st"]
    if fmt not in FORMATS or status not in STATUSES:
        raise ValueError("unknown format or status")
    entrants = []
    for v in _list(d["e"], SIZE_RANGE[1]):
        if not isinstance(v, list) or len(v) != 4:
            raise ValueError("an entrant must be [platform, id, name, rating]")
        platform, uid, name = reading.person(v[:3], "entrant")
        entrants.append(Entrant(User(platform, uid, name), reading.whole(v[3], -99999, 99999, "r")))
    keys = {e.key for e in entrants}
    if len(keys) != len(entrants):
        raise ValueError("an entrant signed up twice")
    tables = [_table(v, keys) for v in _list(d["tb"], MAX_TABLES)]
    host = User(*reading.person(d["host"], "host"))
    return Tournament(
        id=reading.text(d["id"], "id", limit=64),
        channel=reading.text(d["ch"], "ch", limit=256),
        chat=reading.text(d["chat"], "chat", limit=256),
        rules=rules,
        options=opts,
        host=host,
        fmt=fmt,
        size=reading.whole(d["size"], *SIZE_RANGE, "size"),
        rounds=reading.whole(d["rounds"], 0, ROUNDS_RANGE[1], "rounds"),
        timer=reading.whole(d["timer"], *TOUR_TIMER_RANGE, "timer"),
        lang=reading.language(d["lang"]),
        level=reading.level(d["lvl"], "lvl"),
        status=status,
        version=reading.whole(d["v"], 1, 10**9, "v"),
        entrants=entrants,
        tables=tables,
        round=reading.whole(d["rd"], 0, MAX_TABLES, "rd"),
        created=reading.number(d["at"], "at"),
        rooms=[reading.text(r, "room", limit=256) for r in _list(d.get("rm", []), MAX_ROOMS)],
        rooms_wanted=reading.flag(d.get("rw", False), "rw"),
        rev=rev,
    )


def _list(v: Any, limit: int) -> list[Any]:
    if not isinstance(v, list) or len(v) > limit:
        raise ValueError("a list too long, or not a list")
    return v


def _table(v: Any, keys: set[str]) -> Table:
    if not isinstance(v, dict):
        raise ValueError("a table must be an object")
    players = [reading.text(p, "player", limit=300) for p in _list(v["p"], 4)]
    if len(players) < 2 or not set(players) <= keys or len(set(players)) != len(players):
        raise ValueError("a table's players must be 2 to 4 entrants")
    places = v.get("pl")
    if places is not None:
        if not isinstance(places, dict) or set(places) != set(players):
            raise ValueError("a table's places must name its players")
        places = {k: reading.whole(p, 1, 4, "place") for k, p in places.items()}
    game = v.get("g")
    return Table(
        round=reading.whole(v["r"], 1, MAX_TABLES, "r"),
        number=reading.whole(v["n"], 1, SIZE_RANGE[1], "n"),
        players=players,
        game=reading.text(game, "g", limit=64) if game is not None else None,
        places=places,
    )
