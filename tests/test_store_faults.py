"""Faults in the stores, against real Redis and SQLite: damaged records
written straight into the database (isolated: only that game is affected,
``discard`` frees it), and stores that are down, hung or locked (a
StoreUnavailable within about a second, never a raw client exception, and
back to work as soon as the store is)."""

from __future__ import annotations

import logging
import socket
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

from bot.ops.metrics import STORE_ERRORS
from bot.store import (
    DamagedRecord,
    RedisStore,
    SqliteStore,
    Store,
    Stored,
    StoreError,
    StoreUnavailable,
)
from bot.store.buckets import bucket
from bot.store.redis.connection import RESEND_FOR
from tests.helpers.faults import refusals
from tests.helpers.local_redis import LocalRedis
from tests.helpers.stores import StoreFactory

# -- discard (the contract) ------------------------------------------------------


def test_discard_forgets_the_game_and_frees_its_channel(store: Store) -> None:
    assert store.create("g", b"x", channel="c", due=100.0)
    assert store.save_shown("g", b"notes", 0)
    assert store.create("h", b"y", channel="d", due=100.0)
    store.discard("g", "c")
    assert store.load("g") is None
    assert store.load_in("c") is None
    assert store.channel_game("c") is None
    assert store.save("g", b"late", 1) is False
    assert store.save_shown("g", b"late", 1) is False
    assert store.claim_due(1e9, lease=10) == ["h"]  # its deadline went with it
    assert store.load("h") == Stored(b"y", 1)  # the other game is untouched
    # the channel and the id are free at once, with no trace of the old game
    assert store.create("g2", b"new", channel="c")
    assert store.create("g", b"again", channel="e")
    assert store.load("g") == Stored(b"again", 1)


def test_discard_leaves_a_channel_bound_to_another_game(store: Store) -> None:
    assert store.create("g1", b"x", channel="c")
    store.release_channel("c", "g1")
    assert store.create("g2", b"y", channel="c")
    store.discard("g1", "c")  # g1 no longer holds c
    assert store.channel_game("c") == "g2"
    assert store.load_in("c") == Stored(b"y", 1)
    assert store.load("g1") is None


def test_discard_of_an_unknown_game_is_nothing(store: Store) -> None:
    assert store.create("g", b"x", channel="c")
    store.discard("nope", "nowhere")
    store.discard("nope", "c")  # c is bound to g, not to nope
    assert store.channel_game("c") == "g"
    assert store.load("g") == Stored(b"x", 1)


def test_discard_by_the_games_own_channel_when_another_is_named(store: Store) -> None:
    assert store.create("g", b"x", channel="c")
    store.discard("g", "other")  # the service names the wrong channel: c is freed all the same
    assert store.channel_game("c") is None
    assert store.create("h", b"y", channel="c")


# -- damaged records, written straight into the database -----------------------------

#: how each store's record of a game is damaged: a name for each damage
DAMAGE = ["rev", "expiry", "data", "notes", "fraction", "infinite"]
#: SQLite: the damage as an UPDATE of the game's row (SQLite keeps any type in any column)
SQLITE_DAMAGE = {
    "rev": "UPDATE games SET rev = 'abc' WHERE id = ?",
    "expiry": "UPDATE games SET expires = 'soon' WHERE id = ?",
    "data": "UPDATE games SET data = 'text, not bytes' WHERE id = ?",
    "notes": "UPDATE games SET srev = 'x', shown = 'y' WHERE id = ?",
    "fraction": "UPDATE games SET rev = 1.5 WHERE id = ?",
    "infinite": "UPDATE games SET expires = 9e999 WHERE id = ?",
}
#: Redis: the damage as fields of the game's hash (None: the field is deleted)
REDIS_DAMAGE: dict[str, dict[str, bytes | None]] = {
    "rev": {"rev": b"abc"},
    "expiry": {"exp": b"soon"},
    "data": {"data": None},
    "notes": {"srev": b"x", "shown": b"y"},
    "fraction": {"rev": b"1.5"},
    "infinite": {"exp": b"inf"},
}


