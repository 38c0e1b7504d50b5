"""The entrance on Discord: every interaction (a slash command, a button press, an
autocompletion) passes the rate limits first (:mod:`bot.limits`), before the game
service sees it.

The client asks here from the two places every interaction of ours goes
through: the command tree's ``interaction_check`` (commands and autocompletion)
and the game buttons' ``interaction_check``.  The person is the Discord
account; the chat is the channel (a thread is a channel of its own on Discord,
with its own limits there too).  A person turned away gets a private
(ephemeral) answer in their language, or no choices to autocomplete; nothing
else happens.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from ...limits.rate import Limiter
from ...present import Text, say
from ..faults import handling
from .translator import asker_language
from .where import PLATFORM, channel_key

__all__ = ["Entrance", "Limiter"]

log = logging.getLogger(__name__)


class Entrance:
    """The rate limits of every interaction (None: no limit)."""

    def __init__(self, limiter: Limiter | None = None) -> None:
        self.limiter = limiter

    async def admit(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether ``interaction`` may go on; if not, it was answered."""
        if self.limiter is None:
            return True
        who, where = f"{PLATFORM}:{interaction.user.id}", channel_key(interaction.channel_id)
        verdict = await self.limiter.admit(who, where, tell=False)  # always answered, privately
        if verdict.allowed:
            return True
        with handling(PLATFORM) as press:
            press.result = "limited"
            words = Text(f"limit.{verdict.scope}", {"count": verdict.seconds})
            try:
                if interaction.type == discord.InteractionType.autocomplete:
                    await interaction.response.autocomplete([])
                else:
                    await interaction.response.send_message(
                        say(words, lang=asker_language(interaction)),
                        ephemeral=True,
                        allowed_mentions=discord.AllowedMentions.none(),
                    )
            except discord.HTTPException as e:
                log.info("an interaction turned away could not be answered: %s", e)
        return False
