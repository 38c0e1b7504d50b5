"""Telegram answering errors for a while (issue 37: no acknowledged move lost, whatever
fails), end to end against the fake Bot API: a game played through a storm of 429s
(with ``retry_after``) and one of 502s that sometimes hide a success.

"Minutes" are compressed to seconds: a storm of a few seconds, ``retry_after`` 1 s, the
5xx backoff scaled down (its base and cap); the code is the same.  The people type
their commands (``/roll``, ``/move``) during the storm: the updates keep coming (the
storm spares ``getUpdates``, as a webhook would), only the bot's calls are refused.
Checked after each storm: nothing lost (the newest board, the final board and the
standings shown), nothing shown twice (the fake's messages counted), no call made
before a 429's ``retry_after`` had passed (the fake keeps those), and at most three
lines in the operator's log for the storm.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import Any

import pytest

import engine
from bot.adapters.storm import Backoff
from bot.hosting import OVER, PLAYING
from bot.store import Store
from tests.fakes.telegram import FakeMessage, FakeTelegram, Storm
from tests.helpers.chat_scenarios import ANA, BEN, board_of, shown_version, start_group_game
from tests.helpers.storms import near_the_end, operator_lines, until_logged
from tests.helpers.telegram import Bot, running

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]

PEOPLE = {str(ANA["id"]): ANA, str(BEN["id"]): BEN}


async def typed(bot: Bot, chat: dict[str, Any], user: dict[str, Any], text: str) -> None:
    """``user`` types ``text``; back once the bot has handled it (its tables may still
    wait in the chat's outbox)."""
    bot.fake.send_text(chat, user, text)
    await bot.fake.wait_for(bot.fake.delivered, 15, "the update fetched")
    await asyncio.wait_for(bot.adapter.app.update_queue.join(), 15)


async def play(bot: Bot, chat: dict[str, Any], game_id: str, most: int) -> int:
    """The person on turn types ``/roll`` or ``/move`` (their first piece that can
    move) until the game is over, or ``most`` commands; how many were typed."""
    for typed_so_far in range(most):
        game = bot.game(game_id)
        if game.status != PLAYING:
            return typed_so_far
        assert game.state is not None
        user = PEOPLE[str(bot.on_turn(game_id))]
        if game.state.phase == "roll":
            text = "/roll"
        else:
            text = f"/move {engine.legal_moves(game.state)[0].piece + 1}"
        await typed(bot, chat, user, text)
        assert bot.game(game_id).rev > game.rev, f"{text} changed nothing"
    return most


def photos(fake: FakeTelegram, chat_id: int) -> list[FakeMessage]:
    return [m for m in fake.chat_messages(chat_id) if m.photo is not None]


def figures(storm: Storm, shown_at: float, lines: list[str]) -> str:
    return (
        f"storm {storm.until - storm.began:.1f} s, {len(storm.refused)} calls refused, "
        f"{len(lines)} log lines, newest shown {shown_at - storm.until:.2f} s after it"
    )


async def test_a_game_played_to_its_end_through_a_storm_of_429s(
    fake: FakeTelegram, db: Store, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram answers every call 429 (retry after 1 s) while the last moves are typed:
    the bot waits as it asks, every time (python-telegram-bot's rate limiter, then the
    chat's outbox), and once Telegram answers again the table is brought to the end in
    the usual calls (the last board edited into the final board, the standings posted
    below it), without a board shown twice nor an intermediate one."""
    caplog.set_level(logging.DEBUG)
    group = fake.group("Stormy group")
    async with running(fake, db, clock, seed=11, max_retries=1) as bot:
        game_id = await start_group_game(bot, group, computers=0)
        near_the_end(bot.store, game_id)
        await typed(bot, group, ANA, "/board")
        await bot.settle()
        [table] = photos(fake, group["id"])
        assert shown_version(fake, group["id"], game_id) == bot.game(game_id).version
        mark, logged = fake.mark(), len(caplog.records)

        storm = fake.storm(429, 60.0, retry_after=1, spare=("getUpdates",))
        typed_in_storm = await play(bot, group, game_id, most=60)
        assert bot.game(game_id).status == OVER and typed_in_storm >= 3
        # the storm ends a moment after the last move (and lasts 4 s at least)
        storm.until = max(storm.began + 4.0, time.monotonic() + 1.0)
        assert not [c for c in fake.calls[mark:] if c.ok and c.chat_id == group["id"]]

        def standings() -> FakeMessage | None:
            rematch = [m for m in photos(fake, group["id"]) if "Rematch" in str(m.buttons)]
            return rematch[-1] if rematch else None

        posted: FakeMessage = await fake.wait_for(standings, 20, "the standings")
        await bot.settle()
        after = fake.calls_of(since=mark, where=lambda c: c.ok and c.chat_id == group["id"])
        # the usual end, once: the table edited into the final board, the standings below
        # (and the replay of the game after them)
        assert [c.method for c in after] == ["editMessageMedia", "sendPhoto", "sendAnimation"]
        assert after[0].message_id == table.message_id and after[0].at >= storm.until
        assert [m.message_id for m in photos(fake, group["id"])] == [
            table.message_id,
            posted.message_id,
        ]
        assert not fake.message(group["id"], table.message_id).keyboard
        assert [b["text"] for b in posted.buttons] == ["Rematch"]
        assert "Game over" in (posted.caption or "")
        # every wait Telegram asked for was kept, in the chat and elsewhere
        assert fake.early == []
        assert storm.refused and all(c.status == 429 for c in storm.refused)
        in_chat = fake.calls_of(since=mark, where=lambda c: c.chat_id == group["id"])
        for first, then in itertools.pairwise(in_chat):
            if first.status == 429:  # the next call in the chat waited (as the fake measures)
                assert then.at - first.at >= 1.0 - 0.01, (first, then)
        await until_logged(caplog.records, "answers again")
        lines = operator_lines(caplog.records[logged:])
        print(figures(storm, after[1].at, lines), lines)
        assert len(lines) <= 3, lines
        assert lines[0].startswith("WARNING bot.adapters.telegram: Telegram answers 429 to ")
        assert "Telegram answers again after " in lines[-1]
        assert after[1].at - storm.until < 3.0, "the standings came late"


async def test_a_storm_of_502s_that_hide_successes_shows_each_board_once(
    fake: FakeTelegram, db: Store, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram answers every call 502 (its proxy's HTML page) but does them all the
    same, while the turn passes back and forth: the board sent when the turn first
    passed did arrive, so after the storm the bot finds it above the last message it
    knew (Telegram numbers a chat's messages) and makes it the table instead of sending
    the board again; edits and deletions are simply done again.  One board, the newest,
    and the 5xx backoff grew with each refusal (jittered, capped)."""
    caplog.set_level(logging.DEBUG)
    group = fake.group("Gateway group")
    async with running(fake, db, clock, seed=4) as bot:
        # "minutes" in seconds: the backoff of a 5xx from a quarter second to one second
        bot.adapter.outboxes.storm.backoff = Backoff(base=0.25, cap=1.0)
        game_id = await start_group_game(bot, group, computers=0)
        await bot.settle()
        [table] = photos(fake, group["id"])
        mark, logged = fake.mark(), len(caplog.records)

        storm = fake.storm(502, 60.0, spare=("getUpdates",), took_effect=True)
        began = bot.game(game_id)
        await play(bot, group, game_id, most=12)
        last = bot.game(game_id)
        assert last.status == PLAYING and last.version > began.version
        storm.until = max(storm.began + 4.0, time.monotonic() + 0.5)
        await fake.wait_for(lambda: storm.over, 10, "the storm's end")
        await fake.wait_for(
            lambda: shown_version(fake, group["id"], game_id) == last.version,
            20,
            "the newest board",
        )
        await bot.settle()
        shown_at = max(c.at for c in fake.calls_of(since=mark) if c.ok)
        # one board on screen, the newest, with its buttons; the first one deleted
        [board] = photos(fake, group["id"])
        assert board_of(fake, group["id"], game_id) is board and board.keyboard
        assert fake.message(group["id"], table.message_id).deleted
        # the board Telegram took in the storm is the table: never sent twice
        sent = fake.calls_of("sendPhoto", "sendMessage", since=mark)
        made = [c for c in sent if c.status == 200 or c in storm.refused]
        assert len(made) == 1 and made[0] in storm.refused, sent
        assert board.message_id == made[0].message_id
        # the outbox backed off: fewer tries than the storm had quarter seconds
        tries = [c for c in storm.refused if c.chat_id == group["id"]]
        assert 2 <= len(tries) <= (storm.until - storm.began) / 0.25, len(tries)
        await until_logged(caplog.records, "answers again")
        lines = operator_lines(caplog.records[logged:])
        print(figures(storm, shown_at, lines), lines)
        assert len(lines) <= 3, lines
        assert "Telegram answers 502 to " in lines[0]
        assert "Telegram answers again after " in lines[-1]
