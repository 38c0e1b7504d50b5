"""One game, two views: a press made on the board (its websocket) shows in the
Telegram group's table, through the real adapter against the fake Telegram, as any
button press does."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from bot.hosting import User
from bot.present.buttons import game_button
from bot.store import Store
from tests.fakes.telegram import FakeTelegram
from tests.helpers.chat_scenarios import shown_version, start_group_game
from tests.helpers.telegram import init_data, running
from tests.helpers.web_server import connect, post_session, receive, serve_board

pytestmark = pytest.mark.telegram


async def test_a_press_on_the_board_shows_in_the_chat_table(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Board night")
    async with running(fake, db, clock) as bot:
        game_id = await start_group_game(bot, group, computers=0)
        served = await serve_board(bot.service, show=bot.adapter.show)
        try:
            game = bot.game(game_id)
            seat = game.on_turn()
            assert seat is not None and seat.user is not None
            person: User = seat.user
            await fake.wait_for(
                lambda: shown_version(fake, group["id"], game_id) == game.version,
                30,
                "the chat's table before",
            )
            auth = "tma " + init_data(person, served.keys.play(game_id))
            async with aiohttp.ClientSession() as http:
                status, body = await post_session(http, served.url, auth=auth)
                assert status == 200 and body["role"] == "player"
                ws, _ = await connect(http, served.url, body["session"])
                roll = game_button(game_id, game.version, "roll")
                await ws.send_json({"type": "press", "data": roll, "id": "r1"})
                while (answer := await receive(ws))["type"] == "state":
                    pass
                assert answer == {"type": "ack", "id": "r1"}
                after = bot.game(game_id)
                assert after.rev > game.rev and after.version > game.version
                await fake.wait_for(
                    lambda: shown_version(fake, group["id"], game_id) == after.version,
                    30,
                    "the chat's table after the board's press",
                )
                await ws.close()
        finally:
            await served.close()
