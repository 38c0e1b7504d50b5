"""A platform that cannot be reached, as operators read it: one warning when the
outage begins, one when it ends (after how long), or when the bot stops during it;
no traceback per retry; and stopping stays quick."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import discord
import pytest
from telegram.error import InvalidToken, NetworkError, TimedOut

from bot.adapters.discord import DiscordAdapter, DiscordSettings
from bot.adapters.faults import FaultLog
from bot.adapters.reach import Reach, within
from bot.adapters.telegram.watch import PollingFilter
from bot.service.game import GameService
from bot.store import SqliteStore
from tests.fakes.discord import FakeDiscord

log = logging.getLogger("tests.reach")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tests.reach"]


def test_an_outage_is_a_warning_when_it_begins_and_one_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    reach = Reach("Telegram", log, clock)
    with caplog.at_level(logging.DEBUG):
        reach.answered()  # all is well: nothing said
        for k in range(50):  # every retry fails
            reach.lost(NetworkError(f"httpx.ConnectError: attempt {k}\nfailed"))
            clock.now += 1
        assert reach.down
        reach.answered(asked=clock.now - 2)  # a long poll begun 2 s ago was answered
        reach.answered()
        assert not reach.down
        reach.lost("no answer")
        clock.now += 7.4
        reach.stopping()
        reach.stopping()
    assert said(caplog) == [
        "Telegram does not answer: httpx.ConnectError: attempt 0 failed "
        "(trying again until it does)",
        "Telegram answers again after 48 s",
        "Telegram does not answer: no answer (trying again until it does)",
        "Telegram had not answered for 7 s when the bot stopped",
    ]
    assert all(r.levelno == logging.WARNING and not r.exc_info for r in caplog.records)
    assert reach.down  # stopping does not end the outage: nothing is sent on the way out


def test_the_polling_loops_tracebacks_of_an_unreachable_telegram_are_dropped() -> None:
    def record(error: BaseException | None) -> logging.LogRecord:
        info = (type(error), error, None) if error is not None else None
        return logging.LogRecord("telegram.ext", logging.ERROR, "", 0, "x", None, info)

    keep = PollingFilter()
    for error in (NetworkError("httpx.ConnectError"), TimedOut(), InvalidToken("nope")):
        assert not keep.filter(record(error)), error
    for other in (None, RuntimeError("a bug"), ValueError("bad data")):
        assert keep.filter(record(other)), other


def test_a_send_telegram_does_not_answer_is_a_warning_line_not_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults = FaultLog(log, (NetworkError,))
    with caplog.at_level(logging.DEBUG):
        for _ in range(5):  # a turn timer's tables during an outage
            faults.note(NetworkError("httpx.ConnectError: All connection attempts failed"), "x")
        faults.note(RuntimeError("a bug"), "could not show game g2")
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warned] == [
        "x: no answer (httpx.ConnectError: All connection attempts failed)"
    ]
    assert not warned[0].exc_info
    assert len([r for r in caplog.records if r.levelno == logging.DEBUG]) == 4
    [bug] = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert bug.exc_info and bug.getMessage() == "could not show game g2"


async def test_within_bounds_a_step_that_would_wait_long(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def backoff() -> None:  # a wait between retries
        await asyncio.sleep(30)

    async def stubborn() -> None:  # swallows the first cancellation, then waits again
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(30)

    async def broken() -> None:
        raise NetworkError("httpx.ConnectError: All connection attempts failed")

    with caplog.at_level(logging.DEBUG):
        for step, most in ((backoff, 0.15), (stubborn, 0.25), (broken, 0.05)):
            began = time.monotonic()
            await within(step(), 0.1, step.__name__, log)
            assert time.monotonic() - began < most, step.__name__
    assert all(r.levelno == logging.DEBUG for r in caplog.records if r.name == "tests.reach")
    assert said(caplog) == [
        "backoff: cut short after 0.1 s",
        "stubborn: cut short after 0.1 s",
        "broken: httpx.ConnectError: All connection attempts failed",
    ]


async def wait_said(caplog: pytest.LogCaptureFixture, words: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for r in caplog.records:
            if words in r.getMessage():
                return r.getMessage()
        await asyncio.sleep(0.05)
    raise AssertionError(f"never said {words!r}: {[r.getMessage() for r in caplog.records]}")


async def test_discord_unreachable_is_two_warnings_and_stopping_stays_quick(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # discord.py waits a random while (up to 2, 4, 8 ... s) before each reconnection
    monkeypatch.setattr(discord.backoff.ExponentialBackoff, "delay", lambda self: 0.3)
    fake = FakeDiscord()
    await fake.start()
    store = SqliteStore(str(tmp_path / "games.sqlite3"))
    settings = DiscordSettings(
        token=fake.token, api_base=fake.api_base, gateway_url=fake.gateway_url
    )
    adapter = DiscordAdapter(GameService(store), settings)
    adapter.client._connection.guild_ready_timeout = 0.1

    async def at_once(shard_id: int | None, *, initial: bool = False) -> None:
        """Identify again at once (discord.py waits 5 s, for Discord's identify limit)."""

    monkeypatch.setattr(adapter.client, "before_identify_hook", at_once)
    try:
        await adapter.start(ready_timeout=15)
        assert adapter.account() == f"Discord Ludo (id {fake.bot_id})"
        port = fake.port
        with caplog.at_level(logging.INFO):
            # Discord goes away a moment: reconnections fail, then one succeeds
            await fake.close()
            await wait_said(caplog, "Discord does not answer: ", 10)
            await asyncio.sleep(1.0)
            await fake.start(port)
            await wait_said(caplog, "Discord answers again after ", 20)
            # and again, until the bot stops
            await fake.close()
            await asyncio.sleep(2.0)
            began = time.monotonic()
            await adapter.stop()
            took = time.monotonic() - began
    finally:
        await adapter.stop()
        await fake.close()
        store.close()
    lines = [
        r
        for r in caplog.records
        if r.name.startswith(("bot", "discord")) and r.levelno >= logging.WARNING
    ]
    told = [r.getMessage() for r in lines]
    assert not [r for r in lines if r.exc_info], told
    assert len(told) == 4, told
    assert told[0].startswith("Discord does not answer: ")
    assert told[1].startswith("Discord answers again after ")
    assert told[2].startswith("Discord does not answer: ")
    assert told[3] == "Discord had not answered for 2 s when the bot stopped", told
    assert took < 2.0, f"{took:.2f} s to stop"
