"""The board for everyone on Telegram, end to end: ``/board text`` and
``/ludo board text`` tell the board in words; ``theme=`` draws a game's pictures in
another theme, an unknown one refused."""

from __future__ import annotations

import html
from typing import Any

import pytest

from bot.present.alt import alt_text
from bot.present.pictures import board_png
from bot.store import Store
from tests.fakes.telegram import FakeTelegram, make_user
from tests.helpers.telegram import IMAGE_SIZE, game_id_of, plain, running

pytestmark = pytest.mark.telegram

ANA = make_user(301, "Ana")
BEN = make_user(302, "Ben")


async def test_the_board_in_words_and_a_theme(fake: FakeTelegram, db: Store, clock: Any) -> None:
    group = fake.group("Screen readers welcome")
    async with running(fake, db, clock) as bot:
        calls = await bot.say(group, ANA, "/ludo classic theme=neon")
        (refused,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert plain(refused.params["text"]).startswith("I do not know that theme.")
        assert db.channel_game(f"tg:{group['id']}") is None

        # nothing to describe yet
        calls = await bot.say(group, ANA, "/board text")
        (none,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert plain(none.params["text"]) == "There is no game here. Start one first."

        await bot.say(group, ANA, "/ludo classic theme=dark")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        await bot.click(lobby, BEN, label="Join")
        await bot.click(lobby, ANA, label="Start")
        game = bot.game(game_id)
        assert game.theme == "dark"
        board = fake.latest(group["id"], buttons=True, photo=True)
        assert board.photo == board_png(game, IMAGE_SIZE)
        game.theme = "classic"
        assert board.photo != board_png(game, IMAGE_SIZE), "drawn in the dark theme"

        for command in ("/board text", "/ludo board text"):
            calls = await bot.say(group, BEN, command)
            (words,) = [c for c in calls if c.method == "sendMessage" and c.ok]
            assert words.params["text"] == html.escape(alt_text(bot.game(game_id)), quote=False)
            assert not [c for c in calls if c.method == "sendPhoto"], "words, not a picture"
        # /ludo board without text moves the picture down, as /board does
        calls = await bot.say(group, BEN, "/ludo board")
        assert [c.method for c in calls if c.ok and c.method.startswith("send")] == ["sendPhoto"]
