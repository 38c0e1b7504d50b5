"""Finished games kept for good (``keep``, ``last_game``, ``entries``,
``forget``), run against SQLite and Redis (the ``store`` and ``make_store``
fixtures), plus what only one of them has: the Redis key layout and a
Redis Cluster node, outages, SQLite's one transaction and the upgrade of a
file of schema version 2."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
from redis.crc import key_slot

from bot.store import (
    Kept,
    RedisStore,
    Shown,
    SqliteStore,
    Store,
    Stored,
    StoreError,
    StoreUnavailable,
)
from bot.store.buckets import bucket
from bot.store.sqlite.store import SCHEMA_VERSION
from tests.helpers.counting_store import CountingStore
from tests.helpers.faults import refusals
from tests.helpers.local_redis import LocalRedis, redis_binary
from tests.helpers.stores import StoreFactory, old_schema

ANA, BEN = "telegram:1", "telegram:2"


def kept(
    key: str,
    finished: float,
    *,
    chat: str = "chat",
    channel: str = "chan",
    game: bytes | None = None,
    entries: dict[str, bytes] | None = None,
) -> Kept:
    """A finished game to keep: by default Ana and Ben played it, each entry
    naming the game and the seat."""
    if entries is None:
        entries = {who: f"{key}/{who}".encode() for who in (ANA, BEN)}
    data = f"game {key}".encode() if game is None else game
    return Kept(key=key, chat=chat, channel=channel, finished=finished, game=data, entries=entries)


def of(k: Kept) -> list[tuple[str, bytes]]:
    """What ``entries`` gives for the game ``k``: its entries by who."""
    return sorted(k.entries.items())


# -- keep and entries -------------------------------------------------------------------


def test_keep_then_entries_oldest_game_first(store: Store) -> None:
    late = kept("late", 300.0)
    early = kept("early", 100.0, entries={BEN: b"b", "computer:red": b"\x00r", ANA: b"a"})
    other = kept("other", 200.0, chat="elsewhere", channel="c2")
    assert store.keep(late) is True
    assert store.keep(other) is True
    assert store.keep(early) is True  # kept later, finished earlier
    assert store.entries("chat") == [
        ("computer:red", b"\x00r"),
        (ANA, b"a"),
        (BEN, b"b"),
        *of(late),
    ]
    assert store.entries("elsewhere") == of(other)  # the chats are not mixed
    assert store.entries("nowhere") == []


def test_chats_lists_every_chat_with_a_kept_game_once(store: Store) -> None:
    assert store.chats() == []
    store.keep(kept("a", 100.0, chat="tg:-2"))
    store.keep(kept("b", 200.0, chat="dc-guild:7", channel="dc:8"))
    store.keep(kept("c", 300.0, chat="tg:-2", channel="other"))
    store.keep(kept("d", 300.0, chat="tg:-1:5", channel="tg:-1:5", entries={}))
    assert store.chats() == ["dc-guild:7", "tg:-1:5", "tg:-2"]
    store.keep(kept("a", 100.0, chat="tg:-9"))  # kept before: refused, no new chat
    assert "tg:-9" not in store.chats()


def test_entries_since_filters_by_finished_time(store: Store) -> None:
    games = [kept(f"g{i}", 100.0 * i) for i in (1, 2, 3)]
    for k in games:
        assert store.keep(k)
    assert store.entries("chat", since=0.0) == of(games[0]) + of(games[1]) + of(games[2])
    assert store.entries("chat", since=200.0) == of(games[1]) + of(games[2])  # at or after
    assert store.entries("chat", since=200.5) == of(games[2])
    assert store.entries("chat", since=300.0) == of(games[2])
    assert store.entries("chat", since=1e12) == []


def test_games_finished_at_the_same_time_come_by_key(store: Store) -> None:
    for key in ("b", "a", "c"):
        assert store.keep(kept(key, 50.0, entries={ANA: key.encode()}))
    assert store.entries("chat") == [(ANA, b"a"), (ANA, b"b"), (ANA, b"c")]


def test_keep_twice_is_refused_and_writes_nothing(store: Store) -> None:
    first = kept("g", 100.0)
    assert store.keep(first) is True
    again = kept("g", 500.0, chat="chat", game=b"other", entries={ANA: b"x", "new": b"y"})
    assert store.keep(again) is False
    assert store.keep(kept("g", 600.0, chat="elsewhere", channel="c2")) is False
    assert store.entries("chat") == of(first)  # nothing duplicated, nothing changed
    assert store.entries("elsewhere") == []
    assert store.last_game("chan") == b"game g"
    assert store.last_game("c2") is None
    assert store.forget("new") == 0


def test_a_game_without_entries_is_kept(store: Store) -> None:
    assert store.keep(kept("g", 100.0, entries={}))
    assert store.entries("chat") == []
    assert store.last_game("chan") == b"game g"
    assert store.keep(kept("g", 100.0, entries={})) is False


def test_entries_and_games_round_trip_exactly(store: Store) -> None:
    blob = bytes(range(256)) * 40
    assert store.keep(kept("g", 1.5, game=blob, entries={ANA: blob, BEN: b"", "ü ♜": b"\xff"}))
    assert store.last_game("chan") == blob
    found = store.entries("chat")
    assert found == [(ANA, blob), (BEN, b""), ("ü ♜", b"\xff")]
    assert all(type(who) is str and type(entry) is bytes for who, entry in found)


def test_names_with_separators_are_not_mixed(store: Store) -> None:
    # chats, channels, keys and people that run into each other when joined by ":"
    a = kept("k:1", 10.0, chat="tg:1", channel="tg:1", entries={"tg:1": b"a", "tg:1:x": b"ax"})
    b = kept("1", 20.0, chat="tg:1:k", channel="tg:1:k", entries={"tg:1": b"b"})
    c = kept("k", 30.0, chat="tg", channel="tg", entries={"1:tg:1": b"c"})
    for k in (a, b, c):
        assert store.keep(k)
    assert store.entries("tg:1") == of(a)
    assert store.entries("tg:1:k") == of(b)
    assert store.entries("tg") == of(c)
    assert [store.last_game(ch) for ch in ("tg:1", "tg:1:k", "tg")] == [
        b"game k:1",
        b"game 1",
        b"game k",
    ]
    assert store.forget("tg:1") == 2
    assert store.entries("tg:1") == [("tg:1:x", b"ax")]
    assert store.entries("tg:1:k") == []
    assert store.entries("tg") == of(c)


# -- the last game of a channel -----------------------------------------------------------


def test_last_game_is_the_newest_finished(store: Store) -> None:
    assert store.last_game("chan") is None
    assert store.keep(kept("g1", 200.0))
    assert store.last_game("chan") == b"game g1"
    assert store.keep(kept("g0", 100.0))  # finished earlier, kept later: not the last
    assert store.last_game("chan") == b"game g1"
    assert store.keep(kept("g2", 300.0))
    assert store.last_game("chan") == b"game g2"
    assert store.keep(kept("h", 50.0, channel="other"))  # each channel its own
    assert store.last_game("other") == b"game h"
    assert store.last_game("chan") == b"game g2"
    assert store.entries("chat") == [e for k in ("h", "g0", "g1", "g2") for e in of(kept(k, 0))]


def test_one_chat_many_channels(store: Store) -> None:
    # a Discord server: one chat, a channel for each game
    assert store.keep(kept("a", 10.0, channel="c1"))
    assert store.keep(kept("b", 20.0, channel="c2"))
    assert store.last_game("c1") == b"game a"
    assert store.last_game("c2") == b"game b"
    assert store.entries("chat") == of(kept("a", 10.0)) + of(kept("b", 20.0))


# -- forget -----------------------------------------------------------------------------


def test_forget_deletes_only_that_persons_entries_in_every_chat(store: Store) -> None:
    assert store.keep(kept("g1", 10.0))
    assert store.keep(kept("g2", 20.0, chat="two", channel="c2"))
    assert store.keep(kept("g3", 30.0, chat="three", channel="c3", entries={BEN: b"b3"}))
    assert store.keep(kept("g4", 40.0))
    assert store.forget(ANA) == 3
    assert store.entries("chat") == [(BEN, b"g1/" + BEN.encode()), (BEN, b"g4/" + BEN.encode())]
    assert store.entries("two") == [(BEN, b"g2/" + BEN.encode())]
    assert store.entries("three") == [(BEN, b"b3")]
    assert store.forget(ANA) == 0
    assert store.forget("nobody") == 0
    assert store.last_game("chan") == b"game g4"  # the games themselves stay
    # a game kept afterwards counts again, and is forgotten again
    assert store.keep(kept("g5", 50.0))
    assert store.entries("chat", since=50.0) == of(kept("g5", 50.0))
    assert store.forget(ANA) == 1
    assert store.forget(BEN) == 5
    assert store.entries("chat") == []


def test_forget_leaves_the_key_kept(store: Store) -> None:
    assert store.keep(kept("g", 10.0, entries={ANA: b"a"}))
    assert store.forget(ANA) == 1
    assert store.keep(kept("g", 10.0, entries={ANA: b"a"})) is False
    assert store.entries("chat") == []


# -- kept for good ------------------------------------------------------------------------


def _keep_some(s: Store) -> None:
    assert s.keep(kept("g1", 10.0))
    assert s.keep(kept("g2", 20.0, chat="two", channel="c2"))


def _check_some(s: Store) -> None:
    assert s.entries("chat") == of(kept("g1", 10.0))
    assert s.entries("two") == of(kept("g2", 20.0))
    assert s.last_game("chan") == b"game g1"
    assert s.last_game("c2") == b"game g2"


def test_kept_games_survive_reopening(make_store: StoreFactory) -> None:
    first = make_store()
    _keep_some(first)
    first.close()
    second = make_store()  # the same file; on Redis a new client on the same server
    _check_some(second)
    assert second.keep(kept("g1", 10.0)) is False
    assert second.forget(ANA) == 2
    second.close()
    third = make_store()
    assert third.entries("chat") == [(BEN, b"g1/" + BEN.encode())]


def test_kept_games_outlive_the_games(make_store: StoreFactory) -> None:
    s = make_store(ttl=0.3, clock=time.time)
    assert s.create("g1", b"playing", channel="chan")
    assert s.save("g1", b"over", 1, due=None, release=True)
    _keep_some(s)
    time.sleep(0.6)  # past the ttl, by the real clock (and Redis's own expiry)
    assert s.load("g1") is None
    assert s.load_in("chan") is None
    if isinstance(s, SqliteStore):
        assert s.purge() == 1  # the expired row is deleted ...
    else:
        raw = redis.Redis.from_url(make_store.target)
        try:
            assert not raw.exists(f"{s.base}game:g1")  # ... the expired key is gone
        finally:
            raw.close()
    _check_some(s)  # ... the kept games stay
    assert s.create("g1", b"again", channel="chan")  # the id is free for a new game
    _check_some(s)


def test_many_stores_keep_one_game_once(make_store: StoreFactory) -> None:
    stores = [make_store() for _ in range(6)]
    results: list[bool | BaseException] = []

    def keep(s: Store) -> None:
        try:
            results.append(s.keep(kept("g", 10.0)))
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=keep, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(results, key=repr) == [False] * 5 + [True]
    assert stores[0].entries("chat") == of(kept("g", 10.0))


def test_the_counting_store_counts_and_hands_on(store: Store) -> None:
    counting = CountingStore(store)
    assert counting.keep(kept("g", 10.0))
    assert counting.last_game("chan") == b"game g"
    assert counting.entries("chat", since=5.0) == of(kept("g", 10.0))
    assert counting.forget(ANA) == 1
    assert counting.calls == {"keep": 1, "last_game": 1, "entries": 1, "forget": 1}


# -- Redis: the keys ------------------------------------------------------------------------


def test_redis_key_layout(redis_store: RedisStore, redis_url: str) -> None:
    # a chat's kept games under its bucket's hash tag; the indexes that find them
    # under the channel's and each person's; the kept keys bot-wide
    at = redis_store.bucket_base
    p = at("tg:5")
    assert p == f"{redis_store.prefix}{{{redis_store.prefix.rstrip(':')}.{bucket('tg:5')}}}:"
    assert redis_store.keep(kept("k:1", 10.0, chat="tg:5", channel="tg:5:7"))
    raw = redis.Redis.from_url(redis_url)
    try:
        assert set(raw.hkeys(f"{p}kept")) == {b"k:1"}
        assert set(raw.hkeys(f"{redis_store.base}kept")) == {b"k:1"}
        assert raw.hgetall(f"{p}stats:k:1") == {
            ANA.encode(): b"k:1/" + ANA.encode(),
            BEN.encode(): b"k:1/" + BEN.encode(),
        }
        assert raw.zrange(f"{p}chat:tg:5", 0, -1, withscores=True) == [(b"k:1", 10.0)]
        assert raw.smembers(f"{p}person:{ANA}") == {b"k:1"}
        last = raw.hgetall(f"{p}last:tg:5:7")
        assert last[b"game"] == b"game k:1" and float(last[b"finished"]) == 10.0
        assert raw.get(f"{at('tg:5:7')}lastin:tg:5:7") == b"tg:5"
        assert raw.smembers(f"{at(ANA)}in:{ANA}") == {str(bucket("tg:5")).encode()}
        assert redis_store.chats() == ["tg:5"]  # lists them: the old ones are in now
        keys = set(raw.scan_iter(match=f"{redis_store.prefix}*", count=1000))
        names = ["kept", "stats:k:1", "chat:tg:5", "last:tg:5:7", f"person:{ANA}", f"person:{BEN}"]
        chats = {f"{p}{name}".encode() for name in names}
        assert raw.smembers(f"{redis_store.base}chats") == {b"tg:5"}  # the chats, bot-wide
        others = [f"{redis_store.base}{name}" for name in ("kept", "layout", "chats")]
        others.append(f"{redis_store.base}chats-listed")
        others += [f"{at('tg:5:7')}lastin:tg:5:7", f"{at(ANA)}in:{ANA}", f"{at(BEN)}in:{BEN}"]
        assert keys == chats | {key.encode() for key in others}
        for key in chats:
            assert key_slot(key) == key_slot(f"{p}game:x".encode())  # one Cluster slot
        for key in keys:
            assert raw.ttl(key) == -1  # never expires
        assert redis_store.active_games() == 0  # no kept key looks like a channel's
    finally:
        raw.close()


def test_redis_chats_kept_before_the_set_of_chats_are_found_once(
    redis_store: RedisStore, redis_url: str
) -> None:
    for k, chat in enumerate(("tg:5", "dc-guild:7", "tg:5:3")):
        assert redis_store.keep(kept(f"k{k}", 10.0 + k, chat=chat, channel=f"c{k}"))
    raw = redis.Redis.from_url(redis_url)
    try:  # as an earlier version left them: no set of chats
        raw.delete(f"{redis_store.base}chats")
        assert redis_store.chats() == ["dc-guild:7", "tg:5", "tg:5:3"]
        assert raw.get(f"{redis_store.base}chats-listed") == b"1"
        raw.srem(f"{redis_store.base}chats", "tg:5")  # listed once: not looked for again
        assert redis_store.chats() == ["dc-guild:7", "tg:5:3"]
    finally:
        raw.close()


def test_redis_keep_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    k = kept("g", 10.0)
    assert redis_store._kept.keep_once(k, "tok") is True
    assert redis_store._kept.keep_once(k, "tok") is True  # its reply was lost: it was done
    assert redis_store._kept.keep_once(k, "other") is False
    assert redis_store.entries("chat") == of(k)


def test_redis_a_key_of_the_wrong_type_fails_before_writing(
    redis_store: RedisStore, redis_url: str
) -> None:
    p = redis_store.bucket_base("chat")
    raw = redis.Redis.from_url(redis_url)
    try:
        raw.set(f"{p}chat:chat", b"junk")
        with pytest.raises(StoreError) as err:
            redis_store.keep(kept("g", 10.0))
        assert not isinstance(err.value, StoreUnavailable)
        assert "WRONGTYPE" in str(err.value)
        assert not raw.exists(f"{p}kept", f"{p}stats:g", f"{p}last:chan", f"{p}person:{ANA}")
        with pytest.raises(StoreError):
            redis_store.entries("chat")
        raw.delete(f"{p}chat:chat")
        # a last game of the wrong kind is no last game, and the next keep replaces it
        raw.set(f"{p}last:chan", b"junk")
        assert redis_store.last_game("chan") is None
        assert redis_store.keep(kept("g", 10.0))
        assert redis_store.last_game("chan") == b"game g"
        assert redis_store.entries("chat") == of(kept("g", 10.0))
    finally:
        raw.close()


def _wait(done: Callable[[], bool], what: str, within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    while not done():
        assert time.monotonic() < deadline, f"waited {within} s for {what}"
        time.sleep(0.05)


def test_redis_kept_games_on_a_cluster_node(tmp_path: Path) -> None:
    exe = redis_binary()
    assert exe is not None
    args = ["--cluster-enabled", "yes", "--cluster-config-file", str(tmp_path / "nodes.conf")]
    with LocalRedis(exe, tmp_path, args=args) as node:
        raw = node.client()
        try:
            raw.execute_command("CLUSTER", "ADDSLOTS", *range(16384))  # type: ignore[no-untyped-call]
            _wait(lambda: raw.cluster("info")["cluster_state"] == "ok", "the cluster to be ok")
            with RedisStore(node.url, cluster=True) as s:
                assert s.keep(kept("g1", 10.0, chat="c:1", channel="c:1"))
                assert s.keep(kept("g2", 20.0, chat="c:1", channel="c:1"))
                assert s.keep(kept("g1", 10.0)) is False
                assert s.entries("c:1", since=15.0) == of(kept("g2", 20.0))
                assert s.last_game("c:1") == b"game g2"
                assert s.forget(ANA) == 2
            chat = list(raw.scan_iter(match=f"{s.bucket_base('c:1')}*"))
            assert len(chat) >= 3  # kept, chat:c:1, stats of g2 (g1's were forgotten)
            assert len({raw.cluster("keyslot", key) for key in chat}) == 1
            assert len({raw.cluster("keyslot", key) for key in raw.scan_iter()}) > 1
        finally:
            raw.close()


# -- stores that are down -------------------------------------------------------------------


def _calls(s: Store) -> list[Callable[[], object]]:
    return [
        lambda: s.keep(kept("h", 20.0)),
        lambda: s.last_game("chan"),
        lambda: s.entries("chat"),
        lambda: s.forget(ANA),
    ]


def _writes(s: Store) -> list[Callable[[], object]]:
    return [_calls(s)[0], _calls(s)[3]]


def test_redis_down_is_a_store_error_and_recovers(own_redis: LocalRedis) -> None:
    s = RedisStore(own_redis.url)
    try:
        assert s.keep(kept("g", 10.0))
        own_redis.stop()
        for took, refusal in refusals(_calls(s)):
            assert took < 1.0
            assert refusal.kind == "unreachable"
            assert str(refusal).startswith(f"cannot reach Redis at {own_redis.url}: ")
        own_redis.restart()  # empty: this server keeps nothing
        assert s.last_game("chan") is None
        assert s.keep(kept("g", 10.0))
        assert s.entries("chat") == of(kept("g", 10.0))
    finally:
        s.close()


def test_redis_hung_times_out(own_redis: LocalRedis) -> None:
    s = RedisStore(own_redis.url)
    try:
        assert s.keep(kept("g", 10.0))
        own_redis.pause()
        try:
            for call in _calls(s)[:3]:
                started = time.monotonic()
                with pytest.raises(StoreUnavailable) as err:
                    call()
                assert 0.9 < time.monotonic() - started < 1.8  # one timeout, never sent again
                assert err.value.kind == "timeout"
        finally:
            own_redis.resume()
        # the keep that timed out was sent, and may be done once the server wakes
        done = s.last_game("chan") == b"game h"
        assert s.keep(kept("h", 20.0)) is not done
        assert s.last_game("chan") == b"game h"
        assert s.entries("chat") == of(kept("g", 10.0)) + of(kept("h", 20.0))
    finally:
        s.close()


def test_sqlite_locked_is_a_timeout_and_reads_go_on(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite3"
    with SqliteStore(str(path)) as s:
        assert s.keep(kept("g", 10.0))
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            for call in _writes(s):
                with pytest.raises(StoreUnavailable) as err:
                    call()
                assert err.value.kind == "timeout"
                assert str(path) in str(err.value)
            assert s.last_game("chan") == b"game g"  # reading goes on meanwhile (WAL)
            assert s.entries("chat") == of(kept("g", 10.0))
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert s.keep(kept("h", 20.0))  # nothing of the refused keep was written
        assert s.forget(ANA) == 2


def test_sqlite_read_only_and_closed_are_store_errors(tmp_path: Path) -> None:
    s = SqliteStore(str(tmp_path / "ro.sqlite3"))
    assert s.keep(kept("g", 10.0))
    s._conn.execute("PRAGMA query_only = 1")  # as if the file turned read-only
    for call in _writes(s):
        with pytest.raises(StoreUnavailable):
            call()
    s._conn.execute("PRAGMA query_only = 0")
    s.close()
    for call in _calls(s):
        with pytest.raises(StoreError, match="closed"):
            call()


# -- SQLite: one transaction, and the upgrade from schema version 2 -------------------------


def test_sqlite_keep_is_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "one.sqlite3"
    with SqliteStore(str(path)) as s:
        statements: list[str] = []
        s._conn.set_trace_callback(statements.append)
        assert s.keep(kept("g", 10.0))
        assert statements[0].startswith("BEGIN") and statements[-1] == "COMMIT"
        s._conn.set_trace_callback(None)
        # a keep that fails at its last step leaves nothing behind
        s._conn.execute(
            "CREATE TRIGGER no_last BEFORE UPDATE ON last_games"
            " BEGIN SELECT RAISE(ABORT, 'no'); END"
        )
        with pytest.raises(StoreError):
            s.keep(kept("h", 20.0, entries={"new": b"n"}))
        assert s.forget("new") == 0
        assert s.entries("chat") == of(kept("g", 10.0))
        assert s.last_game("chan") == b"game g"
        s._conn.execute("DROP TRIGGER no_last")
        assert s.keep(kept("h", 20.0, entries={"new": b"n"}))  # the key was not taken
        assert s.last_game("chan") == b"game h"


#: the layout of SQLite files written by the ludo-bot before the kept games
_V2_SCHEMA = old_schema(2, "shown   BLOB", "srev    INTEGER NOT NULL DEFAULT 0")


def _v2_file(path: Path, expires: float) -> None:
    """A database as the previous version left it: two games, notes, a deadline."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_V2_SCHEMA)
        conn.executemany(
            "INSERT INTO games (id, rev, data, channel, expires, shown, srev)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                ("g", 3, b"\x00old", "c", expires, b"notes", 2),
                ("h", 1, b"other", None, expires, None, 0),
            ],
        )
        conn.execute("INSERT INTO deadlines (game_id, due) VALUES ('g', 5.0)")
        conn.commit()
    finally:
        conn.close()


