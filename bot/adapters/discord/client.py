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
from typing import Any, cast

import discord
import yarl
from discord import app_commands

from ...hosting import Intent
from ...present import Text, find_language, say
from ..reach import Reach
from .activity import BOARD_TEMPLATE, BoardButton
from .connection import connected, rate_limit_trace
from .handlers import Handlers
from .limited import Entrance, Limiter
from .tour_command import TOUR_TEMPLATE, TourButton, tournament
from .translator import (
    LudoTranslator,
    asker_language,
    described,
    language_choices,
    level_choices,
    named,
    rule_choices,
    theme_choices,
    unique_name,
)
from .where import can_manage

log = logging.getLogger(__name__)

RULE_CHOICES = rule_choices()
LANGUAGE_CHOICES = language_choices()
THEME_CHOICES = theme_choices()
LEVEL_CHOICES = level_choices()
#: ``/ludo top``: of all time, of this month, or of this week
PERIOD_CHOICES = [
    app_commands.Choice(name=described("dc.choice.all_time"), value="all"),
    app_commands.Choice(name=described("dc.choice.this_month"), value="month"),
    app_commands.Choice(name=described("dc.choice.this_week"), value="week"),
    app_commands.Choice(name=described("dc.choice.seasons"), value="seasons"),
]

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


def adapter_of(interaction: discord.Interaction[Any]) -> Handlers:
    return cast(LudoClient, interaction.client).adapter


def entrance_of(interaction: discord.Interaction[Any]) -> Entrance:
    return cast(LudoClient, interaction.client).entrance


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

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await entrance_of(interaction).admit(interaction)  # the rate limits

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).on_press(interaction, str(self.item.custom_id))


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
        super().__init__(
            intents=intents,
            allowed_mentions=discord.AllowedMentions.none(),
            http_trace=rate_limit_trace(),
            **sharding,
        )
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
        self.add_dynamic_items(GameButton, BoardButton, TourButton)
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
            ours = (BUTTON_TEMPLATE, BOARD_TEMPLATE, TOUR_TEMPLATE)
            if not any(t.fullmatch(custom_id) for t in ours):
                try:
                    await interaction.response.send_message(
                        say(Text("refuse.bad_button"), lang=asker_language(interaction)),
                        ephemeral=True,
                        allowed_mentions=discord.AllowedMentions.none(),
                    )
                except discord.HTTPException as e:
                    log.info("a foreign button's press could not be answered: %s", e)


