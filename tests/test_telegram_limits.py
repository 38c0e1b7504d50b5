"""The rate limits on Telegram, end to end (the real python-telegram-bot against the
fake Bot API, a real SQLite file): a person flooding is turned away privately in
their language while the others play on, forum topics share their group's budget,
a limiter whose store is down lets everyone in, and a person's quota of open games."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import redis

from bot.adapters.telegram import TelegramAdapter
from bot.hosting import PLAYING
from bot.limits.quotas import Quotas
from bot.limits.rate import Limiter, LimitSettings, Rate
from bot.ops.metrics import REGISTRY
from bot.service.game import GameService
from bot.store import Store
from bot.store.limits import MemoryBuckets, MemoryOpenGames
from bot.store.redis.limits import RedisBuckets
from bot.store.redis.ops import client_options
from tests.fakes.telegram import Call, FakeTelegram, free_port, make_user
from tests.helpers.service import Dice
from tests.helpers.stores import FakeClock
from tests.helpers.telegram import IMAGE_SIZE, Bot, game_id_of, plain, running

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]


ANA = make_user(301, "Ana", language_code="pt-br")
BEN = make_user(302, "Ben")
CID = make_user(303, "Cid", language_code="es")
DEE = make_user(304, "Dee", language_code="it")
PEOPLE = {u["id"]: u for u in (ANA, BEN, CID, DEE)}

SLOW = "Você está indo rápido demais: tente de novo em 1 segundo."


def limited_count() -> float:
    return (
        REGISTRY.get_sample_value(
            "ludo_presses_total", {"platform": "telegram", "result": "limited"}
        )
        or 0.0
    )


def texts(calls: list[Call], method: str = "sendMessage") -> list[str]:
    return [plain(str(c.params.get("text", ""))) for c in calls if c.method == method and c.ok]


def answers(calls: list[Call]) -> list[Call]:
    """What the bot said or did (not how it fetched the updates)."""
    return [c for c in calls if c.method != "getUpdates"]


def limiter(clock: FakeClock, person: Rate, chat: Rate) -> Limiter:
    return Limiter(MemoryBuckets(clock), LimitSettings(person, chat, 0, 0), clock)


async def test_a_person_flooding_is_turned_away_while_the_others_play_on(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Ana (Portuguese) spends her budget in her private chat (it counts across every
    chat), then presses Roll on her turn and types /roll in the group: a toast and one
    short reply in Portuguese (deleted after a while; the second /roll gets nothing),
    and the game does not move.  Ben plays on in the same group, Cid and Dee in another;
    a second later Ana's press rolls."""
    time = FakeClock(1000.0)
    limits = limiter(time, Rate(6, 1.0), Rate(100, 1.0))
    async with running(fake, db, clock, limiter=limits, notice_seconds=0.3) as bot:
        group, other = fake.group("Ludo night"), fake.group("Other table")
        calls = await bot.say(group, BEN, "/ludo classic")
        lobby = next(m for m in fake.chat_messages(group["id"]) if m.buttons)
        game_id = game_id_of(lobby)
        await bot.click(lobby, ANA, label="Join")
        await bot.click(lobby, BEN, label="Start")
        game = bot.game(game_id)
        assert game.status == PLAYING
        while bot.on_turn(game_id) != str(ANA["id"]):  # Ben plays until it is Ana's turn
            board = [m for m in fake.chat_messages(group["id"]) if m.keyboard][-1]
            await bot.click(board, BEN, data=board.buttons[0]["callback_data"])
            time.advance(60)
        time.advance(60)  # everyone's budget full again
        private = fake.private(ANA)
        for _ in range(6):  # Ana's six: answered
            assert texts(await bot.say(private, ANA, "/help")), "answered"
        before = bot.game(game_id)
        board = [m for m in fake.chat_messages(group["id"]) if m.keyboard][-1]
        counted = limited_count()

        click = await bot.click(board, ANA, data=board.buttons[0]["callback_data"])
        assert click.toast == SLOW
        assert not click.sent("sendMessage", "sendPhoto", "editMessageMedia")
        first = await bot.say(group, ANA, "/roll")
        assert texts(first) == [SLOW]
        second = await bot.say(group, ANA, "/roll")
        assert answers(second) == [], "told once in a while, not at every command"
        after = bot.game(game_id)
        assert (after.rev, after.version) == (before.rev, before.version), "nothing changed"
        assert limited_count() - counted == 3
        # the short reply goes after a while
        reply = fake.message(group["id"], first[0].message_id or 0)
        await fake.wait_for(lambda: reply.deleted, 5, "the short reply to go")

        # Ben in the same group: answered (the board again, below)
        ben = await bot.say(group, BEN, "/board")
        assert [c.method for c in ben if c.ok and c.method == "sendPhoto"] == ["sendPhoto"]
        # Cid and Dee in another group: a game opened, joined and started
        await bot.say(other, CID, "/ludo classic")
        second_lobby = next(m for m in fake.chat_messages(other["id"]) if m.buttons)
        await bot.click(second_lobby, DEE, data=second_lobby.buttons[0]["callback_data"])
        await bot.click(second_lobby, CID, data=second_lobby.buttons[4]["callback_data"])
        started = bot.game(game_id_of(second_lobby))
        assert started.status == PLAYING and len(started.seats) == 2

        # a second later, Ana's press counts again
        time.advance(1.0)
        board = [m for m in fake.chat_messages(group["id"]) if m.keyboard][-1]
        click = await bot.click(board, ANA, data=board.buttons[0]["callback_data"])
        assert click.toast != SLOW
        assert bot.game(game_id).rev > before.rev, "she rolled"
        assert calls


