"""The live board opened from a Discord table (issue 23), end to end on the fake
Discord: with the Activity set up, every lobby and playing table carries "Open the
board" below its buttons; pressing it answers with LAUNCH_ACTIVITY (callback type
12) and changes nothing; a forged board button is refused; without the Activity
there is no button, and an old one pressed is answered privately."""

from __future__ import annotations

from typing import Any

import pytest

from bot.hosting import ENDED, PLAYING
from bot.present import Text, say
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Message
from tests.helpers.discord import ANA, BEN, CID, RUI, Harness, version_of

pytestmark = pytest.mark.discord

RUI_LOCALE = "pt_BR"


def board_row(message: Message) -> list[dict[str, Any]]:
    """The message's row of components below the game's own: the board's button alone
    (below it only "Tell me my turns")."""
    assert message.components, f"message {message.id} has no buttons"
    rows = [r for r in message.components if r["components"][0]["custom_id"] != "k::on"]
    return list(rows[-1]["components"])


def game_rows(message: Message) -> list[list[str]]:
    """The labels of the rows of the game's own buttons."""
    return [
        [b["label"] for b in row["components"]]
        for row in message.components
        if all(b.get("custom_id", "").startswith("g:") for b in row["components"])
    ]


def check_board_button(message: Message, game_id: str, label: str = "Open the board") -> None:
    (button,) = board_row(message)
    assert button["type"] == 2 and button["custom_id"] == f"b:{game_id}"
    assert button["label"] == label and button["style"] == 2
    assert len(message.components) <= 5


async def test_the_table_launches_the_activity(h: Harness, fake: FakeDiscord) -> None:
    fake.activities = True
    await h.start(seed=4, activity=True)
    game_id, lobby = await h.lobby(ANA, BEN)
    lobby = fake.messages[lobby.id]
    assert game_rows(lobby) == [
        ["Join", "Leave"],
        ["Add computer", "Remove computer", "Start"],
        ["Level: normal"],
    ]
    check_board_button(lobby, game_id)

    # pressing it launches the Activity for the presser: nothing else happens
    for who, message in ((CID, lobby), (ANA, lobby)):
        stored, public = h.stored(game_id), len(fake.public_messages())
        inter, new = await h.press(who, message, custom_id=f"b:{game_id}")
        assert [(c.type, c.status, c.data) for c in inter.callbacks] == [(12, 200, {})]
        assert new == [] and h.stored(game_id) == stored
        assert len(fake.public_messages()) == public

    await h.press(ANA, lobby, "Start", settle=game_id)
    board = h.table(game_id)
    assert board.attachments and version_of(board) == {h.game(game_id).version}
    check_board_button(board, game_id)
    # it survives the edits and new tables of a few turns
    for _ in range(6):
        if h.game(game_id).status != PLAYING:
            break
        member = h.on_turn(game_id)
        assert member is not None
        table = h.table(game_id)
        first = next(b for b in table.buttons() if b["custom_id"].startswith("g:"))
        await h.press(member, table, custom_id=first["custom_id"], settle=game_id)
        check_board_button(h.table(game_id), game_id)
    inter, _ = await h.press(BEN, h.table(game_id), custom_id=f"b:{game_id}")
    assert inter.callback.type == 12

    # the game ended: its table carries no board button
    await h.command(ANA, "end", settle=game_id)
    assert h.game(game_id).status == ENDED
    assert not [
        m for m in fake.public_messages() if any(c.startswith("b:") for c in m.custom_ids())
    ]
    h.check_clean()


async def test_a_forged_board_button_is_refused(h: Harness, fake: FakeDiscord) -> None:
    fake.activities = True
    await h.start(seed=4, activity=True)
    game_id, _lobby = await h.lobby(ANA)
    stored = h.stored(game_id)
    forged = fake.plant_message(
        fake.channel_id,
        buttons=[[("Open", "b:not-a-game"), ("Open", f"b:{game_id}:x"), ("Open", "b:" + "f" * 98)]],
    )
    for custom_id in forged.custom_ids():
        inter, (answer,) = await h.press(BEN, forged, custom_id=custom_id)
        assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
        assert answer.ephemeral and answer.visible_to == BEN.id
        assert answer.content == say(Text("refuse.bad_button"))
        assert h.stored(game_id) == stored
    h.check_clean()


async def test_without_the_activity_there_is_no_button(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=4)
    game_id, lobby = await h.lobby(ANA, BEN)
    assert not [c for c in fake.messages[lobby.id].custom_ids() if c.startswith("b:")]
    # an old table's button, pressed after the Activity was turned off: said privately
    old = fake.plant_message(fake.channel_id, buttons=[[("Open the board", f"b:{game_id}")]])
    inter, (answer,) = await h.press(CID, old, custom_id=f"b:{game_id}")
    assert inter.callback.type == 4 and answer.ephemeral and answer.visible_to == CID.id
    assert answer.content == say(Text("board.unavailable"))
    h.check_clean()


async def test_discord_refusing_the_launch_is_said_privately(h: Harness, fake: FakeDiscord) -> None:
    """The bot says the Activity is set up, the application has none (the Developer
    Portal not done yet): the presser is told, in their language."""
    h.extra_members.append(RUI)
    await h.start(seed=4, activity=True)
    game_id, lobby = await h.lobby(ANA)
    inter, (answer,) = await h.press(RUI, lobby, custom_id=f"b:{game_id}")
    assert [(c.type, c.status) for c in inter.callbacks] == [(12, 400), (4, 200)]
    assert answer.ephemeral and answer.visible_to == RUI.id
    assert answer.content == say(Text("board.unavailable"), lang=RUI_LOCALE)
    assert answer.content == "Não dá para abrir o tabuleiro ao vivo aqui agora."
    h.check_clean(skip={inter.id}, refusals=lambda call, body: "Activity" in str(body))
