"""The bot's one web server as an attacker meets it: the Telegram webhook's secret
(derived from the token when none is set) checked before a body is read, bodies
capped, slow clients cut, connections capped (Redis secrets: test_redis_secrets)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.adapters.telegram import WebhookSettings
from bot.adapters.telegram import webhook as webhook_module
from bot.adapters.telegram.webhook import MAX_BODY, SECRET_HEADER, derived_secret
from bot.app.config import load_settings
from bot.app.runner import serve
from bot.app.web import IDLE_SECONDS, WebServer, start_web
from bot.hosting import PLAYING
from bot.store import Store
from tests.fakes.telegram import FakeTelegram, free_port
from tests.helpers.telegram import ANA, BEN, Bot, plain, running

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]


MB = 1024 * 1024
HOOK_URL = "https://bot.example/telegram"


def rss_mb() -> float:
    """This process's resident memory, in MB (/proc/self/status VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@asynccontextmanager
async def hook_server(bot: Bot, **kw: Any) -> AsyncIterator[WebServer]:
    server = await start_web("127.0.0.1", 0, {}, routes=bot.adapter.routes(), **kw)
    try:
        yield server
    finally:
        await server.close()


async def post(
    url: str, body: bytes, secret: str | None, *, method: str = "POST"
) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, url, data=body, headers=headers) as answer,
    ):
        return answer.status, await answer.text()


# -- the webhook, forged and real -------------------------------------------------


async def test_a_forged_update_without_the_derived_secret_ends_nobodys_game(
    fake: FakeTelegram, db: Store, clock: Any, tmp_path: Path
) -> None:
    group = fake.group("Forged")
    async with running(fake, db, clock, seed=2) as bot:  # a game played by polling
        game_id = await bot.started(group, ANA, [BEN])
    assert bot.game(game_id).status == PLAYING
    # the bot again, in webhook mode with no secret configured, as `ludo-bot run` runs it
    port = free_port()
    settings = load_settings(
        {
            "TELEGRAM_TOKEN": fake.token,
            "TELEGRAM_API_URL": fake.url,
            "TELEGRAM_WEBHOOK_URL": HOOK_URL,
            "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
            "TELEGRAM_WEBHOOK_PORT": str(port),
            "LUDO_DATABASE": str(tmp_path / "unused.sqlite3"),
            "LUDO_IMAGE_SIZE": "300",
        }
    )
    assert settings.telegram_webhook_secret is None and settings.web_port == port
    secret = derived_secret(fake.token)
    assert 1 <= len(secret) <= 256 and secret.isalnum() and fake.token not in secret
    stop = asyncio.Event()
    task = asyncio.ensure_future(serve(settings, db, stop))
    try:
        await fake.wait_call("setWebhook", timeout=20)
        [hook] = fake.calls_of("setWebhook")
        assert hook.params["url"] == HOOK_URL and hook.params["secret_token"] == secret
        address = f"http://127.0.0.1:{port}/telegram"
        mark = fake.mark()
        for k, forged in enumerate([None, "", "wrong", secret[:-1], secret + "x"]):
            update = fake.message_update(group, ANA, "/end") | {"update_id": 1 + k}
            status, _ = await post(address, json.dumps(update).encode(), forged)
            assert status == 403, forged
        await asyncio.sleep(0.5)
        assert bot.game(game_id).status == PLAYING, "a forged /end ended the game"
        assert not [c for c in fake.calls[mark:] if c.chat_id == group["id"]]
        # with the derived secret (what Telegram was told) it is processed
        update = fake.message_update(group, ANA, "/end") | {"update_id": 10}
        status, _ = await post(address, json.dumps(update).encode(), secret)
        assert status == 200
        shown = await fake.wait_call("editMessageMedia", since=mark, timeout=20)
        assert "ended the game" in plain(shown.params["media"]["caption"])
        assert bot.game(game_id).status != PLAYING
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


