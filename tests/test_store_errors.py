"""What an operator sees of a store: bad SQLite paths and files, an old file upgraded and
a newer one refused, a closed store, an unreachable or vanishing Redis (its password
hidden), a bad URL; and ``open_store`` choosing SQLite or Redis."""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
import uuid
from pathlib import Path

import pytest

from bot.store import DEFAULT_TTL, RedisStore, Shown, SqliteStore, Stored, StoreError, open_store
from tests.helpers.local_redis import redis_binary, start_redis
from tests.helpers.stores import FakeClock, old_schema

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


def test_sqlite_one_query_each(tmp_path: Path) -> None:
    with SqliteStore(str(tmp_path / "count.sqlite3")) as s:
        assert s.create("g", b"v1", channel="c")
        assert s.save_shown("g", b"n", 0)
        statements: list[str] = []
        s._conn.set_trace_callback(statements.append)
        assert s.load("g") == Stored(b"v1", 1, Shown(b"n", 1))
        assert s.load_in("c") == Stored(b"v1", 1, Shown(b"n", 1))
        assert s.save("g", b"v2", 1)
        assert s.save_shown("g", b"n2", 1)
        assert len(statements) == 4, statements
        statements.clear()
        assert s.save("g", b"v3", 2, due=5.0, release=True)  # one transaction
        assert statements[0].startswith("BEGIN") and statements[-1] == "COMMIT"
        assert len(statements) == 4, statements


#: the layout of SQLite files written by the ludo-bot before the notes
_V1_SCHEMA = old_schema(1)


def _v1_file(path: Path, expires: float) -> None:
    """A database as the previous version left it: two games, one deadline."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_V1_SCHEMA)
        conn.executemany(
            "INSERT INTO games (id, rev, data, channel, expires) VALUES (?, ?, ?, ?, ?)",
            [("g", 3, b"\x00old", "c", expires), ("h", 1, b"other", None, expires)],
        )
        conn.execute("INSERT INTO deadlines (game_id, due) VALUES ('g', 5.0)")
        conn.commit()
    finally:
        conn.close()


def _columns(path: Path) -> tuple[int, list[str]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return version, [row[1] for row in conn.execute("PRAGMA table_info(games)")]
    finally:
        conn.close()


def test_sqlite_opens_and_upgrades_a_file_of_the_previous_version(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "v1.sqlite3"
    _v1_file(path, clock.now + 1000)
    with SqliteStore(str(path), ttl=1000, clock=clock) as s:
        assert s.load("g") == Stored(b"\x00old", 3)
        assert s.load_in("c") == Stored(b"\x00old", 3)
        assert s.channel_game("c") == "g"
        assert s.claim_due(5.0, lease=1) == ["g"]
        assert s.save_shown("g", b"notes", 0)
        assert s.save("g", b"new", 3, due=7.0, release=True)
        assert s.load("g") == Stored(b"new", 4, Shown(b"notes", 1))
        assert s.load("h") == Stored(b"other", 1)
        assert s.create("k", b"k", channel="c", due=9.0)
    assert _columns(path) == (
        3,
        ["id", "rev", "data", "channel", "expires", "shown", "srev"],
    )
    with SqliteStore(str(path), ttl=1000, clock=clock) as s:  # and again: nothing to do
        assert s.load("g") == Stored(b"new", 4, Shown(b"notes", 1))
        assert s.claim_due(10.0, lease=1) == ["g", "k"]
    assert _columns(path)[0] == 3


def test_sqlite_many_stores_upgrade_an_old_file_at_once(tmp_path: Path) -> None:
    for round_ in range(3):
        path = tmp_path / f"old-{round_}.sqlite3"
        _v1_file(path, time.time() + 1000)
        results = _open_at_once(str(path), 8)
        assert sorted(results, key=repr) == [False] * 7 + [True]  # one channel, one winner
        with SqliteStore(str(path)) as s:
            assert s.load("g") == Stored(b"\x00old", 3)
            assert s.save_shown("g", b"n", 0)
        assert _columns(path)[0] == 3


def test_sqlite_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SqliteStore(str(path))


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
    assert exe is not None, "no redis-server binary (see tests/plugin.py)"
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
