"""After the game on Telegram, end to end (the real python-telegram-bot against the
fake Bot API, a real SQLite file): the replay sent at the end, the Rematch button
and its three presses, ``/ludo top`` and ``/ludo stats`` after two games, the
stats outliving a restart and the games' expiry, ``/ludo replay``,
``/ludo record`` checked by the dice check, ``/ludo forget``."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.hosting import OVER, Game
from bot.hosting.dice import check
from bot.present.after import month_name, this_month
from bot.store import SqliteStore, Store
from tests.fakes.telegram import FakeMessage, FakeTelegram, make_user
from tests.helpers.rating_check import expected_told, expected_top
from tests.helpers.telegram import Bot, game_id_of, plain, running

pytestmark = pytest.mark.telegram

ANA = make_user(201, "Ana", "Silva")
BEN = make_user(202, "Ben")
CID = make_user(203, "Cid")
DEE = make_user(204, "Dee")
PEOPLE = {u["id"]: u for u in (ANA, BEN, CID)}
#: the largest animation the bot may send (the issue's limit for both platforms)
LIMIT = 8 * 1024 * 1024


#: the bot with the dice anyone can verify (the service's own, no test die), and private
#: chats paced as the adapter paces them by default
FAIR = {"seed": None, "private_interval": 1.0}


def newest(fake: FakeTelegram, chat_id: int, label: str) -> FakeMessage:
    """The newest message of the bot in the chat with a button labelled ``label``."""
    found = [m for m in fake.chat_messages(chat_id) if any(b["text"] == label for b in m.buttons)]
    assert found, f"no message with {label!r}"
    return found[-1]


async def a_game_to_the_end(bot: Bot, chat_id: int, board: FakeMessage, rng: random.Random) -> Game:
    game_id = game_id_of(board)
    await bot.play(chat_id, game_id, PEOPLE, presses=4000, rng=rng)
    game = bot.game(game_id)
    assert game.status == OVER
    return game


def said(calls: list[Any], method: str = "sendMessage") -> str:
    sent = [c for c in calls if c.method == method and c.ok]
    assert len(sent) == 1, calls
    return plain(str(sent[0].params.get("text") or sent[0].params.get("caption") or ""))


def animation_ok(data: bytes) -> int:
    assert data[:6] in (b"GIF87a", b"GIF89a") and len(data) <= LIMIT
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.n_frames > 1
        return int(gif.n_frames)


@pytest.mark.slow
async def test_after_two_games_rematch_top_stats_replay_record_and_forget(
    fake: FakeTelegram, db: Store, db_path: Path, clock: Any
) -> None:
    group = fake.group("Revanche")
    chat = group["id"]
    rng = random.Random(4)
    async with running(fake, db, clock, **FAIR) as bot:
        await bot.say(group, ANA, "/ludo italian pieces_to_win=2")
        lobby = newest(fake, chat, "Join")
        for user in (BEN, CID):
            await bot.click(lobby, user, label="Join")
        await bot.click(lobby, ANA, label="Start")
        first = await a_game_to_the_end(bot, chat, newest(fake, chat, "Roll"), rng)
        clock.advance(1)  # the next game finishes later: the ratings take them in turn

        # the end: the standings offer a rematch, and the whole game comes as an animation
        (sent,) = fake.calls_of("sendAnimation", ok=True)
        animation_ok(sent.files["animation"])
        assert "Replay" in (sent.caption or "")
        standings = newest(fake, chat, "Rematch")
        assert [b["text"] for b in standings.buttons] == ["Rematch"]
        assert standings.photo is not None
        # the first game: everyone's new rating, its change from a newcomer's 1,000
        told = expected_told([first], lambda u: f"telegram:{u.id}")
        assert f"New ratings: {told}." in plain(standings.caption or ""), standings.caption

        # a stranger cannot ask; then three presses: Ben asks, Ana and Cid say yes
        stranger = await bot.click(standings, DEE, label="Rematch")
        assert stranger.toast == "Only the players of the last game can ask for a rematch."
        asked = await bot.click(standings, BEN, label="Rematch")
        assert fake.message(chat, standings.message_id).keyboard == [], "the old table is done"
        rematch = newest(fake, chat, "I'm in")
        assert rematch.message_id > standings.message_id, "posted below, not over the standings"
        assert "Ben wants a rematch" in plain(rematch.text or ""), rematch.text
        assert "Waiting for Ana Silva, Cid to press I'm in." in plain(rematch.text or "")
        assert asked.answer.ok
        await bot.click(rematch, ANA, label="I'm in")
        assert game_id_of(fake.message(chat, rematch.message_id)) == game_id_of(rematch)
        await bot.click(rematch, CID, label="I'm in")
        board = newest(fake, chat, "Roll")  # it started by itself: a person is on turn
        second_id = game_id_of(board)
        second = bot.game(second_id)
        assert second.after == first.id
        assert [(s.user, s.colour) for s in second.seats] == [
            (s.user, s.colour) for s in first.seats
        ]
        colours = [s.colour for s in first.seats]
        assert first.start is not None and second.start is not None
        assert second.start["turn"] == colours[(colours.index(first.start["turn"]) + 1) % 3]
        second = await a_game_to_the_end(bot, chat, board, rng)
        told = expected_told([first, second], lambda u: f"telegram:{u.id}")
        standings2 = newest(fake, chat, "Rematch")
        assert f"New ratings: {told}." in plain(standings2.caption or ""), standings2.caption
        assert len(fake.calls_of("sendAnimation", ok=True)) == 2

        # /ludo top ranks the three; /ludo stats counts the asker's games and wins
        rated = expected_top([first, second], lambda u: f"telegram:{u.id}")
        by_key = {f"telegram:{s.user.id}": s.user.name for s in first.seats if s.user}
        order = [by_key[k] for k, _ in rated]
        top = said(await bot.say(group, BEN, "/ludo top")).splitlines()
        assert top[0] == "Best players here, all time, by italian rating:"
        assert [re.match(r"\d+\. (.+?):", line).group(1) for line in top[1:4]] == order  # type: ignore[union-attr]
        assert [line.split(": ", 1)[1].split(" (")[0] for line in top[1:4]] == [
            f"{shown:,}" for _, shown in rated
        ]
        ana_wins = sum(
            s.colour in (g.state.winner or ())  # type: ignore[union-attr]
            for g in (first, second)
            for s in g.seats
            if s.user is not None and s.user.id == str(ANA["id"])
        )
        stats = said(await bot.say(group, ANA, "/ludo stats"))
        wins = f"{ana_wins} win" + ("" if ana_wins == 1 else "s")
        assert stats.startswith(f"Ana Silva here: 2 games, {wins} ("), stats
        assert "italian: rating " in stats and "; 2 games" in stats
        # one chat so far: the rating across Telegram's chats is this chat's
        here = re.search(r"italian: rating ([\d,]+),", stats)
        assert here is not None
        assert stats.endswith(f"Across all Telegram chats: italian {here.group(1)}."), stats
        assert said(await bot.say(group, CID, "/ludo stats ben")).startswith("Ben here: 2 games")
        unknown = said(await bot.say(group, CID, "/ludo stats Zed"))
        assert unknown == "Nobody called Zed has finished a game here."
        month = said(await bot.say(group, CID, "/ludo top month"))
        assert month.startswith("Best players here in ")
        week = said(await bot.say(group, CID, "/ludo top week")).splitlines()
        assert week[0] == "Best players here this week, by italian rating:"
        assert week[1:] == top[1:]
        # the hall of fame: nothing yet this month
        fame = said(await bot.say(group, BEN, "/ludo top seasons"))
        assert fame == "No season has ended here yet: the first ends with this month."

    # a restart, and the games themselves expire: the stats and the last game stay
    clock.advance(3601)
    again = SqliteStore(str(db_path), ttl=3600, clock=clock)
    try:
        assert again.load(first.id) is None and again.load(second.id) is None
        async with running(fake, again, clock, **FAIR) as bot:
            assert said(await bot.say(group, BEN, "/ludo top")).splitlines() == top
            calls = await bot.say(group, ANA, "/ludo replay")
            (replay,) = [c for c in calls if c.method == "sendAnimation" and c.ok]
            animation_ok(replay.files["animation"])
            calls = await bot.say(group, ANA, "/ludo record")
            (doc,) = [c for c in calls if c.method == "sendDocument" and c.ok]
            record = json.loads(doc.files["document"])
            assert record["dice"]["seed"] is not None
            rolls, problems = check(record)
            assert rolls > 0 and problems == []
            fourth = [a for a in record["actions"] if "roll" in a][3]
            fourth["roll"] = fourth["roll"] % 6 + 1  # one roll changed
            assert check(record)[1], "a changed roll is refused"
            # forget: Ana is gone from the board, the others stay
            forget = said(await bot.say(group, ANA, "/ludo forget"))
            assert forget == "Your stats are deleted: 2 games no longer count."
            top_now = said(await bot.say(group, BEN, "/ludo top"))
            assert "Ana" not in top_now and "Ben" in top_now
            assert said(await bot.say(group, ANA, "/ludo stats")) == (
                "Ana Silva has not finished a game here yet."
            )
            # a month later the games' month is a season of the hall of fame, without Ana
            played_in = month_name(this_month(clock())[0], "en")
            clock.advance(32 * 86400)
            fame = said(await bot.say(group, BEN, "/ludo top fame")).splitlines()
            assert fame[0] == "Hall of fame, the monthly seasons:"
            ana = f"telegram:{ANA['id']}"
            left = expected_top([first, second], lambda u: f"telegram:{u.id}", without=ana)
            names = {f"telegram:{s.user.id}": s.user.name for s in first.seats if s.user}
            medals = zip("🥇🥈🥉", left, strict=False)
            podium = ", ".join(f"{m} {names[k]} ({shown:,})" for m, (k, shown) in medals)
            assert fame[1:] == [f"{played_in}, italian: {podium}"]
    finally:
        again.close()
