"""Driving the Telegram adapter end to end: the real python-telegram-bot ``Application``
(:class:`Bot`, started by :func:`running`) against the fake Bot API
(:mod:`tests.fakes.telegram`), and people acting only the way Telegram lets them: they
write commands and press the buttons of the messages the bot sent (:meth:`Bot.say`,
:meth:`Bot.click`; a lobby opened, seated, started and played: :meth:`Bot.open_lobby`,
:meth:`Bot.seat`, :meth:`Bot.start`, :meth:`Bot.play`).  Nothing sleeps blindly: a
step waits until the bot fetched the update and finished handling it.

And what a Mini App opened from Telegram is given: :func:`init_data`, signed as
Telegram signs it."""

from __future__ import annotations

import asyncio
import html
import json
import random
import re
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import EllipsisType
from typing import Any

from bot.adapters.reconcile import Notes
from bot.adapters.telegram import TelegramAdapter
from bot.app.web import WebServer, start_web
from bot.hosting import OVER, PLAYING, Game, User
from bot.service.game import GameService
from bot.store import Store
from bot.web.auth import sign_init_data
from tests.fakes.telegram import Call, FakeMessage, FakeTelegram, make_user, png_size
from tests.helpers.languages import LOBBY_LABELS
from tests.helpers.service import Dice

#: small boards keep the games quick; still real PNGs from the renderer
IMAGE_SIZE = 300

ANA = make_user(101, "Ana", "Silva", "ana")
BEN = make_user(102, "Ben", username="benny")
CID = make_user(103, "Cid", "Campeador")
DEE = make_user(104, "Dee")

PHOTO_CALLS = ("sendPhoto", "editMessageMedia")
SENDING = ("sendMessage", "sendPhoto", "editMessageText", "editMessageMedia", "editMessageCaption")
MENTION = re.compile(r'<a href="tg://user\?id=(\d+)">')


def shown_message(bot: Any, game_id: str) -> int | None:
    """The id of the table message the store notes for the game."""
    stored = bot.store.load(game_id)
    notes = Notes.from_bytes(stored.shown.data if stored and stored.shown else None)
    return int(notes.msg) if notes.msg else None


def full_name(user: dict[str, Any]) -> str:
    return " ".join(p for p in (user["first_name"], user.get("last_name")) if p)


@dataclass
class Click:
    """A button press and what the bot did about it."""

    query_id: str
    answer: Call
    calls: list[Call]

    @property
    def toast(self) -> str | None:
        text = self.answer.params.get("text")
        return str(text) if text else None

    @property
    def photos(self) -> list[Call]:
        return [c for c in self.calls if c.method in PHOTO_CALLS and c.ok]

    def sent(self, *methods: str) -> list[Call]:
        return [c for c in self.calls if c.method in methods]


