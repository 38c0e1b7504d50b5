"""``ludo-bot run`` as an operator runs it: a real process against the fake Telegram,
with its health and metrics port; SIGTERM ends it cleanly."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.app.runner import count_games, production_warnings
from bot.metrics import REGISTRY
from bot.store import RedisStore, SqliteStore
from tests.fake_telegram import TOKEN, FakeTelegram, free_port, make_user

ROOT = Path(__file__).resolve().parent.parent
ANA = make_user(101, "Ana")


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    server = FakeTelegram()
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def ludo_bot() -> list[str]:
    exe = shutil.which("ludo-bot", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "bot.app.cli"]


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def healthy(url: str, timeout: float = 30.0) -> str:
    """Wait until ``/healthz`` answers 200; its body."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = "no answer"
    while loop.time() < deadline:
        try:
            status, body = await get(f"{url}/healthz")
        except aiohttp.ClientError as e:
            last = str(e)
        else:
            if status == 200:
                return body
            last = f"{status} {body}"
        await asyncio.sleep(0.1)
    raise AssertionError(f"/healthz never said ok: {last}")


async def test_the_bot_serves_reports_its_health_and_stops_cleanly_on_sigterm(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    mine = ("TELEGRAM_", "DISCORD_", "REDIS_", "LUDO_", "LOG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
    env |= {
        "TELEGRAM_TOKEN": TOKEN,
        "TELEGRAM_API_URL": fake.url,
        "LUDO_DATABASE": str(tmp_path / "run.sqlite3"),
        "LUDO_HEALTH_PORT": str(port),
        "LOG_FORMAT": "json",
        "PYTHONWARNINGS": "ignore",
    }
    proc = await asyncio.create_subprocess_exec(
        *ludo_bot(),
        "run",
        env=env,
        cwd=str(tmp_path),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        body = await healthy(url)
        assert '"store"' in body and '"telegram"' in body
        # it serves: a person opens a game in a group
        group = fake.group("Ludo")
        fake.send_text(group, ANA, "/ludo classic")
        await fake.wait_call("sendMessage", timeout=20)
        status, text = await get(f"{url}/metrics")
        assert status == 200
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        assert samples[("ludo_platform_connected", (("platform", "telegram"),))] == 1
        assert samples[("ludo_store_reachable", ())] == 1
        done = [
            v
            for (name, labels), v in samples.items()
            if name == "ludo_presses_total" and ("result", "done") in labels
        ]
        assert sum(done) >= 1, "the /ludo command was counted"
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    stderr = err.decode()
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    # JSON lines for a log collector
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines and all(line.startswith("{") and line.endswith("}") for line in lines), stderr


async def test_the_active_games_are_counted_for_the_figures(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "games.sqlite3"))
    for k in range(2):
        assert store.create(f"g{k}", b"x", channel=f"c{k}")
    stop = asyncio.Event()
    task = asyncio.ensure_future(count_games(store, stop, every=0.02))
    try:
        await asyncio.sleep(0.1)
        assert REGISTRY.get_sample_value("ludo_games_active") == 2
        store.release_channel("c0", "g0")
        await asyncio.sleep(0.1)
        assert REGISTRY.get_sample_value("ludo_games_active") == 1
    finally:
        stop.set()
        await asyncio.wait_for(task, 5)
        store.close()


def test_the_runner_passes_on_what_the_store_finds_risky(tmp_path: Path, redis_url: str) -> None:
    sqlite = SqliteStore(str(tmp_path / "games.sqlite3"))
    assert production_warnings(sqlite) == []  # nothing to check in a file
    sqlite.close()
    store = RedisStore(redis_url)
    try:
        said = production_warnings(store)
        assert said == store.production_warnings()
        assert all(isinstance(line, str) and "\n" not in line for line in said)
    finally:
        store.close()
