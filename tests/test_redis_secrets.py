"""No Redis secret printed: every form of credential (``user:pass@``, ``?password=``,
Sentinel's passwords, a mistyped scheme) is left out of the start error, the outage
log line and ``/healthz``, which names the store's kind and state, not its address."""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis

from bot.app import cli
from bot.app.config import load_settings, open_configured_store
from bot.app.health import health_checks, store_kind
from bot.app.inputs import TRY_LATER
from bot.app.web import start_web
from bot.ops.metrics import STORE_UP
from bot.service.faults import Outage
from bot.store import RedisStore, StoreError
from tests.helpers.local_redis import redis_binary, start_redis, stop_redis

#: the logging set up by `ludo-bot run` is put back after each test
pytestmark = pytest.mark.usefixtures("keep_logging")


SECRETS = ("qs3cret", "us3cret", "rs3cret", "ss3cret")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, **values: str) -> None:
    for name in list(os.environ):
        if name.startswith(("TELEGRAM_", "DISCORD_", "REDIS_", "LUDO_", "LOG_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_TOKEN", "1:x")
    for name, value in values.items():
        monkeypatch.setenv(name, value)


#: a Redis not reachable (yet) exits 75, which systemd starts again; a URL that can
#: never work exits 2
UNREACHABLE, WRONG = TRY_LATER, 2


@pytest.mark.parametrize(
    ("values", "status"),
    [
        ({"REDIS_URL": "redis://127.0.0.1:{port}/0?password=qs3cret"}, UNREACHABLE),
        ({"REDIS_URL": "redis://bot:us3cret@127.0.0.1:{port}/0"}, UNREACHABLE),
        ({"REDIS_URL": "rediss://:us3cret@127.0.0.1:{port}/0?password=qs3cret"}, UNREACHABLE),
        ({"REDIS_URL": "unix://:us3cret@/nowhere/redis.sock?db=0&password=qs3cret"}, UNREACHABLE),
        ({"REDIS_URL": "reddis://bot:us3cret@127.0.0.1:{port}/0?password=qs3cret"}, WRONG),
        (
            {
                "REDIS_SENTINELS": "127.0.0.1:{port}",
                "REDIS_SENTINEL_MASTER": "ludo",
                "REDIS_PASSWORD": "rs3cret",
                "REDIS_SENTINEL_PASSWORD": "ss3cret",
            },
            UNREACHABLE,
        ),
    ],
)
def test_the_start_error_never_shows_a_redis_secret(
    values: dict[str, str],
    status: int,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = str(_closed_port())
    _env_for(monkeypatch, tmp_path, **{k: v.replace("{port}", port) for k, v in values.items()})
    assert cli.main(["run"]) == status
    err = capsys.readouterr().err
    print(err)
    assert err.startswith("ludo-bot: ") and len(err.splitlines()) == 1
    assert not [s for s in SECRETS if s in err], err
    assert "Redis" in err or "REDIS_URL" in err
    assert "<redis." not in err and "ConnectionPool" not in err, err  # no Python internals


@pytest.fixture
def locked_redis(tmp_path: Path) -> Iterator[tuple[Any, str]]:
    """A redis-server that wants the password ``qs3cret``: its process and URL."""
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/plugin.py)"
    proc, url = start_redis(exe, tmp_path)
    raw = redis.Redis.from_url(url)
    raw.config_set("requirepass", "qs3cret")
    raw.close()
    try:
        yield proc, url
    finally:
        stop_redis(proc)


@pytest.mark.parametrize("form", ["query", "userinfo"])
async def test_the_outage_line_and_healthz_never_show_a_redis_secret_nor_its_address(
    form: str, locked_redis: tuple[Any, str], caplog: pytest.LogCaptureFixture
) -> None:
    proc, url = locked_redis
    host, port = url.removeprefix("redis://").split("/")[0].split(":")
    if form == "query":
        secret_url = f"{url}?password=qs3cret"
    else:
        secret_url = url.replace("redis://", "redis://default:qs3cret@")
    store = RedisStore(secret_url, prefix="web-test:")
    outage = Outage()
    settings = load_settings({"REDIS_URL": secret_url, "TELEGRAM_TOKEN": "1:x"})
    checks = {"store": health_checks(settings, store, outage)["store"]}
    server = await start_web("127.0.0.1", 0, checks, store_kind=store_kind(store))
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{server.url}/healthz") as answer:
                assert answer.status == 200
                body = await answer.text()
            assert json.loads(body)["store_kind"] == "redis"
            stop_redis(proc)  # the store goes away
            with caplog.at_level(logging.WARNING):
                async with http.get(f"{server.url}/healthz") as answer:
                    assert answer.status == 503
                    failing = await answer.text()
    finally:
        await server.close()
        store.close()
        STORE_UP.set(1)
    assert json.loads(failing) == {
        "status": "failing",
        "checks": {"store": "unreachable"},
        "store_kind": "redis",
    }
    [line] = [r.getMessage() for r in caplog.records if "unreachable" in r.getMessage()]
    print(line)
    assert outage.down and "Redis" in line and "***" in line
    for text in (body, failing, line):
        assert "qs3cret" not in text
    for text in (body, failing):
        assert host not in text and port not in text and "/0" not in text


def test_a_store_that_cannot_be_opened_is_one_line_without_the_secret(tmp_path: Path) -> None:
    settings = load_settings({"REDIS_URL": f"redis://:us3cret@127.0.0.1:{_closed_port()}/0"})
    with pytest.raises(StoreError) as err:
        open_configured_store(settings)
    assert "us3cret" not in str(err.value) and ":***@127.0.0.1" in str(err.value)
