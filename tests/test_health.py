"""The web server's /metrics in Prometheus' text format, and /healthz from the checks
the runner passes in."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path

import aiohttp
import pytest
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.parser import text_string_to_metric_families

from bot.app.health import health_checks, platform_check, run_checks, store_check
from bot.app.web import WebError as HealthError
from bot.app.web import WebServer as HealthServer
from bot.app.web import start_web as start_health
from bot.ops.metrics import PLATFORM_UP, PRESS_SECONDS, PRESSES, REGISTRY, STORE_UP
from bot.store import SqliteStore

FAMILIES = {
    "ludo_presses",
    "ludo_press_seconds",
    "ludo_games_active",
    "ludo_store_errors",
    "ludo_platform_rate_limited",
    "ludo_platform_connected",
    "ludo_store_reachable",
}


async def get(server: HealthServer, path: str, method: str = "GET") -> tuple[int, str, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, server.url + path) as response,
    ):
        return response.status, response.headers["Content-Type"], await response.text()


async def test_metrics_are_prometheus_text_with_every_ludo_family() -> None:
    PRESSES.labels(platform="telegram", result="done").inc()
    PRESS_SECONDS.labels(platform="telegram").observe(0.2)
    server = await start_health("127.0.0.1", 0, {})
    try:
        assert server.port > 0
        status, kind, text = await get(server, "/metrics")
    finally:
        await server.close()
    assert status == 200 and kind.startswith("text/plain; version=")
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert set(families) >= FAMILIES
    presses = {
        (s.labels["platform"], s.labels["result"]): s.value
        for s in families["ludo_presses"].samples
        if s.name == "ludo_presses_total"
    }
    assert presses[("telegram", "done")] >= 1
    buckets = [s for s in families["ludo_press_seconds"].samples if s.name.endswith("_bucket")]
    assert {s.labels["le"] for s in buckets} >= {"0.25", "+Inf"}
    assert families["ludo_press_seconds"].type == "histogram"


async def test_metrics_of_another_registry() -> None:
    registry = CollectorRegistry()
    Counter("other_things", "Things", registry=registry).inc(3)
    server = await start_health("127.0.0.1", 0, {}, registry=registry)
    try:
        _, _, text = await get(server, "/metrics")
    finally:
        await server.close()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert not any(name.startswith("ludo_") for name in families)
    assert families["other_things"].samples[0].value == 3


async def test_healthz_is_ok_then_503_naming_what_fails() -> None:
    store_up = True
    telegram_up = True

    def store() -> bool:
        if not store_up:
            raise ConnectionError("cannot reach Redis at redis://r:6379/0")
        return True

    async def telegram() -> bool:
        return telegram_up

    server = await start_health("127.0.0.1", 0, {"store": store, "telegram": telegram})
    try:
        status, kind, text = await get(server, "/healthz")
        assert (status, kind) == (200, "application/json")
        assert json.loads(text) == {"status": "ok", "checks": {"store": "ok", "telegram": "ok"}}
        store_up = False
        status, _, text = await get(server, "/healthz")
        assert status == 503
        assert json.loads(text) == {
            "status": "failing",
            "checks": {"store": "cannot reach Redis at redis://r:6379/0", "telegram": "ok"},
        }
        store_up, telegram_up = True, False
        status, _, text = await get(server, "/healthz")
        assert status == 503 and json.loads(text)["checks"]["telegram"] == "failing"
        telegram_up = True
        assert (await get(server, "/healthz?verbose=1"))[0] == 200
    finally:
        await server.close()


async def test_a_check_that_hangs_fails_in_time_and_the_others_still_answer() -> None:
    async def hangs() -> bool:
        await asyncio.sleep(30)
        return True

    checks = {"store": hangs, "discord": lambda: True}
    server = await start_health("127.0.0.1", 0, checks, timeout=0.2)
    try:
        status, _, text = await asyncio.wait_for(get(server, "/healthz"), 5)
    finally:
        await server.close()
    assert status == 503
    assert json.loads(text)["checks"] == {"store": "no answer within 0.2 s", "discord": "ok"}


async def test_the_store_check_reads_the_store_and_sets_its_gauge(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "g.db"))
    check = store_check(store)
    assert await run_checks({"store": check}) == {"store": "ok"}
    assert REGISTRY.get_sample_value("ludo_store_reachable") == 1
    store.close()  # a store that cannot answer
    result = await run_checks({"store": check})
    assert result["store"] != "ok"
    assert REGISTRY.get_sample_value("ludo_store_reachable") == 0
    STORE_UP.set(1)


async def test_the_platform_check_reads_the_connected_gauge() -> None:
    check = platform_check("test-platform")
    assert (await run_checks({"p": check}))["p"] == "not connected"  # never set: not connected
    PLATFORM_UP.labels(platform="test-platform").set(1)
    assert await run_checks({"p": check}) == {"p": "ok"}
    PLATFORM_UP.labels(platform="test-platform").set(0)
    assert (await run_checks({"p": check}))["p"] == "not connected"


async def test_other_paths_and_methods() -> None:
    server = await start_health("127.0.0.1", 0, {"ok": lambda: True})
    try:
        assert (await get(server, "/"))[0] == 404
        assert (await get(server, "/healthz", "POST"))[0] == 405
        status, _, body = await get(server, "/healthz", "HEAD")
        assert status == 200 and body == ""
        # nonsense instead of HTTP: a 400, and the server carries on
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"hello\r\n\r\n")
        assert re.match(rb"HTTP/1\.[01] 400 ", await reader.read())
        writer.close()
        assert (await get(server, "/healthz"))[0] == 200
    finally:
        await server.close()


async def test_a_taken_port_is_one_clear_error_and_close_stops_listening() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(
            HealthError, match=f"cannot serve /healthz and /metrics on 127.0.0.1:{port}"
        ):
            await start_health("127.0.0.1", port, {})
    server = await start_health("127.0.0.1", 0, {})
    await server.close()
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", server.port)


async def test_the_store_check_tells_the_services_outage(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # through the service's outage: one warning when the store stops answering
    from bot.service.faults import Outage

    outage = Outage()
    store = SqliteStore(str(tmp_path / "g.db"))
    check = store_check(store, outage)
    assert await run_checks({"store": check}) == {"store": "ok"} and not outage.down
    store.close()
    with caplog.at_level("WARNING"):
        for _ in range(3):
            assert (await run_checks({"store": check}))["store"] != "ok"
    assert outage.down and REGISTRY.get_sample_value("ludo_store_reachable") == 0
    warnings = [r for r in caplog.records if "unreachable" in r.getMessage()]
    assert len(warnings) == 1
    STORE_UP.set(1)


def test_the_checks_follow_the_configured_platforms(tmp_path: Path) -> None:
    from bot.app.config import load_settings

    store = SqliteStore(":memory:")
    try:
        both = load_settings({"TELEGRAM_TOKEN": "1:x", "DISCORD_TOKEN": "y"})
        assert list(health_checks(both, store)) == ["store", "telegram", "discord"]
        only = load_settings({"DISCORD_TOKEN": "y"})
        assert list(health_checks(only, store)) == ["store", "discord"]
    finally:
        store.close()
