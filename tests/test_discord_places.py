"""A table wherever people talk on Discord (issue 36), end to end on the fake: ``/ludo``
installed to a person and used in a group DM, or in a server the bot is not in.  The
bot cannot see such a channel (every channel endpoint answers Missing Access): the
table is the command's answer, each press edits it (UPDATE_MESSAGE), timers and
computers edit it through the freshest token, and before that runs out the table says
it waits for a press; a press after that carries the game on."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.adapters.reconcile import Notes
from bot.hosting import OVER, PLAYING
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Interaction, Message
from tests.fakes.discord.model import embed_texts
from tests.helpers.discord import ANA, BEN, Harness, game_id_of

pytestmark = pytest.mark.discord

#: the bot's channel endpoints: never called where it has no access
CHANNEL = "/channels/"


def channel_calls(fake: FakeDiscord, channel_id: int) -> list[Any]:
    return [c for c in fake.calls if f"{CHANNEL}{channel_id}" in c.path]


def table_of(fake: FakeDiscord, channel_id: int) -> Message:
    """The one public message of the channel: the table."""
    (table,) = [m for m in fake.public_messages(channel_id) if m.components or m.embeds]
    return table


async def play_out(h: Harness, table: Message, game_id: str) -> list[Interaction]:
    """Whoever is on turn presses the table's first button of the game until it is
    over; the presses."""
    people = {ANA.id: ANA, BEN.id: BEN}
    presses = []
    for _ in range(3000):
        if h.game(game_id).status != PLAYING:
            return presses
        who = h.on_turn(game_id)
        assert who is not None
        message = h.fake.messages[table.id]
        data = next(c for c in message.custom_ids() if c.startswith(f"g:{game_id}:"))
        inter, _ = await h.press(people[who.id], message, custom_id=data)
        presses.append(inter)
    raise AssertionError("the game did not end")


async def test_a_user_installed_ludo_plays_a_game_in_a_group_dm(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=4)
    dm = fake.group_dm()
    inter, _ = await h.command(ANA, "new", channel_id=dm, timer="off")
    # the table is the command's own answer, for everyone in the group DM
    assert inter.callback.type == 4 and not inter.callback.data.get("flags", 0) & EPHEMERAL
    table = table_of(fake, dm)
    game_id = game_id_of(table)
    await h.press(BEN, table, "Join")
    assert "Ben" in " ".join(embed_texts(fake.messages[table.id].embeds))
    inter, _ = await h.press(ANA, fake.messages[table.id], "Start")
    assert inter.callback.type == 7  # UPDATE_MESSAGE: the table itself
    assert h.game(game_id).status == PLAYING
    answers = await play_out(h, table, game_id)
    assert {inter.callback.type for inter in answers} <= {6, 7}
    assert h.game(game_id).status == OVER
    assert not channel_calls(fake, dm), "no channel endpoint is ever called there"
    assert [m.id for m in fake.public_messages(dm) if m.components or m.embeds] == [table.id]
    notes = Notes.from_bytes(h.store.load(game_id).shown.data)  # type: ignore[union-attr]
    assert notes.via is not None and notes.until > time.time() + 10 * 60
    assert "via" not in repr(notes)


async def test_timers_and_computers_edit_through_the_token_then_continue_after_it_ran_out(
    h: Harness, fake: FakeDiscord
) -> None:
    """A turn timer and a computer move the table through the freshest token; a pause of
    16 minutes (the fake's clock): a minute before the token runs out the table says it
    waits for a press, with Continue; after it ran out nothing edits it, and Continue
    shows the game as it stands, and play goes on."""

    def clock() -> float:
        return time.time() + fake.clock_offset

    await h.start(seed=4, clock=clock)
    h.adapter.expiry.clock = clock
    dm = fake.group_dm()
    await h.command(ANA, "new", channel_id=dm, timer="30")
    table = table_of(fake, dm)
    game_id = game_id_of(table)
    await h.press(BEN, table, "Join")
    await h.press(ANA, fake.messages[table.id], "Add computer")
    await h.press(ANA, fake.messages[table.id], "Start")
    version = h.game(game_id).version

    # the turn timer runs out: the move and the computer's are shown through the token
    fake.advance(31)
    for outcome in h.svc.fire_due():
        await h.adapter.show(outcome)
    assert h.game(game_id).version > version
    edits = [c for c in fake.calls if c.method == "PATCH" and "/webhooks/" in c.path]
    assert edits and edits[-1].status == 200
    assert (
        fake.messages[table.id]
        .custom_ids()[0]
        .startswith(f"g:{game_id}:{h.game(game_id).version}:")
    )

    # 14.5 minutes on: the table says it waits for a press, and its token is forgotten
    fake.advance(14.5 * 60 - 31)
    await fake.wait_for(
        lambda: "waits for a press" in (fake.messages[table.id].content or ""), 10, "the word"
    )
    assert fake.messages[table.id].custom_ids() == [f"w:{game_id}"]
    await fake.wait_for(
        lambda: Notes.from_bytes(h.store.load(game_id).shown.data).via == "",  # type: ignore[union-attr]
        10,
        "the token forgotten",
    )
    # 16.5 minutes on: the token ran out; a timer moves the game, nothing can show it
    fake.advance(2 * 60)
    calls = len(fake.calls)
    moved = h.svc.fire_due()
    for outcome in moved:
        await h.adapter.show(outcome)
    assert moved and len(fake.calls) == calls
    now = h.game(game_id)
    # Continue: the table as the game stands, and play goes on from there
    inter, _ = await h.press(BEN, fake.messages[table.id], custom_id=f"w:{game_id}")
    assert inter.callback.type == 7
    shown = fake.messages[table.id]
    assert shown.custom_ids()[0].startswith(f"g:{game_id}:{now.version}:")
    assert "waits for a press" not in (shown.content or "")
    stored = Notes.from_bytes(h.store.load(game_id).shown.data)  # type: ignore[union-attr]
    assert stored.via is not None and stored.via != "" and stored.until > clock() + 10 * 60
    # and on to the end, by buttons, timers and the computer
    await play_out(h, table, game_id)
    assert h.game(game_id).status == OVER
    assert [m.id for m in fake.public_messages(dm) if m.components or m.embeds] == [table.id]
    assert not channel_calls(fake, dm)


async def test_a_command_where_a_table_is_up_edits_it_through_its_token(
    h: Harness, fake: FakeDiscord
) -> None:
    """``/ludo join`` in the group DM: the asker is told privately, and the table (the
    first command's answer) is edited through the token kept, not answered anew."""
    fake.activities = True
    await h.start(seed=4, activity=True)
    dm = fake.group_dm()
    await h.command(ANA, "new", channel_id=dm)
    table = table_of(fake, dm)
    assert f"b:{game_id_of(table)}" in table.custom_ids()  # "Open the board" here too
    inter, new = await h.command(BEN, "join", channel_id=dm)
    assert [m.ephemeral for m in new] == [True]
    assert "Ben" in " ".join(embed_texts(fake.messages[table.id].embeds))
    assert table_of(fake, dm).id == table.id
    inter, _ = await h.press(BEN, fake.messages[table.id], custom_id=f"b:{game_id_of(table)}")
    assert inter.callback.type == 12  # the Activity launches for the presser
    assert not channel_calls(fake, dm)


async def test_a_server_that_keeps_outside_apps_private_is_told_how_to_play(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    closed = fake.foreign_channel(external_apps=False)
    inter, new = await h.command(ANA, "new", channel_id=closed)
    (told,) = new
    assert told.ephemeral and "Ask an admin to add Ludo" in (told.content or "")
    assert h.store.channel_game(f"dc:{closed}") is None
    # where outside apps may answer everyone, the table is shared
    open_ = fake.foreign_channel()
    inter, _ = await h.command(ANA, "new", channel_id=open_)
    assert inter.callback.type == 4 and not inter.callback.data.get("flags", 0) & EPHEMERAL
    assert h.store.channel_game(f"dc:{open_}") is not None
    assert not channel_calls(fake, open_) and not channel_calls(fake, closed)
