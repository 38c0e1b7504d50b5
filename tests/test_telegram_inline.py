"""A table in any Telegram chat through inline mode, end to end on the fake Bot API:
``@bot`` lists tables, the one chosen is posted "via @bot" in a chat the bot is no
member of, and the whole game is played in that one message, edited through its
``inline_message_id`` (its pictures by file id, by a signed URL, or in words)."""

from __future__ import annotations

import statistics
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest

from bot.adapters.telegram import MiniApp
from bot.adapters.telegram.inline_screen import SignedPictures
from bot.app.web import start_web
from bot.hosting import Game, Intent
from bot.limits.rate import Limiter, LimitSettings, Rate
from bot.present import Press, parse_press, table_view
from bot.store import Store
from bot.store.limits import MemoryBuckets
from bot.web.auth import Keys, Picture
from bot.web.pictures import PictureLinks, PictureServer
from tests.fakes.telegram import BOT_USERNAME, FakeMessage, FakeTelegram, make_user
from tests.helpers.telegram import TG_TOKEN, Bot, running

pytestmark = pytest.mark.telegram

ANA = make_user(401, "Ana")
BEN = make_user(402, "Ben", language_code="it")
OPERATOR = make_user(499, "Olga")
#: no press at all
ANY = Press("", 0, Intent("join"))
#: what a bot may never do in a chat it is no member of
CHAT_CALLS = ("sendMessage", "sendPhoto", "deleteMessage", "sendAnimation", "sendDocument")


def inline_on(fake: FakeTelegram) -> None:
    """BotFather's /setinline and /setinlinefeedback, as the README's steps say."""
    fake.inline_mode = fake.inline_feedback = True


async def listed(bot: Bot, user: dict[str, Any], query: str, kind: str) -> str:
    """``user`` types ``@bot query`` in a chat of ``kind``; the query's id, answered."""
    asked = bot.fake.inline_query(user, query, kind)
    assert asked is not None
    await bot.settle()
    return asked


async def chosen_table(
    bot: Bot, chat: dict[str, Any], host: dict[str, Any], query: str, title: str, kind: str
) -> FakeMessage:
    """``host`` types ``@bot query`` in ``chat`` and chooses the result ``title``: the
    table posted there, once the bot made it the lobby (or the board)."""
    asked = await listed(bot, host, query, kind)
    inline_id = bot.fake.choose(asked, chat, title=title)
    assert inline_id is not None
    await bot.settle()
    return bot.fake.inline_message(inline_id)


async def press(bot: Bot, table: FakeMessage, user: dict[str, Any], **how: Any) -> str:
    """``user`` presses a button of the inline table; the toast they got."""
    assert table.inline_id is not None
    query = bot.fake.press_inline(table.inline_id, user, **how)
    await bot.settle()
    answer = bot.fake.answer_of(query)
    assert answer is not None, "every press is answered"
    return str(answer.params.get("text") or "")


async def play_out(bot: Bot, table: FakeMessage, people: dict[str, dict[str, Any]]) -> list[float]:
    """Whoever is on turn presses the table's first button until the game is over; the
    seconds from each press to its answer."""
    waits: list[float] = []
    for _ in range(3000):
        data = table.buttons[0]["callback_data"]
        game = bot.game(data.split(":")[1])
        if game.status != "playing":
            return waits
        seat = game.on_turn()
        assert seat is not None and seat.user is not None
        assert table.inline_id is not None
        start = time.monotonic()
        query = bot.fake.press_inline(table.inline_id, people[seat.user.id], data)
        await bot.settle()
        answer = bot.fake.answer_of(query)
        assert answer is not None, "every press is answered"
        waits.append(answer.at - start)
    raise AssertionError("the game did not end")


def game_of(bot: Bot, table: FakeMessage) -> Game:
    """The game of an inline table: the one bound to its message, or (finished) the one
    its buttons name."""
    game_id = bot.store.channel_game(f"tgi:{table.inline_id}")
    return bot.game(game_id or table.buttons[0]["callback_data"].split(":")[1])


def p99(waits: list[float]) -> float:
    return statistics.quantiles(waits, n=100)[98] if len(waits) > 1 else waits[0]


@asynccontextmanager
async def picture_server(bot: Bot) -> AsyncIterator[str]:
    """The bot's web server serving the inline tables' pictures; its address."""
    keys = Keys([TG_TOKEN])
    routes = PictureServer(bot.service, keys).routes()
    server = await start_web("127.0.0.1", 0, {}, routes=routes)
    bot.adapter.tables.pictures = SignedPictures(PictureLinks(keys, server.url).url)
    try:
        yield server.url
    finally:
        await server.close()


