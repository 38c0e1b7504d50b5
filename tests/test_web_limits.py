"""The board's limits: presses rate-limited as a chat's are, sessions by address, and
a viewer that cannot keep up dropped without slowing the others."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

import aiohttp
import pytest
from aiohttp import web

from bot.limits import Limiter, LimitSettings, Rate
from bot.present.buttons import game_button
from bot.service import GameService
from bot.store import SqliteStore
from bot.store.limits import MemoryBuckets
from bot.web.auth import PLAYER, Session
from bot.web.hub import QUEUE, Hub, Viewer
from bot.web.words import WORDS
from tests.web_server import (
    ANA,
    BEN,
    Served,
    connect,
    init_data,
    playing,
    post_session,
    receive,
    serve_board,
)


@pytest.fixture
def service(tmp_path: Path) -> GameService:
    return GameService(SqliteStore(str(tmp_path / "games.sqlite3")))


@pytest.fixture
async def served(service: GameService) -> AsyncIterator[Served]:
    limits = LimitSettings(person=Rate(2, 0.001), chat=Rate(100, 1.0))
    s = await serve_board(service, limiter=Limiter(MemoryBuckets(), limits))
    try:
        yield s
    finally:
        await s.close()


async def test_presses_and_sessions_are_rate_limited(service: GameService, served: Served) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    waiting = BEN if game.on_turn() is not None and game.on_turn().user == ANA else ANA  # type: ignore[union-attr]
    async with aiohttp.ClientSession() as http:
        auth = "tma " + init_data(waiting, served.keys.play(game.id))
        status, body = await post_session(http, served.url, auth=auth)
        assert status == 200
        ws, _ = await connect(http, served.url, body["session"])
        roll = game_button(game.id, game.version, "roll")
        texts = []
        for n in range(3):
            await ws.send_json({"type": "press", "data": roll, "id": str(n)})
            texts.append((await receive(ws))["text"])
        assert texts[-1] == WORDS["web.slow_down"] and texts[0] != WORDS["web.slow_down"]
        # a person's sessions count with their presses: refused now
        statuses = [(await post_session(http, served.url, auth=auth))[0] for _ in range(2)]
        assert statuses[-1] == 429
    now = service.get(game.id)
    assert now is not None and now.rev == game.rev


class Stuck:
    """A socket whose sends never finish (a page that stopped reading)."""

    closed = False

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed_with: int | None = None

    async def send_str(self, text: str) -> None:
        self.sent.append(text)
        if text != "fast":
            await asyncio.Event().wait()

    async def close(self, code: int = 1000, message: bytes = b"") -> None:
        self.closed, self.closed_with = True, code


async def test_a_slow_viewer_is_dropped_and_the_others_go_on(service: GameService) -> None:
    hub = Hub(service, render=lambda game, user, lang: {})
    session = Session("telegram", "1", "A", "en", "0a1b2c3d", "tg:-1", PLAYER, 2e9)
    slow_ws, fast_ws = Stuck(), Stuck()
    slow = Viewer(cast(web.WebSocketResponse, slow_ws), session)
    fast = Viewer(cast(web.WebSocketResponse, fast_ws), session)
    hub.add(slow)
    hub.add(fast)
    assert hub.viewers == 2
    offered = [slow.offer("slow") for _ in range(QUEUE + 2)]
    for _ in range(QUEUE + 2):
        assert fast.offer("fast")
        await asyncio.sleep(0)
    assert offered[:QUEUE] == [True] * QUEUE and offered[-1] is False
    assert slow.task is not None
    assert slow.closing is not None
    await asyncio.wait([slow.task, slow.closing], timeout=5)
    assert slow.task.done() and slow_ws.closed_with == 1013
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(fast_ws.sent) == QUEUE + 2 and not fast_ws.closed
    hub.remove(slow)
    hub.remove(fast)
    assert hub.viewers == 0 and not hub.games
