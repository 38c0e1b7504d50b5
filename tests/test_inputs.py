"""Every text a person gives has a bound (issue 21, "Inputs"), end to end on Telegram:
names, command arguments, what a refusal quotes back, the platform's own lengths
counted as Telegram counts them (UTF-16 code units), and ``/ludo`` without arguments
where a game is already open."""

from __future__ import annotations

import asyncio
import html
import io
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from telegram import Bot as TelegramBot
from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

from bot.adapters.telegram.commands import chooser
from bot.adapters.telegram.units import fit_html, shorten, units
from bot.hosting import LOBBY, TIMER_RANGE, Game, Happened, Refusal, User, join, open_game
from bot.hosting.game import NAME_LIMIT
from bot.present import ECHO_LIMIT, Text, refusal_text, say
from bot.store import Store
from tests.fakes.telegram import FakeTelegram, make_user, parse_html, utf16_len
from tests.helpers.telegram import SENDING, answer, game_id_of, plain, running

pytestmark = pytest.mark.telegram

ANA = make_user(501, "Ana")
BEN = make_user(502, "Ben")


def refused_calls(fake: FakeTelegram) -> list[Any]:
    return [c for c in fake.calls_of(*SENDING, "answerCallbackQuery") if not c.ok]


# --------------------------------------------------------------------------
# names