# -- listing -------------------------------------------------------------------


async def test_the_bot_asks_for_inline_queries_and_their_choices(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    async with running(fake, db, clock):
        polls = await fake.wait_for(lambda: fake.calls_of("getUpdates"), what="a poll")
        asked = [c.params.get("allowed_updates") for c in polls if c.params.get("allowed_updates")]
        assert asked and {"inline_query", "chosen_inline_result"} <= set(asked[-1])


async def test_an_inline_query_lists_a_table_of_each_rule_set_in_the_persons_language(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    inline_on(fake)
    async with running(fake, db, clock) as bot:
        query = await listed(bot, ANA, "", "sender")
        titles = [r["title"] for r in fake.results(query)]
        assert titles == ["Classic", "Tower", "Italian", "Super", "Classic against the computer"]
        answer = fake.inline_answers[query]
        assert answer.params["is_personal"] is True and answer.params["cache_time"] > 0
        assert {r["id"].split(":")[2] for r in fake.results(query)} == {"p"}

        query = await listed(bot, BEN, "italian teams timer=60 level=hard", "group")
        results = fake.results(query)
        assert [r["title"] for r in results] == [
            "Italiano a squadre",
            "Italiano a squadre contro il computer",
        ], results
        assert "timer=60" in results[0]["description"]
        assert "difficile" in results[1]["description"]
        assert {r["id"].split(":")[2] for r in results} == {"g"}


async def test_a_query_that_cannot_be_played_lists_nothing_and_says_why(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    inline_on(fake)
    async with running(fake, db, clock) as bot:
        query = await listed(bot, ANA, "classic timer=soon", "group")
        answer = fake.inline_answers[query]
        assert answer.params["results"] == []
        assert "not soon" in answer.params["button"]["text"], answer.params["button"]


# -- playing -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("pictures", ["words", "file_id", "url"])
async def test_a_whole_game_in_a_private_chat_the_bot_is_not_in(
    fake: FakeTelegram, db: Store, clock: Any, pictures: str
) -> None:
    """Two people in their own chat; the table is chosen from an inline query and played
    to the standings in that one message, which is only ever edited (no upload)."""
    inline_on(fake)
    chat = fake.between(ANA, BEN)
    media = fake.private(OPERATOR)
    options: dict[str, Any] = {"media_chat": media["id"]} if pictures == "file_id" else {}
    async with running(fake, db, clock, **options) as bot:
        server = picture_server(bot) if pictures == "url" else None
        url = await server.__aenter__() if server is not None else None
        try:
            table = await chosen_table(bot, chat, ANA, "classic timer=0", "Classic", "private")
            assert table.via_bot and "opened a game" in table.content, table.content
            assert "Join" in [b["text"] for b in table.buttons]
            assert await press(bot, table, BEN, label="Join") == "Hai preso posto."
            await press(bot, table, ANA, label="Start")
            waits = play_out(bot, table, {"401": ANA, "402": BEN})
            waits_done = await waits
        finally:
            if server is not None:
                await server.__aexit__(None, None, None)
        assert "won" in table.content, table.content
        assert [b["text"] for b in table.buttons] == ["Rematch"]
        edits = fake.calls_of("editMessageMedia", "editMessageText", "editMessageCaption")
        assert edits and all(c.params.get("inline_message_id") == table.inline_id for c in edits)
        assert all(c.ok for c in edits), [c for c in edits if not c.ok][:3]
        assert not fake.calls_of(*CHAT_CALLS, where=lambda c: c.chat_id == chat["id"])
        photos = fake.calls_of("editMessageMedia")
        if pictures == "words":
            assert not photos and table.photo is None
            assert "A board of classic Ludo" in table.history[3].text  # type: ignore[operator]
        else:
            assert photos and table.photo is not None
            named = [c.params["media"]["media"] for c in photos]
            assert not any(c.files for c in photos), "no upload on an inline edit"
            if pictures == "file_id":
                uploads = fake.calls_of("sendPhoto", where=lambda c: c.chat_id == media["id"])
                assert len(uploads) == len(photos) and all(n.startswith("AgAC") for n in named)
                assert len(fake.calls_of("deleteMessage")) == len(uploads)
            else:
                assert url is not None and all(n.startswith(f"{url}/pic/i1.") for n in named)
                assert len(set(named)) == len(named), "one URL per board version"
                assert [s for _, s in fake.fetched] == [200] * len(named)
        game = bot.game(table.buttons[0]["callback_data"].split(":")[1])
        assert game.chat == f"tgc:p:{fake.chat_instance(chat['id'])}"
        print(f"inline game, pictures {pictures}: {len(waits_done)} presses answered, "
              f"p50 {statistics.median(waits_done) * 1000:.0f} ms, "
              f"p99 {p99(waits_done) * 1000:.0f} ms")  # fmt: skip
        assert len(waits_done) > 20 and p99(waits_done) <= 1.0, p99(waits_done)


async def test_against_the_computer_one_press_starts_it_and_rematch_reuses_the_message(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """The table posted is the lobby with a computer seated: no edit until a press
    tells the chat; Start brings the board, Rematch the next game, in the same message."""
    inline_on(fake)
    chat = fake.between(ANA, BEN)
    async with running(fake, db, clock) as bot:
        table = await chosen_table(
            bot, chat, ANA, "classic timer=0", "Classic against the computer", "sender"
        )
        assert "A computer player (normal) sat down" in table.content, table.content
        assert len(table.history) == 1 and not fake.calls_of("editMessageText")
        game_id = db.channel_game(f"tgi:{table.inline_id}")
        assert game_id is not None and bot.game(game_id).chat == f"tgc:p:?{table.inline_id}"
        assert await press(bot, table, ANA, label="Start")
        assert "A board of classic Ludo" in table.content, table.content
        game = bot.game(table.buttons[0]["callback_data"].split(":")[1])
        assert game.status == "playing" and sum(s.user is None for s in game.seats) == 1
        # a stranger's press changes nothing
        before = table.content
        toast = await press(bot, table, BEN, data=table.buttons[0]["callback_data"])
        assert toast and table.content == before
        waits = await play_out(bot, table, {"401": ANA})
        assert waits and "won" in table.content
        await press(bot, table, ANA, label="Rematch")
        # the same seats again: it starts at once, in the same message
        assert "starts a rematch" in table.content, table.content
        rematch = bot.game(table.buttons[0]["callback_data"].split(":")[1])
        assert rematch.id != game.id and rematch.channel == game.channel == f"tgi:{table.inline_id}"
        assert rematch.chat == bot.game(game.id).chat == f"tgc:p:{fake.chat_instance(chat['id'])}"
        assert not fake.calls_of(*CHAT_CALLS, where=lambda c: c.chat_id == chat["id"])


async def test_presses_that_cannot_work_are_told_and_change_nothing(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    inline_on(fake)
    chat = fake.between(ANA, BEN)
    async with running(fake, db, clock) as bot:
        asked = fake.inline_query(ANA, "", "private")
        assert asked is not None
        await bot.settle()
        fake.inline_feedback = False  # the choice is not told yet: no game behind it
        inline_id = fake.choose(asked, chat, title="Tower")
        assert inline_id is not None
        table = fake.inline_message(inline_id)
        await bot.settle()
        assert "riprova tra un attimo" in await press(bot, table, BEN, label="Join")
        assert await press(bot, table, BEN, data="g:zz:1:j")  # forged: told, nothing else
        assert await press(bot, table, BEN, data="i:q")
        assert "opened a game of tower Ludo" in table.content and len(table.history) == 1
        assert not fake.calls_of("editMessageText") and db.channel_game(f"tgi:{inline_id}") is None


async def test_guest_mode_answers_a_mention_with_the_same_table(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Where the bot is a guest")
    fake.outsiders.add(group["id"])
    async with running(fake, db, clock) as bot:
        fake.guest_mention(group, ANA, f"@{bot.adapter.app.bot.username} super")
        await bot.settle()
        (answer,) = fake.guest_answers.values()
        assert answer.ok and answer.params["result"]["title"] == "Super"
        (table,) = fake.inline_messages.values()
        assert "opened a game of super Ludo" in table.content, table.content
        game_id = db.channel_game(f"tgi:{table.inline_id}")
        assert game_id is not None and bot.game(game_id).chat == f"tgc:g:?{table.inline_id}"
        assert await press(bot, table, BEN, label="Join") == "Hai preso posto."
        assert bot.game(game_id).chat == f"tgc:g:{fake.chat_instance(group['id'])}"
        assert "Ben" in table.content and not fake.calls_of(*CHAT_CALLS)


# -- the pictures' URLs -------------------------------------------------------------


async def test_a_picture_url_is_served_for_its_version_only_and_cannot_be_forged(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    inline_on(fake)
    chat = fake.between(ANA, BEN)
    async with running(fake, db, clock) as bot, picture_server(bot) as url:
        table = await chosen_table(
            bot, chat, ANA, "timer=0", "Classic against the computer", "private"
        )
        await press(bot, table, ANA, label="Start")
        (edit,) = fake.calls_of("editMessageMedia")[-1:]
        link = edit.params["media"]["media"]
        keys = Keys([TG_TOKEN])
        picture = keys.read_picture(link.rsplit("/", 1)[1].removesuffix(".png"))
        async with aiohttp.ClientSession() as http:
            async with http.get(link) as r:
                assert r.status == 200 and r.content_type == "image/png"
                assert "immutable" in r.headers["Cache-Control"]
                assert await r.read() == table.photo
            forged = keys.picture(picture)[:-3] + "AAA"
            expired = keys.picture(Picture(**{**picture.__dict__, "expires": 1.0}))
            other = Keys(["another token"]).picture(picture)
            for name in (forged, expired, other, "x" * 300):
                async with http.get(f"{url}/pic/{name}.png") as r:
                    assert r.status == 404, name
            await press(bot, table, ANA, data=table.buttons[0]["callback_data"])
            async with http.get(f"{url}/pic/{keys.picture(picture)}.png") as r:
                assert r.status in (200, 410)  # drawn already (cached), or a newer one is up
            stale = Picture(**{**picture.__dict__, "rev": picture.rev - 1})
            async with http.get(f"{url}/pic/{keys.picture(stale)}.png") as r:
                assert r.status == 410


# -- limits ----------------------------------------------------------------------


async def test_a_flood_of_inline_queries_is_turned_away_privately(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Inline queries pass the rate limits like commands: past the burst, the person is
    listed nothing and told why, in their language; the others are not."""
    inline_on(fake)
    limits = Limiter(MemoryBuckets(clock), LimitSettings(Rate(3, 1.0), Rate(0, 1.0), 0, 0), clock)
    async with running(fake, db, clock, limiter=limits) as bot:
        flood = [fake.inline_query(BEN, "", "group") for _ in range(6)]
        other = fake.inline_query(ANA, "", "group")
        await bot.settle()
        answers = [fake.inline_answers[q] for q in flood if q is not None]
        assert [len(a.params["results"]) for a in answers] == [5, 5, 5, 0, 0, 0]
        assert answers[-1].params["button"]["text"].startswith("Stai andando troppo veloce")
        assert other is not None and len(fake.results(other)) == 5


async def press_now(bot: Bot, table: FakeMessage, game_id: str) -> None:
    """Whoever the game waits for presses its first button (as the game is now, not as
    the message shows it yet); only the answer is waited for, not the table's edit."""
    game = bot.game(game_id)
    seat = game.on_turn() if game.status == "playing" else None
    who = seat.user if seat is not None and seat.user is not None else game.creator
    buttons = [b.data for row in table_view(game).buttons for b in row]
    if game.status == "lobby":  # the host starts it
        buttons = [d for d in buttons if (parse_press(d) or ANY).intent.kind == "start"]
    assert table.inline_id is not None and who is not None
    person = {u["id"]: u for u in (ANA, BEN)}[int(who.id)]
    query = bot.fake.press_inline(table.inline_id, person, buttons[0])
    await bot.fake.wait_for(lambda: bot.fake.answer_of(query), what="the press answered")


@pytest.mark.slow
async def test_inline_tables_keep_their_groups_pace_and_slow_no_other_chat(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Two inline tables in a group the bot is not in, played fast, and a flood of inline
    queries there: the tables' edits keep the group's limit together (Telegram answers
    429 past it) and end on the newest view, while a table in another group is shown at
    once."""
    inline_on(fake)
    rate, period = 4, 2.0
    fake.group_limit = (rate, period)
    outside = fake.group("Friends")
    fake.outsiders.add(outside["id"])
    home = fake.group("Ludo club")
    pace = {"group_rate": rate, "group_period": period}
    async with running(fake, db, clock, **pace) as bot:
        tables = [
            await chosen_table(bot, outside, host, "classic timer=0", "Classic", "group")
            for host in (ANA, BEN)
        ]
        ids = [game_of(bot, t).id for t in tables]
        lobby = await bot.open_lobby(home, ANA)
        for table, joiner in zip(tables, (BEN, ANA), strict=True):
            assert table.inline_id is not None
            fake.press_inline(table.inline_id, joiner, table.buttons[0]["callback_data"])
        for n in range(30):
            fake.inline_query(make_user(600 + n, f"P{n}"), "", "group")
        await fake.wait_for(lambda: len(fake.inline_answers) == 32, what="every query answered")
        await fake.wait_for(lambda: all(len(bot.game(i).seats) == 2 for i in ids), what="seats")
        for _ in range(5):  # Start, then rolls and moves, faster than the group's pace
            for table, game_id in zip(tables, ids, strict=True):
                await press_now(bot, table, game_id)
        # the group's edits wait their turn; the club's table does not wait for them
        start = time.monotonic()
        click = await bot.click(lobby, BEN, label="Join")
        assert click.answer.at - start < 1.0
        joined = fake.calls_of("editMessageText", where=lambda c: c.chat_id == home["id"])
        assert joined and joined[-1].at - start < 1.0
        await bot.settle(timeout=30)
        games = [bot.game(i) for i in ids]
        for table, game in zip(tables, games, strict=True):
            assert game.status == "playing" and game.version > 3
            assert table.buttons[0]["callback_data"] == table_view(game).buttons[0][0].data
        assert not fake.calls_of(where=lambda c: c.status == 429)
        edits = fake.calls_of(where=lambda c: c.chat_id == outside["id"] and c.ok)
        assert len(edits) < 2 + 2 + 10, "views waiting were skipped for the newest"
        assert fake.busiest(outside["id"], period) <= rate
        assert {g.chat for g in games} == {f"tgc:g:{fake.chat_instance(outside['id'])}"}


async def test_the_turn_timer_the_board_link_and_the_stats_of_an_inline_table(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """A turn timer runs out: the inline message shows the move; "Open the board" is the
    Mini App's direct link there (no web_app button: Telegram takes none outside the
    bot's chat); the finished game counts in the chat the presses named."""
    inline_on(fake)
    chat = fake.between(ANA, BEN)
    app = MiniApp("ludoboard", "https://ludo.example/board/")
    async with running(fake, db, clock, miniapp=app) as bot:
        table = await chosen_table(bot, chat, ANA, "classic timer=30", "Classic", "private")
        await press(bot, table, BEN, label="Join")
        await press(bot, table, ANA, label="Start")
        game = game_of(bot, table)
        (link,) = [b for b in table.buttons if "url" in b]
        assert link["url"].startswith(f"https://t.me/{BOT_USERNAME}/ludoboard?startapp=")
        assert not [b for b in table.buttons if "web_app" in b]
        before = len(table.history)
        clock.advance(31)
        for outcome in bot.service.fire_due():
            await bot.adapter.show(outcome)
        await bot.settle()
        assert game_of(bot, table).version > game.version and len(table.history) > before
        assert "ran out" in table.content or "timer" in table.content.lower(), table.content
        await play_out(bot, table, {"401": ANA, "402": BEN})
        kept = db.entries(f"tgc:p:{fake.chat_instance(chat['id'])}")
        # the game counts in the chat its presses named, for each of its people
        assert sorted(who for who, _ in kept) == ["telegram:401", "telegram:402"]


async def test_markup_typed_after_the_bot_is_shown_as_typed(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Tags and entities typed in an inline query or a mention are words, never markup:
    the refusal says them as typed, and Telegram takes every answer (its HTML parses)."""
    inline_on(fake)
    group = fake.group("Where the bot is a guest")
    fake.outsiders.add(group["id"])
    async with running(fake, db, clock) as bot:
        query = await listed(bot, ANA, "classic <b>x</b>=1", "group")
        answer = fake.inline_answers[query]
        assert answer.ok and answer.params["results"] == []
        assert answer.params["button"]["text"].startswith("There is no option <b>x</b>")
        query = await listed(bot, ANA, "classic \"x'=1", "group")
        assert (
            fake.inline_answers[query]
            .params["button"]["text"]
            .startswith("There is no option \"x'")
        )
        fake.guest_mention(group, ANA, f"@{BOT_USERNAME} <i>tower &amp;")
        await bot.settle()
        (guest,) = fake.guest_answers.values()
        assert guest.ok, guest
        (shown,) = fake.inline_messages.values() or [None]  # no button: not an inline table
        posted = [m for m in fake.chat_messages(group["id"], from_bot=False) if m.via_bot]
        assert [m.text for m in posted] == [
            "There are no <i>tower rules: choose classic, tower, italian or super."
        ]
        assert shown is None and db.active_games() == 0
