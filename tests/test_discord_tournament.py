"""Tournaments on the fake Discord, end to end (the real discord.py client and adapter,
real SQLite files): ``/ludo tournament``, the sign-up buttons (each press edits the
message in place), tables opened one after another, people playing with the buttons
while the others never come (the timers fire and the computer plays for them), a
restart in the middle of a round, and the final standings and podium checked against
an independent count of the kept results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.adapters.discord.where import GUILD_PREFIX, PREFIX
from bot.hosting import LOBBY, PLAYING
from bot.hosting.tour_codec import load
from bot.store import SqliteStore
from tests.fakes.discord import FakeDiscord, Member, Message
from tests.helpers.discord import MOD, Harness
from tests.helpers.stores import FakeClock
from tests.helpers.tour_check import check_knockout_told, check_swiss_told, tables

pytestmark = pytest.mark.discord

PEOPLE = [
    Member(1_300_000_000_000_100_000 + k, f"p{k + 1}", global_name=f"P{k + 1}") for k in range(12)
]


@pytest.fixture
def h(h: Harness) -> Harness:
    h.extra_members = list(PEOPLE)
    return h


def newest(fake: FakeDiscord, channel_id: int, label: str) -> Message | None:
    found = [m for m in fake.public_messages(channel_id) if label in m.labels()]
    return found[-1] if found else None


def rooms_of(h: Harness, channel: str) -> list[str]:
    """Where the tournament of ``channel`` plays: its rooms (threads), or there."""
    stored = h.store.load_in(f"tour:{channel}")
    rooms = load(stored.data).rooms if stored is not None else []
    return rooms or [channel]


async def step(h: Harness, present: set[int], clock: FakeClock) -> bool:
    """Someone present says yes or plays, at any table; else the clock moves on and the
    timers fire (shown as the runner shows them).  False once nothing is left to play."""
    channel = f"{PREFIX}{h.fake.channel_id}"
    by_id = {m.id: m for m in PEOPLE}
    games = []
    for room in rooms_of(h, channel):
        game = h.svc.game_in(room)
        if game is not None:
            games.append(game)
        if game is not None and game.status == LOBBY:
            for seat in game.waiting:
                if seat.user is not None and int(seat.user.id) in present:
                    lobby = newest(h.fake, int(room[len(PREFIX) :]), "I'm in")
                    assert lobby is not None
                    inter, _ = await h.press(by_id[int(seat.user.id)], lobby, "I'm in")
                    assert inter.callback.status == 200
                    return True
        if game is not None and game.status == PLAYING:
            seat = game.on_turn()
            if seat is not None and seat.user is not None and int(seat.user.id) in present:
                table = h.table(game.id)
                labels = table.labels()
                label = next((x for x in labels if x.startswith("Roll")), labels[0])
                await h.press(by_id[int(seat.user.id)], table, label)
                return True
    if not games and h.store.load_in(f"tour:{channel}") is None:
        return False
    clock.advance(31)
    for outcome in h.svc.fire_due():
        await h.adapter.show(outcome)
    await h.quiet()
    return True


async def sign_up(h: Harness, count: int, **options: Any) -> Message:
    inter, new = await h.command(PEOPLE[0], "tournament", **options)
    (signup,) = [m for m in new if not m.ephemeral]
    assert "Signed up (1 of" in signup.content and signup.labels() == ["Join", "Leave", "Start"]
    for member in PEOPLE[1:count]:
        inter, _ = await h.press(member, signup, "Join")
        assert inter.callback.type == 7  # the sign-up message edited in place, as the answer
        signup = h.fake.messages[signup.id]
    return signup


def winners_message(fake: FakeDiscord, channel_id: int) -> str:
    """The winner's message, told once (Discord's escapes taken off)."""
    said = [m.content.replace("\\", "") for m in fake.public_messages(channel_id)]
    won = [c for c in said if "wins the tournament" in c or "share first place" in c]
    assert len(won) == 1, "the winner told once"
    return won[0]


@pytest.mark.slow
async def test_a_swiss_of_eight_in_three_rounds_with_a_restart(
    h: Harness, fake: FakeDiscord, db_path: Path
) -> None:
    clock = FakeClock(1_800_000_000.0)
    await h.start(clock=clock)
    signup = await sign_up(h, 8, format="swiss", size=8, rounds=3, timer=30)
    assert "Signed up (8 of 8)" in signup.content and not signup.labels()  # closed
    channel_id = fake.channel_id
    channel = f"{PREFIX}{channel_id}"
    assert any("Round 1:" in m.content for m in fake.public_messages(channel_id))
    # the tables play at once, each in a thread the bot started
    assert len(fake.made_threads) == 2
    assert [fake.channels[t]["name"] for t in fake.made_threads] == [
        "🏆 Tournament table 1",
        "🏆 Tournament table 2",
    ]
    said = [m.content for m in fake.public_messages(channel_id)]
    assert any("Each table plays in a thread" in c for c in said)
    assert not any("one after another" in c for c in said)
    # a stranger's press of a table's I'm in is refused privately and changes nothing
    lobby = newest(fake, fake.made_threads[0], "I'm in")
    assert lobby is not None
    # the table calls its four players (a mention pings each, once: when it is posted)
    assert len(lobby.pinged_users) == 4 and lobby.pinged_users <= {m.id for m in PEOPLE[:8]}
    assert all(f"<@{u}>" in lobby.content for u in lobby.pinged_users)
    inter, _ = await h.press(MOD, lobby, "I'm in")
    assert inter.callback.data["flags"] & 64
    present = {PEOPLE[0].id, PEOPLE[3].id}
    for _ in range(3000):  # into round 2, a table being played
        t = h.store.load_in(f"tour:{channel}")
        if t is not None and b'"rd":2' in t.data and h.svc.game_in(rooms_of(h, channel)[0]):
            break
        assert await step(h, present, clock)
    await h.stop_all()
    second = SqliteStore(str(db_path), ttl=3600)  # a new process on the same file
    try:
        await h.start(second, seed=9, clock=clock)
        h.store = second
        for _ in range(6000):
            if not await step(h, present, clock):
                break
        text = winners_message(fake, channel_id)
        played = tables(second, f"{GUILD_PREFIX}{fake.guild_id}")  # results count in the server
        assert len(played) == 6
        names = {f"discord:{m.id}": str(m.global_name) for m in PEOPLE[:8]}
        check_swiss_told(text, played, names)
    finally:
        await h.stop_all()
        second.close()


@pytest.mark.slow
async def test_a_knockout_of_twelve_to_its_final_table(h: Harness, fake: FakeDiscord) -> None:
    clock = FakeClock(1_800_000_000.0)
    fake.threads_allowed = False  # the bot may not start threads: one table after another
    await h.start(clock=clock)
    await sign_up(h, 12, format="knockout", size=12, timer=30)
    present = {PEOPLE[1].id, PEOPLE[6].id}
    channel = f"{PREFIX}{fake.channel_id}"
    for _ in range(4000):  # into round 2, a table being played
        t = h.store.load_in(f"tour:{channel}")
        if t is not None and b'"rd":2' in t.data and h.svc.game_in(channel) is not None:
            break
        assert await step(h, present, clock)
    await h.stop_all()
    await h.start(seed=4, clock=clock)  # a new process on the same store
    for _ in range(8000):
        if not await step(h, present, clock):
            break
    channel_id = fake.channel_id
    text = winners_message(fake, channel_id)
    names = {f"discord:{m.id}": str(m.global_name) for m in PEOPLE}
    check_knockout_told(text, tables(h.store, f"{GUILD_PREFIX}{fake.guild_id}"), names)
    assert any("The final table:" in m.content for m in fake.public_messages(channel_id))
    assert any("one after another" in m.content for m in fake.public_messages(channel_id))
    assert not fake.made_threads
