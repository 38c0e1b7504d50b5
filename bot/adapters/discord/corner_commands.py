"""What a person asks of their corner on Discord (their DM with the bot), where unasked
DMs are unwelcome: the cards are off until the person turns them on (``/ludo notify
on``, or *Tell me my turns* under a table) or installed the app to their own account;
``/ludo notify off`` turns them off; ``/ludo notify here`` in a server's channel brings
a note with a *Join* button to their DMs when a game opens there (asked again: no
more); ``/ludo games`` lists their games, each with a button bringing its card; a
card's *Mute this game* mutes one game; and a press on a card is a press on its game
(answered at once, then its table, wherever it is, and the cards brought up to date as
after a timer's move).  Every answer is the asker's alone.  Any interaction in the
bot's DM tells where the person's DM is and opens the way to it again (Discord refused
it before)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import discord

from ...hosting import LOBBY, PLAYING, Game, Intent, Refusal
from ...hosting.corner import Corner
from ...present import Press, TableView, Text, refusal_text, say, table_view
from ...present.buttons import corner_button, parse_corner
from ...present.corner import GAMES_SHOWN, games_lines
from ...service.game import GameService
from ...service.outcome import Outcome
from ..faults import settle
from .after import Answer, Frame, answering
from .corner_button import CornerButton
from .corners import SEEN, DiscordCorners, where_of
from .screen import CONTENT_LIMIT, InteractionScreen, clean, describe
from .translator import asker_language as language
from .translator import name_in
from .where import PLATFORM, asked, channel_key, user_of
from .words import toast_of

#: what ``/ludo notify`` takes
NOTIFY_WORDS = ("on", "off", "here")
#: how long an interaction waits for what it told of its person to be written (seconds)
HEARD = 0.5
#: the adapter's way of showing a game's table (and its cards) after a press elsewhere
Show = Callable[[Outcome, TableView | None], Awaitable[None]]
#: a table shown as its view says (None: it cannot be shown now)
Table = Callable[[TableView], Awaitable[None]] | None


def bot_dm(interaction: discord.Interaction[Any]) -> bool:
    """Whether ``interaction`` comes from the person's DM with the bot."""
    return bool(interaction.context.dm_channel) and interaction.guild_id is None


def elsewhere(outcome: Outcome, channel: str) -> bool:
    """Whether ``outcome`` is of a game whose table is not in ``channel`` (a card's)."""
    return outcome.game is not None and outcome.game.channel != channel


def opened(outcome: Outcome) -> bool:
    """Whether ``outcome`` is a lobby just opened (``/ludo new``)."""
    facts = outcome.happened.facts if outcome.happened is not None else []
    lobby = any(getattr(f, "key", None) == "lobby.opened" for f in facts)
    return lobby and outcome.refusal is None and outcome.game is not None


