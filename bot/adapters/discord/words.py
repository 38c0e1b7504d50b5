"""``/ludo board text``: the board of the game here in words, for the asker alone;
and the pieces ``/ludo move`` offers, in the asker's words.

The same words every board picture carries as its description (alt text, see
:mod:`bot.present.alt`), in the asker's language: whose turn it is, the die, and
where each colour's pieces are.  A lobby has no board yet: its caption instead.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands

from ...present import TableView, Text, refusal_text, rules_lines, say, table_view
from ...present.alt import alt_lines
from ...present.view import move_label
from ...service.game import GameService
from ..faults import FaultLog, settle
from .screen import CONTENT_LIMIT, InteractionScreen, clean, describe
from .translator import asker_language
from .where import channel_key, user_of


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


async def rules_in_words(
    service: GameService,
    client: discord.Client,
    interaction: discord.Interaction[Any],
    name: str | None,
) -> None:
    """Answer ``interaction`` privately with the rules of its channel's game, or of the
    rule set ``name``."""
    game = await asyncio.to_thread(service.game_in, channel_key(interaction.channel_id))
    text = describe(rules_lines(name, game), CONTENT_LIMIT, asker_language(interaction))
    await InteractionScreen(client, interaction, None).private(text)


async def pieces_to_move(
    service: GameService, faults: FaultLog, interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[int]]:
    """Autocomplete of ``/ludo move``: the pieces the asker can move now (none if the
    game cannot be read now)."""
    channel = channel_key(interaction.channel_id)
    try:
        moves = await asyncio.to_thread(service.movable, channel, user_of(interaction.user))
    except Exception as e:
        faults.note(e, f"could not list the pieces to move in {channel}")
        return []
    lang = asker_language(interaction)
    choices = [
        app_commands.Choice(name=say(move_label(m), lang=lang)[:100], value=m.piece + 1)
        for m in moves
    ]
    return [c for c in choices if not current or str(c.value).startswith(current)][:25]


def toast_of(view: TableView, lang: str) -> str:
    """What a command did, for the asker alone in their ``lang``: the view's toast
    ("You rolled 5."), else its caption."""
    if view.toast:
        return " ".join(say(t, clean, lang) for t in view.toast)[:CONTENT_LIMIT]
    return describe(view.lines, CONTENT_LIMIT, lang)
