"""The table's "Open the board" button on Discord (issue 23): it launches the bot's
Activity (the live board) in the channel, when the Activity is set up
(``DISCORD_CLIENT_ID`` and ``DISCORD_CLIENT_SECRET``).

The press is answered with ``LAUNCH_ACTIVITY`` (interaction callback type 12, no
data); the board page then asks Discord who is looking and in which channel.  The
button's ``custom_id`` is ``b:<game id>`` and nothing else (anything else starting
so is refused as a forged button).  A finished game's tables carry none; without
the Activity there is no button, and an old table's button pressed after it was
turned off is answered, privately, that the board cannot be opened here.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol, cast

import discord

from ...present import TableView, Text, say
from .limited import Entrance
from .translator import asker_language

log = logging.getLogger(__name__)

#: the board button's custom_id: ``b:`` and a game's id
BOARD_TEMPLATE = re.compile(r"b:(?P<game>[0-9a-f]{8})")
#: Discord's most action rows in a message
ROWS = 5


class ActivitySettings(Protocol):
    @property
    def activity(self) -> bool: ...


class Host(Protocol):
    """What a press of the button needs of the client (the bot's ``LudoClient``)."""

    @property
    def settings(self) -> ActivitySettings: ...

    @property
    def entrance(self) -> Entrance: ...


def board_custom_id(game_id: str) -> str:
    return f"b:{game_id}"


def host_of(interaction: discord.Interaction[Any]) -> Host:
    return cast(Host, interaction.client)


class BoardButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BOARD_TEMPLATE):
    """ "Open the board": launches the Activity for whoever presses it."""

    def __init__(self, game_id: str, label: str = "…") -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label[:80],
            style=discord.ButtonStyle.secondary,
            custom_id=board_custom_id(game_id),
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> BoardButton:
        return cls(str(match["game"]))

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await host_of(interaction).entrance.admit(interaction)  # the rate limits

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await launch(interaction)


def board_button(view: TableView, rows: int) -> BoardButton | None:
    """The button of ``view``'s table below its ``rows`` rows of buttons (None: the game
    is over, or the message has no row left)."""
    if view.finished or rows >= ROWS or not BOARD_TEMPLATE.fullmatch(board_custom_id(view.game_id)):
        return None
    button = BoardButton(view.game_id, say(Text("btn.open_board"), lang=view.lang))
    button.item.row = rows
    return button


async def launch(interaction: discord.Interaction[Any]) -> None:
    """Answer a press of the button with LAUNCH_ACTIVITY; if the Activity is not set up
    (any more) or Discord will not launch it, tell the presser privately, in their
    language."""
    if host_of(interaction).settings.activity:
        try:
            await interaction.response.launch_activity()
            return
        except discord.HTTPException as e:
            log.info("the Activity was not launched: %s", e)
    text = say(Text("board.unavailable"), lang=asker_language(interaction))
    try:
        await interaction.response.send_message(
            text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
    except discord.HTTPException as e:
        log.info("a board button's press could not be answered: %s", e)