class Bot:
    """A GameService and a TelegramAdapter on ``store``, talking to ``fake``."""

    def __init__(
        self,
        fake: FakeTelegram,
        store: Store,
        clock: Any,
        *,
        seed: int | None = 7,
        first: int | None = None,
        **adapter: Any,
    ) -> None:
        """``seed``: of the test's die (None: the service's own dice, each game's secret
        seed, so that a game's record can be verified); ``first``: the seat that plays
        first (None: drawn)."""
        self.fake = fake
        self.store = store
        dice = Dice(seed) if seed is not None else None
        draw = secrets.randbelow if first is None else (lambda n: first % n)
        self.service = GameService(store, dice=dice, clock=clock, draw=draw)
        adapter.setdefault("image_size", IMAGE_SIZE)
        adapter.setdefault("group_rate", 0)
        adapter.setdefault("overall_rate", 0)
        adapter.setdefault("private_interval", 0)
        self.adapter = TelegramAdapter(self.service, fake.token, api_url=fake.url, **adapter)

    async def settle(self, timeout: float = 15.0) -> None:
        """Wait until every queued update was fetched and handled to the end."""
        await self.fake.wait_for(self.fake.delivered, timeout, "the bot to fetch the updates")
        await asyncio.wait_for(self.adapter.app.update_queue.join(), timeout)
        # and every table waiting for the group's limit is shown
        await asyncio.wait_for(self.adapter.quiet(), timeout)

    async def say(
        self, chat: dict[str, Any], user: dict[str, Any], text: str, thread: int | None = None
    ) -> list[Call]:
        mark = self.fake.mark()
        self.fake.send_text(chat, user, text, thread)
        await self.settle()
        return self.fake.calls[mark:]

    async def click(
        self,
        message: FakeMessage,
        user: dict[str, Any],
        data: str | None = None,
        *,
        label: str | None = None,
    ) -> Click:
        mark = self.fake.mark()
        query_id = self.fake.press(message, user, data, label=label)
        await self.settle()
        answer = self.fake.answer_of(query_id)
        assert answer is not None, f"the press of {data or label!r} was never answered"
        return Click(query_id, answer, self.fake.calls[mark:])

    def stored(self, game_id: str) -> bytes:
        got = self.store.load(game_id)
        assert got is not None
        return got.data

    def game(self, game_id: str) -> Game:
        got = self.store.load(game_id)
        assert got is not None
        return Game.from_bytes(got.data, got.rev)

    # -- what people do, step by step, each checked on the way --------------------

    async def open_lobby(
        self,
        chat: dict[str, Any],
        host: dict[str, Any],
        thread: int | None = None,
        rules: str = "Classic",
    ) -> FakeMessage:
        """``/ludo``, then the rules chooser's button: the chooser becomes the lobby."""
        calls = await self.say(chat, host, "/ludo", thread)
        sent = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert len(sent) == 1, calls
        chooser = self.fake.message(chat["id"], sent[0].message_id)
        assert chooser.thread_id == thread
        assert "rules" in chooser.text.lower()
        click = await self.click(chooser, host, label=rules)
        told(click, "You opened a game of classic Ludo.")
        lobby = self.fake.message(chat["id"], chooser.message_id)
        assert "opened a game" in lobby.content, lobby.content
        assert [b["text"] for b in lobby.buttons] == LOBBY_LABELS
        return lobby

    async def seat(
        self,
        lobby: FakeMessage,
        host: dict[str, Any],
        joiners: Sequence[dict[str, Any]] = (),
        computers: int = 0,
    ) -> None:
        """People press Join, the host presses Add computer: the lobby message is edited."""
        for user in joiners:
            click = await self.click(lobby, user, label="Join")
            told(click, "You joined.")
            assert [c.method for c in click.calls if c.method in SENDING] == ["editMessageText"]
            assert html.escape(full_name(user)) in click.sent("editMessageText")[0].params["text"]
        for _ in range(computers):
            click = await self.click(lobby, host, label="Add computer")
            told(click, "A computer player (normal) sat down.")
            assert [c.method for c in click.calls if c.method in SENDING] == ["editMessageText"]

    async def start(self, lobby: FakeMessage, host: dict[str, Any]) -> Click:
        click = await self.click(lobby, host, label="Start")
        told(click, "Ludo begins")
        assert len(click.photos) == 1 and click.photos[0].method == "sendPhoto", click.calls
        # the lobby made way for the board
        assert self.fake.message(lobby.chat_id, lobby.message_id).deleted
        return click

    async def started(
        self,
        chat: dict[str, Any],
        host: dict[str, Any],
        joiners: Sequence[dict[str, Any]] = (),
        computers: int = 0,
    ) -> str:
        """A lobby opened by ``host``, seated and started (each step checked): the game's
        id."""
        lobby = await self.open_lobby(chat, host)
        await self.seat(lobby, host, joiners, computers)
        await self.start(lobby, host)
        return game_id_of(lobby)

    def on_turn(self, game_id: str) -> str | None:
        """The Telegram user id of the person on turn, from the store."""
        game = self.game(game_id)
        seat = game.on_turn()
        return seat.user.id if seat is not None and seat.user is not None else None

    async def play(
        self,
        chat_id: int,
        game_id: str,
        people: dict[int, dict[str, Any]],
        *,
        presses: int,
        rng: random.Random,
        thread: int | EllipsisType | None = ...,
    ) -> list[Click]:
        """The person on turn presses Roll, or one of the piece buttons, ``presses`` times
        (or until the game is over); every press is checked on the way: one board of the
        game on screen with buttons, edited in place while the same person plays on, posted
        anew (and the old one deleted) notifying the next person when the turn passes."""
        clicks: list[Click] = []
        for _ in range(presses):
            game = self.game(game_id)
            if game.status != PLAYING:
                break
            boards = [m for m in self.fake.chat_messages(chat_id, thread) if m.photo is not None]
            board = boards[-1]
            assert game_id_of(board) == game_id
            assert [m for m in boards if m.keyboard] == [board], (
                "one board with buttons, the newest"
            )
            turn = self.on_turn(game_id)
            assert turn is not None
            user = people[int(turn)]
            labels = [b["text"] for b in board.buttons]
            label = "Roll" if "Roll" in labels else rng.choice(labels)
            click = await self.click(board, user, label=label)
            told(click, "You ")
            # one picture per press, whatever the computers did in between; no extra messages
            # (the last press: the final board, then the standings below it)
            after = self.game(game_id)
            assert len(click.photos) == (2 if after.status == OVER else 1), click.calls
            assert not click.sent("sendMessage"), click.calls
            photo = click.photos[-1]
            assert png_size(photo.photo or b"") is not None, "not a PNG"
            caption = photo.caption or ""
            now = self.on_turn(game_id)
            if after.status == PLAYING and now != turn:
                # the turn passed on: a new board at the bottom notifies the next person
                assert photo.method == "sendPhoto", click.calls
                assert MENTION.findall(caption) == [now], caption
                assert self.fake.message(chat_id, board.message_id).deleted
            elif after.status == PLAYING:
                # the same person plays on: edited in place, nobody notified
                assert [c.method for c in click.photos] == ["editMessageMedia"], click.calls
                assert photo.message_id == board.message_id
            # nobody is notified by their own press
            assert not any(turn in MENTION.findall(c.caption or "") for c in click.photos)
            clicks.append(click)
        return clicks


