"""The send paces kept in a real Redis: every worker together keeps a chat's limit, on
Redis's own clock; a Redis that cannot be reached leaves each worker pacing alone."""

from __future__ import annotations

import logging
import uuid

import pytest
import redis

from bot.store.pace import Limits, MemoryPacer
from bot.store.redis.pace import RedisPacer


def pacers(url: str, count: int, limits: Limits) -> list[RedisPacer]:
    base = f"p{uuid.uuid4().hex[:8]}:{{p}}:"
    return [RedisPacer(redis.Redis.from_url(url), base, limits) for _ in range(count)]


def test_two_workers_share_one_groups_pace(redis_url: str) -> None:
    # 20 a minute in a group: 3 at once, then one every 61 / 18 s, whoever asks
    one, two = pacers(redis_url, 2, Limits(20, 60.0, private=0, overall=0, burst=3))
    assert [p.try_take(-7) for p in (one, two, one)] == [0, 0, 0]
    wait = two.try_take(-7)
    # the pace is kept in whole milliseconds: 61 / 18 s is 3.389 s, rounded
    assert 61 / 18 - 0.05 < wait <= round(61 / 18, 3), wait
    assert one.try_take(-7) == pytest.approx(wait, abs=0.05)
    # another group, and a private chat, have paces of their own
    assert two.try_take(-8) == 0 and one.try_take(5) == 0


def test_the_bot_wide_pace_is_shared_too(redis_url: str) -> None:
    # one call every 2 s in all (a slow bot-wide pace, so a busy machine cannot let a
    # second one through while the workers ask)
    one, two = pacers(redis_url, 2, Limits(0, 60.0, private=0, overall=0.5))
    waits = [(one if i % 2 else two).try_take(-i - 1) for i in range(20)]
    assert waits[0] == 0 and all(1.5 < w <= 2.0 for w in waits[1:]), waits


def test_without_redis_each_worker_paces_alone_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = redis.Redis(port=1, socket_connect_timeout=0.2, socket_timeout=0.2)
    now = [100.0]
    limits = Limits(20, 60.0, private=0, overall=0, burst=3)
    pacer = RedisPacer(client, "x:{x}:", limits, clock=lambda: now[0])
    caplog.set_level(logging.WARNING)
    asked = []
    pacer._take = lambda **kw: asked.append(kw) or client.ping()  # type: ignore[assignment]
    assert [pacer.try_take(-1) for _ in range(3)] == [0, 0, 0]
    assert pacer.try_take(-1) > 3.0  # still paced, in this worker
    # Redis is asked once, then only again after a while: nobody waits on it meanwhile
    assert len(asked) == 1
    now[0] += 6.0
    pacer.try_take(-1)
    assert len(asked) == 2
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "this worker alone" in said[0], said
    assert "port" not in said[0] and "1" not in said[0].split(":")[-1]


def test_no_second_ever_holds_more_than_the_bots_overall_rate() -> None:
    """Telegram's 30 messages a second for the whole bot: many private chats asking as
    fast as they may never get more than 30 calls into any one second."""
    now = [0.0]
    pacer = MemoryPacer(Limits(20, 60.0, private=1.0, overall=30), clock=lambda: now[0])
    granted = []
    chats = iter(range(1, 10**6))
    for _ in range(20_000):  # 10 s in steps of half a millisecond
        if pacer.try_take(next(chats)) == 0:
            granted.append(now[0])
        now[0] += 0.0005
    most, first = 0, 0
    for last, t in enumerate(granted):
        while granted[first] <= t - 1.0:
            first += 1
        most = max(most, last - first + 1)
    assert 24 <= most <= 30, most
    assert len(granted) >= 240, "about 25 a second go, steadily"
