"""``ludo-bot run`` with ``LUDO_PUBLIC_URL``: the board served beside the chat, a
press on it shown in the Telegram group's table."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.app.config import load_settings
from bot.app.runner import serve
from bot.present.buttons import game_button
from bot.store import Store
from bot.web.auth import Keys
from tests.fakes.telegram import FakeTelegram, free_port
from tests.helpers.chat_scenarios import shown_version, start_group_game
from tests.helpers.telegram import init_data, running
from tests.helpers.web_server import connect, post_session, receive, state_at

pytestmark = pytest.mark.telegram


@pytest.mark.slow
async def test_run_serves_the_board_and_the_chat_follows_it(
    fake: FakeTelegram, db: Store, clock: Any, tmp_path: Path
) -> None:
    group = fake.group("Run night")
    async with running(fake, db, clock) as bot:
        game_id = await start_group_game(bot, group, computers=0)
    game = bot.game(game_id)
    seat = game.on_turn()
    assert seat is not None and seat.user is not None
    port = free_port()
    settings = load_settings(
        {
            "TELEGRAM_TOKEN": fake.token,
            "TELEGRAM_API_URL": fake.url,
            "LUDO_WEB_PORT": str(port),
            "LUDO_WEB_HOST": "127.0.0.1",
            "LUDO_PUBLIC_URL": f"http://localhost:{port}",
            "LUDO_DATABASE": str(tmp_path / "unused.sqlite3"),
            "LUDO_IMAGE_SIZE": "300",
        }
    )
    assert settings.board is not None
    keys = Keys([fake.token])  # what every worker derives from the bot's token
    stop = asyncio.Event()
    mark = fake.mark()
    task = asyncio.ensure_future(serve(settings, db, stop))
    url = f"http://127.0.0.1:{port}"
    try:
        await fake.wait_call("getUpdates", since=mark, timeout=20)
        async with aiohttp.ClientSession() as http:
            _, watching = await post_session(http, url, {"watch": keys.watch(game_id)})
            viewer, first = await connect(http, url, watching["session"])
            assert first["game"]["rev"] == game.rev
            auth = "tma " + init_data(seat.user, keys.play(game_id), lang="pt-br", token=fake.token)
            status, body = await post_session(http, url, auth=auth)
            assert status == 200 and body["language"] == "pt_BR"
            ws, _ = await connect(http, url, body["session"])
            roll = game_button(game_id, game.version, "roll")
            await ws.send_json({"type": "press", "data": roll, "id": "1"})
            while (answer := await receive(ws))["type"] == "state":
                pass
            assert answer["type"] == "ack"
            after = bot.game(game_id)
            assert (await state_at(viewer, after.rev))["game"]["rev"] == after.rev
            await fake.wait_for(
                lambda: shown_version(fake, group["id"], game_id) == after.version,
                30,
                "the chat's table after the board's press",
            )
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