class CornerCommands:
    """The corner's commands and buttons of one Discord adapter."""

    def __init__(
        self,
        service: GameService,
        client: discord.Client,
        frame: Frame,
        show: Show,
        size: int = 600,
    ) -> None:
        self.service = service
        #: the cards of the games in their people's DMs
        self.corners = DiscordCorners(client, service)
        self.frame = frame
        self.show = show
        #: the width of the pictures of the cards asked for
        self.size = size
        #: what interactions told of people, being written (:meth:`seen`)
        self._telling: set[asyncio.Task[None]] = set()

    def press(self, interaction: discord.Interaction[Any], press: Press) -> Outcome:
        """A game's button pressed (called off the event loop): a press on the table
        where it was pressed, or, in the bot's DM where the game's table is elsewhere, on
        the person's card of it (a card of a game no longer kept: it is over)."""
        channel, user = channel_key(interaction.channel_id), user_of(interaction.user)
        intent = asked(press, interaction)
        outcome = self.service.press(channel, user, press.game_id, press.version, intent)
        refused = outcome.refusal.key if outcome.refusal is not None else None
        if bot_dm(interaction) and refused == "refuse.bad_button":
            return self.service.press_card(user, press.game_id, press.version, intent)
        if bot_dm(interaction) and refused == "refuse.no_game":
            return Outcome(None, refusal=Refusal("refuse.game_over"))
        return outcome

    async def seen(self, interaction: discord.Interaction[Any]) -> None:
        """What ``interaction`` tells of its person's corner: their DM with the bot (its
        channel, and the way open again), or the app installed to their account (their
        consent); written once, when it changes something.  Waited for a moment only: a
        store that hangs delays no answer (the writing goes on meanwhile)."""
        dm, installed = bot_dm(interaction), interaction.is_user_integration()
        if not (dm or installed):
            return
        person = f"{PLATFORM}:{interaction.user.id}"
        word = (interaction.channel_id if dm else None, installed)
        if self.corners.seen.get(person) == word:
            return
        lang, channel = language(interaction), str(interaction.channel_id)

        def told(corner: Corner) -> Corner:
            new = corner.opened(lang) if installed else replace(corner, blocked=False, lang=lang)
            return replace(new, dm=channel) if dm else new

        task = asyncio.create_task(self._tell(person, word, told))
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), HEARD)

    async def _tell(self, person: str, word: object, told: Callable[[Corner], Corner]) -> None:
        corners = self.service.corners
        corner = await asyncio.to_thread(corners.corner, person)
        if told(corner) != corner and await asyncio.to_thread(corners.change, person, told) is None:
            return  # the store did not answer: told next time
        if len(self.corners.seen) >= SEEN:
            self.corners.seen.pop(next(iter(self.corners.seen)))
        self.corners.seen[person] = word

    async def around(self, view: TableView, outcome: Outcome, table: Table) -> None:
        """``table`` shown, and the cards of its game, as
        :meth:`~.corners.DiscordCorners.around` does; a lobby just opened is told to
        those who asked to hear of its channel's games (off the way of the answer)."""
        if opened(outcome):
            self.corners.announce(view.game)
        await self.corners.around(view, table)

    async def quiet(self) -> None:
        """Wait until what people told is written, and no card (nor note) waits to be
        shown."""
        while self._telling:
            await asyncio.gather(*list(self._telling), return_exceptions=True)
        await self.corners.quiet()

    async def notify(self, interaction: discord.Interaction[Any], word: str) -> None:
        """``/ludo notify on|off``: every game's cards, in the person's DMs; ``/ludo
        notify here``: a note when a game opens in this channel (again: no more)."""
        async with answering(self.frame, interaction) as answer:
            word = word.strip().lower()
            if word not in NOTIFY_WORDS:
                await answer.refuse(_named("dc.corner.bad_word", interaction))
            elif word == "here":
                await self._here(answer)
            else:
                await self._turn(answer, word == "on")

    async def _here(self, answer: Answer) -> None:
        """The person hears of the games opened in this channel, or no longer does."""
        interaction = answer.interaction
        if interaction.guild_id is None:
            await answer.refuse(_named("dc.corner.here_dm", interaction))
            return
        lang, corners = language(interaction), self.service.corners
        channel, person = channel_key(interaction.channel_id), f"{PLATFORM}:{interaction.user.id}"

        def toggle() -> tuple[bool, bool | None]:
            on = channel not in corners.corner(person).here
            if on and corners.change(person, lambda c: replace(c, lang=lang)) is None:
                return on, None  # the store is down: the notes would not be in their words
            return on, corners.watch(channel, person, on)

        on, done = await answer.work(toggle, public=False)
        if done is None:
            await answer.refuse(Text("corner.store_down"))
        elif not done:
            await answer.refuse(Text("dc.corner.here_full"))
        else:
            key = "dc.corner.here_on" if on else "dc.corner.here_off"
            await answer.send(say(_named(key, interaction), lang=lang))

    async def _turn(self, answer: Answer, on: bool) -> None:
        """The person's cards turned on or off, and they are told so."""
        interaction = answer.interaction
        lang = language(interaction)
        person = f"{PLATFORM}:{interaction.user.id}"

        def change(corner: Corner) -> Corner:
            return replace(corner.asked(on), lang=lang)

        done = await answer.work(lambda: self.service.corners.change(person, change), public=False)
        if done is None:
            await answer.refuse(Text("corner.store_down"))
            return
        key = "dc.corner.on" if on else "dc.corner.off"
        await answer.send(say(_named(key, interaction), lang=lang))

    async def games(self, interaction: discord.Interaction[Any]) -> None:
        """``/ludo games``: every open game the person sits in, where it is and whose
        turn it is, with a button bringing each one's card to their DMs."""
        async with answering(self.frame, interaction) as answer:
            person = f"{PLATFORM}:{interaction.user.id}"
            found = await answer.work(lambda: self.service.corners.games(person), public=False)
            if found is None:
                await answer.refuse(Text("corner.store_down"))
                return
            lang = language(interaction)
            text, buttons = games_list(found, person, self.service.clock(), lang)
            await answer.send(text, view=buttons)

    async def pressed(self, interaction: discord.Interaction[Any], data: str) -> None:
        """A corner's own button: *Tell me my turns*, a game's card asked for from
        ``/ludo games`` (sent anew), *Mute this game* (the card stilled at once), or a
        new game's note's *Join*."""
        async with answering(self.frame, interaction) as answer:
            press = parse_corner(data)
            if press is not None and press.what == "on":
                await self._turn(answer, True)
            elif press is not None and press.what == "card":
                await self._bring(answer, press.game_id)
            elif press is not None and press.what == "mute":
                await self._mute(answer, press.game_id)
            elif press is not None and press.what == "join":
                await self._join(answer, press.game_id)
            else:
                await answer.refuse(Text("refuse.bad_button"))

    async def _bring(self, answer: Answer, game_id: str) -> None:
        """The card of game ``game_id``, sent anew to the person's DMs."""
        user = user_of(answer.interaction.user)
        game = await answer.work(lambda: self.service.get(game_id), public=False)
        if game is None or not any(user.same(s.user) for s in game.seats):
            await answer.refuse(Text("refuse.not_seated"))
            return
        await answer.send(say(Text("dc.card.sent"), lang=language(answer.interaction)))
        view = table_view(game, size=self.size)
        self.corners.bring(view, f"{PLATFORM}:{user.id}")

    async def _join(self, answer: Answer, game_id: str) -> None:
        """Join pressed on the note of a game opened in a channel: the person sits down
        at that table (shown there as after any join), and the note's button goes."""
        interaction = answer.interaction
        game = await answer.work(lambda: self.service.get(game_id), public=False)
        if game is None or game.status != LOBBY:
            started = game is not None and game.status == PLAYING
            await answer.refuse(Text("refuse.already_started" if started else "refuse.game_over"))
            return
        user, size = user_of(interaction.user), self.size

        def join() -> tuple[Outcome, TableView | None]:
            outcome = self.service.press(game.channel, user, game.id, game.version, Intent("join"))
            if outcome.refusal is not None or outcome.game is None:
                return outcome, None
            view = table_view(outcome.game, outcome.happened, size=size)
            _ = view.image  # drawn here, off the event loop: for the table and its cards
            return outcome, view

        outcome, view = await answer.work(join, public=False)
        settle(outcome)
        if outcome.refusal is not None or view is None:
            await answer.refuse(outcome.refusal or Refusal("refuse.game_over"))
            return
        await answer.send(toast_of(view, language(interaction)))
        await self.show(outcome, view)
        if interaction.message is not None:  # seated: the note is done
            with contextlib.suppress(discord.HTTPException):
                await interaction.message.edit(view=None)

    async def _mute(self, answer: Answer, game_id: str) -> None:
        """No more cards of game ``game_id``; the card pressed is stilled."""
        interaction = answer.interaction
        person = f"{PLATFORM}:{interaction.user.id}"
        done = await answer.work(
            lambda: self.service.corners.change(person, lambda c: c.mute(game_id)), public=False
        )
        if done is None:
            await answer.refuse(Text("corner.store_down"))
            return
        await answer.send(say(Text("corner.muted"), lang=language(interaction)))
        if interaction.message is not None:  # gone already: the game's next view stills it
            with contextlib.suppress(discord.HTTPException):
                await interaction.message.edit(view=None)

    async def card_pressed(
        self, screen: InteractionScreen, work: tuple[Outcome, TableView | None]
    ) -> None:
        """A press on a card: answered at once (privately, if refused), then the game's
        table, wherever it is, and its cards brought up to date."""
        outcome, view = work
        if outcome.refusal is not None:
            told = say(refusal_text(outcome.refusal), clean, language(screen.interaction))
            await screen.private(told)
        await screen.conclude()
        if outcome.refusal is None:
            await self.show(outcome, view)


def _named(key: str, interaction: discord.Interaction[Any]) -> Text:
    """The words ``key``, naming ``/ludo notify`` as the asker's Discord shows it."""
    return Text(key, {"notify": name_in("notify", language(interaction))})


def games_list(
    games: list[Game], person: str, now: float, lang: str
) -> tuple[str, discord.ui.View | None]:
    """The person's open games in words, and a button for each one's card."""
    text = describe(games_lines(games, person, now, lang, where_of), CONTENT_LIMIT, lang)
    if not games:
        return text, None
    buttons = discord.ui.View(timeout=None)
    for n, game in enumerate(games[:GAMES_SHOWN], 1):
        label = say(Text("btn.card", {"n": n}), lang=lang)
        button = CornerButton(corner_button("card", game.id), label)
        button.item.row = (n - 1) // 5
        buttons.add_item(button)
    return text, buttons
