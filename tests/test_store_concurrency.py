"""The store under concurrency: threads and processes on one store (compare-and-set
increments exact, a due game claimed once), and Redis's scripts sent again after a
lost reply done once, each in one round trip, under the documented key layout."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.store import RedisStore, Shown, SqliteStore, Store, Stored
from bot.store.buckets import new_game_id
from tests.helpers.stores import STORE_TTL, StoreFactory

# -- several threads and processes ------------------------------------------------


def _increment(s: Store, game_id: str, times: int, think: float = 0.0002) -> int:
    """Add 1 to the counter game ``times`` times by load + CAS; the retries.

    ``think`` seconds between load and save (as the service computes the
    move) widen the window in which another writer gets in between."""
    retries = 0
    for _ in range(times):
        while True:
            cur = s.load(game_id)
            assert cur is not None
            time.sleep(think)
            if s.save(game_id, str(int(cur.data) + 1).encode(), cur.rev):
                break
            retries += 1
    return retries


def _run_threads(stores: list[Store], game_id: str, times: int) -> None:
    errors: list[BaseException] = []

    def work(s: Store) -> None:
        try:
            _increment(s, game_id, times)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors


def test_threads_cas_increment_exactly(make_store: StoreFactory) -> None:
    # SQLite: one store per thread on the same file, as separate processes would;
    # Redis: likewise one client per thread.
    first = make_store(clock=time.time)
    assert first.create("counter", b"0", channel="c")
    stores = [first] + [make_store(clock=time.time) for _ in range(7)]
    _run_threads(stores, "counter", 50)
    assert first.load("counter") == Stored(b"400", 401)


def test_threads_share_one_store(make_store: StoreFactory) -> None:
    s = make_store(clock=time.time)
    assert s.create("counter", b"0", channel="c")
    _run_threads([s] * 8, "counter", 25)
    assert s.load("counter") == Stored(b"200", 201)


def test_memory_sqlite_store(tmp_path: Path) -> None:
    with SqliteStore(":memory:") as s:
        assert s.create("counter", b"0", channel="c")
        _run_threads([s] * 4, "counter", 25)
        assert s.load("counter") == Stored(b"100", 101)
        assert s.channel_game("c") == "counter"
    with SqliteStore(":memory:") as other:  # private to each store
        assert other.load("counter") is None
    assert not list(tmp_path.iterdir())


def _open(kind: str, target: str, prefix: str) -> Store:
    if kind == "sqlite":
        return SqliteStore(target)
    return RedisStore(target, prefix=prefix)


def _wait_until(start_at: float) -> None:
    time.sleep(max(0.0, start_at - time.time()))


def _proc_increment(kind: str, target: str, prefix: str, start_at: float, times: int) -> int:
    s = _open(kind, target, prefix)
    try:
        _wait_until(start_at)
        return _increment(s, "counter", times)
    finally:
        s.close()


def _proc_claim(kind: str, target: str, prefix: str, start_at: float, now: float) -> list[str]:
    s = _open(kind, target, prefix)
    try:
        _wait_until(start_at)
        claimed: list[str] = []
        while batch := s.claim_due(now, lease=3600, limit=2):
            claimed += batch
            time.sleep(0.005)  # handling them: gives the other process its turns
        return claimed
    finally:
        s.close()


@pytest.fixture(scope="module")
def pool() -> Iterator[multiprocessing.pool.Pool]:
    """Two worker processes (spawned: nothing inherited), kept for the module."""
    with multiprocessing.get_context("spawn").Pool(2) as p:
        p.map(time.sleep, [0, 0])  # both started and importable
        yield p


def _both(pool: multiprocessing.pool.Pool, fn: Callable[..., Any], *args: object) -> list[Any]:
    start_at = time.time() + 0.3  # both begin together, not one after the other
    results = [pool.apply_async(fn, (*args[:3], start_at, *args[3:])) for _ in range(2)]
    return [r.get(timeout=60) for r in results]


def test_two_processes_cas_increment_exactly(
    make_store: StoreFactory, pool: multiprocessing.pool.Pool
) -> None:
    s = make_store(clock=time.time)
    assert s.create("counter", b"0", channel="c")
    _both(pool, _proc_increment, make_store.kind, make_store.target, make_store.prefix, 150)
    assert s.load("counter") == Stored(b"300", 301)


def test_two_processes_never_claim_the_same_game(
    make_store: StoreFactory, pool: multiprocessing.pool.Pool
) -> None:
    s = make_store(clock=time.time)
    ids = [f"g{i:03d}" for i in range(120)]
    for game_id in ids:
        assert s.create(game_id, b"x", channel=f"c{game_id}")
        s.schedule(game_id, 1000.0)
    now = 2000.0
    a, b = _both(pool, _proc_claim, make_store.kind, make_store.target, make_store.prefix, now)
    assert a, "the first process claimed nothing: the test did not overlap them"
    assert b, "the second process claimed nothing: the test did not overlap them"
    assert not set(a) & set(b)
    assert sorted(a + b) == ids
    assert len(a) + len(b) == len(ids)
    assert s.claim_due(now, lease=10) == []


# -- Redis only: a script sent again after a lost reply ---------------------------


def test_redis_create_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    assert redis_store._create_once("g", b"x", "c", "token-1") is True
    assert redis_store._create_once("g", b"x", "c", "token-1") is True  # the retry
    assert redis_store._create_once("g", b"x", "c", "token-2") is False  # someone else
    assert redis_store.load("g") == Stored(b"x", 1)


def test_redis_save_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    assert redis_store.create("g", b"v1", channel="c")
    assert redis_store._save_once("g", b"v2", 1, "token-a") is True
    assert redis_store._save_once("g", b"v2", 1, "token-a") is True  # the retry
    assert redis_store.load("g") == Stored(b"v2", 2)
    assert redis_store._save_once("g", b"v2-other", 1, "token-b") is False  # stale
    assert redis_store._save_once("g", b"v3", 2, "token-c") is True
    # sent once more after a later save: it is known as done, and not done again
    assert redis_store._save_once("g", b"v2", 1, "token-a") is True
    assert redis_store._save_once("g", b"v2", 1, "token-z") is False  # a stale one
    assert redis_store.load("g") == Stored(b"v3", 3)


def test_redis_save_with_due_and_release_sent_twice_is_done_once(
    redis_store: RedisStore,
) -> None:
    assert redis_store.create("g", b"v1", channel="c")
    assert redis_store._save_once("g", b"v2", 1, "token-a", due=100.0) is True
    redis_store.unschedule("g")  # as a claimer might, meanwhile
    assert redis_store._save_once("g", b"v2", 1, "token-a", due=100.0) is True  # the retry
    assert redis_store.claim_due(1e9, lease=10) == []  # was done once, not again
    assert redis_store._save_once("g", b"v3", 2, "token-b", release=True) is True
    assert redis_store.create("h", b"y", channel="c")
    assert redis_store._save_once("g", b"v3", 2, "token-b", release=True) is True
    assert redis_store.channel_game("c") == "h"  # not released a second time
    assert redis_store.load("g") == Stored(b"v3", 3)


def test_redis_save_shown_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    assert redis_store.create("g", b"v1", channel="c")
    assert redis_store._save_shown_once("g", b"n1", 0, "token-a") is True
    assert redis_store._save_shown_once("g", b"n1", 0, "token-a") is True  # the retry
    assert redis_store.load("g") == Stored(b"v1", 1, Shown(b"n1", 1))
    assert redis_store._save_shown_once("g", b"other", 0, "token-b") is False  # stale
    assert redis_store._save_shown_once("g", b"n2", 1, "token-c") is True
    assert redis_store._save_shown_once("g", b"n1", 0, "token-a") is True  # known as done
    assert redis_store._save_shown_once("g", b"n1", 0, "token-z") is False  # a stale one
    assert redis_store.load("g") == Stored(b"v1", 1, Shown(b"n2", 2))


def test_redis_one_round_trip_each(
    redis_store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = redis_store._client
    sent: list[str] = []
    real: Callable[..., Any] = client.execute_command
    pipeline = type(client.pipeline())
    piped: Callable[..., Any] = pipeline.execute

    def counted(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]))
        return real(*args, **options)

    def counted_pipeline(pipe: Any, *args: Any, **options: Any) -> Any:
        sent.append(" ".join(str(c[0][0]) for c in pipe.command_stack))  # one round trip
        return piped(pipe, *args, **options)

    def press(game_id: str, channel: str) -> list[Callable[[], object]]:
        return [
            lambda: redis_store.load(game_id),
            lambda: redis_store.load_in(channel),
            lambda: redis_store.save(game_id, b"v2", 1, due=20.0),
            lambda: redis_store.save_shown(game_id, b"n", 0),
            lambda: redis_store.save(game_id, b"v3", 2, due=None, release=True),
        ]

    assert redis_store.create("g", b"v1", channel="c", due=10.0)
    for call in press("g", "c"):  # once first, so that every script is loaded on the server
        call()
    assert redis_store.create("h", b"v1", channel="d", due=10.0)
    monkeypatch.setattr(client, "execute_command", counted)
    monkeypatch.setattr(pipeline, "execute", counted_pipeline)
    for call in press("h", "d"):
        sent.clear()
        call()
        assert len(sent) == 1, sent
    assert redis_store.load("h") == Stored(b"v3", 3, Shown(b"n", 1))


def test_redis_key_layout(redis_store: RedisStore, redis_url: str) -> None:
    # a game's keys: the prefix, then the bucket of its channel as a hash tag (one
    # Redis Cluster slot per bucket); the game id falls in that bucket too
    tag = redis_store.prefix.rstrip(":")
    assert redis_store.base == f"{redis_store.prefix}{{{tag}}}:"
    g = new_game_id("chat")
    p = f"{redis_store.prefix}{{{tag}.{zlib.crc32(b'chat') % 1024}}}:"
    assert redis_store.bucket_base("chat") == redis_store.bucket_base(g) == p
    redis_store.create(g, b"\x00data", channel="chat")
    redis_store.schedule(g, 123.5)
    raw = redis.Redis.from_url(redis_url)
    try:
        game = raw.hgetall(f"{p}game:{g}")
        assert game[b"rev"] == b"1"
        assert game[b"data"] == b"\x00data"
        assert game[b"channel"] == b"chat"
        assert raw.get(f"{p}chan:chat") == g.encode()
        assert raw.zscore(f"{p}due", g) == 123.5
        assert 0 < raw.ttl(f"{p}game:{g}") <= STORE_TTL
        assert 0 < raw.ttl(f"{p}chan:chat") <= STORE_TTL
        raw.expire(f"{p}game:{g}", 100)  # as if much time had passed
        raw.expire(f"{p}chan:chat", 100)
        assert redis_store.save(g, b"again", 1)
        assert raw.ttl(f"{p}game:{g}") > 100  # renewed
        assert raw.ttl(f"{p}chan:chat") > 100
        assert b"shown" not in raw.hgetall(f"{p}game:{g}")  # no notes yet
        raw.expire(f"{p}game:{g}", 100)
        assert redis_store.save_shown(g, b"\x00notes", 0)
        game = raw.hgetall(f"{p}game:{g}")
        assert game[b"shown"] == b"\x00notes"
        assert game[b"srev"] == b"1"
        assert game[b"rev"] == b"2"
        assert 0 < raw.ttl(f"{p}game:{g}") <= 100  # the notes do not renew the game
        assert redis_store.save(g, b"done", 2, due=None, release=True)
        assert raw.zscore(f"{p}due", g) is None
        assert raw.get(f"{p}chan:chat") is None
        assert raw.hget(f"{p}game:{g}", "shown") == b"\x00notes"
    finally:
        raw.close()
