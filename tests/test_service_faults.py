"""The game service when something is wrong, over a real store (SQLite and Redis): stored
games it cannot read (corrupt, from a newer schema, damaged) let go once wherever they
are met, and a store out of reach refusing every request with one warning."""

from __future__ import annotations

import json
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis

import engine
from bot.hosting import SCHEMA, Intent
from bot.ops.metrics import REGISTRY
from bot.present import Text
from bot.store import Store
from bot.store.base import StoreUnavailable
from tests.helpers.service import (
    ANA,
    BEN,
    CID,
    Clock,
    Flaky,
    buttons,
    current,
    lobby,
    person_on_turn,
    play_out,
    reply_of,
    service,
    started,
    stored_bytes,
)

# --------------------------------------------------------------------------
# stored games from elsewhere


def test_a_corrupt_stored_game_is_refused_and_frees_the_channel(store: Store) -> None:
    assert store.create("deadbeef", b"\x00not json{", channel="chan")
    svc = service(store)
    r = svc.roll("chan", ANA)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert r.channel == "chan" and r.chat == [Text("game.damaged")]  # the chat is told
    # it is gone: its buttons find no game, and a new game may start here
    r = svc.press("chan", ANA, "g:deadbeef:1:r")
    assert r.refused and r.lines[0].key == "refuse.no_game" and not r.chat
    assert store.load("deadbeef") is None and store.channel_game("chan") is None
    assert not svc.new_game("chan", ANA, "classic").refused


def test_a_game_from_a_newer_schema_is_refused_clearly(store: Store) -> None:
    svc, _ = lobby(store)
    game = current(svc, "chan")
    data = json.loads(stored_bytes(store, game.id))
    data["schema"] = SCHEMA + 1
    stored = store.load(game.id)
    assert stored is not None and store.save(game.id, json.dumps(data).encode(), stored.rev)
    r = svc.join("chan", BEN)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert "newer" in r.lines[0].params["why"]
    # not damaged, only newer: a worker of the newer version plays it on
    assert not r.chat and store.load(game.id) is not None
    assert store.channel_game("chan") == game.id
    assert svc.new_game("chan", BEN).refused
    assert not svc.fire_due()


def test_a_game_costs_few_bytes_in_the_store(store: Store) -> None:
    svc, reply = started(store, seats=2, computers=2)
    reply = play_out(svc, "chan", reply)
    stored = store.load(reply.game_id or "")
    assert stored is not None
    # a whole finished game, with its record, in well under 4 KB
    assert len(stored.data) < 4096, len(stored.data)


# --------------------------------------------------------------------------
# a damaged game is let go, once, wherever it is met


def damage(store: Store, game_id: str, **change: Any) -> None:
    """Save the game with some of its fields changed (as a bad disk or hand would)."""
    stored = store.load(game_id)
    assert stored is not None
    doc = json.loads(stored.data) | change
    assert store.save(game_id, json.dumps(doc).encode(), stored.rev)


