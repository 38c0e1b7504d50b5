"""The live board opened from a Telegram table (issue 23), end to end on the fake
Telegram: with a Mini App set up, every lobby and playing table carries "Open the
board" as its last row: in a group the Mini App's direct link (a URL button), in a
private chat a ``web_app`` button; a finished game's table carries none, and without
a Mini App nothing changes.  The fake refuses what Telegram refuses (a ``web_app``
button in a group, a URL of another scheme)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from telegram import Bot as PtbBot
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest

from bot.adapters.discord import DiscordAdapter
from bot.adapters.telegram import MiniApp, TelegramAdapter
from bot.app.board import board_keys
from bot.app.config import load_settings
from bot.app.runner import build_adapters
from bot.hosting import PLAYING
from bot.present import Text, say
from bot.service.game import GameService
from bot.store import Store
from tests.fakes.telegram import BOT_USERNAME, FakeMessage, FakeTelegram, make_user
from tests.helpers.telegram import game_id_of, running

pytestmark = pytest.mark.telegram

ANA = make_user(401, "Ana")
BEN = make_user(402, "Ben", language_code="pt-br")
APP = MiniApp("ludoboard", "https://ludo.example/board/")
OPEN = "Open the board"


def board_row(message: FakeMessage) -> list[dict[str, Any]]:
    """The message's last row of buttons, which must be the board's alone."""
    assert message.keyboard, f"message {message.message_id} has no buttons"
    return message.keyboard[-1]


def game_rows(message: FakeMessage) -> list[list[dict[str, Any]]]:
    """The rows of the game's own buttons (every one a callback button)."""
    return [row for row in message.keyboard if all("callback_data" in b for b in row)]


def link(game_id: str) -> str:
    return f"https://t.me/{BOT_USERNAME}/ludoboard?startapp={game_id}"


def table(fake: FakeTelegram, chat_id: int) -> FakeMessage:
    """The chat's newest message with buttons (the table)."""
    return fake.latest(chat_id, buttons=True)


