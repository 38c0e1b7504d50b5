"""Tournaments on Telegram, end to end (the real python-telegram-bot against the fake
Bot API, real SQLite files): ``/ludo tournament``, the sign-up buttons, tables opened
one after another, people playing with the buttons while the others never come (the
timers fire and the computer plays for them), a restart in the middle of a round, and
the final standings and podium checked against an independent count of the kept
results."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.adapters.telegram.screen import PREFIX
from bot.hosting import LOBBY, PLAYING
from bot.hosting.tour_codec import load
from bot.store import SqliteStore
from tests.fakes.telegram import BOT_ID, FakeMessage, FakeTelegram, make_user
from tests.helpers.telegram import Bot, plain
from tests.helpers.tour_check import check_knockout_told, check_swiss_told, tables

pytestmark = pytest.mark.telegram

PEOPLE = [make_user(300 + k, f"P{k + 1}") for k in range(12)]


def text_of(m: FakeMessage) -> str:
    return plain(m.html or m.text or m.caption_html or m.caption or "")


def newest(
    fake: FakeTelegram, chat: int, label: str, thread: int | None = None
) -> FakeMessage | None:
    found = [
        m for m in fake.chat_messages(chat, thread) if any(b["text"] == label for b in m.buttons)
    ]
    return found[-1] if found else None


def rooms_of(bot: Bot, channel: str) -> list[str]:
    """Where the tournament of ``channel`` plays: its rooms (forum topics), or there."""
    stored = bot.service.store.load_in(f"tour:{channel}")
    rooms = load(stored.data).rooms if stored is not None else []
    return rooms or [channel]


async def step(bot: Bot, chat: int, present: set[int], clock: Any) -> bool:
    """One step: someone present says yes or plays, at any table; else the clock moves on
    and the timers fire (shown as the runner shows them).  False once the chat has no
    game and no tournament."""
    channel = f"{PREFIX}{chat}"
    by_id = {str(u["id"]): u for u in PEOPLE}
    games = []
    for room in rooms_of(bot, channel):
        game = bot.service.game_in(room)
        thread = int(room.split(":")[2]) if room.count(":") == 2 else None
        if game is not None:
            games.append(game)
        if game is not None and game.status == LOBBY:
            for seat in game.waiting:
                if seat.user is not None and int(seat.user.id) in present:
                    lobby = newest(bot.fake, chat, "I'm in", thread)
                    assert lobby is not None
                    click = await bot.click(lobby, by_id[seat.user.id], label="I'm in")
                    assert not click.toast or "in" in click.toast, click.toast
                    return True
        if game is not None and game.status == PLAYING:
            seat = game.on_turn()
            if seat is not None and seat.user is not None and int(seat.user.id) in present:
                shown = bot.fake.chat_messages(chat, thread)
                boards = [m for m in shown if m.photo is not None and m.keyboard]
                labels = [b["text"] for b in boards[-1].buttons]
                label = "Roll" if "Roll" in labels else labels[0]
                await bot.click(boards[-1], by_id[seat.user.id], label=label)
                return True
    if not games and bot.service.store.load_in(f"tour:{channel}") is None:
        return False
    clock.advance(31)
    for outcome in bot.service.fire_due():
        await bot.adapter.show(outcome)
    await bot.settle()
    return True


async def sign_up(bot: Bot, group: dict[str, Any], command: str, count: int) -> FakeMessage:
    await bot.say(group, PEOPLE[0], command)
    signup = newest(bot.fake, group["id"], "Join")
    assert signup is not None
    assert "Signed up (1 of" in text_of(signup)
    for user in PEOPLE[1:count]:
        click = await bot.click(signup, user, label="Join")
        assert not click.toast, click.toast
    return signup


def winners_message(fake: FakeTelegram, chat: int) -> str:
    """The winner's message, told once."""
    won = [m for m in fake.chat_messages(chat) if "wins the tournament" in text_of(m)]
    won += [m for m in fake.chat_messages(chat) if "share first place" in text_of(m)]
    assert len(won) == 1, "the winner told once"
    return text_of(won[0])