async def test_forum_topics_share_their_groups_budget(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Every topic of a forum is a chat of its own for the games, but one group for the
    limits: four commands in two topics spend the group's budget of four; the fifth,
    by someone else in either topic, is turned away; another group is not touched."""
    time = FakeClock(1000.0)
    limits = limiter(time, Rate(100, 1.0), Rate(4, 1.0))
    async with running(fake, db, clock, limiter=limits) as bot:
        forum = fake.supergroup("Ludo club", forum=True)
        one, two = fake.topic(forum, "Table 1"), fake.topic(forum, "Table 2")
        for user, topic in ((ANA, one), (BEN, two), (ANA, two), (BEN, one)):
            assert texts(await bot.say(forum, user, "/help", topic)), "answered"
        turned = await bot.say(forum, CID, "/help", two)
        assert texts(turned) == [
            "Este chat está demasiado ocupado ahora mismo: inténtalo de nuevo en 1 segundo."
        ]
        assert answers(await bot.say(forum, DEE, "/help", one)) == [], "no answer of any kind"
        # another group has its own budget
        elsewhere = fake.supergroup("Ludo elsewhere")
        assert texts(await bot.say(elsewhere, CID, "/help")), "answered"


async def test_a_limiter_whose_store_is_down_never_blocks_play(
    fake: FakeTelegram, db: Store, clock: Any, caplog: Any
) -> None:
    """The limits are kept in a Redis that does not answer: every command and press goes
    through as without limits, and the operator is told once."""
    port = free_port()
    dead = redis.Redis.from_url(f"redis://127.0.0.1:{port}", **client_options())
    buckets = RedisBuckets(dead, "ludo:{ludo}:", f"127.0.0.1:{port}")
    settings = LimitSettings(Rate(1, 0.01), Rate(1, 0.01), 0, 0)
    with caplog.at_level(logging.WARNING, logger="bot.limits.rate"):
        async with running(fake, db, clock, limiter=Limiter(buckets, settings)) as bot:
            group = fake.group()
            await bot.say(group, BEN, "/ludo classic")
            lobby = next(m for m in fake.chat_messages(group["id"]) if m.buttons)
            for user in (ANA, CID, DEE):
                await bot.click(lobby, user, data=lobby.buttons[0]["callback_data"])
            assert len(bot.game(game_id_of(lobby)).seats) == 4, "everyone joined"
    warned = [r.getMessage() for r in caplog.records if r.name == "bot.limits.rate"]
    assert len(warned) == 1 and "rate limits are off" in warned[0], warned
    dead.close()


async def test_one_game_too_many_is_refused_clearly(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Ana may have two games open: the third is refused in her language and opens
    nothing; once she ends one, she opens another."""
    settings = LimitSettings(Rate(0, 1.0), Rate(0, 1.0), open_games=2, stats_per_hour=0)
    bot = Bot(fake, db, clock)
    quotas = Quotas(db, settings, (MemoryBuckets(), MemoryOpenGames()))
    bot.service = GameService(db, dice=Dice(7), clock=clock, quotas=quotas)
    bot.adapter = TelegramAdapter(
        bot.service, fake.token, api_url=fake.url, image_size=IMAGE_SIZE, group_rate=0,
        overall_rate=0,
    )  # fmt: skip
    await bot.adapter.start()
    try:
        groups = [fake.group(f"Table {n}") for n in range(3)]
        for group in groups[:2]:
            await bot.say(group, ANA, "/ludo classic")
        refused = await bot.say(groups[2], ANA, "/ludo classic")
        assert texts(refused) == [
            "Você já tem 2 partidas abertas: termine ou encerre uma delas primeiro."
        ]
        assert bot.service.game_in(f"tg:{groups[2]['id']}") is None
        await bot.say(groups[0], ANA, "/end")
        opened = await bot.say(groups[2], ANA, "/ludo classic")
        assert bot.service.game_in(f"tg:{groups[2]['id']}") is not None, opened
    finally:
        await bot.adapter.stop()