def _version_and_tables(path: Path) -> tuple[int, set[str]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return version, {str(row[0]) for row in names}
    finally:
        conn.close()


def test_sqlite_upgrades_a_file_of_schema_version_2(tmp_path: Path) -> None:
    assert SCHEMA_VERSION == 3
    path = tmp_path / "v2.sqlite3"
    _v2_file(path, time.time() + 1000)
    assert _version_and_tables(path) == (2, {"games", "deadlines"})
    with SqliteStore(str(path)) as s:
        assert s.load("g") == Stored(b"\x00old", 3, Shown(b"notes", 2))
        assert s.load("h") == Stored(b"other", 1)
        assert s.channel_game("c") == "g"
        assert s.last_game("c") is None and s.entries("chat") == []
        assert s.keep(kept("k", 10.0, channel="c"))
        assert s.entries("chat") == of(kept("k", 10.0))
        assert s.last_game("c") == b"game k"
        assert s.save("g", b"new", 3, due=None, release=True)
        assert s.claim_due(10.0, lease=1) == []
    version, tables = _version_and_tables(path)
    assert version == 3
    assert {"games", "deadlines", "kept", "kept_entries", "last_games"} <= tables
    with SqliteStore(str(path)) as s:  # and again: nothing to do, everything there
        assert s.load("g") == Stored(b"new", 4, Shown(b"notes", 2))
        assert s.load("h") == Stored(b"other", 1)
        assert s.keep(kept("k", 10.0)) is False
        assert s.forget(ANA) == 1
        assert s.last_game("c") == b"game k"
    assert _version_and_tables(path)[0] == 3
