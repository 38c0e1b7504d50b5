"""Scenarios of many chats at once on the fake Telegram, measured: shared by the tests
(which assert on the figures) and ``bench/chat.py`` (which prints them at any scale).

Time is Telegram's, scaled: a group may take ``rate`` messages or edits in any
``period`` seconds (Telegram: 20 in 60); a scenario run with ``period=60`` is the
real thing, the tests run a tenth or less of it.  Latencies of answers to presses
are never scaled (a handler must answer at once, whatever the chat's limit);
latencies of boards are printed both as measured and per minute of the limit.

People act as people do: they press a button of the board they see, when it shows
that it is their turn; a press is answered by a toast, and its board follows.
"""

from __future__ import annotations

import asyncio
import random
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import engine
from bot.hosting import OVER, PLAYING, Intent, User
from bot.present import parse_press
from bot.service.game import GameService
from bot.store import Store
from tests.fakes.telegram import FakeMessage, FakeTelegram, make_user
from tests.helpers.telegram import Bot, game_id_of

ANA = make_user(301, "Ana")
BEN = make_user(302, "Ben")
FLOODER = make_user(303, "Flo")
ASKERS = [make_user(400 + i, f"Asker {i}") for i in range(20)]

#: the methods that count in a group's limit
COUNTED = (
    "sendMessage",
    "sendPhoto",
    "sendAnimation",
    "sendDocument",
    "editMessageText",
    "editMessageMedia",
    "editMessageCaption",
    "editMessageReplyMarkup",
)


