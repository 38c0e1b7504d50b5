"""Every chat gets a bounded share of the bot, measured end to end on the fake
Telegram (the real python-telegram-bot, a real SQLite file): a flood of commands in
one group, or twenty replays asked for at once, delay that chat only; a whole game
by buttons keeps its boards coming within seconds of its presses, spending the
group's limit evenly.

Telegram's minute is scaled (see :mod:`tests.helpers.chat_scenarios`); answers to presses
are timed as they are.  ``bench/chat.py`` runs the same scenarios at any scale.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from bot.store import Store
from tests.fakes.telegram import FakeTelegram
from tests.helpers.chat_scenarios import (
    ASKERS,
    Figures,
    counted_calls,
    finished_game,
    flood,
    play_at_pace,
    start_group_game,
)
from tests.helpers.telegram import running

pytestmark = pytest.mark.telegram

#: Telegram's limit in a group, in a tenth of its minute
RATE, PERIOD = 20, 6.0
#: a press must be answered within this, whatever other chats do
ANSWER_P99 = 1.0


@pytest.mark.slow
async def test_a_flood_of_commands_in_one_group_slows_that_group_only(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """60 commands a (scaled) minute in group A, each answered by the bot, while a game
    is played in group B (from the moment A's limit is spent): every press in B is
    answered within a second and its board shown; A gets what its limit allows, never
    more."""
    flooded, playing = fake.group("Flooded"), fake.group("Playing")
    fake.group_limit = (RATE, PERIOD)
    async with running(fake, db, clock, group_rate=RATE, group_period=PERIOD, max_retries=3) as bot:
        game_id = await start_group_game(bot, playing)
        figures = Figures()
        flooding = asyncio.create_task(flood(fake, flooded, per_second=10, seconds=2 * PERIOD))
        # B plays while A is over its limit: A's answers wait, B's presses must not
        await fake.wait_for(
            lambda: counted_calls(fake, flooded["id"]) >= RATE - 2, PERIOD, "A's limit spent"
        )
        await play_at_pace(
            bot,
            playing["id"],
            game_id,
            random.Random(3),
            figures=figures,
            until=time.monotonic() + PERIOD,
        )
        sent = await flooding
        await bot.settle(timeout=60)
        figures.busiest = fake.busiest(flooded["id"], PERIOD)
        figures.extra = {
            "flood_commands": sent,
            "flood_answers": counted_calls(fake, flooded["id"]),
            "playing_busiest": fake.busiest(playing["id"], PERIOD),
        }
    summary = figures.summary(PERIOD)
    print("a flood in another group:", summary)
    assert sent >= 100 and figures.presses >= 10, summary
    assert max(figures.answers) < ANSWER_P99, summary  # the slowest, so the p99 too
    assert figures.busiest <= RATE and summary["playing_busiest"] <= RATE, summary
    assert not [c for c in fake.calls if c.status == 429], "over a group's limit"
    # the flooded group got answers, as many as its limit let through, not a backlog
    assert 1 <= summary["flood_answers"] <= RATE * 3, summary


async def test_twenty_replays_in_one_chat_leave_the_others_answered_at_once(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Twenty people ask for the replay of group A's last game at once, while a game is
    played in group B: B's presses are answered within a second; the replay is drawn
    once (later asks send it again by its file id)."""
    replays, playing = fake.group("Replays"), fake.group("Playing")
    finished_game(db, f"tg:{replays['id']}")
    async with running(fake, db, clock) as bot:
        game_id = await start_group_game(bot, playing)
        mark = fake.mark()
        for user in ASKERS:
            fake.send_text(replays, user, "/ludo replay")
        figures = Figures()
        await play_at_pace(
            bot,
            playing["id"],
            game_id,
            random.Random(5),
            figures=figures,
            until=time.monotonic() + 4.0,
        )
        await bot.settle(timeout=60)
        # asked again later: sent again without drawing
        fake.send_text(replays, ASKERS[0], "/ludo replay")
        await bot.settle(timeout=60)
    animations = [
        c for c in fake.calls_of("sendAnimation", since=mark, ok=True)
        if c.chat_id == replays["id"]
    ]  # fmt: skip
    uploads = [c for c in animations if "animation" in c.files]
    summary = figures.summary(PERIOD)
    summary["replays_sent"], summary["replays_drawn"] = len(animations), len(uploads)
    print("twenty replays in another chat:", summary)
    assert figures.presses >= 5 and max(figures.answers) < ANSWER_P99, summary
    assert len(uploads) == 1 and len(animations) >= 2, summary
    assert animations[-1].params.get("animation") == uploads[0].result["animation"]["file_id"]


@pytest.mark.slow
async def test_a_whole_group_game_by_buttons_shows_each_board_within_seconds(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Two people and two computers play a whole game by buttons, each pressing as soon
    as the board shows their turn: the window is spent evenly, so a board follows its
    press within a sixth of the window (10 s of Telegram's minute) at p99, with at most
    1.1 messages and edits per press."""
    period = 3.0  # a twentieth of the minute: a whole game in about a minute
    group = fake.group("Whole game")
    fake.group_limit = (RATE, period)
    async with running(fake, db, clock, group_rate=RATE, group_period=period, max_retries=3) as bot:
        mark = fake.mark()
        game_id = await start_group_game(bot, group)
        figures = Figures(presses=4)  # the lobby's presses count too
        await play_at_pace(bot, group["id"], game_id, random.Random(8), figures=figures)
        await bot.settle(timeout=60)
        figures.counted = counted_calls(fake, group["id"], since=mark)
        figures.busiest = fake.busiest(group["id"], period)
    summary = figures.summary(period)
    print("a whole group game by buttons:", summary)
    assert summary["board_p99_s"] <= period * 10 / 60, summary
    assert summary["calls_per_press"] <= 1.1, summary
    assert figures.busiest <= RATE, summary
    assert not [c for c in fake.calls if c.status == 429], "over the group's limit"
