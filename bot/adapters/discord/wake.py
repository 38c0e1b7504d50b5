"""**Continue**: the button of a table reached through interactions only whose token ran
out (:mod:`.places`); its ``custom_id`` is ``w:<game id>``, so it works after a restart."""

from __future__ import annotations

import re
from typing import Any, cast

import discord

from .handlers import PressButton

#: the custom_id of Continue: the game's id
WAKE_TEMPLATE = re.compile(r"w:(?P<game>[0-9a-f]{8})")


class WakeButton(PressButton, template=WAKE_TEMPLATE):
    """A table shown again from where its game stands."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await cast(Any, interaction.client).adapter.on_wake(interaction, self.data[2:])
