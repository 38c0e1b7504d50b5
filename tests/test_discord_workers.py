"""Presses that change nothing, on Discord end to end: a press delivered to two
workers, and the second click of a double click.  Neither notifies anybody (the one
press that worked notifies the next person once, never the presser), and the second
click of the last move leaves the game's final board above the standings."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.hosting import OVER, PLAYING
from bot.store import Store
from tests.fakes.discord import FakeDiscord, Message
from tests.helpers.discord import ANA, BEN, Harness, game_ids, tried

pytestmark = pytest.mark.discord


def pings(fake: FakeDiscord) -> dict[int, int]:
    """How often each person was notified by a message of the bot (deleted ones too)."""
    counted: dict[int, int] = {}
    for m in fake.all_messages():
        for who in m.pinged_users:
            counted[who] = counted.get(who, 0) + 1
    return counted


@pytest.mark.parametrize("seed", [31, 33])
async def test_a_start_press_reaching_two_workers_pings_nobody_twice_nor_the_presser(
    fake: FakeDiscord,
    store: Store,
    make_store: Any,
    caplog: pytest.LogCaptureFixture,
    seed: int,
) -> None:
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=seed)
        game_id, lobby = await h.lobby(ANA, BEN)
        await h.start(make_store(), seed=seed)
        before = pings(fake)
        inter = await fake.click(ANA, lobby, "Start", everywhere=True)
        await fake.wait_for(tried(inter, 2), 5, "both workers")
        await h.quiet()
        await h.settle(fake.channel_id, game_id)
        assert h.game(game_id).status == PLAYING
        after = pings(fake)
        new = {who: n - before.get(who, 0) for who, n in after.items() if n > before.get(who, 0)}
        first = h.on_turn(game_id)
        assert first is not None
        # the person on turn is told once, unless it is Ana, who pressed Start
        assert new == ({} if first is ANA else {first.id: 1}), new
        assert len(h.live(fake.channel_id, game_id)) == 1
    finally:
        await h.stop_all()


@pytest.mark.slow
async def test_a_double_click_on_every_press_changes_nothing_and_keeps_the_final_board(
    h: Harness, fake: FakeDiscord
) -> None:
    adapter = await h.start(seed=12)
    # a refused click repairs the chat only after a grace (another worker may be
    # showing the press): shortened here, the game has a hundred presses
    adapter.reconciler.grace = 0.1
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    rng = random.Random(12)
    for _ in range(2000):
        game = h.game(game_id)
        if game.status != PLAYING:
            break
        member = h.on_turn(game_id)
        assert member is not None
        (table,) = h.live(fake.channel_id, game_id)
        custom_id = rng.choice(game_ids(table))
        before = pings(fake)
        first = await fake.click(member, table, custom_id=custom_id)
        second = await fake.click(member, table, custom_id=custom_id)
        await fake.answered(first)
        await fake.answered(second)
        await h.quiet()
        await h.settle(fake.channel_id, game_id)
        after = h.game(game_id)
        assert after.version == game.version + 1, "the second click changed nothing"
        # nobody but the next person was told, once; never the presser
        new = {who: n - before.get(who, 0) for who, n in pings(fake).items()}
        new = {who: n for who, n in new.items() if n}
        assert member.id not in new and all(n == 1 for n in new.values()), new
    game = h.game(game_id)
    assert game.status == OVER
    shown: list[Message] = fake.public_messages(fake.channel_id)
    pictures = [m.embed_image()[0] for m in shown if m.embed_image()]  # type: ignore[index]
    # the final board, then the standings (and the replay below them)
    assert pictures[:2] == ["board.png", "standings.png"], pictures
    assert shown[0].buttons() == []
