"""Discord: the ``/ludo`` slash command group and buttons, translated to and from the service.

Buttons are :class:`discord.ui.DynamicItem` s whose ``custom_id`` is the
service's button data (``g:<game>:<version>:<action>``), so they keep working
after a restart; no game state lives here.  Every interaction is answered
within Discord's three seconds (deferred when the work runs long), refusals
are ephemeral, and a mention can only ever ping the player on turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
from dataclasses import dataclass
from typing import Any

import discord
import yarl
from discord import app_commands

from engine import RULE_SETS

from .messages import say
from .model import User
from .replies import Reply, Text
from .service import GameService

log = logging.getLogger(__name__)

PLATFORM = "discord"
PREFIX = "dc:"
#: answer directly if the service is this quick, else defer first (Discord allows 3 s)
QUICK = 2.0
EMBED_LIMIT = 4000
COLOURS = {"red": 0xD62D2D, "green": 0x229640, "yellow": 0xF0BA14, "blue": 0x2468D6}

HELP = (
    "**Ludo**: `/ludo new` opens a game in this channel (choose the rules, italian teams, "
    "the turn timer). Press **Join**, add computer players if you like, and the host "
    "presses **Start**. On your turn press **Roll**, then the button of the piece to move "
    "(or `/ludo roll` and `/ludo move`). `/ludo board` shows the board, `/ludo rules` the "
    "rules, `/ludo end` ends the game (its creator or anyone with Manage Messages)."
)


RULE_CHOICES = [app_commands.Choice(name=name.capitalize(), value=name) for name in RULE_SETS]


class AdapterError(Exception):
    """Discord cannot be used (bad token, unreachable): one line for the operator."""


@dataclass(frozen=True)
class DiscordSettings:
    token: str
    guild_id: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    api_base: str | None = None
    gateway_url: str | None = None


def user_of(member: discord.abc.User) -> User:
    return User(PLATFORM, str(member.id), member.display_name or member.name or str(member.id))


def channel_key(channel_id: int | None) -> str:
    return f"{PREFIX}{channel_id}"


def clean(text: str) -> str:
    """A name as safe text: no markdown, and nothing Discord would show as a mention.

    ``allowed_mentions`` already stops any ping; this also keeps ``<@999>``,
    ``<@&1>`` or ``@everyone`` in a name from being drawn as a mention pill.
    """
    text = discord.utils.escape_markdown(text)
    return text.replace("@", "@\u200b").replace("<#", "<\u200b#")


def describe(reply: Reply) -> str:
    text = "\n".join(say(t, clean) for t in reply.lines)
    if len(text) > EMBED_LIMIT:
        text = "…\n" + text[-EMBED_LIMIT:].split("\n", 1)[-1]
    return text


def point_to(services: Any) -> None:
    """Use another REST root and gateway (a REST proxy, or the tests' fake Discord)."""
    if services.api_base:
        discord.http.Route.BASE = services.api_base.rstrip("/")
    if services.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(services.gateway_url)


BUTTON_TEMPLATE = re.compile(r"g:(?P<rest>.{0,98})", re.DOTALL)


class GameButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE):
    """A button of a game; its custom_id is the service's button data, nothing else."""

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
        adapter: DiscordAdapter = interaction.client.adapter
        await adapter.on_press(interaction, str(self.item.custom_id))


_STYLES = {"primary": discord.ButtonStyle.primary, "danger": discord.ButtonStyle.danger}


def view_of(reply: Reply) -> discord.ui.View | None:
    if not reply.buttons:
        return None
    view = discord.ui.View(timeout=None)
    for r, row in enumerate(reply.buttons[:5]):
        for b in row[:5]:
            view.add_item(
                GameButton(
                    b.data, say(b.label), _STYLES.get(b.style, discord.ButtonStyle.secondary)
                )
            )
            view.children[-1].row = r
    return view


class LudoClient(discord.AutoShardedClient):
    """The Discord client: no privileged intents, the slash commands in a tree."""

    def __init__(self, adapter: DiscordAdapter, settings: DiscordSettings) -> None:
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
        self.tree = app_commands.CommandTree(self)
        self.tree.add_command(LudoCommands(adapter))

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
                await interaction.response.send_message(
                    say(Text("refuse.bad_button")), ephemeral=True
                )


