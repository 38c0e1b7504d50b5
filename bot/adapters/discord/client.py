"""The discord.py side: the client, the ``/ludo`` command group and the game buttons.

Buttons are :class:`discord.ui.DynamicItem` s whose ``custom_id`` is the
presenter's button data (``g:<game>:<version>:<action>``), so they keep
working after a restart.  Every command and press is handed to the adapter
as it comes; nothing here knows a rule of the game.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Protocol, cast

import discord
import yarl
from discord import app_commands

from engine import RULE_SETS

from ...hosting import Intent
from ...present import Text, say


class Handlers(Protocol):
    """What the client hands interactions to (the adapter); typed here so the
    client needs no import of the adapter."""

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None: ...

    async def open(
        self,
        interaction: discord.Interaction[Any],
        rules: str,
        options: dict[str, Any],
        timer: int | None,
    ) -> None: ...

    async def act(self, interaction: discord.Interaction[Any], intent: Intent) -> None: ...

    async def board(self, interaction: discord.Interaction[Any]) -> None: ...

    async def rules(self, interaction: discord.Interaction[Any], name: str | None) -> None: ...

    async def pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]: ...


log = logging.getLogger(__name__)

HELP = (
    "**Ludo**: `/ludo new` opens a game in this channel (choose the rules, italian teams, "
    "the turn timer). Press **Join**, add computer players if you like, and the host "
    "presses **Start**. On your turn press **Roll**, then the button of the piece to move "
    "(or `/ludo roll` and `/ludo move`). `/ludo board` shows the board, `/ludo rules` the "
    "rules, `/ludo end` ends the game (its creator or anyone with Manage Messages)."
)

RULE_CHOICES = [app_commands.Choice(name=name.capitalize(), value=name) for name in RULE_SETS]

#: every custom_id of ours starts so (Discord allows 100 characters)
BUTTON_TEMPLATE = re.compile(r"g:(?P<rest>.{0,98})", re.DOTALL)


@dataclass(frozen=True)
class DiscordSettings:
    token: str
    guild_id: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    api_base: str | None = None
    gateway_url: str | None = None


def point_to(settings: DiscordSettings) -> None:
    """Use another REST root and gateway (a REST proxy, or the tests' fake Discord)."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base.rstrip("/")
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


def adapter_of(interaction: discord.Interaction[Any]) -> Handlers:
    return cast(LudoClient, interaction.client).adapter


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    """A button of a game; its custom_id is the presenter's button data, nothing else."""

    def __init__(
        self,
        data: str,
        label: str = "…",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    ) -> None:
        super().__init__(discord.ui.Button(label=label[:80], style=style, custom_id=data))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> GameButton:
        return cls(str(getattr(item, "custom_id", "")))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).on_press(interaction, str(self.item.custom_id))