@pytest.mark.slow
async def test_a_swiss_of_eight_in_three_rounds_with_a_restart(
    fake: FakeTelegram, tmp_path: Path, clock: Any
) -> None:
    group = fake.group("Swiss night")
    chat = group["id"]
    path = str(tmp_path / "games.sqlite3")
    present = {PEOPLE[0]["id"], PEOPLE[3]["id"]}  # two people play; six never come
    store = SqliteStore(path, ttl=3600, clock=clock)
    bot = Bot(fake, store, clock)
    await bot.adapter.start()
    signup = await sign_up(bot, group, "/ludo tournament swiss size=8 rounds=3 timer=30", 8)
    assert "Signed up (8 of 8)" in text_of(signup) and not signup.keyboard  # closed
    assert any("Round 1:" in text_of(m) for m in fake.chat_messages(chat))
    # the first table calls its four players by name (a link notifies each), once
    lobby = newest(fake, chat, "I'm in")
    assert lobby is not None and text_of(lobby).count("round 1, table 1:") == 1
    called = set(re.findall(r"tg://user\?id=(\d+)", lobby.html or ""))
    assert len(called) == 4 and called <= {str(u["id"]) for u in PEOPLE[:8]}
    channel = f"{PREFIX}{chat}"
    for _ in range(3000):  # into round 2, a table being played
        t = bot.service.store.load_in(f"tour:{channel}")
        if t is not None and b'"rd":2' in t.data and bot.service.game_in(channel) is not None:
            break
        assert await step(bot, chat, present, clock)
    await bot.adapter.stop()
    store.close()
    store = SqliteStore(path, ttl=3600, clock=clock)  # a new process on the same file
    bot = Bot(fake, store, clock, seed=11)
    await bot.adapter.start()
    try:
        for _ in range(6000):
            if not await step(bot, chat, present, clock):
                break
        text = winners_message(fake, chat)
        played = tables(store, channel)
        assert len(played) == 6
        names = {f"telegram:{u['id']}": u["first_name"] for u in PEOPLE[:8]}
        check_swiss_told(text, played, names)
        assert sum("Standings after round" in text_of(m) for m in fake.chat_messages(chat)) == 2
        # each round's word comes before its first table (the outbox puts tables first)
        every = sorted(fake.messages.values(), key=lambda m: m.message_id)
        for r in (2, 3):
            said_at = next(
                m.message_id for m in every if f"Standings after round {r - 1}" in text_of(m)
            )
            lobby_at = next(
                m.message_id
                for m in every
                if any(f"round {r}, table 1:" in plain(v.html or v.text or "") for v in m.history)
                or f"round {r}, table 1:" in text_of(m)
            )
            assert said_at < lobby_at
    finally:
        await bot.adapter.stop()
        store.close()


@pytest.mark.slow
async def test_a_knockout_of_twelve_to_its_final_table(
    fake: FakeTelegram, tmp_path: Path, clock: Any
) -> None:
    group = fake.supergroup("Knockout club", forum=True)  # the tables play in topics
    fake.set_member(group, {"id": BOT_ID}, "administrator")
    chat = group["id"]
    path = str(tmp_path / "games.sqlite3")
    store = SqliteStore(path, ttl=3600, clock=clock)
    bot = Bot(fake, store, clock, seed=5)
    await bot.adapter.start()
    try:
        await sign_up(bot, group, "/ludo tournament knockout size=12 timer=30", 12)
        channel = f"{PREFIX}{chat}"
        present = {PEOPLE[1]["id"], PEOPLE[6]["id"]}
        for _ in range(4000):  # into round 2, its tables being played
            t = store.load_in(f"tour:{channel}")
            if (
                t is not None
                and b'"rd":2' in t.data
                and bot.service.game_in(rooms_of(bot, channel)[0])
            ):
                break
            assert await step(bot, chat, present, clock)
        await bot.adapter.stop()
        store.close()
        store = SqliteStore(path, ttl=3600, clock=clock)  # a new process on the same file
        bot = Bot(fake, store, clock, seed=6)
        await bot.adapter.start()
        for _ in range(8000):
            if not await step(bot, chat, present, clock):
                break
        text = winners_message(fake, chat)
        names = {f"telegram:{u['id']}": u["first_name"] for u in PEOPLE}
        check_knockout_told(text, tables(store, channel), names)
        assert any("The final table:" in text_of(m) for m in fake.chat_messages(chat))
        # three topics, one per table of the first round; every table played in one
        topics = [c for c in fake.calls if c.method == "createForumTopic" and c.ok]
        assert [c.params["name"] for c in topics] == [f"🏆 Tournament table {k}" for k in (1, 2, 3)]
        boards = [m for m in fake.chat_messages(chat) if m.photo is not None]
        topic_ids = {c.result["message_thread_id"] for c in topics}
        assert boards and {m.thread_id for m in boards} == topic_ids  # boards in the topics
    finally:
        await bot.adapter.stop()
        store.close()