async def test_what_is_not_an_update_is_refused_in_one_short_line(
    fake: FakeTelegram, db: Store, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    bot = Bot(fake, db, clock, webhook=WebhookSettings(url=HOOK_URL))
    secret = derived_secret(fake.token)
    async with hook_server(bot) as server:
        address = f"{server.url}/telegram"
        with caplog.at_level(logging.DEBUG):
            for body in (b"[1, 2, 3]", b"\x00\xffgarbage{", b"null", b'"update"', b""):
                assert (await post(address, body, secret))[0] == 400, body
        assert (await post(address, b"{}", secret, method="GET"))[0] == 405
        assert (await post(address, b"{}", secret, method="PUT"))[0] == 405
    lines = [r for r in caplog.records if r.name.startswith(("bot.", "aiohttp", "telegram"))]
    assert not [r for r in lines if r.exc_info], "a traceback was logged"
    refused = [r.getMessage() for r in lines if "not an update" in r.getMessage()]
    assert len(refused) == 5 and all(len(m) < 200 and "\n" not in m for m in refused)


async def test_a_request_that_is_not_http_is_one_short_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = await start_web("127.0.0.1", 0, {})
    try:
        with caplog.at_level(logging.DEBUG):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET /healthz HTTP/1.1\r\nX-Long: " + b"a" * 20000 + b"\r\n\r\n")
            data = await asyncio.wait_for(reader.read(), 5)
            writer.close()
    finally:
        await server.close()
    assert data.startswith((b"HTTP/1.0 4", b"HTTP/1.1 4")), data[:40]
    [line] = [r for r in caplog.records if r.name == "bot.app.web.http"]
    assert line.levelno == logging.WARNING and len(line.getMessage()) < 300
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


# -- bodies: refused before they are read, memory flat ----------------------------


async def send_body(
    port: int, size: int, secret: str | None, *, chunked: bool = False
) -> tuple[bytes, float, int]:
    """POST ``size`` bytes to /telegram from a raw socket, the body pushed while the
    answer is awaited; the status line, seconds until it came, and bytes pushed."""
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    length = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    header = f"{SECRET_HEADER}: {secret}\r\n" if secret is not None else ""
    writer.write(
        f"POST /telegram HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"
        f"{length}\r\n{header}\r\n".encode()
    )
    piece = b"x" * 65536  # the same bytes again and again: the client holds 64 KB
    frame = b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece

    async def push() -> int:
        pushed = 0
        with contextlib.suppress(ConnectionError):
            while pushed < size:
                writer.write(frame)
                await writer.drain()
                pushed += len(piece)
        return pushed

    started = loop.time()
    pusher = asyncio.ensure_future(push())
    status = await asyncio.wait_for(reader.readline(), 10)
    took = loop.time() - started
    with contextlib.suppress(ConnectionError, TimeoutError):
        await asyncio.wait_for(reader.read(), 10)  # the server closes the connection
    try:
        pushed = await asyncio.wait_for(pusher, 10)
    except TimeoutError:
        pushed = size
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return status, took, pushed


async def test_huge_bodies_are_refused_at_once_and_memory_stays_flat(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    bot = Bot(fake, db, clock, webhook=WebhookSettings(url=HOOK_URL))
    secret = derived_secret(fake.token)
    size = 50 * MB
    async with hook_server(bot) as server:
        # warm up: the first requests allocate what every later one reuses
        for _ in range(2):
            await send_body(server.port, 2 * MB, "wrong")
        gc.collect()
        before = rss_mb()
        results = []
        for _ in range(4):  # a wrong secret: 403 before the body is read
            results.append(("403", *await send_body(server.port, size, "wrong")))
        # the right secret, a Content-Length over 1 MB: 413 at once
        results.append(("413", *await send_body(server.port, size, secret)))
        # the right secret, chunked: 413 once 1 MB has come
        results.append(("413", *await send_body(server.port, size, secret, chunked=True)))
        gc.collect()
        after = rss_mb()
    print(f"\nRSS before {before:.1f} MB, after six 50 MB bodies {after:.1f} MB")
    for want, status, took, pushed in results:
        print(f"  {status.decode().strip()}: in {took * 1000:.1f} ms, {pushed / MB:.1f} MB pushed")
        assert status.startswith(f"HTTP/1.1 {want} ".encode()), status
        assert took < 2.0
        assert pushed < size / 2, "the server read the whole body"
    assert after - before < 20, (before, after)


async def test_a_body_just_under_the_cap_is_taken(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    bot = Bot(fake, db, clock, webhook=WebhookSettings(url=HOOK_URL, secret="given-secret"))
    group = fake.group("Padded")
    update = fake.message_update(group, ANA, "/help") | {"update_id": 5}
    body = json.dumps(update).encode()
    padded = body[:-1] + b"," + b'"pad": "' + b"x" * (MAX_BODY - len(body) - 20) + b'"}'
    assert MAX_BODY - 100 < len(padded) < MAX_BODY
    await bot.adapter.app.initialize()
    await bot.adapter.app.start()
    try:
        async with hook_server(bot) as server:
            address = f"{server.url}/telegram"
            assert (await post(address, padded, derived_secret(fake.token)))[0] == 403
            assert (await post(address, padded + b" " * 100, "given-secret"))[0] == 413
            assert (await post(address, padded, "given-secret"))[0] == 200
            await asyncio.wait_for(bot.adapter.app.update_queue.join(), 10)
            await fake.wait_call("sendMessage", timeout=10)
    finally:
        await bot.adapter.app.stop()
        await bot.adapter.app.shutdown()


# -- slow clients and many connections --------------------------------------------


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> tuple[bytes, float]:
    """What the server sends until it closes the connection, and when it closed.

    Read as it comes: a server closing while the client still writes makes the
    kernel answer the client's next bytes with a reset, which must not lose
    what the server said before it closed.
    """
    loop = asyncio.get_running_loop()
    started = loop.time()
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := await asyncio.wait_for(reader.read(4096), seconds):
            data += chunk
    return data, loop.time() - started


@pytest.mark.slow
async def test_a_slow_client_is_cut_within_the_deadline(
    fake: FakeTelegram, db: Store, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = Bot(fake, db, clock, webhook=WebhookSettings(url=HOOK_URL, secret="s3cret"))
    async with hook_server(bot) as server:
        # half its headers, then nothing: closed after the idle deadline (the default)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /telegram HTTP/1.1\r\nHost: bot\r\nX-Telegram-Bot")
        data, took = await closed_within(reader, IDLE_SECONDS + 5)
        assert data == b"" and IDLE_SECONDS - 0.5 < took < IDLE_SECONDS + 2, took
        writer.close()
        # nothing at all: the same
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        data, took = await closed_within(reader, IDLE_SECONDS + 5)
        assert data == b"" and took < IDLE_SECONDS + 2
        writer.close()
        # the headers, then the body a byte now and then: 408 within the read deadline
        monkeypatch.setattr(webhook_module, "READ_SECONDS", 1.0)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"POST /telegram HTTP/1.1\r\nHost: bot\r\nContent-Length: 100\r\n"
            b"X-Telegram-Bot-Api-Secret-Token: s3cret\r\n\r\n{"
        )

        async def drip() -> None:
            with contextlib.suppress(ConnectionError):
                for _ in range(50):
                    await asyncio.sleep(0.2)
                    writer.write(b" ")
                    await writer.drain()

        dripping = asyncio.ensure_future(drip())
        data, took = await closed_within(reader, 10)
        dripping.cancel()
        writer.close()
        assert data.startswith(b"HTTP/1.1 408 ") and took < 3, (data, took)


async def test_the_connection_cap_holds(fake: FakeTelegram, db: Store, clock: Any) -> None:
    bot = Bot(fake, db, clock, webhook=WebhookSettings(url=HOOK_URL, secret="s3cret"))
    request = b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n"
    async with hook_server(bot, max_connections=3) as server:
        held = []
        for _ in range(3):  # three connections kept open (keep-alive)
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(request)
            assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 200")
            held.append((reader, writer))
        for _ in range(3):  # one more: closed at once, unanswered
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            with contextlib.suppress(ConnectionError):
                writer.write(request)
            with contextlib.suppress(ConnectionError):
                data, took = await closed_within(reader, 5)
                assert data == b"" and took < 1
            writer.close()
        # one of the three goes: a new one is served
        held.pop()[1].close()
        await asyncio.sleep(0.2)
        async with aiohttp.ClientSession() as http, http.get(f"{server.url}/healthz") as answer:
            assert answer.status == 200
        for _, writer in held:
            writer.close()