def damage(store: Store, factory: StoreFactory, game_id: str, kind: str) -> None:
    """Damage the stored record of ``game_id`` the way ``kind`` says, behind the store's back."""
    if isinstance(store, SqliteStore):
        conn = sqlite3.connect(factory.target)
        try:
            assert conn.execute(SQLITE_DAMAGE[kind], (game_id,)).rowcount == 1
            conn.commit()
        finally:
            conn.close()
        return
    assert isinstance(store, RedisStore)
    raw = redis.Redis.from_url(factory.target)
    try:
        key = f"{store.bucket_base(game_id)}game:{game_id}"
        assert raw.exists(key)
        if kind == "wrongtype":
            raw.delete(key)
            raw.set(key, b"not a hash")
            return
        for field, value in REDIS_DAMAGE[kind].items():
            if value is None:
                raw.hdel(key, field)
            else:
                raw.hset(key, field, value)
    finally:
        raw.close()


def _seven(store: Store, due: float) -> None:
    for i in range(7):
        assert store.create(f"g{i}", f"game {i}".encode(), channel=f"c{i}", due=due + i)


def _damaged_count() -> float:
    return STORE_ERRORS.labels(kind="damaged")._value.get()


def _check_isolated(store: Store, due: float) -> None:
    """g3 is damaged: the six others go on, g3 answers DamagedRecord or no."""
    before = _damaged_count()
    with pytest.raises(DamagedRecord) as err:
        store.load("g3")
    assert err.value.game_id == "g3"
    assert "g3" in str(err.value)
    with pytest.raises(DamagedRecord) as err:
        store.load_in("c3")
    assert err.value.game_id == "g3"
    assert _damaged_count() == before + 2
    # every timer of the six others fires; g3's deadline is skipped and dropped
    assert store.claim_due(due + 100, lease=30) == ["g0", "g1", "g2", "g4", "g5", "g6"]
    assert store.claim_due(due + 1000, lease=30) == ["g0", "g1", "g2", "g4", "g5", "g6"]
    for i in (0, 1, 2, 4, 5, 6):
        assert store.load(f"g{i}") == Stored(f"game {i}".encode(), 1)
        assert store.load_in(f"c{i}") == Stored(f"game {i}".encode(), 1)
        assert store.save(f"g{i}", b"on", 1, due=None)
    # the damaged game holds its id and channel, refuses writes, changes nothing
    assert store.channel_game("c3") == "g3"
    assert store.create("new", b"x", channel="c3") is False
    assert store.create("g3", b"x", channel="elsewhere") is False
    assert store.channel_game("elsewhere") is None
    assert store.save("g3", b"x", 1) is False
    assert store.save_shown("g3", b"x", 0) is False
    with pytest.raises(DamagedRecord):
        store.load("g3")
    # until it is discarded: then its channel and id are free
    store.discard("g3", "c3")
    assert store.load("g3") is None
    assert store.load_in("c3") is None
    assert store.channel_game("c3") is None
    assert store.create("new", b"fresh", channel="c3")
    assert store.load_in("c3") == Stored(b"fresh", 1)
    assert store.create("g3", b"reused", channel="c3b")
    assert store.load("g3") == Stored(b"reused", 1)


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_record_is_isolated(
    store: Store, make_store: StoreFactory, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    due = 1_000.0
    _seven(store, due)
    assert store.save_shown("g3", b"notes", 0)
    damage(store, make_store, "g3", kind)
    with caplog.at_level(logging.WARNING):
        _check_isolated(store, due)
    # the skipped deadline was said once, in one line, without a traceback
    said = [r for r in caplog.records if "g3" in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in caplog.records]
    assert said[0].exc_info is None


def test_redis_a_game_key_of_the_wrong_type_is_isolated(
    redis_store: RedisStore, redis_url: str
) -> None:
    due = 1_000.0
    _seven(redis_store, due)
    factory = StoreFactory("redis", redis_url, redis_store.prefix, time.time)
    damage(redis_store, factory, "g3", "wrongtype")
    _check_isolated(redis_store, due)


def test_redis_a_deadlines_key_of_the_wrong_type_is_moved_aside(
    redis_store: RedisStore, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    _seven(redis_store, 1_000.0)
    raw = redis.Redis.from_url(redis_url)
    try:
        due = f"{redis_store.bucket_base('g1')}due"  # the deadlines of g1's bucket
        raw.delete(due)
        raw.set(due, b"junk")
        kept = [f"g{i}" for i in range(7) if bucket(f"g{i}") != bucket("g1")]
        assert len(kept) >= 5
        with caplog.at_level(logging.WARNING):
            assert redis_store.claim_due(1e9, lease=10) == kept  # that bucket's are lost
        assert raw.get(f"{due}:damaged") == b"junk"
        assert len(caplog.records) == 1 and caplog.records[0].exc_info is None
        # and the timers work again from the next deadline on
        assert redis_store.save("g1", b"x", 1, due=5.0)
        redis_store.schedule("g2", 6.0)
        assert redis_store.claim_due(10.0, lease=10) == ["g1", "g2"]
        due = f"{redis_store.bucket_base('g9')}due"
        raw.delete(due)
        raw.set(due, b"junk again")
        assert redis_store.create("g9", b"x", channel="c9", due=7.0)  # create repairs it too
        assert redis_store.claim_due(10.0, lease=10) == ["g9"]
    finally:
        raw.close()


def test_redis_a_channel_key_of_the_wrong_type_is_no_binding(
    redis_store: RedisStore, redis_url: str
) -> None:
    raw = redis.Redis.from_url(redis_url)
    try:
        raw.hset(f"{redis_store.bucket_base('c')}chan:c", "x", "y")
        assert redis_store.load_in("c") is None
        assert redis_store.channel_game("c") is None
        assert redis_store.create("g", b"x", channel="c")
        assert redis_store.load_in("c") == Stored(b"x", 1)
        d = f"{redis_store.bucket_base('d')}chan:d"
        raw.delete(d)
        raw.rpush(d, "junk")
        redis_store.release_channel("d", "g")
        assert not raw.exists(d)
    finally:
        raw.close()


def test_sqlite_a_deadline_that_is_no_number_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "due.sqlite3"
    with SqliteStore(str(path)) as s:
        _seven(s, 1_000.0)
        conn = sqlite3.connect(path)
        conn.execute("UPDATE deadlines SET due = 'soon' WHERE game_id = 'g3'")
        conn.execute("UPDATE deadlines SET due = x'00' WHERE game_id = 'g5'")
        conn.commit()
        conn.close()
        assert s.claim_due(2_000.0, lease=30, limit=3) == ["g0", "g1", "g2"]
        assert s.claim_due(2_000.0, lease=30) == ["g4", "g6"]
        assert s._conn.execute("SELECT count(*) FROM deadlines").fetchone()[0] == 5
        # the games themselves are fine: only their timers are gone
        assert s.load("g3") == Stored(b"game 3", 1)
        assert s.save("g3", b"again", 1, due=5.0)
        assert s.claim_due(10.0, lease=1) == ["g3"]


def test_sqlite_a_damaged_row_beyond_the_limit_does_not_hide_the_rest(tmp_path: Path) -> None:
    with SqliteStore(str(tmp_path / "many.sqlite3")) as s:
        for i in range(30):
            assert s.create(f"g{i:02d}", b"x", channel=f"c{i}", due=float(i))
        conn = sqlite3.connect(tmp_path / "many.sqlite3")
        conn.execute("UPDATE games SET rev = 'bad' WHERE id IN ('g00', 'g01', 'g02', 'g05')")
        conn.commit()
        conn.close()
        assert s.claim_due(100.0, lease=1000, limit=4) == ["g03", "g04", "g06", "g07"]
        assert s.claim_due(100.0, lease=1000, limit=100) == [f"g{i:02d}" for i in range(8, 30)]


# -- stores that are down, hung or locked --------------------------------------------


def _errors(kind: str) -> float:
    return STORE_ERRORS.labels(kind=kind)._value.get()


def _calls(s: Store) -> list[Callable[[], object]]:
    return [
        lambda: s.load("g"),
        lambda: s.load_in("c"),
        lambda: s.save("g", b"y", 1, due=5.0),
        lambda: s.save_shown("g", b"n", 0),
        lambda: s.create("h", b"x", channel="d"),
        lambda: s.channel_game("c"),
        lambda: s.claim_due(1e9, lease=1),
        lambda: s.schedule("g", 1.0),
        lambda: s.discard("h", "d"),
    ]


def test_redis_down_answers_at_once_and_recovers(
    own_redis: LocalRedis, caplog: pytest.LogCaptureFixture
) -> None:
    s = RedisStore(own_redis.url)
    try:
        assert s.create("g", b"x", channel="c")
        own_redis.stop()
        before = _errors("unreachable")
        with caplog.at_level(logging.DEBUG, logger="bot"):
            for took, refusal in refusals(_calls(s)):
                assert took < 1.0
                assert refusal.kind == "unreachable"
                assert str(refusal).startswith(f"cannot reach Redis at {own_redis.url}: ")
        assert _errors("unreachable") == before + len(_calls(s))
        assert not caplog.records  # the service says it once, not the store each time
        own_redis.restart()  # empty: this server keeps nothing
        assert s.load("g") is None  # the same store works again, without reopening
        assert s.create("g", b"x", channel="c")
        assert s.load_in("c") == Stored(b"x", 1)
    finally:
        s.close()


def test_redis_hung_times_out_in_about_a_second(own_redis: LocalRedis) -> None:
    s = RedisStore(own_redis.url)
    try:
        assert s.create("g", b"x", channel="c")
        own_redis.pause()
        before = _errors("timeout")
        try:
            for call in _calls(s)[:2]:  # a read: one timeout, never sent again
                started = time.monotonic()
                with pytest.raises(StoreUnavailable) as err:
                    call()
                took = time.monotonic() - started
                assert 0.9 < took < 1.8, took
                assert err.value.kind == "timeout" and not err.value.unsure
                assert "did not answer within 1 s" in str(err.value)
            started = time.monotonic()  # a write: sent again until RESEND_FOR is over
            with pytest.raises(StoreUnavailable) as err:
                _calls(s)[2]()
            took = time.monotonic() - started
            assert RESEND_FOR < took < RESEND_FOR + 1.8, took
            assert err.value.kind == "timeout" and err.value.unsure
        finally:
            own_redis.resume()
        assert _errors("timeout") == before + 5  # two reads, three sendings of the save
        # the save reached Redis after its time: not done, as the store said
        assert s.load("g") == Stored(b"x", 1)  # and on it goes
        assert s.save("g", b"y", 1)
    finally:
        s.close()


def test_redis_that_never_answers_at_start_is_refused_in_about_a_second() -> None:
    with socket.socket() as mute:  # takes connections (the kernel does), answers nothing
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        url = f"redis://127.0.0.1:{mute.getsockname()[1]}/0"
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as err:
            RedisStore(url)
        assert time.monotonic() - started < 2.5
        assert err.value.kind == "timeout"


def test_sqlite_locked_times_out_in_about_a_second_and_a_half(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite3"
    s = SqliteStore(str(path))
    try:
        assert s.create("g", b"x", channel="c")
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        before = _errors("timeout")
        try:
            for call in (
                lambda: s.create("h", b"x", channel="d"),
                lambda: s.save("g", b"y", 1, due=5.0),
                lambda: s.discard("g", "c"),
            ):
                started = time.monotonic()
                with pytest.raises(StoreUnavailable) as err:
                    call()
                took = time.monotonic() - started
                assert 1.0 < took < 2.5, took
                assert err.value.kind == "timeout"
                assert str(path) in str(err.value)
            assert s.load("g") == Stored(b"x", 1)  # reading goes on meanwhile (WAL)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert _errors("timeout") == before + 3
        assert s.save("g", b"y", 1)
    finally:
        s.close()


def test_sqlite_file_gone_bad_under_a_running_store_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "gone.sqlite3"
    s = SqliteStore(str(path))
    try:
        assert s.create("g", b"x", channel="c")
        s._conn.execute("PRAGMA query_only = 1")  # as if the file turned read-only
        with pytest.raises(StoreUnavailable) as err:
            s.save("g", b"y", 1)
        assert "readonly" in str(err.value) or "read-only" in str(err.value)
        assert not isinstance(err.value.__cause__, StoreError)
        s._conn.execute("PRAGMA query_only = 0")
        assert s.save("g", b"y", 1)
    finally:
        s.close()