@asynccontextmanager
async def served(port: int | None, routes: list[Any]) -> AsyncIterator[WebServer]:
    """The bot's web server on ``port`` of the loopback, serving ``routes``."""
    assert port is not None
    server = await start_web("127.0.0.1", port, {}, routes=routes)
    try:
        yield server
    finally:
        await server.close()


@asynccontextmanager
async def running(fake: FakeTelegram, store: Store, clock: Any, **kw: Any) -> AsyncIterator[Bot]:
    bot = Bot(fake, store, clock, **kw)
    await bot.adapter.start()
    try:
        yield bot
    finally:
        await bot.adapter.stop()


def game_id_of(message: FakeMessage) -> str:
    for b in message.buttons:
        m = re.fullmatch(r"g:([0-9a-f]{8}):\d+:\w+", b.get("callback_data", ""))
        if m:
            return m.group(1)
    raise AssertionError(f"no game button in message {message.message_id}")


def told(click: Click, *parts: str) -> None:
    """A press that did something: its toast tells the presser what (with one of ``parts``)."""
    assert click.toast is not None, f"a press that worked is answered with what it did: {click}"
    assert any(p in click.toast for p in parts), click.toast


def plain(caption_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", caption_html))


#: people whose Telegram speaks another language
RUI = make_user(201, "Rui", language_code="pt-br")
GIA = make_user(202, "Gia", language_code="it")
EVA = make_user(203, "Eva", language_code="es")


def answer(calls: list[Call]) -> str:
    """The one answer the bot wrote to a command (HTML)."""
    said = [c for c in calls if c.method == "sendMessage" and c.ok]
    assert len(said) == 1, calls
    return str(said[0].params["text"])


#: the token of the bot whose Mini App opens the live board in the web tests (initData
#: is signed with it)
TG_TOKEN = "123456:telegram-test-token"


def init_data(
    user: User,
    start_param: str | None = None,
    *,
    age: float = 60,
    lang: str = "en",
    token: str = TG_TOKEN,
) -> str:
    """initData for ``user`` as Telegram signs it for the bot of ``token``."""
    fields = {
        "user": json.dumps({"id": int(user.id), "first_name": user.name, "language_code": lang}),
        "auth_date": str(int(time.time() - age)),
        "chat_instance": "-42",
    }
    if start_param is not None:
        fields["start_param"] = start_param
    return sign_init_data(fields, token)
