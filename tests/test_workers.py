"""Two webhook workers on one real Redis, one group played as fast as people type:
the group's limit is kept by both together (counted by the fake Telegram), a game
ended by ``/end`` never gets a board with buttons of play back, and a turn passing
to a person notifies them once."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Update

import engine
from bot.hosting import PLAYING
from bot.present import parse_press
from bot.store import RedisStore
from bot.store.pace import Limits
from bot.store.redis.pace import RedisPacer
from tests.fakes.telegram import FakeTelegram
from tests.helpers.chat_scenarios import ANA, BEN, mentions, shown_version
from tests.helpers.telegram import Bot, game_id_of

pytestmark = pytest.mark.telegram

RATE, PERIOD = 20, 3.0


class Workers:
    """Workers sharing one Redis; every update goes to one of them, as a load balancer
    in front of webhooks would send it."""

    def __init__(self, fake: FakeTelegram, url: str, clock: Any, count: int = 2) -> None:
        self.fake = fake
        prefix = f"w{uuid.uuid4().hex[:8]}:"
        self.stores = [RedisStore(url, ttl=3600, prefix=prefix) for _ in range(count)]
        limits = Limits(RATE, PERIOD, private=0, overall=0)
        self.bots = [
            Bot(
                fake,
                store,
                clock,
                seed=20 + i,
                group_rate=RATE,
                group_period=PERIOD,
                max_retries=3,
                pacer=RedisPacer(store.client, store.base, limits),
            )
            for i, store in enumerate(self.stores)
        ]
        self.rng = random.Random(6)
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        for bot in self.bots:
            await bot.adapter.app.initialize()

    async def stop(self) -> None:
        for bot in self.bots:
            await bot.adapter.outboxes.close(5)
            await bot.adapter.app.shutdown()
        for store in self.stores:
            store.close()

    def deliver(self) -> None:
        """The update the fake just queued goes to one worker (and not to a long poll)."""
        data = self.fake.updates.pop()
        bot = self.rng.choice(self.bots)
        update = Update.de_json(data, bot.adapter.app.bot)
        task = asyncio.create_task(bot.adapter.app.process_update(update))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def quiet(self) -> None:
        while self._tasks:
            await asyncio.wait(set(self._tasks))
        for bot in self.bots:
            await asyncio.wait_for(bot.adapter.quiet(), 60)


@pytest.fixture
async def workers(fake: FakeTelegram, redis_url: str, clock: Any) -> AsyncIterator[Workers]:
    both = Workers(fake, redis_url, clock)
    await both.start()
    try:
        yield both
    finally:
        await both.stop()


def play_buttons(message: Any) -> list[str]:
    """The labels of a message's buttons of play (anything but a rematch)."""
    return [
        b["text"]
        for b in message.buttons
        if (p := parse_press(b.get("callback_data"))) is not None and p.intent.kind != "rematch"
    ]


async def test_two_webhook_workers_keep_the_group_limit_and_never_bring_a_board_back(
    fake: FakeTelegram, workers: Workers
) -> None:
    group = fake.group("Two workers")
    chat = group["id"]
    fake.group_limit = (RATE, PERIOD)
    people = {str(ANA["id"]): ANA, str(BEN["id"]): BEN}
    bot = workers.bots[0]

    fake.send_text(group, ANA, "/ludo classic timer=0")
    workers.deliver()
    await workers.quiet()
    lobby = fake.latest(chat, buttons=True)
    game_id = game_id_of(lobby)
    for user, label in ((BEN, "Join"), (ANA, "Start")):
        fake.press(fake.latest(chat, buttons=True), user, label=label)
        workers.deliver()
        await workers.quiet()
    assert bot.game(game_id).status == PLAYING

    # as fast as people type: the person on turn rolls or moves at once, whatever the
    # board shows yet; every command goes to either worker
    rng = random.Random(2)
    first = bot.on_turn(game_id)
    handed_over = False
    for _ in range(80):
        game = bot.game(game_id)
        if game.status != PLAYING:
            break
        assert game.state is not None
        if not handed_over and bot.on_turn(game_id) != first:
            # the first hand-over is shown (its board notifies), however slow the machine
            handed_over = True
            await workers.quiet()
        person = people[str(bot.on_turn(game_id))]
        if game.state.phase == "roll":
            text = "/roll"
        else:
            text = f"/move {rng.choice(engine.legal_moves(game.state)).piece + 1}"
        fake.send_text(group, person, text)
        workers.deliver()
        while workers._tasks:  # the command handled (not yet shown: the chat waits)
            await asyncio.wait(set(workers._tasks))
        await asyncio.sleep(0.02)
    # the game is ended while boards wait in both workers' outboxes
    fake.send_text(group, ANA, "/end")
    workers.deliver()
    await workers.quiet()
    assert bot.game(game_id).status != PLAYING
    ended = fake.mark()
    await asyncio.sleep(2 * PERIOD)  # anything still held back would come now
    await workers.quiet()

    later = [c for c in fake.calls[ended:] if c.method.startswith(("send", "edit")) and c.ok]
    assert not later, later
    visible = fake.chat_messages(chat)
    assert not [m for m in visible if play_buttons(m)], "a board with buttons of play is back"
    assert shown_version(fake, chat, game_id) in (None, bot.game(game_id).version)

    # the limit, kept by both workers together
    busiest = fake.busiest(chat, PERIOD)
    print(f"two workers: busiest window {busiest} of {RATE}, {len(fake.calls)} calls")
    assert busiest <= RATE
    assert not [c for c in fake.calls if c.status == 429], "over the group's limit"

    # each hand-over notified its person once: no two notifying boards of one version
    pings: dict[tuple[str, int], int] = {}
    for c in fake.calls_of("sendPhoto", ok=True):
        if c.chat_id != chat:
            continue
        markup = c.params.get("reply_markup") or {}
        versions = {
            p.version
            for row in markup.get("inline_keyboard", [])
            for b in row
            if (p := parse_press(b.get("callback_data"))) is not None
        }
        for who in mentions(c.caption):
            for version in versions:
                pings[(who, version)] = pings.get((who, version), 0) + 1
    assert pings, "nobody was ever notified"
    twice = {k: n for k, n in pings.items() if n > 1}
    assert not twice, twice