class LudoCommands(app_commands.Group):
    """/ludo: play Ludo in this channel."""

    def __init__(self, adapter: DiscordAdapter) -> None:
        super().__init__(name="ludo", description="Play Ludo in this channel")
        self.adapter = adapter

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
        await self.adapter.run(
            interaction, self.adapter.service.new_game, name, options, timer=timer
        )

    @app_commands.command(name="join")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        """Join the game in this channel."""
        await self.adapter.run(interaction, self.adapter.service.join)

    @app_commands.command(name="leave")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        """Leave the game (a computer player takes your seat)."""
        await self.adapter.run(interaction, self.adapter.service.leave)

    @app_commands.command(name="start")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        """Start the game (the host; anyone once every seat is taken)."""
        await self.adapter.run(interaction, self.adapter.service.start)

    @app_commands.command(name="roll")
    async def roll(self, interaction: discord.Interaction[Any]) -> None:
        """Roll the die."""
        await self.adapter.run(interaction, self.adapter.service.roll)

    @app_commands.command(name="move")
    @app_commands.describe(piece="The number of the piece to move, as on the board")
    async def move(
        self, interaction: discord.Interaction[Any], piece: app_commands.Range[int, 1, 6]
    ) -> None:
        """Move one of your pieces."""
        await self.adapter.run(interaction, self.adapter.service.move, piece)

    @move.autocomplete("piece")
    async def move_pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        channel = channel_key(interaction.channel_id)
        pieces = await asyncio.to_thread(
            self.adapter.service.movable, channel, user_of(interaction.user)
        )
        return [
            app_commands.Choice(name=f"{n} → {to}", value=n)
            for n, to in pieces
            if not current or str(n).startswith(current)
        ][:25]

    @app_commands.command(name="board")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        """Show the board and whose turn it is."""
        await self.adapter.run(interaction, self.adapter.service.board)

    @app_commands.command(name="rules")
    @app_commands.describe(rules="A rule set (default: the one of the game here)")
    @app_commands.choices(rules=RULE_CHOICES)
    async def rules(
        self, interaction: discord.Interaction[Any], rules: app_commands.Choice[str] | None = None
    ) -> None:
        """Show the rules."""
        channel = channel_key(interaction.channel_id)
        reply = await asyncio.to_thread(
            self.adapter.service.rules, channel, rules.value if rules else None
        )
        await interaction.response.send_message(describe(reply), ephemeral=True)

    @app_commands.command(name="end")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        """End the game (its creator, or anyone with Manage Messages)."""
        perms = interaction.permissions
        await self.adapter.run(
            interaction, self.adapter.service.end, can_manage=bool(perms and perms.manage_messages)
        )

    @app_commands.command(name="help")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        """How to play."""
        await interaction.response.send_message(HELP, ephemeral=True)


