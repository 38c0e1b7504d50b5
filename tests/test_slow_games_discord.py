"""Slow games on Discord: ``/ludo new timer:12h`` (the same words as Telegram's
``timer=``), the lobby saying the timer in words, and a timer that is none refused in
the asker's language, the range in words."""

from __future__ import annotations

import pytest

from bot.present import say
from bot.present.timer import bad_timer, per_turn
from tests.fakes.discord import FakeDiscord
from tests.helpers.discord import ANA, EVA, Harness

pytestmark = pytest.mark.discord


async def test_the_timer_option_takes_words(h: Harness, fake: FakeDiscord) -> None:
    h.extra_members.append(EVA)
    await h.start(seed=5)
    game_id, lobby = await h.lobby(ANA, timer="12h")
    assert h.game(game_id).timer == 12 * 3600
    assert "Timer: 12 hours per turn." in lobby.description
    assert say(per_turn(12 * 3600)) == "12 hours per turn"
    # a timer that is none, or out of range: refused privately, nothing opened
    for typed in ("soon", "8d", "5s"):
        _, new = await h.command(EVA, "new", channel_id=fake.thread_id, timer=typed)
        (told,) = new
        assert told.ephemeral and told.visible_to == EVA.id, typed
        assert told.content == say(bad_timer(), lang="es"), told.content
        assert "de 10 segundos a 7 días" in told.content
    assert h.svc.game_in(f"dc:{fake.thread_id}") is None
    # off, in any case
    game_id, _ = await h.lobby(EVA, channel_id=fake.thread_id, timer="OFF")
    assert h.game(game_id).timer == 0
