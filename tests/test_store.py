"""The store contract, run against SQLite and Redis (the ``store`` fixture),
plus what only one of them has: bad paths, an unreachable server."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.store import (
    DEFAULT_TTL,
    RedisStore,
    SqliteStore,
    Store,
    Stored,
    StoreError,
    open_store,
)
from tests.conftest import STORE_TTL, FakeClock, StoreFactory, redis_binary, start_redis

# -- create and load ----------------------------------------------------------


def test_create_then_load(store: Store) -> None:
    assert store.create("g1", b"state", channel="c1") is True
    assert store.load("g1") == Stored(data=b"state", rev=1)
    assert store.channel_game("c1") == "g1"


def test_unknown_game_and_channel(store: Store) -> None:
    assert store.load("nope") is None
    assert store.channel_game("nowhere") is None
    assert store.save("nope", b"x", 1) is False


def test_create_refused_when_channel_taken(store: Store) -> None:
    assert store.create("g1", b"one", channel="c")
    assert store.create("g2", b"two", channel="c") is False
    assert store.load("g2") is None
    assert store.channel_game("c") == "g1"
    assert store.load("g1") == Stored(b"one", 1)


def test_create_refused_when_id_exists(store: Store) -> None:
    assert store.create("g1", b"one", channel="c1")
    assert store.save("g1", b"one-b", 1)
    assert store.create("g1", b"other", channel="c2") is False
    assert store.load("g1") == Stored(b"one-b", 2)
    assert store.channel_game("c2") is None
    assert store.channel_game("c1") == "g1"


def test_ids_and_channels_with_separators(store: Store) -> None:
    assert store.create("tg:-100123:7", b"a", channel="telegram:-100123")
    assert store.create("dc:1:2", b"b", channel="discord:1:2")
    assert store.channel_game("telegram:-100123") == "tg:-100123:7"
    assert store.channel_game("discord:1:2") == "dc:1:2"
    assert store.channel_game("telegram") is None


# -- save (compare-and-set) -----------------------------------------------------


def test_save_increments_rev(store: Store) -> None:
    store.create("g", b"v1", channel="c")
    assert store.save("g", b"v2", 1) is True
    assert store.load("g") == Stored(b"v2", 2)
    assert store.save("g", b"v3", 2) is True
    assert store.load("g") == Stored(b"v3", 3)


def test_save_with_stale_rev_writes_nothing(store: Store) -> None:
    store.create("g", b"v1", channel="c")
    assert store.save("g", b"mine", 1)
    assert store.save("g", b"theirs", 1) is False  # rev 1 is stale now
    assert store.save("g", b"future", 5) is False
    assert store.save("g", b"past", 0) is False
    assert store.load("g") == Stored(b"mine", 2)


def test_bytes_round_trip_exactly(store: Store) -> None:
    blobs = [
        bytes(range(256)),
        b"\x00\xff\xfe\x80 not utf-8 \xc3\x28",
        b"",
        b"\x00" * 10,
        "ü ♜ 🎲".encode(),
        bytes(range(256)) * 400,  # 100 KiB
    ]
    store.create("g", blobs[0], channel="c")
    loaded = store.load("g")
    assert loaded is not None
    assert loaded.data == blobs[0]
    assert type(loaded.data) is bytes
    rev = 1
    for blob in blobs[1:]:
        assert store.save("g", blob, rev)
        rev += 1
        loaded = store.load("g")
        assert loaded == Stored(blob, rev)
        assert type(loaded.data) is bytes


# -- channels -------------------------------------------------------------------


def test_release_channel(store: Store) -> None:
    store.create("g1", b"x", channel="c")
    store.release_channel("c", "g1")
    assert store.channel_game("c") is None
    assert store.load("g1") == Stored(b"x", 1)  # the game stays
    assert store.create("g2", b"y", channel="c")
    assert store.channel_game("c") == "g2"


def test_release_channel_only_if_still_bound_to_that_game(store: Store) -> None:
    store.create("g1", b"x", channel="c")
    store.release_channel("c", "g1")
    store.create("g2", b"y", channel="c")
    store.release_channel("c", "g1")  # g1 no longer holds c: nothing happens
    assert store.channel_game("c") == "g2"
    store.release_channel("other", "g2")  # not bound at all
    assert store.channel_game("c") == "g2"
    assert store.save("g1", b"x2", 1)  # saving the released game does not take c back
    assert store.channel_game("c") == "g2"


# -- deadlines ------------------------------------------------------------------


def _games(store: Store, *ids: str) -> None:
    for game_id in ids:
        assert store.create(game_id, b"g", channel=f"chan-{game_id}")


def test_claim_due_only_due_ones_in_due_order(store: Store) -> None:
    _games(store, "a", "b", "c", "d")
    t = 1_000_000.0
    store.schedule("a", t + 3)
    store.schedule("b", t + 1)
    store.schedule("c", t + 2)
    store.schedule("d", t + 50)
    assert store.claim_due(t, lease=30) == []
    assert store.claim_due(t + 3, lease=30) == ["b", "c", "a"]


def test_claim_due_includes_deadline_equal_to_now(store: Store) -> None:
    _games(store, "a")
    store.schedule("a", 500.0)
    assert store.claim_due(499.999, lease=10) == []
    assert store.claim_due(500.0, lease=10) == ["a"]


def test_lease_hides_claimed_until_it_runs_out(store: Store) -> None:
    _games(store, "a", "b")
    t = 2_000_000.0
    store.schedule("a", t - 5)
    store.schedule("b", t - 1)
    assert store.claim_due(t, lease=30) == ["a", "b"]
    assert store.claim_due(t, lease=30) == []  # a second worker right after
    assert store.claim_due(t + 29.9, lease=30) == []
    # the claimer died: both come due again after the lease (both at t + 30)
    assert sorted(store.claim_due(t + 30, lease=30)) == ["a", "b"]
    assert store.claim_due(t + 30, lease=30) == []


def test_claim_due_respects_limit(store: Store) -> None:
    ids = [f"g{i:02d}" for i in range(12)]
    _games(store, *ids)
    for i, game_id in enumerate(ids):
        store.schedule(game_id, 100.0 + i)
    assert store.claim_due(200.0, lease=60, limit=5) == ids[:5]
    assert store.claim_due(200.0, lease=60, limit=5) == ids[5:10]
    assert store.claim_due(200.0, lease=60, limit=5) == ids[10:]
    assert store.claim_due(200.0, lease=60, limit=5) == []
    assert store.claim_due(10_000.0, lease=60, limit=0) == []


def test_schedule_moves_and_unschedule_removes(store: Store) -> None:
    _games(store, "a", "b")
    store.schedule("a", 100.0)
    store.schedule("b", 100.0)
    store.schedule("a", 300.0)  # moved later
    store.unschedule("b")
    store.unschedule("b")  # twice is fine
    store.unschedule("never-scheduled")
    assert store.claim_due(200.0, lease=10) == []
    assert store.claim_due(300.0, lease=10) == ["a"]
    store.unschedule("a")  # the claimer is done with it
    assert store.claim_due(1e9, lease=10) == []


def test_deadlines_of_games_that_are_gone_are_never_claimed(store: Store, clock: FakeClock) -> None:
    for i in range(5):
        store.schedule(f"ghost{i}", 10.0 + i)  # never created
    store.create("expired", b"x", channel="c0")
    store.schedule("expired", 16.0)
    clock.advance(STORE_TTL + 1)
    _games(store, "a", "b", "c")
    store.schedule("a", 20.0)
    store.schedule("b", 21.0)
    store.schedule("c", 22.0)
    assert store.claim_due(100.0, lease=5, limit=2) == ["a", "b"]
    assert store.claim_due(100.0, lease=5, limit=2) == ["c"]
    assert store.claim_due(1000.0, lease=5, limit=10) == ["a", "b", "c"]


def test_claimed_game_can_be_rescheduled(store: Store) -> None:
    _games(store, "a")
    store.schedule("a", 100.0)
    assert store.claim_due(100.0, lease=30) == ["a"]
    store.schedule("a", 110.0)  # the claimer sets the next deadline
    assert store.claim_due(109.0, lease=30) == []
    assert store.claim_due(110.0, lease=30) == ["a"]


# -- expiry ---------------------------------------------------------------------


def test_game_expires_after_ttl_without_save(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    store.schedule("g", clock.now + 10)
    clock.advance(STORE_TTL - 1)
    assert store.load("g") == Stored(b"x", 1)
    assert store.channel_game("c") == "g"
    clock.advance(2)
    assert store.load("g") is None
    assert store.channel_game("c") is None
    assert store.save("g", b"late", 1) is False
    assert store.claim_due(clock.now, lease=30) == []  # its deadline went with it
    # the channel and the id are free again, with no trace of the old game
    assert store.create("g2", b"new", channel="c")
    assert store.channel_game("c") == "g2"
    assert store.create("g", b"again", channel="c3")
    assert store.load("g") == Stored(b"again", 1)
    assert store.claim_due(clock.now + 100, lease=30) == []


def test_save_renews_expiry_of_game_and_channel(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    clock.advance(STORE_TTL * 0.75)
    assert store.save("g", b"y", 1)
    clock.advance(STORE_TTL * 0.75)  # 1.5 ttl after create, 0.75 after the save
    assert store.load("g") == Stored(b"y", 2)
    assert store.channel_game("c") == "g"
    assert store.create("other", b"z", channel="c") is False
    clock.advance(STORE_TTL * 0.3)
    assert store.load("g") is None
    assert store.channel_game("c") is None


def test_load_does_not_renew(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    clock.advance(STORE_TTL * 0.6)
    assert store.load("g") is not None
    assert store.channel_game("c") == "g"
    clock.advance(STORE_TTL * 0.6)
    assert store.load("g") is None


def test_expired_binding_of_recreated_game_is_not_revived(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="old")
    clock.advance(STORE_TTL + 1)
    assert store.create("g", b"y", channel="new")
    assert store.channel_game("old") is None
    assert store.channel_game("new") == "g"
    assert store.create("h", b"z", channel="old")


def test_sqlite_purge_deletes_expired_rows(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "purge.sqlite3"
    with SqliteStore(str(path), ttl=100, clock=clock) as s:
        s.create("old", b"x", channel="c1")
        s.schedule("old", clock.now)
        clock.advance(60)
        s.create("young", b"y", channel="c2")
        s.schedule("young", clock.now)
        clock.advance(50)
        assert s.purge() == 1
        assert s.purge() == 0
        assert s.load("young") == Stored(b"y", 1)
        raw = s._conn
        assert [r[0] for r in raw.execute("SELECT id FROM games")] == ["young"]
        assert [r[0] for r in raw.execute("SELECT game_id FROM deadlines")] == ["young"]


def test_sqlite_purges_on_its_own(tmp_path: Path, clock: FakeClock) -> None:
    with SqliteStore(str(tmp_path / "auto.sqlite3"), ttl=100, clock=clock) as s:
        s.create("old", b"x", channel="c1")
        clock.advance(10_000)
        s.claim_due(clock.now, lease=10)
        assert s._conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0


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


@pytest.fixture
def redis_store(redis_url: str) -> Iterator[RedisStore]:
    factory = StoreFactory("redis", redis_url, f"test-{uuid.uuid4().hex[:12]}:", time.time)
    try:
        yield factory()
    finally:
        factory.close_all()


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
    assert redis_store._save_once("g", b"v2", 1, "token-a") is False  # no longer its write
    assert redis_store.load("g") == Stored(b"v3", 3)


def test_redis_key_layout(redis_store: RedisStore, redis_url: str) -> None:
    p = redis_store.prefix
    redis_store.create("g", b"\x00data", channel="chat")
    redis_store.schedule("g", 123.5)
    raw = redis.Redis.from_url(redis_url)
    try:
        game = raw.hgetall(f"{p}game:g")
        assert game[b"rev"] == b"1"
        assert game[b"data"] == b"\x00data"
        assert game[b"channel"] == b"chat"
        assert raw.get(f"{p}chan:chat") == b"g"
        assert raw.zscore(f"{p}due", "g") == 123.5
        assert 0 < raw.ttl(f"{p}game:g") <= STORE_TTL
        assert 0 < raw.ttl(f"{p}chan:chat") <= STORE_TTL
        raw.expire(f"{p}game:g", 100)  # as if much time had passed
        raw.expire(f"{p}chan:chat", 100)
        assert redis_store.save("g", b"again", 1)
        assert raw.ttl(f"{p}game:g") > 100  # renewed
        assert raw.ttl(f"{p}chan:chat") > 100
    finally:
        raw.close()


# -- errors an operator sees -----------------------------------------------------


def test_sqlite_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "games.sqlite3"
    with pytest.raises(StoreError) as err:
        SqliteStore(str(path))
    message = str(err.value)
    assert str(path) in message
    assert "does not exist" in message
    assert not (tmp_path / "no").exists()


def test_sqlite_path_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        SqliteStore(str(tmp_path))


def test_sqlite_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    junk = b"these are my notes, not a database\n" * 200
    path.write_bytes(junk)
    with pytest.raises(StoreError) as err:
        SqliteStore(str(path))
    assert str(path) in str(err.value)
    assert "not a database" in str(err.value)
    assert path.read_bytes() == junk  # left alone


def _open_at_once(path: str, n: int) -> list[bool | BaseException]:
    """``n`` threads each open a store on ``path`` and create a game in one
    channel: what each got."""
    results: list[bool | BaseException] = []

    def open_and_create(i: int) -> None:
        try:
            with SqliteStore(path) as s:
                results.append(s.create(f"g{i}", b"x", channel="same"))
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=open_and_create, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_sqlite_many_stores_open_a_new_file_at_once(tmp_path: Path) -> None:
    for round_ in range(5):
        results = _open_at_once(str(tmp_path / f"new-{round_}.sqlite3"), 8)
        assert sorted(results, key=repr) == [False] * 7 + [True]  # one channel, one winner


def test_sqlite_reopen_keeps_games(tmp_path: Path) -> None:
    path = str(tmp_path / "keep.sqlite3")
    with SqliteStore(path) as s:
        s.create("g", b"\x00\x01", channel="c")
        s.save("g", b"\x00\x02", 1)
        s.schedule("g", 5.0)
    with SqliteStore(path) as s:
        assert s.load("g") == Stored(b"\x00\x02", 2)
        assert s.channel_game("c") == "g"
        assert s.claim_due(5.0, lease=1) == ["g"]


def test_closed_store_raises_store_error(tmp_path: Path) -> None:
    s = SqliteStore(str(tmp_path / "closed.sqlite3"))
    s.close()
    s.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        s.load("g")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_redis() -> None:
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    started = time.monotonic()
    with pytest.raises(StoreError) as err:
        RedisStore(url)
    message = str(err.value)
    assert message.startswith(f"cannot reach Redis at {url}: ")
    assert "refused" in message.lower()
    assert time.monotonic() - started < 10


def test_unreachable_redis_hides_password() -> None:
    url = f"redis://bot:s3cret@127.0.0.1:{_closed_port()}/0"
    with pytest.raises(StoreError) as err:
        RedisStore(url)
    assert "s3cret" not in str(err.value)
    assert "bot:***@127.0.0.1" in str(err.value)


def test_bad_redis_url() -> None:
    with pytest.raises(StoreError, match="bad Redis URL"):
        RedisStore("http://example.invalid/")


def test_redis_that_goes_away_raises_store_error(tmp_path: Path) -> None:
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/conftest.py)"
    proc, url = start_redis(exe, tmp_path)
    try:
        s = RedisStore(url)
        assert s.create("g", b"x", channel="c")
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    for call in (
        lambda: s.load("g"),
        lambda: s.save("g", b"y", 1),
        lambda: s.claim_due(time.time(), lease=1),
    ):
        with pytest.raises(StoreError) as err:
            call()
        assert str(err.value).startswith(f"cannot reach Redis at {url}: ")
    s.close()


# -- open_store --------------------------------------------------------------------


def test_open_store_without_url_is_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    for url in (None, ""):
        s = open_store(url, str(path), 60.0)
        try:
            assert isinstance(s, SqliteStore)
            assert s.ttl == 60.0
            assert s.create(f"g{url!r}", b"x", channel=f"c{url!r}")
        finally:
            s.close()
    assert path.exists()


def test_open_store_with_url_is_redis(redis_url: str, tmp_path: Path) -> None:
    s = open_store(redis_url, str(tmp_path / "unused.sqlite3"), DEFAULT_TTL)
    try:
        assert isinstance(s, RedisStore)
        assert s.ttl == DEFAULT_TTL
        assert s.load(f"missing-{uuid.uuid4().hex}") is None
    finally:
        s.close()
    assert not (tmp_path / "unused.sqlite3").exists()