def pct(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


@dataclass
class Figures:
    """What a scenario measured."""

    #: seconds from a press to its toast
    answers: list[float] = field(default_factory=list)
    #: seconds from a press to the chat showing its result
    boards: list[float] = field(default_factory=list)
    presses: int = 0
    #: messages and edits the chat took (counted as Telegram counts them)
    counted: int = 0
    busiest: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def summary(self, period: float) -> dict[str, Any]:
        per_minute = 60.0 / period
        return {
            "presses": self.presses,
            "answer_p50_ms": round(pct(self.answers, 0.5) * 1000, 1),
            "answer_p99_ms": round(pct(self.answers, 0.99) * 1000, 1),
            "board_p50_s": round(pct(self.boards, 0.5), 3),
            "board_p99_s": round(pct(self.boards, 0.99), 3),
            "board_p99_at_60s_window_s": round(pct(self.boards, 0.99) * per_minute, 2),
            "calls_per_press": round(self.counted / max(1, self.presses), 3),
            "busiest_window": self.busiest,
            **self.extra,
        }


def messages_of(fake: FakeTelegram, chat_id: int, inline_id: str | None) -> list[FakeMessage]:
    """The bot's messages in the chat, or the one posted through inline mode."""
    if inline_id is not None:
        return [fake.inline_message(inline_id)]
    return fake.chat_messages(chat_id)


def shown_version(
    fake: FakeTelegram, chat_id: int, game_id: str, inline_id: str | None = None
) -> int | None:
    """The version of the game whose buttons the chat (or the inline message
    ``inline_id``) shows (None: none shown)."""
    for m in reversed(messages_of(fake, chat_id, inline_id)):
        for b in m.buttons:
            press = parse_press(b.get("callback_data"))
            if press is not None and press.game_id == game_id:
                return press.version
    return None


def board_of(
    fake: FakeTelegram, chat_id: int, game_id: str, inline_id: str | None = None
) -> FakeMessage | None:
    for m in reversed(messages_of(fake, chat_id, inline_id)):
        if any(game_id in b.get("callback_data", "") for b in m.buttons):
            return m
    return None


def counted_calls(fake: FakeTelegram, chat_id: int, since: int = 0) -> int:
    return len([c for c in fake.calls_of(*COUNTED, since=since) if c.chat_id == chat_id and c.ok])


async def answer_time(fake: FakeTelegram, query_id: str, began: float, timeout: float) -> float:
    await fake.wait_for(lambda: fake.answer_of(query_id), timeout, "the press's toast")
    answer = fake.answer_of(query_id)
    assert answer is not None
    return answer.at - began


async def start_group_game(
    bot: Bot, chat: dict[str, Any], computers: int = 2, rules: str = "classic"
) -> str:
    """Ana opens a game (no turn timer), Ben joins, ``computers`` computers sit down, Ana
    starts it; the game's id."""
    fake = bot.fake
    bot.fake.send_text(chat, ANA, f"/ludo {rules} timer=0")
    lobby = await fake.wait_for(
        lambda: next((m for m in fake.chat_messages(chat["id"]) if m.buttons), None),
        30,
        "the lobby",
    )
    game_id = game_id_of(lobby)
    presses = [(BEN, "Join")] + [(ANA, "Add computer")] * computers + [(ANA, "Start")]
    for user, label in presses:
        version = bot.game(game_id).version
        await fake.wait_for(
            lambda v=version: shown_version(fake, chat["id"], game_id) == v, 30, "the lobby"
        )
        query = fake.press(board_of(fake, chat["id"], game_id), user, label=label)  # type: ignore[arg-type]
        await answer_time(fake, query, time.monotonic(), 30)
    assert bot.game(game_id).status == PLAYING
    return game_id


async def start_inline_game(bot: Bot, chat: dict[str, Any], computers: int = 2) -> tuple[str, str]:
    """The same as :func:`start_group_game` through inline mode, in a chat the bot is no
    member of: Ana chooses the table ``@bot classic timer=0`` lists; (the game's id, the
    message's inline_message_id)."""
    fake = bot.fake
    fake.inline_mode = fake.inline_feedback = True
    fake.outsiders.add(chat["id"])
    query = fake.inline_query(ANA, "classic timer=0", "group")
    assert query is not None
    await fake.wait_for(lambda: query in fake.inline_answers, 30, "the tables listed")
    inline_id = fake.choose(query, chat, title="Classic")
    assert inline_id is not None
    game_id = await fake.wait_for(lambda: bot.store.channel_game(f"tgi:{inline_id}"), 30, "it")
    presses = [(BEN, "Join")] + [(ANA, "Add computer")] * computers + [(ANA, "Start")]
    for n, (user, label) in enumerate(presses):
        version = bot.game(game_id).version
        if n:  # the lobby as posted first, then as the bot edits it
            await fake.wait_for(
                lambda v=version: shown_version(fake, chat["id"], game_id, inline_id) == v,
                30,
                "the lobby",
            )
        query = fake.press_inline(inline_id, user, label=label)
        await answer_time(fake, query, time.monotonic(), 30)
    assert bot.game(game_id).status == PLAYING
    return game_id, inline_id


async def play_at_pace(
    bot: Bot,
    chat_id: int,
    game_id: str,
    rng: random.Random,
    *,
    figures: Figures,
    until: float | None = None,
    timeout: float = 120.0,
    inline_id: str | None = None,
) -> None:
    """The person on turn presses as soon as the board shows their turn, until the game
    is over (or the monotonic time ``until``); every press's toast and board timed.
    ``inline_id``: the game is played in that message, posted through inline mode."""
    fake = bot.fake
    people = {str(ANA["id"]): ANA, str(BEN["id"]): BEN}
    while until is None or time.monotonic() < until:
        game = bot.game(game_id)
        if game.status != PLAYING:
            return
        await fake.wait_for(
            lambda v=game.version: shown_version(fake, chat_id, game_id, inline_id) == v,
            timeout,
            "the board of the turn",
        )
        board = board_of(fake, chat_id, game_id, inline_id)
        assert board is not None
        user = people[str(bot.on_turn(game_id))]
        labels = [b["text"] for b in board.buttons]
        label = "Roll" if "Roll" in labels else rng.choice(labels)
        began = time.monotonic()
        if inline_id is not None:
            query = fake.press_inline(inline_id, user, label=label)
        else:
            query = fake.press(board, user, label=label)
        answered = await answer_time(fake, query, began, timeout)
        after = bot.game(game_id)
        if after.version == game.version and after.rev == game.rev:
            # turned away (the rate limits): pressed again a moment later, as people do
            figures.extra["refused"] = figures.extra.get("refused", 0) + 1
            await asyncio.sleep(0.25)
            continue
        figures.answers.append(answered)
        figures.presses += 1
        if after.status == OVER:
            await fake.wait_for(
                lambda: any(
                    b["text"] == "Rematch"
                    for m in messages_of(fake, chat_id, inline_id)
                    for b in m.buttons
                ),
                timeout,
                "the standings",
            )
        else:
            await fake.wait_for(
                lambda v=after.version: (
                    (shown_version(fake, chat_id, game_id, inline_id) or 0) >= v
                ),
                timeout,
                "the board after the press",
            )
        figures.boards.append(time.monotonic() - began)


def finished_game(store: Store, channel: str, seed: int = 3) -> str:
    """A game Ana played to its end against three computers in ``channel`` (kept as the
    channel's last game); its id."""
    from tests.helpers.service import Dice

    svc = GameService(store, dice=Dice(seed))
    ana = User("telegram", str(ANA["id"]), ANA["first_name"])
    opened = svc.open(channel, ana, "classic", timer=0)
    assert opened.game is not None
    for _ in range(3):
        svc.act(channel, ana, Intent("add_computer"))
    outcome = svc.act(channel, ana, Intent("start"))
    for _ in range(2000):
        game = outcome.game
        assert game is not None
        if game.status != PLAYING:
            break
        state = game.state
        assert state is not None
        if state.phase == "roll":
            outcome = svc.act(channel, ana, Intent("roll"))
        else:
            move = engine.legal_moves(state)[0]
            outcome = svc.act(channel, ana, Intent("move", move.piece + 1))
    assert outcome.game is not None and outcome.game.status == OVER
    return outcome.game.id


async def flood(fake: FakeTelegram, chat: dict[str, Any], per_second: float, seconds: float) -> int:
    """Someone sends commands in ``chat`` at ``per_second`` for ``seconds``: each one
    answered by the bot (refusals, help, the rules); how many were sent."""
    words = ["/roll", "/help", "/move 9", "/rules", "/join", "/ludo bogus=1", "/board"]
    sent = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        fake.send_text(chat, FLOODER, words[sent % len(words)])
        sent += 1
        await asyncio.sleep(1 / per_second)
    return sent


def mentions(text: str | None) -> list[str]:
    return re.findall(r'<a href="tg://user\?id=(\d+)">', text or "")


def summary_line(name: str, figures: dict[str, Any]) -> str:
    return f"{name}: " + ", ".join(f"{k}={v}" for k, v in figures.items())


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0