async def test_a_group_table_links_the_mini_app_while_the_game_is_on(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Board night")
    async with running(fake, db, clock, seed=5, miniapp=APP) as bot:
        await bot.say(group, ANA, "/ludo classic")
        lobby = table(fake, group["id"])
        game_id = game_id_of(lobby)
        # the lobby's own buttons as ever, then the board's row: one URL button
        assert [[b["text"] for b in row] for row in game_rows(lobby)] == [
            ["Join", "Leave"],
            ["Add computer", "Remove computer", "Start"],
            ["Level: normal"],
        ]
        assert board_row(lobby) == [{"text": OPEN, "url": link(game_id)}]

        # edited in place (a join) it keeps the row
        await bot.click(lobby, BEN, label="Join")
        lobby = fake.message(group["id"], lobby.message_id)
        assert lobby.edit_date is not None and "Ben" in lobby.content
        assert board_row(lobby) == [{"text": OPEN, "url": link(game_id)}]

        await bot.click(lobby, ANA, label="Start")
        people = {ANA["id"]: ANA, BEN["id"]: BEN}
        rng = random.Random(3)
        kinds: set[str] = set()
        for _ in range(12):
            game = bot.game(game_id)
            if game.status != PLAYING:
                break
            board = table(fake, group["id"])
            assert board.photo is not None and game_id_of(board) == game_id
            # the table speaks its own language (English), whoever presses
            assert board_row(board) == [{"text": OPEN, "url": link(game_id)}]
            labels = [b["text"] for row in game_rows(board) for b in row]
            label = "Roll" if "Roll" in labels else rng.choice(labels)
            turn = bot.on_turn(game_id)
            assert turn is not None
            click = await bot.click(board, people[int(turn)], label=label)
            kinds |= {c.method for c in click.calls if c.ok}
        assert {"editMessageMedia", "sendPhoto"} <= kinds, "both edited and posted anew"
        assert not [c for c in fake.calls if c.status not in (None, 200)], "all taken"

        # the game ends: its last tables carry no board button
        await bot.say(group, ANA, "/end")
        for message in fake.chat_messages(group["id"]):
            if message.keyboard:
                assert all("url" not in b for row in message.keyboard for b in row), message


async def test_a_private_table_opens_the_board_as_a_web_app(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    chat = fake.private(BEN)
    async with running(fake, db, clock, seed=9, miniapp=APP) as bot:
        await bot.say(chat, BEN, "/ludo classic")
        lobby = table(fake, chat["id"])
        game_id = game_id_of(lobby)
        label = say(Text("btn.open_board"), lang="pt_BR")
        assert label == "Abrir o tabuleiro"
        page = f"https://ludo.example/board/?game={game_id}"
        assert board_row(lobby) == [{"text": label, "web_app": {"url": page}}]
        await bot.click(lobby, BEN, label="+ Computador")
        await bot.click(lobby, BEN, label="Começar")
        board = table(fake, chat["id"])
        assert board.photo is not None
        assert board_row(board) == [{"text": label, "web_app": {"url": page}}]


async def test_without_a_mini_app_the_tables_are_as_before(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group, private = fake.group(), fake.private(ANA)
    async with running(fake, db, clock) as bot:
        for chat in (group, private):
            await bot.say(chat, ANA, "/ludo classic")
            lobby = table(fake, chat["id"])
            assert lobby.keyboard == game_rows(lobby) and len(lobby.keyboard) == 3
            assert OPEN not in lobby.content


async def test_the_fake_refuses_what_telegram_refuses(fake: FakeTelegram) -> None:
    group, private = fake.group(), fake.private(ANA)
    async with PtbBot(fake.token, base_url=f"{fake.url}/bot") as ptb:

        async def send(chat: dict[str, Any], button: InlineKeyboardButton) -> None:
            markup = InlineKeyboardMarkup([[button]])
            await ptb.send_message(chat["id"], "the board", reply_markup=markup)

        web_app = InlineKeyboardButton(OPEN, web_app=WebAppInfo("https://ludo.example/board/"))
        with pytest.raises(BadRequest, match=r"(?i)button_type_invalid"):
            await send(group, web_app)
        await send(private, web_app)  # in a private chat it is fine
        plain_http = InlineKeyboardButton(OPEN, web_app=WebAppInfo("http://ludo.example/"))
        with pytest.raises(BadRequest, match=r"(?i)only https links are allowed"):
            await send(private, plain_http)
        with pytest.raises(BadRequest, match=r"(?i)button_url_invalid"):
            await send(group, InlineKeyboardButton(OPEN, url="javascript:alert(1)"))
        await send(group, InlineKeyboardButton(OPEN, url=link("0123abcd")))
        with pytest.raises(BadRequest, match=r"(?i)text buttons are unallowed"):
            await send(group, InlineKeyboardButton(OPEN))
    assert len(fake.chat_messages(group["id"])) == 1


def test_a_bot_unknown_yet_puts_no_link(fake: FakeTelegram) -> None:
    """Before getMe the bot's username is unknown: no group link (never a broken one)."""
    from bot.adapters.telegram.board_button import BoardButton

    assert BoardButton(PtbBot(fake.token), APP).username() is None


async def test_the_settings_reach_both_adapters(fake: FakeTelegram, db: Store) -> None:
    env = {
        "TELEGRAM_TOKEN": fake.token,
        "TELEGRAM_API_URL": fake.url,
        "DISCORD_TOKEN": "dc.token",
        "LUDO_WEB_PORT": "8080",
        "LUDO_PUBLIC_URL": "https://ludo.example/",
    }
    secrets = {"DISCORD_CLIENT_ID": "1234567890", "DISCORD_CLIENT_SECRET": "s3cret-Value_xyz"}
    for extra, miniapp, activity in (
        ({"LUDO_MINIAPP": "ludoboard", **secrets}, APP, True),
        ({}, None, False),
    ):
        telegram, discord = build_adapters(load_settings({**env, **extra}), GameService(db))
        assert isinstance(telegram, TelegramAdapter) and isinstance(discord, DiscordAdapter)
        board = telegram.tables.board
        assert (board.app if board is not None else None) == miniapp
        assert discord.settings.activity is activity
        if miniapp is not None:  # the group link carries the player link the board reads
            assert board is not None
            link = board.app.link("LudoBot", "0a1b2c3d")
            start = link.rpartition("startapp=")[2]
            assert start != "0a1b2c3d" and len(start) == 33
            keys = board_keys(load_settings({**env, **extra}))
            assert keys.read_play(start) == "0a1b2c3d"