class DiscordAdapter:
    """The game service on Discord."""

    def __init__(self, service: GameService, settings: DiscordSettings) -> None:
        self.service = service
        self.settings = settings
        point_to(settings)
        self.client = LudoClient(self, settings)
        self._task: asyncio.Task[None] | None = None

    # -- running ----------------------------------------------------------

    async def start(self, ready_timeout: float = 60.0) -> None:
        """Log in (checking the token), sync the commands, connect to the gateway."""
        try:
            await self.client.login(self.settings.token)
        except discord.LoginFailure:
            await self.client.close()
            raise AdapterError("Discord refused DISCORD_TOKEN (improper token)") from None
        except (discord.HTTPException, OSError) as e:
            await self.client.close()
            raise AdapterError(f"cannot reach Discord: {e}") from None
        self._task = asyncio.create_task(self.client.connect())
        ready = asyncio.create_task(self.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._task, ready}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            failed = self._task.exception() if self._task in done else None
            await self.stop()
            raise AdapterError(f"Discord gateway: {failed or 'not ready in time'}") from None

    async def stop(self) -> None:
        await self.client.close()
        if self._task is not None:
            with contextlib.suppress(Exception):  # closing anyway
                await asyncio.wait_for(self._task, 10)

    def owns(self, channel: str | None) -> bool:
        return bool(channel) and str(channel).startswith(PREFIX)

    async def deliver(self, reply: Reply) -> None:
        """Post a reply no interaction asked for (a turn timer ran out)."""
        if reply.channel is None or reply.private:
            return
        channel_id = int(reply.channel[len(PREFIX) :])
        channel = self.client.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self.client.fetch_channel(channel_id)
            except discord.HTTPException as e:
                log.warning("cannot find channel %s: %s", channel_id, e)
                return
        if not isinstance(channel, discord.abc.Messageable):
            return
        try:
            await channel.send(**self._message(reply))
        except discord.HTTPException as e:
            log.warning("cannot post in %s: %s", channel_id, e)

    # -- interactions -----------------------------------------------------

    async def run(
        self, interaction: discord.Interaction[Any], op: Any, *args: Any, **kwargs: Any
    ) -> None:
        """A slash command: call the service, answer publicly or, when refused, privately."""
        channel = channel_key(interaction.channel_id)
        user = user_of(interaction.user)
        reply = await self._quick(interaction, op, channel, user, *args, edit=False, **kwargs)
        if reply is None:
            return
        await self._respond(interaction, reply, edit=False)

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None:
        """A button: edit its message, or post a new board when the turn passes on."""
        channel = channel_key(interaction.channel_id)
        user = user_of(interaction.user)
        perms = interaction.permissions
        reply = await self._quick(
            interaction,
            self.service.press,
            channel,
            user,
            data,
            edit=True,
            can_manage=bool(perms and perms.manage_messages),
        )
        if reply is None:
            return
        await self._respond(interaction, reply, edit=True)

    async def _quick(
        self, interaction: discord.Interaction[Any], op: Any, *args: Any, edit: bool, **kwargs: Any
    ) -> Reply | None:
        """Run the service; defer the interaction if it is slower than :data:`QUICK`."""
        task = asyncio.ensure_future(asyncio.to_thread(op, *args, **kwargs))
        try:
            return await asyncio.wait_for(asyncio.shield(task), QUICK)
        except TimeoutError:
            pass
        if edit:
            await interaction.response.defer()
        else:
            await interaction.response.defer(thinking=True)
        reply: Reply = await task
        return reply

    async def _respond(
        self, interaction: discord.Interaction[Any], reply: Reply, edit: bool
    ) -> None:
        done = interaction.response.is_done()
        if reply.refused or reply.private:
            kwargs: dict[str, Any] = {"content": describe(reply), "ephemeral": True}
            if reply.image is not None:
                kwargs["file"] = discord.File(io.BytesIO(reply.image), filename="board.png")
                kwargs["embed"] = discord.Embed().set_image(url="attachment://board.png")
            if done:
                if interaction.type == discord.InteractionType.application_command:
                    # the public "thinking…" of a slow command would turn the first
                    # followup public: remove it so the refusal stays private
                    with contextlib.suppress(discord.HTTPException):
                        await interaction.delete_original_response()
                await interaction.followup.send(**kwargs)
            else:
                await interaction.response.send_message(**kwargs)
            return
        message = self._message(reply)
        same_turn = (
            edit
            and reply.image_kind == "board"
            and reply.mention
            and self._mentioned_in(interaction, reply)
        )
        if edit and (reply.image is None or same_turn):
            # the lobby filling up, or the same player going on: change the message in place
            edit_kwargs = {
                k: v
                for k, v in message.items()
                if k in ("content", "embed", "view", "allowed_mentions")
            }
            # no view means no buttons any more (a closed lobby): say so explicitly
            edit_kwargs["view"] = message.get("view")
            if reply.image is not None:
                edit_kwargs["attachments"] = [message["file"]]
            if done:
                await interaction.edit_original_response(**edit_kwargs)
            else:
                await interaction.response.edit_message(**edit_kwargs)
            return
        if edit:
            # the turn passes on: the old buttons go, a new message mentions the next player
            if done:
                await interaction.edit_original_response(view=None)
            else:
                await interaction.response.edit_message(view=None)
            await interaction.followup.send(**message)
            return
        if done:
            await interaction.followup.send(**message)
        else:
            await interaction.response.send_message(**message)

    def _mentioned_in(self, interaction: discord.Interaction[Any], reply: Reply) -> bool:
        """Is the player now on turn the one who pressed (so the message may be edited)?"""
        return bool(reply.mention) and reply.mention[0].id == str(interaction.user.id)

    def _message(self, reply: Reply) -> dict[str, Any]:
        """The reply as message fields: a mention, an embed with the board, the buttons."""
        msg: dict[str, Any] = {}
        colour = None
        for t in reversed(reply.lines):
            if t.key.startswith("turn.") and t.params.get("colour") in COLOURS:
                colour = COLOURS[t.params["colour"]]
                break
        embed = discord.Embed(description=describe(reply), colour=colour)
        if reply.image is not None:
            name = "standings.png" if reply.image_kind == "standings" else "board.png"
            msg["file"] = discord.File(io.BytesIO(reply.image), filename=name)
            embed.set_image(url=f"attachment://{name}")
        msg["embed"] = embed
        view = view_of(reply)
        if view is not None:
            msg["view"] = view
        if reply.mention:
            ids = [int(u.id) for u in reply.mention if u.id.isdigit()]
            msg["content"] = " ".join(f"<@{i}>" for i in ids) or None
            # a display name can never ping anyone: only the player on turn is allowed
            msg["allowed_mentions"] = discord.AllowedMentions(
                everyone=False,
                roles=False,
                replied_user=False,
                users=[discord.Object(id=i) for i in ids],
            )
        else:
            msg["allowed_mentions"] = discord.AllowedMentions.none()
        return msg
