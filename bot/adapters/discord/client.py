"""The discord.py side: the client, its command tree and the game buttons (the
``/ludo`` command group: :mod:`.commands`).

Buttons are :class:`discord.ui.DynamicItem` s whose ``custom_id`` is the
presenter's button data (``g:<game>:<version>:<action>``), so they keep
working after a restart.  Every command and press is handed to the adapter
as it comes; nothing here knows a rule of the game.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, cast

import discord
import yarl
from discord import app_commands

from ...present import Text, say
from ..reach import Reach
from ..storm import Storm
from .activity import BOARD_TEMPLATE, BoardButton
from .commands import LudoCommands
from .connection import connected
from .corner_button import CORNER_TEMPLATE, CornerButton
from .handlers import Handlers, PressButton, handlers_of
from .limited import Entrance, Limiter
from .nonces import Nonces
from .tour_command import TOUR_TEMPLATE, TourButton, tournament
from .translator import LudoTranslator, asker_language
from .wake import WAKE_TEMPLATE, WakeButton
from .weather import answers_trace

log = logging.getLogger(__name__)

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
    #: the rate limits every interaction passes first (None: none)
    limiter: Limiter | None = None
    #: the live board's Activity is set up: tables carry "Open the board" (.activity)
    activity: bool = False


def point_to(settings: DiscordSettings) -> None:
    """Use another REST root and gateway (a REST proxy, or the tests' fake Discord)."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base.rstrip("/")
    if settings.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


def entrance_of(interaction: discord.Interaction[Any]) -> Entrance:
    return cast(LudoClient, interaction.client).entrance


class GameButton(PressButton, template=BUTTON_TEMPLATE):
    """A button of a game; its custom_id is the presenter's button data, nothing else."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handlers_of(interaction).on_press(interaction, self.data)


class LudoTree(app_commands.CommandTree["LudoClient"]):
    """The slash commands; every command and autocompletion passes the rate limits."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await entrance_of(interaction).admit(interaction)


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
        #: Discord refusing calls (429, 5xx): how long to wait, and the log lines
        storm = Storm("Discord", log)
        super().__init__(
            intents=intents,
            allowed_mentions=discord.AllowedMentions.none(),
            http_trace=answers_trace(storm),
            **sharding,
        )
        self.storm = storm
        #: the nonces of tables posted in doubt (see :mod:`.nonces`)
        self.nonces = Nonces()
        self.adapter = adapter
        self.settings = settings
        #: whether Discord answers (an outage: a warning when it begins, one when it ends)
        self.reach = Reach("Discord", log)
        #: the rate limits every interaction passes first (see :mod:`.limited`)
        self.entrance = Entrance(settings.limiter)
        self.tree: app_commands.CommandTree[LudoClient] = LudoTree(self)
        ludo = LudoCommands()
        ludo.add_command(tournament)
        self.tree.add_command(ludo)

    async def setup_hook(self) -> None:
        # buttons of old messages keep working after a restart
        self.add_dynamic_items(GameButton, BoardButton, TourButton, WakeButton, CornerButton)
        # the commands in each person's language (said when they are synced)
        await self.tree.set_translator(LudoTranslator())
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

    # connected or not, for the operators' figures and logs
    async def on_ready(self) -> None:
        self._connected()

    async def on_resumed(self) -> None:
        self._connected()

    async def on_shard_ready(self, shard_id: int) -> None:
        self._connected()

    async def on_shard_resumed(self, shard_id: int) -> None:
        self._connected()

    def _connected(self) -> None:
        connected(True)
        self.reach.answered()

    async def on_disconnect(self) -> None:
        connected(False)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # a component whose custom_id is none of ours (forged, or from long ago)
        if interaction.type == discord.InteractionType.component:
            data: Any = interaction.data or {}
            custom_id = str(data.get("custom_id", ""))
            ours = (BUTTON_TEMPLATE, BOARD_TEMPLATE, TOUR_TEMPLATE, WAKE_TEMPLATE, CORNER_TEMPLATE)
            if not any(t.fullmatch(custom_id) for t in ours):
                try:
                    await interaction.response.send_message(
                        say(Text("refuse.bad_button"), lang=asker_language(interaction)),
                        ephemeral=True,
                        allowed_mentions=discord.AllowedMentions.none(),
                    )
                except discord.HTTPException as e:
                    log.info("a foreign button's press could not be answered: %s", e)
