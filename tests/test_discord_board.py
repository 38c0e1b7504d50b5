"""End to end on the fake Discord: the board for everyone, also in words, in a theme,
and many presses at once.

Every board and standings picture carries the board in words as its attachment's
description (the alt text screen readers read); ``/ludo board text`` tells the
board in words to the asker alone; ``/ludo new theme`` draws a game's pictures in
another theme; and a burst of presses is acknowledged at once, every table
following through the channel.
"""

from __future__ import annotations

import asyncio
import copy
import io
import random
from typing import Any

import discord
import pytest

from bot.adapters.discord import describe
from bot.hosting import LOBBY, OVER, PLAYING, Refusal
from bot.present import Text, refusal_text, say
from bot.present.alt import alt_lines, alt_text
from bot.present.pictures import board_png
from bot.present.view import prompt
from renderer import THEMES
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Member, Message
from tests.helpers.discord import ANA, BEN, CID, IMAGE_WIDTH, Harness, game_ids, version_of

pytestmark = pytest.mark.discord

#: a theme other than the classic one (colour-blind friendly where this renderer has it)
THEME = "colourblind"


def picture(msg: Message) -> tuple[str, bytes, str | None]:
    """The picture a table shows: its file name, bytes and description (alt text)."""
    shown = msg.embed_image()
    assert shown is not None, f"no picture in message {msg.id}"
    name, data = shown
    attachment = msg.attachment(name)
    assert attachment is not None
    return name, data, attachment.description


def check_alt(h: Harness, msg: Message, game_id: str) -> None:
    """The picture of ``msg`` is described by the board of the saved game, in words."""
    game = h.game(game_id)
    name, _, description = picture(msg)
    assert description == alt_text(game), (name, description)
    assert description and len(description) <= 1024


async def started(h: Harness, host: Member, computers: int = 1, **options: Any) -> str:
    """A game opened by ``host`` with computer players, started, ``host`` on turn."""
    game_id, lobby = await h.lobby(host, computers=computers, **options)
    await h.press(host, lobby, "Start", settle=game_id)
    assert h.game(game_id).status == PLAYING
    return game_id


# ----------------------------------------------------------------------
# the board in words


async def test_every_picture_carries_the_board_in_words(h: Harness, fake: FakeDiscord) -> None:
    """Every board, as it is posted and edited press after press, and the standings of
    the game played to its end, are described by the board in words (alt text)."""
    await h.start(seed=3)
    game_id = await started(h, ANA, computers=3)
    rng = random.Random(5)
    presses = 0
    while h.game(game_id).status == PLAYING:
        table = h.table(game_id)
        check_alt(h, table, game_id)
        assert presses < 2000, "the game does not end"
        await h.press(ANA, table, custom_id=rng.choice(game_ids(table)), settle=game_id)
        presses += 1
    game = h.game(game_id)
    assert game.status == OVER
    (standings,) = [
        m for m in fake.public_messages() if (m.embed_image() or ("",))[0] == "standings.png"
    ]
    _, _, description = picture(standings)
    # the final standings, and who won (the board in words says so)
    assert description == "Final standings.\n" + alt_text(game)
    assert say(prompt(game)) in description.split("\n")
    # the final board above it says how the game ended, too
    (final,) = [m for m in fake.public_messages() if (m.embed_image() or ("",))[0] == "board.png"]
    assert picture(final)[2] == alt_text(game)
    h.check_clean()


async def test_the_fake_refuses_an_overlong_description(h: Harness, fake: FakeDiscord) -> None:
    """Discord takes at most 1024 characters of alt text (the fake as well)."""
    await h.start()
    channel = h.adapter.client.get_partial_messageable(fake.channel_id)
    png = board_png(h.game(await started(h, ANA)), IMAGE_WIDTH)
    sent = await channel.send(file=discord.File(io.BytesIO(png), "a.png", description="x" * 1024))
    assert fake.messages[sent.id].attachments[0].description == "x" * 1024
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send(file=discord.File(io.BytesIO(png), "b.png", description="x" * 1025))
    assert refused.value.status == 400 and "attachments.0.description" in str(refused.value)