class LudoClient(discord.AutoShardedClient):
    """The Discord client: no privileged intents, the slash commands in a tree."""

    def __init__(self, adapter: Handlers, settings: DiscordSettings) -> None:
        # the bot has no voice: no warnings about voice libraries at every start
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        intents = discord.Intents.default()
        intents.message_content = False
        intents.members = False
        intents.presences = False
        sharding: dict[str, Any] = {}
        if settings.shard_count is not None:
            sharding["shard_count"] = settings.shard_count
        if settings.shard_ids:
            sharding["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            intents=intents, allowed_mentions=discord.AllowedMentions.none(), **sharding
        )
        self.adapter = adapter
        self.settings = settings
        self.tree: app_commands.CommandTree[LudoClient] = app_commands.CommandTree(self)
        self.tree.add_command(LudoCommands())

    async def setup_hook(self) -> None:
        # buttons of old messages keep working after a restart
        self.add_dynamic_items(GameButton)
        if self.settings.gateway_url and self.shard_count is None:
            # discord.py would connect where GET /gateway/bot points; a configured
            # gateway wins, so take the shard count from there and use DEFAULT_GATEWAY
            self.shard_count = (await self.http.get_bot_gateway())[0]
        if self.settings.guild_id:
            guild = discord.Object(id=self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # a component whose custom_id is none of ours (forged, or from long ago)
        if interaction.type == discord.InteractionType.component:
            data: Any = interaction.data or {}
            custom_id = str(data.get("custom_id", ""))
            if not BUTTON_TEMPLATE.fullmatch(custom_id):
                try:
                    await interaction.response.send_message(
                        say(Text("refuse.bad_button")),
                        ephemeral=True,
                        allowed_mentions=discord.AllowedMentions.none(),
                    )
                except discord.HTTPException as e:
                    log.info("a foreign button's press could not be answered: %s", e)


class LudoCommands(app_commands.Group):
    """/ludo: play Ludo in this channel."""

    def __init__(self) -> None:
        super().__init__(name="ludo", description="Play Ludo in this channel")

    @app_commands.command(name="new")
    @app_commands.describe(
        rules="The rule set (default: classic)",
        teams="Italian only: 2 against 2, partners opposite",
        pieces_to_win="Italian only: pieces home to win (2 or 3)",
        timer="Seconds per turn before the computer plays it (0: no timer)",
    )
    @app_commands.choices(rules=RULE_CHOICES)
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rules: app_commands.Choice[str] | None = None,
        teams: bool = False,
        pieces_to_win: app_commands.Range[int, 2, 3] | None = None,
        timer: app_commands.Range[int, 0, 86400] | None = None,
    ) -> None:
        """Open a game of Ludo in this channel."""
        options: dict[str, Any] = {}
        if teams:
            options["teams"] = True
        if pieces_to_win is not None:
            options["pieces_to_win"] = pieces_to_win
        name = rules.value if rules else "classic"
        await adapter_of(interaction).open(interaction, name, options, timer)

    @app_commands.command(name="join")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        """Join the game in this channel."""
        await adapter_of(interaction).act(interaction, Intent("join"))

    @app_commands.command(name="leave")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        """Leave the game (a computer player takes your seat)."""
        await adapter_of(interaction).act(interaction, Intent("leave"))

    @app_commands.command(name="start")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        """Start the game (the host; anyone once every seat is taken)."""
        await adapter_of(interaction).act(interaction, Intent("start"))

    @app_commands.command(name="roll")
    async def roll(self, interaction: discord.Interaction[Any]) -> None:
        """Roll the die."""
        await adapter_of(interaction).act(interaction, Intent("roll"))

    @app_commands.command(name="move")
    @app_commands.describe(piece="The number of the piece to move, as on the board")
    async def move(
        self, interaction: discord.Interaction[Any], piece: app_commands.Range[int, 1, 6]
    ) -> None:
        """Move one of your pieces."""
        await adapter_of(interaction).act(interaction, Intent("move", piece))

    @move.autocomplete("piece")
    async def move_pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await adapter_of(interaction).pieces(interaction, current)

    @app_commands.command(name="board")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        """Show the board and whose turn it is."""
        await adapter_of(interaction).board(interaction)

    @app_commands.command(name="rules")
    @app_commands.describe(rules="A rule set (default: the one of the game here)")
    @app_commands.choices(rules=RULE_CHOICES)
    async def rules(
        self, interaction: discord.Interaction[Any], rules: app_commands.Choice[str] | None = None
    ) -> None:
        """Show the rules."""
        await adapter_of(interaction).rules(interaction, rules.value if rules else None)

    @app_commands.command(name="end")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """End the game (its creator, or anyone with Manage Messages)."""
        perms = interaction.permissions
        can_manage = bool(perms and perms.manage_messages)
        await adapter_of(interaction).act(interaction, Intent("end", can_manage=can_manage))

    @app_commands.command(name="help")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """How to play."""
        await interaction.response.send_message(
            HELP, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
