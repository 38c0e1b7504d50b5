"""The buttons of a person's corner on Discord (their DM with the bot): **Tell me my
turns** under a game's lobby and table, a card's **Mute this game**, and ``/ludo
games``' **Card n**.  Their ``custom_id`` is the presenter's corner button data
(``k:<game>:<what>``, :func:`bot.present.buttons.corner_button`) and nothing else, so
they keep working after a restart; a press is handed to the adapter's corner."""

from __future__ import annotations

import re
from typing import Any, cast

import discord

from ...present import TableView, Text, say
from ...present.buttons import corner_button
from .activity import ROWS
from .handlers import PressButton

#: every custom_id of a corner's button starts so
CORNER_TEMPLATE = re.compile(r"k:(?P<rest>.{0,98})", re.DOTALL)


class CornerButton(PressButton, template=CORNER_TEMPLATE):
    """A button of a person's corner (see the module's doc)."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await cast(Any, interaction.client).adapter.corner.pressed(interaction, self.data)


def tell_button(view: TableView, row: int) -> CornerButton | None:
    """**Tell me my turns** in row ``row`` of ``view``'s table (None: the game is over, or
    the message has no row left): whoever presses it gets their turns in their DMs."""
    if view.finished or row >= ROWS:
        return None
    label = say(Text("btn.tell_turns"), lang=view.lang)
    button = CornerButton(corner_button("on"), label, discord.ButtonStyle.secondary)
    button.item.row = row
    return button
