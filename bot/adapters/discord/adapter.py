"""Discord: slash commands and buttons in, the table reconciled out.

A command or a press becomes (channel, user, intent) and one service call
(off the event loop, the interaction deferred if it runs longer than
:data:`QUICK`); its outcome becomes a private word for the asker (why it was
refused, or what a command did) and a table view that the reconciler brings
into the channel: a press whose table is edited in place is answered by that
edit, everything else goes through the channel's REST.  No rule and no game
state lives here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import discord
from discord import app_commands

from ...hosting import Intent, Refusal, User
from ...present import (
    TableView,
    Text,
    find_language,
    parse_press,
    refusal_text,
    rules_lines,
    say,
    table_view,
)
from ...present.view import move_label
from ...service import GameService, Outcome
from ..reconcile import Reconciler
from .client import DiscordSettings, LudoClient, point_to
from .screen import CONTENT_LIMIT, ChannelScreen, InteractionScreen, clean, describe
from .translator import asker_language as language

log = logging.getLogger(__name__)

PLATFORM = "discord"
PREFIX = "dc:"
#: answer directly if the work is this quick, else defer first (Discord allows 3 s)
QUICK = 2.0
#: how long ``stop`` lets the interactions being handled finish
DRAIN = 10.0


class AdapterError(Exception):
    """Discord cannot be used (bad token, unreachable): one line for the operator."""


def user_of(member: discord.abc.User) -> User:
    return User(PLATFORM, str(member.id), member.display_name or member.name or str(member.id))


def channel_key(channel_id: int | None) -> str:
    return f"{PREFIX}{channel_id}"


def toast_of(view: TableView, lang: str) -> str:
    """What a command did, for the asker alone in their ``lang``: the view's toast
    ("You rolled 5."), else its caption."""
    if view.toast:
        return " ".join(say(t, clean, lang) for t in view.toast)[:CONTENT_LIMIT]
    return describe(view.lines, CONTENT_LIMIT, lang)


class DiscordAdapter:
    """The game service on Discord."""

    def __init__(
        self, service: GameService, settings: DiscordSettings, *, image_size: int = 600
    ) -> None:
        self.service = service
        self.settings = settings
        self.image_size = image_size
        point_to(settings)
        self.client = LudoClient(self, settings)
        self.reconciler = Reconciler(service)
        self._task: asyncio.Task[None] | None = None
        self._handling = 0
        self._idle = asyncio.Event()
        self._idle.set()

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
        """Let the interactions being handled finish (a little while), then disconnect."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.quiet(), DRAIN)
        await self.client.close()
        if self._task is not None:
            with contextlib.suppress(Exception):  # closing anyway
                await asyncio.wait_for(self._task, 10)

    async def quiet(self) -> None:
        """Wait until no interaction (or timer's move) is being handled."""
        await self._idle.wait()

    def owns(self, channel: str | None) -> bool:
        return bool(channel) and str(channel).startswith(PREFIX)

    async def show(self, outcome: Outcome) -> None:
        """Bring the channel of the outcome's game to its newest view (a turn timer ran out)."""
        game = outcome.game
        if game is None or not self.owns(game.channel):
            return
        async with self._busy():
            screen = ChannelScreen(self.client, int(game.channel[len(PREFIX) :]))
            await self._reconcile(self._view(outcome), outcome, screen)

    # -- commands ---------------------------------------------------------

    async def open(
        self,
        interaction: discord.Interaction[Any],
        rules: str,
        options: dict[str, Any],
        timer: int | None,
        lang: str | None = None,
    ) -> None:
        """``/ludo new``: open a lobby here (posted in the channel; the asker told privately),
        its table speaking ``lang`` (the asker's language if None)."""
        table = language(interaction) if lang is None else find_language(lang)
        if table is None:
            refusal = refusal_text(Refusal("refuse.bad_language"))
            await InteractionScreen(self.client, interaction, None).private(
                say(refusal, clean, language(interaction))
            )
            return
        await self._command(
            interaction,
            lambda channel, user: self.service.open(
                channel, user, rules, options, timer=timer, lang=table
            ),
        )

    async def act(self, interaction: discord.Interaction[Any], intent: Intent) -> None:
        """``/ludo join``, ``roll``, ``move``, ``end``...: ``intent`` on the game here."""
        await self._command(
            interaction, lambda channel, user: self.service.act(channel, user, intent)
        )

    async def board(self, interaction: discord.Interaction[Any]) -> None:
        """``/ludo board``: the table moved to the bottom (posted anew, the old one deleted)."""
        await self._command(
            interaction, lambda channel, user: self.service.look(channel), fresh=True
        )

    async def rules(self, interaction: discord.Interaction[Any], name: str | None) -> None:
        """``/ludo rules``: the rules of the game here, or of the rule set named (privately)."""
        async with self._busy():
            game = await asyncio.to_thread(
                self.service.game_in, channel_key(interaction.channel_id)
            )
            text = describe(rules_lines(name, game), CONTENT_LIMIT, language(interaction))
            await InteractionScreen(self.client, interaction, None).private(text)

    async def pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """Autocomplete of ``/ludo move``: the pieces the asker can move now."""
        channel = channel_key(interaction.channel_id)
        moves = await asyncio.to_thread(self.service.movable, channel, user_of(interaction.user))
        lang = language(interaction)
        choices = [
            app_commands.Choice(name=say(move_label(m), lang=lang)[:100], value=m.piece + 1)
            for m in moves
        ]
        return [c for c in choices if not current or str(c.value).startswith(current)][:25]

    async def _command(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[str, User], Outcome],
        *,
        fresh: bool = False,
    ) -> None:
        async with self._busy():
            channel, user = channel_key(interaction.channel_id), user_of(interaction.user)
            screen = InteractionScreen(self.client, interaction, None)
            work = await self._quick(screen, lambda: call(channel, user))
            await self._answer(screen, work, fresh=fresh)

    # -- buttons ----------------------------------------------------------

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None:
        """A button press: the table edited in place, or posted anew when the turn passes."""
        async with self._busy():
            message = interaction.message
            screen = InteractionScreen(
                self.client, interaction, str(message.id) if message is not None else None
            )
            press = parse_press(data)
            if press is None or message is None:
                await screen.private(say(Text("refuse.bad_button"), lang=language(interaction)))
                return
            channel, user = channel_key(interaction.channel_id), user_of(interaction.user)
            work = await self._quick(
                screen,
                lambda: self.service.press(
                    channel, user, press.game_id, press.version, press.intent
                ),
            )
            await self._answer(screen, work)

    # -- the work ---------------------------------------------------------

    async def _quick(
        self, screen: InteractionScreen, call: Callable[[], Outcome]
    ) -> tuple[Outcome, TableView | None] | None:
        """The service call and the view it leads to (its picture drawn), off the event
        loop; the interaction is deferred if that is slower than :data:`QUICK`.
        None if the service failed."""
        task = asyncio.ensure_future(asyncio.to_thread(self._work, call))
        try:
            return await asyncio.wait_for(asyncio.shield(task), QUICK)
        except TimeoutError:
            pass
        await screen.defer()
        return await task

    def _work(self, call: Callable[[], Outcome]) -> tuple[Outcome, TableView | None] | None:
        try:
            outcome = call()
        except Exception:
            log.exception("the game service failed")
            return None
        view = None
        if outcome.game is not None and outcome.refusal is None:
            view = self._view(outcome)
            _ = view.image  # drawn here, within the time to answer
        return outcome, view

    def _view(self, outcome: Outcome) -> TableView:
        assert outcome.game is not None
        return table_view(outcome.game, outcome.happened, size=self.image_size)

    async def _answer(
        self,
        screen: InteractionScreen,
        work: tuple[Outcome, TableView | None] | None,
        *,
        fresh: bool = False,
    ) -> None:
        """Refused: tell the asker; then bring the channel to the game as it stands."""
        lang = language(screen.interaction)
        if work is None:
            await screen.private(say(Text("refuse.busy"), lang=lang))
            return
        outcome, view = work
        if outcome.refusal is not None:
            await screen.private(say(refusal_text(outcome.refusal), clean, lang))
        if outcome.game is None:
            await screen.conclude()
            return
        if view is None:
            view = await asyncio.to_thread(self._view, outcome)
        if screen.pressed is None and not screen.told:
            # a command: the asker is told what it did at once; the table follows by REST
            told = say(Text("you.moved_board"), lang=lang) if fresh else toast_of(view, lang)
            await screen.private(told)
        await self._reconcile(view, outcome, screen, fresh=fresh, pressed=screen.pressed)
        await screen.conclude()

    async def _reconcile(
        self,
        view: TableView,
        outcome: Outcome,
        screen: ChannelScreen,
        *,
        fresh: bool = False,
        pressed: str | None = None,
    ) -> None:
        try:
            await self.reconciler.reconcile(
                view, outcome.shown, screen, fresh=fresh, pressed=pressed
            )
        except Exception:
            # the game is saved; the next press or look shows it
            log.exception("could not show game %s in %s", view.game_id, view.channel)

    @contextlib.asynccontextmanager
    async def _busy(self) -> AsyncIterator[None]:
        self._handling += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._handling -= 1
            if not self._handling:
                self._idle.set()
