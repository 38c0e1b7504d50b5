"""``/ludo board text``: the board of the game here in words, for the asker alone.

The same words every board picture carries as its description (alt text, see
:mod:`bot.present.alt`), in the asker's language: whose turn it is, the die, and
where each colour's pieces are.  A lobby has no board yet: its caption instead.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord

from ...present import Text, refusal_text, say, table_view
from ...present.alt import alt_lines
from ...service import GameService
from ..faults import settle
from .screen import CONTENT_LIMIT, InteractionScreen, clean, describe
from .translator import asker_language
from .where import channel_key


async def board_in_words(
    service: GameService, client: discord.Client, interaction: discord.Interaction[Any]
) -> None:
    """Answer ``interaction`` privately with the board of its channel's game in words
    (or why there is none)."""
    screen = InteractionScreen(client, interaction, None)
    outcome = await asyncio.to_thread(service.look, channel_key(interaction.channel_id))
    settle(outcome)
    lang = asker_language(interaction)
    if outcome.game is None:
        said = refusal_text(outcome.refusal) if outcome.refusal else Text("game.damaged")
        await screen.private(say(said, clean, lang))
        return
    lines = alt_lines(outcome.game) or list(table_view(outcome.game).lines)
    await screen.private(describe(lines, CONTENT_LIMIT, lang))
