"""A move acknowledged is a move kept: each write waits for a replica (WAIT), an
episode of unconfirmed writes is told once, and a late answer never reaches the
next command (bot/store/redis/wait.py, bot/store/redis/sockets.py)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.app.config import ConfigError, load_settings
from bot.store import RedisStore, Stored, StoreUnavailable
from bot.store.redis.sockets import discarding
from bot.store.redis.wait import IDLE, UNCONFIRMED, Replication, WaitSettings
from tests.helpers.local_redis import LocalRedis, redis_binary
from tests.helpers.tcp_proxy import TcpProxy


def _replica_of(exe: str, workdir: Path, master_port: int) -> LocalRedis:
    replica = LocalRedis(exe, workdir, args=["--replicaof", "127.0.0.1", str(master_port)])
    client = replica.client()
    deadline = time.monotonic() + 15
    while client.info("replication").get("master_link_status") != "up":
        assert time.monotonic() < deadline, "the replica did not sync"
        time.sleep(0.05)
    client.close()
    return replica


def busy_script(seconds: float, then: int = 1) -> str:
    """A script that keeps Redis busy for ``seconds`` (by its clock, to the
    microsecond), then answers ``then``."""
    return (
        "local function now() local t = redis.call('TIME') return t[1] * 1e6 + t[2] end "
        f"local stop = now() + {seconds * 1e6:.0f} while now() < stop do end return {then}"
    )


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[LocalRedis, TcpProxy, LocalRedis]]:
    """A master, a proxy in front of it (for the replica's link) and its replica."""
    exe = redis_binary()
    assert exe is not None
    (tmp_path / "r").mkdir()
    with (
        LocalRedis(exe, tmp_path) as m,
        TcpProxy(m.port) as link,
        _replica_of(exe, tmp_path / "r", link.port) as replica,
    ):
        yield m, link, replica


def _sample(name: str) -> float:
    from bot.ops.metrics import REGISTRY

    value = REGISTRY.get_sample_value(name)
    assert value is not None
    return value


def test_writes_wait_for_the_replica_and_are_on_it_when_answered(pair: tuple) -> None:
    master, link, replica = pair
    link.replication_lag = 0.25  # a congested network between master and replica
    with RedisStore(master.url, prefix="w1:") as s:
        assert s.replication.replicas == 1  # auto: the master has a replica
        on_replica = replica.client()
        assert s.create("g", b"v1", channel="c")
        for rev in range(1, 4):
            started = time.monotonic()
            assert s.save("g", f"v{rev + 1}".encode(), rev)
            took = time.monotonic() - started
            assert 0.2 < took < 0.8, took  # it waited for the lagging replica, no longer
            key = s._game("g")
            assert on_replica.hget(key, "data") == f"v{rev + 1}".encode()  # there already
        assert s.save_shown("g", b"notes", 0)
        assert on_replica.hget(s._game("g"), "shown") == b"notes"
        assert _sample("ludo_store_replicated") == 1
        on_replica.close()


def test_a_replica_that_does_not_confirm_is_one_episode_and_play_goes_on(
    pair: tuple, caplog: pytest.LogCaptureFixture
) -> None:
    master, _, replica = pair
    with RedisStore(master.url, prefix="w2:", wait=WaitSettings(timeout_ms=300)) as s:
        assert s.create("g", b"v", channel="c")
        replica.pause()  # it confirms nothing now
        before = _sample("ludo_store_unconfirmed_writes_total")
        try:
            with caplog.at_level(logging.WARNING, logger="bot.store.redis"):
                started = time.monotonic()
                assert s.save("g", b"v2", 1)  # answered all the same, after the timeout
                assert 0.25 < time.monotonic() - started < 0.9
                assert s.replication.status() is not None
                assert "not confirmed by 1 replica(s) within 300 ms" in str(s.replication.status())
                assert _sample("ludo_store_replicated") == 0
                for rev in range(2, 5):  # each waits, and is answered after the timeout
                    started = time.monotonic()
                    assert s.save("g", b"v", rev)
                    assert 0.25 < time.monotonic() - started < 0.9
                assert _sample("ludo_store_unconfirmed_writes_total") == before + 4
            lines = [r.getMessage() for r in caplog.records]
            assert len(lines) == 1 and "a failover now would lose" in lines[0]
        finally:
            replica.resume()
        deadline = time.monotonic() + 10
        with caplog.at_level(logging.WARNING, logger="bot.store.redis"):
            while s.replication.status() is not None:
                assert time.monotonic() < deadline, "the episode did not end"
                time.sleep(0.3)
                assert s.save_shown("g", b"n", s.load("g").shown.rev if s.load("g").shown else 0)
        assert "confirmed by the replicas again after" in caplog.records[-1].getMessage()
        assert _sample("ludo_store_replicated") == 1
        assert UNCONFIRMED._value.get() >= 4


def test_a_lone_redis_does_not_wait_and_the_settings_are_checked(own_redis: LocalRedis) -> None:
    with RedisStore(own_redis.url, prefix="w3:") as s:
        assert s.replication.replicas == 0  # auto: no replica to wait for
        assert s.create("g", b"v", channel="c") and s.save("g", b"w", 1)
    with RedisStore(own_redis.url, prefix="w3:", wait=WaitSettings(replicas=1, timeout_ms=50)) as s:
        assert s.save("g", b"x", 2)  # asked for one: answered, unconfirmed
        assert "within 50 ms" in str(s.replication.status())
    base = {"REDIS_URL": own_redis.url}
    got = load_settings({**base, "REDIS_WAIT_REPLICAS": "2", "REDIS_WAIT_TIMEOUT_MS": "250"})
    assert got.redis_wait == WaitSettings(replicas=2, timeout_ms=250)
    assert load_settings(base).redis_wait == WaitSettings(replicas=None, timeout_ms=500)
    for name, value, said in [
        ("REDIS_WAIT_REPLICAS", "some", "REDIS_WAIT_REPLICAS must be auto or 0 to 16, not 'some'"),
        ("REDIS_WAIT_REPLICAS", "-1", "REDIS_WAIT_REPLICAS must be auto or 0 to 16"),
        ("REDIS_WAIT_TIMEOUT_MS", "1000", "REDIS_WAIT_TIMEOUT_MS must be from 1 to 800, not 1000"),
        ("REDIS_WAIT_TIMEOUT_MS", "0.5", "REDIS_WAIT_TIMEOUT_MS must be a whole number"),
    ]:
        with pytest.raises(ConfigError) as err:
            load_settings({**base, name: value})
        assert said in str(err.value)


# -- a late answer never reaches the next command -------------------------------------


def test_a_redis_paused_in_the_middle_of_a_script_leaves_no_reply_behind(
    own_redis: LocalRedis,
) -> None:
    with RedisStore(own_redis.url, prefix="p1:") as s:
        assert s.create("g", b"v1", channel="c")
        assert s.create("h", b"h1", channel="d")
        slow = redis.Redis(port=own_redis.port, socket_timeout=5)
        # a script of 1.5 s, longer than the store's 1 s timeout, keeps Redis busy while
        # the store's save waits for its answer
        busy = threading.Thread(
            target=slow.eval,
            args=(
                busy_script(1.5),
                0,
            ),
        )
        busy.start()
        time.sleep(0.1)
        started = time.monotonic()
        assert s.save("g", b"v2", 1)  # its first answer was late: sent again, done once
        assert time.monotonic() - started > 0.9
        busy.join()
        slow.close()
        for _ in range(3):  # each call reads its own answer
            assert s.load("h") == Stored(b"h1", 1)
            assert s.load_in("c") == Stored(b"v2", 2)
            assert s.channel_game("d") == "h"


def test_a_redis_frozen_while_a_script_is_sent_leaves_no_reply_behind(
    own_redis: LocalRedis,
) -> None:
    """Redis stopped (SIGSTOP) for 1.5 s, longer than the store's 1 s timeout, with a
    save's script sent and unanswered: the save is sent again, done once, and every call
    after it reads its own answer."""
    with RedisStore(own_redis.url, prefix="p2:") as s:
        assert s.create("g", b"v1", channel="c")
        assert s.create("h", b"h1", channel="d")
        outcome: list[object] = []

        def save() -> None:
            try:
                outcome.append(s.save("g", b"v2", 1))
            except StoreUnavailable as e:
                outcome.append(e)

        own_redis.pause()
        try:
            saving = threading.Thread(target=save)
            saving.start()
            time.sleep(1.5)
        finally:
            own_redis.resume()
        saving.join(10)
        assert outcome == [True]  # answered by the copy sent again, after the resume
        for _ in range(3):  # the late answer of the first copy is read by nobody
            assert s.load("g") == Stored(b"v2", 2)  # applied once
            assert s.load("h") == Stored(b"h1", 1)
            assert s.channel_game("d") == "h"
        assert s.save("g", b"v3", 2) and s.load("g") == Stored(b"v3", 3)


def test_a_failed_read_always_closes_the_connection(own_redis: LocalRedis) -> None:
    """Whatever the caller asks (disconnect_on_error=False, as Sentinel's connection
    once did), a read that times out closes the connection: its late answer cannot
    be read by the next command."""
    cls = discarding(redis.Connection)
    conn = cls(port=own_redis.port, socket_timeout=0.3)
    conn.connect()
    conn.send_command(
        "EVAL",
        busy_script(1.0, then=7),
        0,
    )
    with pytest.raises(redis.exceptions.TimeoutError):
        conn.read_response(disconnect_on_error=False)
    assert conn._sock is None  # closed: the 7 goes nowhere
    time.sleep(1.2)
    conn.send_command("PING")
    assert conn.read_response() == b"PONG"
    conn.disconnect()


def test_healthz_warns_of_unconfirmed_writes_and_stays_200(pair: tuple) -> None:
    import asyncio

    from bot.app.health import store_warnings
    from tests.helpers.web_server import ask_healthz

    master, _, replica = pair
    with RedisStore(master.url, prefix="w4:", wait=WaitSettings(timeout_ms=100)) as s:
        assert store_warnings(s) == {}
        assert s.create("g", b"v", channel="c")
        replica.pause()
        try:
            assert s.save("g", b"w", 1)
        finally:
            replica.resume()

        status, body = asyncio.run(ask_healthz(lambda: store_warnings(s)))
        assert status == 200 and body["status"] == "ok"
        warned = body["warnings"]
        assert isinstance(warned, dict)
        assert warned["store"].startswith("writes not confirmed by 1 replica(s) within 100 ms")
        assert master.url.split("@")[-1] not in str(body)  # never where the store is


def test_the_gauge_tells_the_episodes_of_the_open_stores_only() -> None:
    now = [100.0]
    quiet = Replication(1, 500, "redis://a", clock=lambda: now[0])
    failing = Replication(1, 500, "redis://b", clock=lambda: now[0])
    quiet.heard("a:6379", 1)
    assert _sample("ludo_store_replicated") == 1
    failing.heard("b:6379", 0)
    assert _sample("ludo_store_replicated") == 0  # one open store in an episode
    quiet.heard("a:6379", 1)
    assert _sample("ludo_store_replicated") == 0  # the other's writes do not end it
    failing.close()  # a store closed in its episode: it ends with it
    assert _sample("ludo_store_replicated") == 1
    again = Replication(1, 500, "redis://c", clock=lambda: now[0])
    again.heard("c:6379", 0)
    assert _sample("ludo_store_replicated") == 0
    now[0] += IDLE + 1  # no write went there since (a master that failed over)
    assert _sample("ludo_store_replicated") == 1
    again.close()
    quiet.close()