class LudoCommands(app_commands.Group):
    """/ludo: play Ludo in this channel (the names and descriptions in :mod:`.translator`)."""

    def __init__(self) -> None:
        super().__init__(name="ludo", description=described("dc.desc.ludo"))

    @app_commands.command(name=named("new"), description=described("dc.desc.new"))
    @app_commands.rename(
        rules=named("rules"),
        teams=named("teams"),
        pieces_to_win=named("pieces_to_win"),
        timer=named("timer"),
        language=named("language"),
        theme=named("theme"),
        level=named("level"),
    )
    @app_commands.describe(
        rules=described("dc.desc.new.rules"),
        teams=described("dc.desc.new.teams"),
        pieces_to_win=described("dc.desc.new.pieces_to_win"),
        timer=described("dc.desc.new.timer"),
        language=described("dc.desc.new.language"),
        theme=described("dc.desc.new.theme"),
        level=described("dc.desc.new.level"),
    )
    @app_commands.choices(
        rules=RULE_CHOICES, language=LANGUAGE_CHOICES, theme=THEME_CHOICES, level=LEVEL_CHOICES
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rules: app_commands.Choice[str] | None = None,
        teams: bool = False,
        pieces_to_win: app_commands.Range[int, 2, 3] | None = None,
        timer: app_commands.Range[int, 0, 86400] | None = None,
        language: app_commands.Choice[str] | None = None,
        theme: app_commands.Choice[str] | None = None,
        level: app_commands.Choice[str] | None = None,
    ) -> None:
        options: dict[str, Any] = {}
        if teams:
            options["teams"] = True
        if pieces_to_win is not None:
            options["pieces_to_win"] = pieces_to_win
        name = rules.value if rules else "classic"
        lang = language.value if language else None
        look = theme.value if theme else "classic"
        strength = level.value if level else "normal"
        await adapter_of(interaction).open(interaction, name, options, timer, lang, look, strength)

    @app_commands.command(name=named("join"), description=described("dc.desc.join"))
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).act(interaction, Intent("join"))

    @app_commands.command(name=named("leave"), description=described("dc.desc.leave"))
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).act(interaction, Intent("leave"))

    @app_commands.command(name=named("start"), description=described("dc.desc.start"))
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).act(interaction, Intent("start"))

    @app_commands.command(name=named("roll"), description=described("dc.desc.roll"))
    async def roll(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).act(interaction, Intent("roll"))

    @app_commands.command(name=named("move"), description=described("dc.desc.move"))
    @app_commands.rename(piece=named("piece"))
    @app_commands.describe(piece=described("dc.desc.move.piece"))
    async def move(
        self, interaction: discord.Interaction[Any], piece: app_commands.Range[int, 1, 6]
    ) -> None:
        await adapter_of(interaction).act(interaction, Intent("move", piece))

    @move.autocomplete("piece")
    async def move_pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await adapter_of(interaction).pieces(interaction, current)

    @app_commands.command(name=named("board"), description=described("dc.desc.board"))
    @app_commands.rename(text=named("text"))
    @app_commands.describe(text=described("dc.desc.board.text"))
    async def board(self, interaction: discord.Interaction[Any], text: bool = False) -> None:
        await adapter_of(interaction).board(interaction, text)

    @app_commands.command(name=named("rules"), description=described("dc.desc.rules"))
    @app_commands.rename(rules=named("rules"))
    @app_commands.describe(rules=described("dc.desc.rules.rules"))
    @app_commands.choices(rules=RULE_CHOICES)
    async def rules(
        self, interaction: discord.Interaction[Any], rules: app_commands.Choice[str] | None = None
    ) -> None:
        await adapter_of(interaction).rules(interaction, rules.value if rules else None)

    @app_commands.command(name=named("language"), description=described("dc.desc.language"))
    @app_commands.rename(language=named("language"))
    @app_commands.describe(language=described("dc.desc.language.language"))
    @app_commands.choices(language=LANGUAGE_CHOICES)
    async def language(
        self, interaction: discord.Interaction[Any], language: app_commands.Choice[str]
    ) -> None:
        # a language the bot does not speak (any more) is refused by the game: ""
        intent = Intent(
            "language", lang=find_language(language.value) or "", can_manage=can_manage(interaction)
        )
        await adapter_of(interaction).act(interaction, intent)

    @app_commands.command(name=named("end"), description=described("dc.desc.end"))
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        intent = Intent("end", can_manage=can_manage(interaction))
        await adapter_of(interaction).act(interaction, intent)

    @app_commands.command(name=named("rematch"), description=described("dc.desc.rematch"))
    async def rematch(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).after.rematch(interaction)

    @app_commands.command(name=named("stats"), description=described("dc.desc.stats"))
    @app_commands.rename(member=named("member"))
    @app_commands.describe(member=described("dc.desc.stats.member"))
    async def stats(
        self, interaction: discord.Interaction[Any], member: discord.User | None = None
    ) -> None:
        await adapter_of(interaction).after.stats(interaction, member)

    @app_commands.command(name=named("top"), description=described("dc.desc.top"))
    @app_commands.rename(period=named("period"))
    @app_commands.describe(period=described("dc.desc.top.period"))
    @app_commands.choices(period=PERIOD_CHOICES)
    async def top(
        self, interaction: discord.Interaction[Any], period: app_commands.Choice[str] | None = None
    ) -> None:
        await adapter_of(interaction).after.top(interaction, period.value if period else "all")

    @app_commands.command(name=named("forget"), description=described("dc.desc.forget"))
    async def forget(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).after.forget(interaction)

    @app_commands.command(name=named("replay"), description=described("dc.desc.replay"))
    async def replay(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).after.replay(interaction)

    @app_commands.command(name=named("record"), description=described("dc.desc.record"))
    async def record(self, interaction: discord.Interaction[Any]) -> None:
        await adapter_of(interaction).after.record(interaction)

    @app_commands.command(name=named("help"), description=described("dc.desc.help"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        lang = asker_language(interaction)
        # the commands as the asker's Discord shows them
        names = [c.name for c in self.commands]
        shown = {name: unique_name(name, names, lang) for name in names}
        await interaction.response.send_message(
            say(Text("dc.help", shown), lang=lang)
            + "\n"
            + say(Text("dc.help.tournament", shown), lang=lang),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