def damage_warnings(caplog: pytest.LogCaptureFixture, game_id: str) -> list[str]:
    """The service's warnings naming ``game_id`` (the store may say what it skipped)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING
        and r.name == "bot.service.faults"
        and game_id in r.getMessage()
    ]


@pytest.mark.parametrize("met_by", ["press", "command", "look", "timer", "open"])
def test_a_damaged_game_is_let_go_once_and_its_chat_told(
    store: Store, caplog: pytest.LogCaptureFixture, met_by: str
) -> None:
    clock = Clock()
    svc, reply = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    damage(store, game.id, seats=[1])
    clock.advance(50)
    caplog.set_level(logging.WARNING)
    raw = svc.svc
    if met_by == "press":
        outcome = raw.press("chan", BEN, game.id, game.version, Intent("roll"))
    elif met_by == "command":
        outcome = raw.act("chan", BEN, Intent("roll"))
    elif met_by == "look":
        outcome = raw.look("chan")
    elif met_by == "timer":
        [outcome] = raw.fire_due()
    else:
        outcome = raw.open("chan", BEN)
    if met_by == "open":  # a new game opens at once in its place
        assert outcome.game is not None and not outcome.refused
        assert outcome.game.id != game.id
    else:
        assert outcome.game is None and outcome.freed == "chan" and outcome.channel == "chan"
        key = None if met_by == "timer" else "refuse.damaged"
        assert (outcome.refusal.key if outcome.refusal else None) == key
        assert reply_of(outcome).chat == [Text("game.damaged")]
        assert store.channel_game("chan") is None
    [warning] = damage_warnings(caplog, game.id)
    assert "damaged" in warning and "chan" in warning
    # gone for good: met again, nothing more is logged
    assert store.load(game.id) is None
    r = svc.press("chan", BEN, buttons(reply).get("btn.roll", f"g:{game.id}:1:r"))
    assert r.refused and r.lines[0].key in ("refuse.no_game", "refuse.bad_button")
    assert svc.fire_due() == [] and raw.look("chan").freed is None
    assert len(damage_warnings(caplog, game.id)) == 1
    if met_by != "open":
        assert not svc.new_game("chan", BEN).refused


DAMAGE: dict[str, Any] = {
    "seats": {"seats": [1]},
    "version": {"ver": "abc"},
    "deadline": {"due": "soon"},
    "state": {"state": {"v": 1, "rules": "classic", "players": ["red"], "pieces": {}}},
    "deep": None,  # nested deeper than any parser goes
    "torn": None,  # a write cut short: not JSON any more
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_one_damaged_game_among_seven_stops_no_other_timer(
    store: Store, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    clock = Clock()
    svc = service(store, clock=clock)
    ids = {}
    for k in range(7):
        channel = f"c{k}"
        svc.new_game(channel, ANA, timer=45)
        svc.join(channel, BEN)
        assert not svc.start(channel, ANA).refused
        ids[channel] = current(svc, channel).id
    bad = ids["c3"]
    if DAMAGE[kind] is not None:
        damage(store, bad, **DAMAGE[kind])
    else:
        stored = store.load(bad)
        assert stored is not None
        data = b"[" * 100_000 if kind == "deep" else stored.data[: len(stored.data) // 2]
        assert store.save(bad, data, stored.rev)
    clock.advance(50)
    caplog.set_level(logging.WARNING)
    fired: dict[str | None, list[str]] = {}
    for _ in range(2):
        for r in svc.fire_due():
            fired.setdefault(r.channel, []).extend(t.key for t in r.lines)
    healthy = [c for c in ids if c != "c3"]
    assert all(fired.get(c, [])[:1] == ["timer.expired"] for c in healthy), fired
    if kind == "deep":  # nothing says which chat it was in: it is freed, silently
        assert "c3" not in fired and store.channel_game("c3") is None
    else:
        assert fired["c3"] == ["game.damaged"]
    assert len(damage_warnings(caplog, bad)) == 1
    assert not svc.new_game("c3", CID).refused


def test_a_record_the_store_cannot_read_is_let_go_too(
    make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = make_store()
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    _others, _ = started(store, seats=2, timer=45, clock=clock, channel="other")
    game = current(svc, "chan")
    if make_store.kind == "redis":
        client = redis.Redis.from_url(make_store.target)
        [key] = client.scan_iter(match=f"{make_store.prefix}*game:{game.id}")
        client.hset(key, "rev", "abc")
        client.close()
    else:
        with sqlite3.connect(make_store.target) as db:
            db.execute("UPDATE games SET rev = 'abc' WHERE id = ?", (game.id,))
    clock.advance(50)
    caplog.set_level(logging.WARNING)
    fired = svc.fire_due()  # the other game's timer fires
    assert [(r.channel, r.lines[0].key) for r in fired] == [("other", "timer.expired")]
    r = svc.roll("chan", ANA)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert r.channel == "chan" and r.chat == [Text("game.damaged")]
    assert len(damage_warnings(caplog, game.id)) == 1
    assert not svc.new_game("chan", CID).refused


# --------------------------------------------------------------------------
# the store out of reach


def store_up() -> float | None:
    return REGISTRY.get_sample_value("ludo_store_reachable")


def test_an_unreachable_store_refuses_every_request_and_warns_once(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    flaky = Flaky(store)
    clock = Clock()
    svc, _reply = started(flaky, seats=2, timer=45, clock=clock)
    raw = svc.svc
    raw.outage.settle = 0  # over at the first answer
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None and raw.store_reachable and store_up() == 1
    caplog.set_level(logging.INFO, logger="bot")
    flaky.down = True
    clock.advance(50)
    for _ in range(3):
        for outcome in (
            raw.open("elsewhere", ANA),
            raw.act("chan", user, Intent("roll")),
            raw.press("chan", user, game.id, game.version, Intent("roll")),
            raw.look("chan"),
        ):
            assert outcome.refusal is not None and outcome.refusal.key == "refuse.store_down"
            assert outcome.game is None and outcome.freed is None
        assert raw.get(game.id) is None and raw.game_in("chan") is None
        assert raw.shown(game.id) is None and raw.movable("chan", user) == []
        assert raw.note_shown(game.id, b"x", 0) is False
        assert raw.fire_due() == []
    assert not raw.store_reachable and not raw.store_answered and store_up() == 0
    assert flaky.failed >= 30
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        f"the game store is unreachable: {StoreUnavailable('cannot reach the store (a test)')}"
    ]
    # back: the same press works, the timer fires, and that is said once
    flaky.down = False
    r = svc.roll("chan", user)
    assert not r.refused, r.lines
    assert raw.store_reachable and store_up() == 1
    assert svc.fire_due() == []  # the roll came in time for its new deadline
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and said[1].startswith("the game store is back after ")
    assert all(r.exc_info is None for r in caplog.records)  # no tracebacks


def test_an_outage_is_told_once_however_many_threads_meet_it(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    flaky = Flaky(store)
    svc, _ = started(flaky, seats=2)
    raw = svc.svc
    raw.outage.settle = 0
    caplog.set_level(logging.WARNING, logger="bot")
    flaky.down = True

    def presses() -> list[str]:
        return [raw.act("chan", ANA, Intent("roll")).refusal.key for _ in range(30)]

    with ThreadPoolExecutor(8) as pool:
        keys = [k for got in pool.map(lambda _: presses(), range(8)) for k in got]
    assert keys == ["refuse.store_down"] * 240
    flaky.down = False
    with ThreadPoolExecutor(8) as pool:
        looks = list(pool.map(lambda _: raw.look("chan"), range(16)))
    assert all(o.game is not None for o in looks)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert "unreachable" in said[0] and "back after" in said[1]


def test_a_state_the_engine_refuses_is_damage_but_a_bug_keeps_the_game(
    store: Store, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.service.turns

    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    _others, _ = started(store, seats=2, timer=45, clock=clock, channel="other")
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None
    caplog.set_level(logging.WARNING)

    def bug(*args: Any) -> None:
        raise KeyError("a bug")

    # a bug: logged with its traceback, refused "try again", the game kept
    monkeypatch.setattr(bot.service.turns, "perform", bug)
    r = svc.roll("chan", user)
    assert r.refused and r.lines[0].key == "refuse.busy" and not r.chat
    assert any(rec.exc_info is not None for rec in caplog.records)
    monkeypatch.setattr(bot.service.turns, "timeout", bug)
    clock.advance(50)
    assert svc.fire_due() == []  # both timers fail; neither game is lost
    assert store.load(game.id) is not None and store.channel_game("chan") == game.id
    monkeypatch.undo()

    # the engine refusing the state: the game cannot go on, and is let go
    def refused(*args: Any) -> None:
        raise engine.RecordError("state: a piece where none can be")

    monkeypatch.setattr(bot.service.turns, "perform", refused)
    r = svc.roll("chan", user)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert r.channel == "chan" and r.chat == [Text("game.damaged")]
    assert store.load(game.id) is None
    monkeypatch.undo()
    clock.advance(50)
    assert [r.channel for r in svc.fire_due()] == ["other"]