async def test_board_text_tells_the_asker_alone(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=2)
    # no game here yet: refused privately
    inter, (told,) = await h.command(CID, "board", text=True)
    assert told.ephemeral and told.visible_to == CID.id
    assert told.content == say(refusal_text(Refusal("refuse.no_game")))
    # a lobby has no board: its caption
    game_id, lobby = await h.lobby(ANA, BEN)
    inter, (told,) = await h.command(CID, "board", text=True)
    assert told.ephemeral and "Ben" in told.content and told.embeds == []
    assert h.game(game_id).status == LOBBY
    await h.press(ANA, lobby, "Start", settle=game_id)
    public = fake.public_messages()
    table = h.table(game_id)
    edits = table.edits
    # anyone may ask; the words of the saved game, privately, nothing moves in the channel
    inter, new = await h.command(CID, "board", text=True)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = new
    assert told.ephemeral and told.visible_to == CID.id and told.attachments == []
    game = h.game(game_id)
    assert told.content == describe(alt_lines(game), 2000, "en")
    assert told.content.split("\n")[0] == say(Text("alt.board", {"rules": "classic"}))
    assert "Ana (red)" in told.content or "Ana (" in told.content
    assert fake.public_messages() == public and table.edits == edits
    assert told.pinged_users == set() and told.allowed_mentions == {"parse": []}
    # in the asker's own language
    leo = Member(1_300_000_000_000_000_009, "leo", global_name="Leo", locale="pt-BR")
    inter, (told,) = await h.command(leo, "board", text=True)
    assert told.content == describe(alt_lines(game), 2000, "pt_BR")
    assert told.content != describe(alt_lines(game), 2000, "en")
    # without text, the board moves to the bottom as before
    inter, new = await h.command(CID, "board", text=False, settle=game_id)
    assert h.table(game_id) is not table and fake.messages[table.id].deleted
    check_alt(h, h.table(game_id), game_id)
    h.check_clean()


# ----------------------------------------------------------------------
# themes


async def test_new_game_in_a_theme(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=4)
    (ludo,) = fake.commands[None]
    subs = {o["name"]: o for o in ludo["options"]}
    new_opts = {o["name"]: o for o in subs["new"]["options"]}
    theme = new_opts["theme"]
    assert theme["type"] == 3 and not theme.get("required")
    assert [c["value"] for c in theme["choices"]] == list(THEMES)
    names = {c["value"]: c["name"] for c in theme["choices"]}
    assert names["classic"] == "Classic" and names["dark"] == "Dark"
    assert names["colourblind"] == "Colour-blind friendly"
    (text,) = subs["board"]["options"]
    assert text["name"] == "text" and text["type"] == 5 and not text.get("required")
    assert 1 <= len(text["description"]) <= 100

    game_id = await started(h, ANA, theme=THEME)
    game = h.game(game_id)
    assert game.theme == THEME
    _, data, _ = picture(h.table(game_id))
    classic = copy.copy(game)
    classic.theme = "classic"
    assert data == board_png(game, IMAGE_WIDTH)
    assert data != board_png(classic, IMAGE_WIDTH), "drawn in the classic theme"
    # a game opened without the option is classic
    other = await started(h, BEN, channel_id=fake.thread_id)
    assert h.game(other).theme == "classic"
    # a theme that is not offered cannot be sent (Discord checks the choices)
    with pytest.raises(AssertionError):
        await fake.slash(CID, "new", theme="neon")
    h.check_clean()


# ----------------------------------------------------------------------
# many presses at once


async def burst(h: Harness, fake: FakeDiscord, games: int, limit: int | None = None) -> list[str]:
    """``games`` games in as many channels, one person each on turn: they all press the
    first button of their table at once (with the adapter's burst ``limit``, if given).
    The ids of the games."""
    people = [Member(1_300_000_000_000_001_000 + g, f"p{g}") for g in range(games)]
    h.extra_members += people
    channels = [fake.add_channel(f"ludo-{g}") for g in range(games)]
    ids = [await started(h, p, channel_id=c) for p, c in zip(people, channels, strict=True)]
    tables = [h.table(g) for g in ids]
    versions = [h.game(g).version for g in ids]
    if limit is not None:
        h.adapter.burst.limit = limit
    inters = await asyncio.gather(
        *(
            fake.click(p, t, custom_id=t.custom_ids()[0])
            for p, t in zip(people, tables, strict=True)
        )
    )
    for inter in inters:
        await fake.answered(inter)
    await h.quiet()
    for game_id, channel, version in zip(ids, channels, versions, strict=True):
        await h.settle(channel, game_id)
        assert h.game(game_id).version > version, "the press changed nothing"
        table = h.table(game_id)
        assert version_of(table) == {h.game(game_id).version}
        check_alt(h, table, game_id)
    return ids


async def test_a_burst_is_acknowledged_at_once(h: Harness, fake: FakeDiscord) -> None:
    """Over the burst limit (0 here: every press), a press is acknowledged silently at
    once (type 6), and its table follows through the channel's REST."""
    await h.start(seed=6)
    before = len(fake.interactions)
    await burst(h, fake, 3, limit=0)
    presses = [i for i in fake.interactions[before:] if i.type == 3][-3:]
    assert [i.callback.type for i in presses] == [6, 6, 6]
    # a command over the limit: a private "thinking…" at once, then what it did
    h.adapter.burst.limit = 4
    game_id = await started(h, CID, channel_id=fake.thread_id)
    h.adapter.burst.limit = 0
    inter, (told,) = await h.command(CID, "roll", channel_id=fake.thread_id, settle=game_id)
    assert inter.callback.type == 5 and told.ephemeral and told.visible_to == CID.id
    assert "rolled" in told.content
    h.check_clean()


async def test_many_presses_at_once_are_all_answered(h: Harness, fake: FakeDiscord) -> None:
    """Eight presses at the same moment: every one answered once, in time, every table
    up to date and described."""
    await h.start(seed=7)
    await burst(h, fake, 8)
    h.check_clean()
