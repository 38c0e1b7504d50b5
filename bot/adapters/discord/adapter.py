"""Discord: slash commands and buttons in, the table reconciled out.

A command or a press becomes (channel, user, intent) and one service call
(off the event loop, the interaction deferred if it runs longer than
:data:`QUICK`, or at once in a burst: see :mod:`.burst`); its outcome becomes a
private word for the asker (why it was refused, or what a command did) and a
table view that the reconciler brings into the channel: a press whose table is
edited in place is answered by that edit, everything else goes through the
channel's REST.  No rule and no game state lives here.  A command or press that
fails (the store unreachable) is still answered, privately, within Discord's three
seconds; a connection that ends for good is reported by :meth:`DiscordAdapter.failed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import discord
from discord import app_commands

from ...hosting import Intent, Refusal, User
from ...present import TableView, Text, find_language, parse_press, refusal_text, say, table_view
from ...service.game import GameService
from ...service.outcome import Outcome
from ...service.tournaments import tournaments_of
from ..drawing import Drawing
from ..faults import AdapterError, FaultLog, Handling, handling, settle, store_down
from ..reconcile import Notes
from . import places
from .after import AfterGame
from .burst import Burst
from .client import DiscordSettings, LudoClient, point_to
from .connection import UNANSWERED, account
from .corner_commands import CornerCommands, elsewhere
from .gateway import Gateway
from .retries import Tables
from .screen import ChannelScreen, InteractionScreen, clean
from .tours import DiscordTours
from .translator import asker_language as language
from .where import PLATFORM, PREFIX, channel_key, chat_key, place_of, user_of
from .words import board_in_words, pieces_to_move, rules_in_words, toast_of

log = logging.getLogger(__name__)

#: answer directly if the work is this quick, else defer first (Discord allows 3 s)
QUICK = 2.0


class DiscordAdapter:
    """The game service on Discord."""

    def __init__(
        self,
        service: GameService,
        settings: DiscordSettings,
        *,
        image_size: int = 600,
        drawing: Drawing | None = None,
    ) -> None:
        self.service = service
        self.settings = settings
        self.image_size = image_size
        point_to(settings)
        self.client = LudoClient(self, settings)
        #: the connection's life; the error that ended it for good (see :meth:`failed`)
        self.gateway = Gateway(self.client)
        self.fatal = self.gateway.fatal
        self.faults = FaultLog(log, UNANSWERED)
        #: the tables brought into their channels (again once Discord answers: .retries)
        self.tables = Tables(self.client, service, self.client.storm, self.faults, self._shown)
        self.reconciler = self.tables.reconciler
        #: replays drawn in a pool of their own (shared by a process's adapters)
        self.drawing = drawing if drawing is not None else Drawing()
        #: rematch, stats, the leaderboard, forgetting, the replay and the record
        self.after = AfterGame(service, self.client, self._handling, self._command, self.drawing)
        #: the commands and presses being answered (many at once: acknowledged at once)
        self.burst = Burst()
        self.tours = DiscordTours(tournaments_of(service), self.client, self._handling, self.show)
        #: tables reached through interactions only: told to wait before their token runs out
        self.expiry = places.Expiry(self.client, service)
        #: the cards of the games in their people's DMs, and what people ask of them
        self.corner = CornerCommands(service, self.client, self._handling, self.show, image_size)
        self.corners = self.corner.corners

    # -- running ----------------------------------------------------------

    async def start(self, ready_timeout: float = 60.0) -> None:
        """Log in (checking the token), sync the commands, connect to the gateway."""
        await self.gateway.start(self.settings.token, ready_timeout, self.quiet)

    def account(self) -> str:
        """The bot's account, for the start line: ``Discord name#1234 (id ...)``."""
        return account(self.client.user)

    async def failed(self) -> AdapterError:
        """Wait until the connection to Discord ended for good; why, in one line."""
        return await self.gateway.failed()

    async def stop(self) -> None:
        """Let the interactions being handled finish (a little while; hardly at all while
        Discord does not answer), then disconnect."""
        await self.gateway.stop(self.quiet)
        await self.tables.close()
        await self.expiry.close()
        await self.corners.close()

    async def quiet(self) -> None:
        """Wait until no interaction (or timer's move) is being handled, nor a replay drawn."""
        await self.gateway.idle()
        await self.burst.quiet()
        await self.after.quiet()
        await self.corner.quiet()

    def owns(self, channel: str | None) -> bool:
        return bool(channel) and str(channel).startswith(PREFIX)

    async def show(self, outcome: Outcome, view: TableView | None = None) -> None:
        """The outcome's game shown in its channel (a timer fired, a card was pressed;
        ``view``: its view, if drawn), and its cards; or its damage told."""
        channel = outcome.channel
        if channel is None or not self.owns(channel):
            return
        async with self.gateway.busy():
            kept = places.kept_screen(self.client, outcome.shown, self.expiry.clock)
            if kept is False:  # only a press can edit the table now (it shows it then)
                if outcome.game is not None:
                    await self.corners.around(view or self._view(outcome), None)
                return
            screen = ChannelScreen(self.client, int(channel[len(PREFIX) :]))
            if outcome.game is None:
                await screen.say(say(Text("game.damaged"), clean))
                return
            reach = screen if kept is True else kept
            await self._reconcile(view or self._view(outcome), outcome, reach)  # type: ignore[arg-type]

    # -- commands ---------------------------------------------------------

    async def open(
        self,
        interaction: discord.Interaction[Any],
        rules: str,
        options: dict[str, Any],
        timer: int | None,
        lang: str | None = None,
        theme: str = "classic",
        level: str = "normal",
    ) -> None:
        """``/ludo new``: open a lobby here (posted in the channel; the asker told privately),
        its table speaking ``lang`` (the asker's language if None), its pictures drawn in
        ``theme``, its computers playing at ``level``."""
        table = language(interaction) if lang is None else find_language(lang)
        if table is None:
            async with self._handling(interaction) as press:
                press.result = "refused"
                refusal = refusal_text(Refusal("refuse.bad_language"))
                told = say(refusal, clean, language(interaction))
                await InteractionScreen(self.client, interaction, None).private(told)
            return
        await self._command(
            interaction,
            lambda channel, user: self.service.open(
                channel,
                user,
                rules,
                options,
                timer=timer,
                lang=table,
                chat=chat_key(interaction),
                theme=theme,
                level=level,
                place=place_of(interaction),
            ),
        )

    async def act(self, interaction: discord.Interaction[Any], intent: Intent) -> None:
        """``/ludo join``, ``roll``, ``move``, ``end``...: ``intent`` on the game here."""
        await self._command(
            interaction, lambda channel, user: self.service.act(channel, user, intent)
        )

    async def board(self, interaction: discord.Interaction[Any], text: bool = False) -> None:
        """``/ludo board``: the table moved to the bottom (posted anew, the old one deleted);
        ``text``: the board in words instead, for the asker alone."""
        if not text:
            await self._command(
                interaction, lambda channel, user: self.service.look(channel), fresh=True
            )
            return
        async with self._handling(interaction):
            await board_in_words(self.service, self.client, interaction)

    async def rules(self, interaction: discord.Interaction[Any], name: str | None) -> None:
        """``/ludo rules``: the rules of the game here, or of the rule set named (privately)."""
        async with self._handling(interaction):
            await rules_in_words(self.service, self.client, interaction, name)

    async def pieces(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:  # autocomplete of /ludo move (.words)
        return await pieces_to_move(self.service, self.faults, interaction, current)

    async def _command(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[str, User], Outcome],
        *,
        fresh: bool = False,
    ) -> None:
        async with self._handling(interaction):
            channel, user = channel_key(interaction.channel_id), user_of(interaction.user)
            screen = places.screen_for(self.client, interaction, None)
            if places.interaction_only(interaction) and places.forced_private(interaction):
                await screen.private(say(Text("dc.private_only"), lang=language(interaction)))
                return
            async with self.burst.answering(screen):
                work = await self._quick(screen, lambda: call(channel, user))
                await self._answer(screen, work, fresh=fresh)

    # -- buttons ----------------------------------------------------------

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None:
        """A button press: the table edited in place, or posted anew when the turn passes."""
        async with self._handling(interaction) as press:
            message = interaction.message
            pressed = str(message.id) if message is not None else None
            screen = places.screen_for(self.client, interaction, pressed)
            parsed = parse_press(data)
            if parsed is None or message is None:
                press.result = "refused"
                await screen.private(say(Text("refuse.bad_button"), lang=language(interaction)))
                return
            channel = channel_key(interaction.channel_id)
            async with self.burst.answering(screen):
                work = await self._quick(screen, lambda: self.corner.press(interaction, parsed))
                if elsewhere(work[0], channel):  # a card's, in the bot's DM: its table elsewhere
                    await self.corner.card_pressed(screen, work)
                    return
                pressed = screen.pressed
                game = work[0].game
                if game is not None and game.id != parsed.game_id:
                    # a rematch: its table goes below, the pressed one (the last game's)
                    # keeps no button; the pressed message is not this game's to edit
                    if work[0].refusal is None and pressed is not None:
                        await screen.retire(pressed)
                    pressed = None
                await self._answer(screen, work, pressed=pressed)

    async def on_wake(self, interaction: discord.Interaction[Any], game_id: str) -> None:
        """Continue, on a table whose token ran out: shown again as its game stands."""
        async with self._handling(interaction):
            pressed = str(interaction.message.id) if interaction.message else None
            screen = places.screen_for(self.client, interaction, pressed)
            look = functools.partial(self.service.look, channel_key(interaction.channel_id))
            async with self.burst.answering(screen):
                work = await self._quick(screen, look)
                await self._answer(screen, work, pressed=screen.pressed)

    # -- the work ---------------------------------------------------------

    async def _quick(
        self, screen: InteractionScreen, call: Callable[[], Outcome]
    ) -> tuple[Outcome, TableView | None]:
        """The service call and the view it leads to (its picture drawn), off the event
        loop; the interaction is deferred if that is slower than :data:`QUICK`."""
        task = asyncio.ensure_future(asyncio.to_thread(self._work, call))
        try:
            work = await asyncio.wait_for(asyncio.shield(task), QUICK)
        except TimeoutError:
            await screen.defer()
            work = await task
        settle(work[0])
        return work

    def _work(self, call: Callable[[], Outcome]) -> tuple[Outcome, TableView | None]:
        outcome = call()
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
        work: tuple[Outcome, TableView | None],
        *,
        fresh: bool = False,
        pressed: str | None = None,
    ) -> None:
        """Refused: tell the asker; then bring the channel to the game as it stands
        (``pressed``: the message of the button pressed, if it shows this game)."""
        lang = language(screen.interaction)
        outcome, view = work
        if outcome.refusal is not None:
            await screen.private(say(refusal_text(outcome.refusal), clean, lang))
        if outcome.freed is not None and self.owns(outcome.freed):
            # the game was damaged and is gone: everyone here is told, the channel is free
            await screen.say(say(Text("game.damaged"), clean, lang))
            if screen.pressed is not None:
                await screen.retire(screen.pressed)
        if outcome.game is None:
            await screen.conclude()
            return
        if view is None:
            view = await asyncio.to_thread(self._view, outcome)
        reach, tell = places.reach_of(self.client, screen, outcome.shown, self.expiry.clock)
        if tell and not screen.told:
            # a command: the asker is told what it did at once; the table follows
            told = say(Text("you.moved_board"), lang=lang) if fresh else toast_of(view, lang)
            await screen.private(told)
        if reach is not None:
            await self._reconcile(view, outcome, reach, fresh=fresh, pressed=pressed)
        if reach is screen and isinstance(screen, places.TokenScreen):  # its token: watched
            self.expiry.watch(view.game_id, Notes(via=screen.powers.via, until=screen.powers.until))
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
        show = functools.partial(self.tables.show, outcome=outcome, screen=screen, fresh=fresh)
        await self.corner.around(view, outcome, functools.partial(show, pressed=pressed))

    async def _shown(
        self, view: TableView, outcome: Outcome, put_up: bool, screen: ChannelScreen
    ) -> None:
        if put_up and view.picture == "standings" and screen.powers.send:
            self.after.replay_soon(view.game)  # played to the end: the whole game again
        await self.tours.news(outcome.game)  # a tournament's next table, its word

    @contextlib.asynccontextmanager
    async def _handling(self, interaction: discord.Interaction[Any]) -> AsyncIterator[Handling]:
        """One command or press: counted and timed; if it fails (the store unreachable,
        a bug), the asker is told privately that the games cannot be reached now."""
        async with self.gateway.busy():
            with handling(PLATFORM) as press:
                try:
                    await self.corner.seen(interaction)  # a DM, an install: for the cards
                    yield press
                except Exception as e:
                    press.failed(e)
                    where = channel_key(interaction.channel_id)
                    self.faults.note(e, f"could not answer a command or press in {where}")
                    screen = InteractionScreen(self.client, interaction, None)
                    await screen.private(say(store_down(), clean, language(interaction)))
