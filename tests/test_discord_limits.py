"""The rate limits on Discord, end to end (the real discord.py client against the fake
Discord, a real SQLite file): a person flooding commands, presses and autocompletion
is answered privately in their language and nothing changes, while another person in
the same channel, and people in another channel, play on."""

from __future__ import annotations

import pytest

from bot.limits.rate import Limiter, LimitSettings, Rate
from bot.ops.metrics import REGISTRY
from bot.store.limits import MemoryBuckets
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Interaction, Member
from tests.helpers.discord import Harness
from tests.helpers.stores import FakeClock

pytestmark = pytest.mark.discord

ANA = Member(1_300_000_000_000_000_011, "ana", global_name="Ana", locale="pt-BR")
BEN = Member(1_300_000_000_000_000_012, "ben", global_name="Ben")
CID = Member(1_300_000_000_000_000_013, "cid", global_name="Cid", locale="es-ES")

SLOW = "Você está indo rápido demais: tente de novo em 1 segundo."


@pytest.fixture
def h(h: Harness) -> Harness:
    h.extra_members += [ANA, BEN, CID]
    return h


def limited_count() -> float:
    sample = REGISTRY.get_sample_value(
        "ludo_presses_total", {"platform": "discord", "result": "limited"}
    )
    return sample or 0.0


def turned_away(inter: Interaction) -> str:
    """The private answer of an interaction turned away."""
    callback = inter.callback
    assert callback.type == 4 and callback.data["flags"] & EPHEMERAL, callback
    return str(callback.data["content"])


async def test_a_person_flooding_is_answered_privately_while_the_others_play_on(
    h: Harness, fake: FakeDiscord
) -> None:
    time = FakeClock(1000.0)
    settings = LimitSettings(Rate(5, 1.0), Rate(100, 1.0), 0, 0)
    await h.start(limiter=Limiter(MemoryBuckets(time), settings, time))
    game_id, lobby = await h.lobby(BEN, ANA)  # Ben's /ludo new, Ana's Join
    time.advance(60)  # everyone's budget full again
    for _ in range(5):  # Ana's five: answered
        inter, _ = await h.command(ANA, "rules")
        assert inter.callback.data["content"] != SLOW
    before = h.game(game_id)
    counted = limited_count()

    pressed, new = await h.press(ANA, lobby, "Leave")
    assert turned_away(pressed) == SLOW
    assert not [m for m in new if not m.ephemeral], "nothing posted"
    command, new = await h.command(ANA, "leave")
    assert turned_away(command) == SLOW
    typed = await fake.autocomplete(ANA, "move", "piece")
    await fake.answered(typed)
    assert typed.callback.type == 8 and typed.choices == []
    after = h.game(game_id)
    assert (after.rev, [s.user for s in after.seats]) == (
        before.rev,
        [s.user for s in before.seats],
    )
    assert limited_count() - counted == 3

    # Ben in the same channel: his press works
    added, _ = await h.press(BEN, lobby, "Add computer", settle=game_id)
    assert len(h.game(game_id).seats) == 3, added.callback
    # Cid in another channel opens a game
    other = fake.add_channel("other-table")
    await h.command(CID, "new", channel_id=other)
    assert h.svc.game_in(f"dc:{other}") is not None

    # a second later, Ana's press counts again
    time.advance(1.0)
    await h.press(ANA, lobby, "Leave", settle=game_id)
    assert [s.user.name for s in h.game(game_id).seats if s.user] == ["Ben"]