async def test_a_name_of_thousands_of_characters_is_cut_and_its_game_plays_on(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """A name Telegram would never send (1,500 characters, a forged update) joins: the
    game saves and loads (it is not thrown away as damaged), shows the name cut with
    "…", and is played on."""
    group = fake.group("Long names")
    huge = make_user(503, "Bartholomew" * 100, "Maximilian" * 50)
    people = {ANA["id"]: ANA, huge["id"]: huge}
    async with running(fake, db, clock, seed=5) as bot:
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        click = await bot.click(lobby, huge, label="Join")
        assert click.toast == "You joined."
        game = bot.game(game_id)  # saved, and read back: not damaged
        (_, seated) = game.seats
        assert seated.user is not None and seated.user.id == str(huge["id"])
        name = seated.user.name
        assert len(name) == NAME_LIMIT and name.endswith("…")
        assert name.startswith("Bartholomew" * 11)
        shown = fake.message(group["id"], lobby.message_id).text or ""
        assert name in shown and "Bartholomew" * 12 not in shown
        await bot.start(lobby, ANA)
        clicks = await bot.play(group["id"], game_id, people, presses=12, rng=random.Random(2))
        assert len(clicks) == 12
        assert bot.game(game_id).status != LOBBY
    assert not refused_calls(fake)


def test_a_user_keeps_a_name_that_can_always_be_saved() -> None:
    assert User("telegram", "1", "Ana").name == "Ana"
    whole = "Ñandú " * 21 + "🦄"  # 127 characters: kept whole
    assert User("telegram", "1", whole).name == whole
    cut = User("telegram", "1", "x" * 5000).name
    assert cut == "x" * (NAME_LIMIT - 1) + "…"
    # a lone surrogate (no character; a forged update's "\ud83d") cannot be saved as UTF-8
    assert User("telegram", "1", "a\ud83db").name == "a\ufffdb"
    assert User("telegram", "1", "\ud83d\ude00").name == "😀"  # a pair is one character


# --------------------------------------------------------------------------
# arguments


async def test_overlong_numbers_get_the_clear_refusal_for_a_bad_value(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """``pieces=`` with 4,301 digits (past Python's limit for turning text into a
    number): the refusal for a bad number of pieces, not "the games cannot be reached";
    so for ``timer=`` and ``/move``."""
    group = fake.group("Big numbers")
    digits = "1" * 4301
    nobody = User("telegram", "1", "Nobody")
    async with running(fake, db, clock) as bot:
        text = plain(answer(await bot.say(group, ANA, f"/ludo pieces={digits}")))
        refused = bot.service.open("tg:nowhere", nobody, "classic", {"pieces": digits})
        assert refused.refusal is not None
        assert text == say(refusal_text(refused.refusal))
        assert text.startswith("The option pieces takes 4, 5 or 6 pieces each, not 1111")
        assert "cannot be reached" not in text and digits[: ECHO_LIMIT + 1] not in text

        text = plain(answer(await bot.say(group, ANA, f"/ludo classic timer={digits}")))
        low, high = TIMER_RANGE
        assert text == say(refusal_text(Refusal("refuse.bad_timer", low=low, high=high)))

        text = plain(answer(await bot.say(group, ANA, f"/move {digits}")))
        assert text == plain(say(Text("tg.say_piece")))
        # what a number may be stays as it was
        text = plain(answer(await bot.say(group, ANA, "/ludo classic pieces=-999999")))
        assert text.endswith("not -999999.")
        assert db.channel_game(f"tg:{group['id']}") is None


async def test_a_refusal_quotes_at_most_a_few_characters_of_what_was_typed(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """An unknown rule set, option or value of 4,000 characters is quoted back cut to
    ``ECHO_LIMIT``; far too many words are answered that the command is too long."""
    group = fake.group("Echoes")
    async with running(fake, db, clock) as bot:
        for typed, word in (
            ("/ludo {}", "x" * 4000),
            ("/ludo classic {}=1", "y" * 4000),
            ("/ludo classic teams={}", "z" * 4000),
            ("/ludo classic timer={}", "t" * 4000),
            ("/rules {}", "r" * 4000),
            ("/ludo stats {}", "s" * 4000),
        ):
            text = plain(answer(await bot.say(group, ANA, typed.format(word))))
            quoted = word[: ECHO_LIMIT - 1] + "…"
            assert quoted in text, (typed, text)
            assert word[:ECHO_LIMIT] not in text, (typed, text)
            assert len(text) < 400, (typed, text)
        too_long = plain(say(Text("tg.too_long")))
        for typed in ("/ludo " + "x" * 9000, "/ludo " + "classic " * 30, "/move " + "1 " * 2000):
            calls = await bot.say(group, ANA, typed)
            assert plain(answer(calls)) == too_long, typed
        assert db.channel_game(f"tg:{group['id']}") is None


# --------------------------------------------------------------------------
# lengths as Telegram counts them


#: 64 astral characters: 64 code points, 128 UTF-16 code units
ASTRAL = "🎲🦄" * 32


async def test_captions_and_toasts_fit_in_utf16_units(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Four people named with emoji (each name 129 characters, 258 UTF-16 units): the
    board's caption ("Ludo begins: ...") is over Telegram's 1024 units though under
    1024 characters; it is cut to fit and taken, as is a toast naming one of them."""
    group = fake.group("Emoji")
    people = [make_user(510 + k, ASTRAL, ASTRAL) for k in range(4)]
    name = f"{ASTRAL} {ASTRAL}"  # four of them: over 1024 units, far under 1024 characters
    assert 4 * len(name) + 400 < 1024 < 4 * utf16_len(name)
    by_id = {u["id"]: u for u in people}
    async with running(fake, db, clock, seed=3) as bot:
        game_id = await bot.started(group, people[0], people[1:])
        board = fake.latest(group["id"], buttons=True, photo=True)
        # cut to the latest lines: who is on turn
        assert utf16_len(board.caption or "") <= 1024
        assert (board.caption or "").endswith("roll the die.")
        # a refusal naming the person on turn: within 200 units
        turn = bot.game(game_id).on_turn()
        assert turn is not None and turn.user is not None
        waiting = next(u for u in people if str(u["id"]) != turn.user.id)
        click = await bot.click(board, waiting, board.buttons[0]["callback_data"])
        assert click.toast is not None and click.toast.startswith("It is not your turn")
        assert utf16_len(click.toast) <= 200 and click.toast.endswith("…")
        await bot.play(group["id"], game_id, by_id, presses=6, rng=random.Random(1))
    for call in fake.calls_of("sendPhoto", "editMessageMedia", ok=True):
        assert units(plain(call.caption or "")) <= 1024
    assert not refused_calls(fake)


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "PNG")
    return out.getvalue()


async def test_the_fake_refuses_what_telegram_refuses_counted_in_utf16_units(
    fake: FakeTelegram,
) -> None:
    """The fake is as strict as Telegram: a caption over 1024 UTF-16 units, a text over
    4096, an answer to a button over 200 are refused with Telegram's words, though
    each is under its limit counted in characters."""
    group = fake.group("Strict")
    async with TelegramBot(fake.token, base_url=f"{fake.url}/bot") as tg:
        with pytest.raises(BadRequest, match=r"(?i)message caption is too long"):
            await tg.send_photo(group["id"], png(), caption="🎲" * 513)  # 1026 units
        sent = await tg.send_photo(group["id"], png(), caption="🎲" * 512)
        assert sent.caption == "🎲" * 512
        with pytest.raises(BadRequest, match=r"(?i)message is too long"):
            await tg.send_message(group["id"], "a" + "🎲" * 2048)  # 4097 units
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])
        with_button = await tg.send_message(group["id"], "🎲" * 2048, reply_markup=keyboard)
        query = fake.press(fake.message(group["id"], with_button.message_id), ANA, "go")
        with pytest.raises(BadRequest, match=r"(?i)message_too_long"):
            await tg.answer_callback_query(query, "🎲" * 101)  # 202 units
        assert await tg.answer_callback_query(query, "🎲" * 100)
    refused = [c.description for c in fake.calls if not c.ok and c.description]
    assert refused == [
        "Bad Request: message caption is too long",
        "Bad Request: message is too long",
        "Bad Request: MESSAGE_TOO_LONG",
    ]


# --------------------------------------------------------------------------
# /ludo without arguments


async def test_ludo_alone_where_a_game_is_open_answers_briefly_and_posts_no_chooser(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """``/ludo`` in a group with a game running (or a lobby open): the short answer
    "a game is already running here", gone after a while; no rule chooser is left
    behind.  A chooser nobody presses goes too; one pressed becomes the lobby and stays."""
    group = fake.group("One game at a time")
    async with running(fake, db, clock, seed=4, notice_seconds=0.2) as bot:
        bot.adapter.notices.chooser_seconds = 60
        lobby = await bot.open_lobby(group, ANA)
        for person in (ANA, BEN):  # a lobby open: the same answer
            calls = await bot.say(group, person, "/ludo")
            assert plain(answer(calls)) == say(refusal_text(Refusal("refuse.game_running")))
        await bot.seat(lobby, ANA, [BEN])
        await bot.start(lobby, ANA)
        board = fake.latest(group["id"], buttons=True, photo=True)
        calls = await bot.say(group, BEN, "/ludo")
        said = next(c for c in calls if c.method == "sendMessage" and c.ok)
        assert plain(said.params["text"]) == say(refusal_text(Refusal("refuse.game_running")))
        assert "reply_markup" not in said.params, "no chooser"
        await fake.wait_for(
            lambda: [m.message_id for m in fake.chat_messages(group["id"])] == [board.message_id],
            5,
            "the answers to be deleted: the chat keeps only the game's board",
        )
        await bot.say(group, ANA, "/end")

        # no game now: a chooser, which goes if nobody presses it
        bot.adapter.notices.chooser_seconds = 0.3
        calls = await bot.say(group, BEN, "/ludo")
        assert answer(calls) == chooser("en")[0]
        unpressed = fake.latest(group["id"], buttons=True)
        await fake.wait_for(lambda: unpressed.deleted, 5, "the chooser to be deleted")
        # a chooser pressed becomes the lobby, and stays
        lobby = await bot.open_lobby(group, BEN)
        await asyncio.sleep(0.6)
        assert not fake.message(group["id"], lobby.message_id).deleted
        assert "opened a game" in fake.message(group["id"], lobby.message_id).content
    assert not refused_calls(fake)


# --------------------------------------------------------------------------
# properties: what is saved loads; what is cut fits and parses


#: any text at all, lone surrogates too (a forged update's JSON may carry them)
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=3000)


@settings(max_examples=150, deadline=None)
@given(name=ANY_TEXT, other=ANY_TEXT)
def test_any_name_saves_and_loads_as_it_is_shown(name: str, other: str) -> None:
    """Whatever a platform calls a person, their game is saved and read back (never
    thrown away as damaged), with the very name it shows."""
    host = User("telegram", "1", name)
    guest = User("discord", "2", other)
    assert len(host.name) <= NAME_LIMIT and len(guest.name) <= NAME_LIMIT
    game = open_game("g1", "tg:1", host, "classic", {}, timer=0, auto_move=True, now=1.0)
    join(game, guest, Happened(by=guest))
    loaded = Game.from_bytes(game.to_bytes())
    assert loaded.creator == host
    assert [s.user for s in loaded.seats] == [host, guest]


#: HTML as the captions are made: escaped text, tags of Telegram's HTML around some
TAGS = ("b", "i", "code", "u")
html_parts = st.one_of(
    ANY_TEXT.map(
        lambda t: html.escape(t.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))
    ),
    st.tuples(st.sampled_from(TAGS), st.text(max_size=40)).map(
        lambda p: f"<{p[0]}>{html.escape(p[1])}</{p[0]}>"
    ),
    st.tuples(st.integers(1, 10**12), st.text(min_size=1, max_size=40)).map(
        lambda p: f'<a href="tg://user?id={p[0]}">{html.escape(p[1])}</a>'
    ),
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(html_parts, max_size=8), limit=st.integers(1, 1100))
def test_html_cut_to_a_limit_fits_and_is_well_formed(parts: list[str], limit: int) -> None:
    text = "".join(parts)
    fitted = fit_html(text, limit)
    assert units(fitted) <= limit
    assert utf16_len(fitted) == units(fitted)
    parse_html(fitted)  # no half entity, no half tag, every tag closed
    if units(text) <= limit:
        assert fitted == text
    else:
        assert re.sub(r"(</\w+>)+$", "", fitted).endswith("…") or fitted == ""


@given(text=st.text(max_size=400), limit=st.integers(2, 250))
def test_a_toast_is_cut_after_a_whole_word_in_utf16_units(text: str, limit: int) -> None:
    short = shorten(text, limit)
    assert utf16_len(short) <= limit
    if utf16_len(text) <= limit:
        assert short == text
    else:
        assert short.endswith("…") and text.startswith(short[:-1].rstrip())
