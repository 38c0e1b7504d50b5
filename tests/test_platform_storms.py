"""A platform answering errors for a while, as the bot waits it out and as operators read
it (:mod:`bot.adapters.storm`): however many calls are refused, three log lines at
most; waits as the platform asks, else a jittered backoff that grows and is capped; a
storm is over only once every wait handed out has passed and a call is answered."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

from bot.adapters.storm import Backoff, Storm
from tests.helpers.faults import sample

log = logging.getLogger("tests.storms")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tests.storms"]


def test_a_long_storm_is_three_lines_however_many_calls_are_refused(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    storm = Storm("Telegram", log, clock, still=60.0, backoff=Backoff(rng=random.Random(1)))
    before = sample("ludo_platform_refused_total", platform="telegram", status="502") or 0
    with caplog.at_level(logging.DEBUG):
        storm.answered()  # all is well: nothing said
        for k in range(600):  # ten minutes, a refusal a second, other calls answered
            storm.refused(
                502 if k % 3 else 429, f"sendPhoto in chat -{k}", 1 if k % 3 == 0 else None
            )
            storm.wait(min(k, 6))
            clock.now += 0.5
            storm.answered()  # getUpdates answered meanwhile: not the end
            clock.now += 0.5
        assert storm.stormy
        assert sample("ludo_platform_backing_off", platform="telegram") == 1
        clock.now += 200  # every wait over; a call answered
        storm.answered()
        assert not storm.stormy
    lines = said(caplog)
    assert lines == [
        "Telegram answers 429 to sendPhoto in chat -0: backing off (retry after 1 s)",
        "Telegram still answers 429 after 60 s (61 calls refused): backing off, at most "
        "60 s between tries",
        "Telegram answers again after 600 s (600 calls refused)",
    ]
    assert all(r.levelno == logging.WARNING for r in caplog.records)
    after = sample("ludo_platform_refused_total", platform="telegram", status="502")
    assert after == before + 400
    assert sample("ludo_platform_backing_off", platform="telegram") == 0


async def test_a_storm_ends_once_the_waits_are_over_even_with_no_call_after(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A call answered while work still waits to try again is not the end: the end is
    said once the waits are over (a timer, with no other call), unless something is
    refused meanwhile."""
    storm = Storm("Discord", log)
    with caplog.at_level(logging.DEBUG):
        storm.refused(502, "POST /channels/1/messages")
        storm.waiting(0.1)  # the table tries again in a tenth of a second: over 1.11 s later
        storm.answered()  # an interaction answered: not the end
        await asyncio.sleep(0.3)
        storm.refused(502, "POST /channels/1/messages")  # the storm goes on
        await asyncio.sleep(1.1)
        assert storm.stormy  # nothing answered since the last refusal
        storm.answered()  # every wait over: the end
        assert not storm.stormy

        storm.refused(500, "PATCH /channels/1/messages/2")
        storm.waiting(0.1)
        storm.answered()
        await asyncio.sleep(0.3)
        assert storm.stormy
        await asyncio.sleep(1.0)
        assert not storm.stormy  # no call needed
    assert said(caplog) == [
        "Discord answers 502 to POST /channels/1/messages: backing off",
        "Discord answers again after 1 s (2 calls refused)",
        "Discord answers 500 to PATCH /channels/1/messages/2: backing off",
        "Discord answers again after 0 s (1 calls refused)",
    ]


def test_the_bot_stopping_in_a_storm_says_it_once(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    storm = Storm("Telegram", log, clock)
    with caplog.at_level(logging.DEBUG):
        storm.stopping()  # no storm: nothing said
        storm.refused(500, "editMessageMedia in chat -1")
        clock.now += 12
        storm.stopping()
        storm.stopping()
    assert said(caplog) == [
        "Telegram answers 500 to editMessageMedia in chat -1: backing off",
        "Telegram still answered 500 after 12 s when the bot stopped (1 calls refused)",
    ]


def test_the_backoff_grows_with_jitter_up_to_its_cap_and_keeps_a_retry_after() -> None:
    backoff = Backoff(base=1.0, cap=60.0, rng=random.Random(3))
    for attempt in range(12):
        ceiling = min(60.0, 2.0**attempt)
        waits = {backoff.delay(attempt) for _ in range(50)}
        assert all(ceiling / 2 <= w <= ceiling for w in waits), (attempt, waits)
        assert len(waits) > 40, "jittered"
    assert max(backoff.delay(50) for _ in range(100)) <= 60.0
    # the platform's word wins, however many tries were refused
    assert backoff.delay(0, retry_after=7) == 7.0
    assert backoff.delay(9, retry_after=0.5) == 0.5
