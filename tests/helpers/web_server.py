"""The board's server run for tests: a real aiohttp server on port 0 (the bot's own
:func:`bot.app.web.start_web`) serving the board's routes over a real store."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bot.app.board import board_routes
from bot.app.web import WebServer, start_web
from bot.hosting import User
from bot.limits.rate import Limiter
from bot.service.game import GameService
from bot.service.outcome import Outcome
from bot.web.auth import Keys
from bot.web.board import Board
from bot.web.discord import DiscordOAuth
from bot.web.hub import Hub
from tests.helpers.telegram import TG_TOKEN

DC_TOKEN = "discord-test-token"
ANA = User("telegram", "101", "Ana")
BEN = User("telegram", "102", "Ben")
CID = User("telegram", "103", "Cid")


@dataclass
class Served:
    board: Board
    server: WebServer
    shown: list[Outcome] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def keys(self) -> Keys:
        return self.board.keys

    async def close(self) -> None:
        await self.board.close()
        await self.server.close()


async def serve_board(
    service: GameService,
    *,
    redis: Any = None,
    discord: DiscordOAuth | None = None,
    limiter: Limiter | None = None,
    show: Any = None,
) -> Served:
    served: Served
    shown: list[Outcome] = []

    async def record(outcome: Outcome) -> None:
        shown.append(outcome)
        if show is not None:
            await show(outcome)

    keys = Keys([TG_TOKEN, DC_TOKEN])
    board = Board(
        service,
        keys,
        Hub(service, redis=redis, sign=keys.session),
        telegram_token=TG_TOKEN,
        discord=discord,
        limiter=limiter,
        show=record,
    )
    await board.hub.start()
    server = await start_web("127.0.0.1", 0, {}, routes=board_routes(board), max_connections=2000)
    served = Served(board, server, shown)
    return served


async def post_session(
    http: aiohttp.ClientSession, url: str, body: Any = None, auth: str | None = None
) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": auth} if auth else {}
    data = body if isinstance(body, bytes) else json.dumps(body or {}).encode()
    async with http.post(f"{url}/api/session", data=data, headers=headers) as r:
        return r.status, await r.json()


async def connect(
    http: aiohttp.ClientSession, url: str, session: str
) -> tuple[aiohttp.ClientWebSocketResponse, dict[str, Any]]:
    """A websocket said hello with ``session``, and its first state."""
    ws = await http.ws_connect(f"{url}/api/ws")
    await ws.send_json({"type": "hello", "session": session})
    return ws, await receive(ws)


async def receive(ws: aiohttp.ClientWebSocketResponse, timeout: float = 10.0) -> dict[str, Any]:
    msg = await ws.receive(timeout=timeout)
    assert msg.type == aiohttp.WSMsgType.TEXT, msg
    data: dict[str, Any] = json.loads(msg.data)
    return data


async def state_at(
    ws: aiohttp.ClientWebSocketResponse, rev: int, timeout: float = 10.0
) -> dict[str, Any]:
    """The first state of revision ``rev`` or later (acks and older states passed by)."""
    while True:
        message = await receive(ws, timeout)
        if message["type"] == "state" and message["game"]["rev"] >= rev:
            return message


async def ask_healthz(warnings: Callable[[], Mapping[str, str]]) -> tuple[int, dict[str, Any]]:
    """``GET /healthz`` of the bot's web server run with no checks and ``warnings``: its
    status and body."""
    server = await start_web("127.0.0.1", 0, {}, warnings=warnings)
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"http://127.0.0.1:{server.port}/healthz") as r,
        ):
            return r.status, await r.json()
    finally:
        await server.close()
