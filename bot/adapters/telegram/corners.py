"""The corners of a Telegram bot's people: after a table is shown, the cards of its
game go to the private chats of the people at it, each through that chat's own outbox
and pace (see :mod:`bot.adapters.cards`, :mod:`.corner`).

Who gets cards: a person who started the bot (their consent, on Telegram) and did not
turn them off, mute the game, or block the bot; never where the table is their private
chat itself (the table is the card there).  Where the person on turn gets a card, the
table names them without a mention: they are told once.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Sequence

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from ...hosting import LOBBY, Game, User
from ...hosting.corner import Corner
from ...hosting.results import person_key
from ...present import TableView, Text, say
from ...present.buttons import corner_button
from ...service.game import GameService
from ..cards import Card, Cards
from .corner import CornerScreen
from .inline_screen import INLINE
from .outbox import Job, Outboxes, Pending, Turn
from .updates import PLATFORM
from .uploads import Uploads

log = logging.getLogger(__name__)

#: the people of a game whose corners are read (its seats)
People = Sequence[tuple[str, User, Corner]]


def where(view: TableView) -> Text:
    """Where the game's table is, for the first line of its cards."""
    if view.channel.startswith(INLINE):
        return Text("card.inline")
    place = str(getattr(view.game, "place", "") or "")
    return Text("card.in", {"place": place}) if place else Text("card.somewhere")


class TelegramCorners:
    """The cards of one Telegram adapter's games."""

    def __init__(self, bot: Bot, service: GameService, outboxes: Outboxes) -> None:
        self.bot = bot
        self.service = service
        self.outboxes = outboxes
        self.cards = Cards(service)
        #: the pictures' file ids, by game and revision (the tables' uploads)
        self.uploads = Uploads()
        #: the notes of new games on their way
        self._tasks: set[asyncio.Task[None]] = set()

    async def people(self, view: TableView) -> People:
        """The people at ``view``'s game on Telegram whose corner is open, with it."""
        game = view.game
        if game.status == LOBBY:
            return []
        seated = [
            (person_key(s.user), s.user)
            for s in game.seats
            if s.user is not None and s.user.platform == PLATFORM
        ]
        if not seated:
            return []
        corners = await asyncio.to_thread(
            lambda: [self.service.corners.corner(person) for person, _ in seated]
        )
        return [(p, u, c) for (p, u), c in zip(seated, corners, strict=True) if c.started]

    def carded(self, view: TableView, people: People, table_chat: int | str) -> bool:
        """Whether the person ``view`` notifies gets a card of it (then the table need
        not mention them)."""
        ping = view.ping
        return ping is not None and any(
            user.same(ping) and corner.wants(view.game_id) and int(user.id) != table_chat
            for _, user, corner in people
        )

    def follow(self, view: TableView, people: People, table_chat: int | str) -> None:
        """The cards of ``view``'s game, each through its person's outbox (a stilled or
        finished card too, for a person who muted the game since)."""
        for person, user, corner in people:
            chat = int(user.id)
            if chat == table_chat or corner.blocked:
                continue  # the table is in their corner; or they cannot be written to
            self.outboxes.table(chat, Pending(view, None, card=person))

    def soon(self, view: TableView, table_chat: int | str) -> None:
        """The cards of ``view``'s game, as soon as its people's corners are read (the
        table goes its own way, at its chat's pace)."""
        if view.lobby:
            return

        async def follow() -> None:
            self.follow(view, await self.people(view), table_chat)

        task = asyncio.create_task(follow())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def show(self, pending: Pending, turn: Turn) -> None:
        """A card's turn in its person's chat: brought to the newest view."""
        assert pending.card is not None
        view, person = pending.view, pending.card
        corner = await asyncio.to_thread(self.service.corners.corner, person)
        if corner.blocked:
            return
        chat = int(person.partition(":")[2])
        card = Card(view, "", person, where(view), corner.lang or view.lang)
        draw = not view.channel.startswith(INLINE)  # an inline table's pictures: not here
        screen = CornerScreen(self.bot, chat, turn, self.uploads, draw)
        await self.cards.show(card, screen, wanted=corner.wants(view.game_id))

    def bring(self, card: Card, chat: int) -> None:
        """``card`` sent anew in private chat ``chat`` (asked for by its person), through
        that chat's outbox."""

        async def send(turn: Turn) -> None:
            draw = not card.view.channel.startswith(INLINE)
            screen = CornerScreen(self.bot, chat, turn, self.uploads, draw)
            await self.cards.show(card, screen, fresh=True)

        self.outboxes.send(chat, send)

    def still(self, card: Card, chat: int, msg: str) -> None:
        """Message ``msg`` of private chat ``chat`` edited into ``card`` (stilled: its game
        muted), through that chat's outbox."""

        async def send(turn: Turn) -> None:
            draw = not card.view.channel.startswith(INLINE)
            await CornerScreen(self.bot, chat, turn, self.uploads, draw).edit(msg, card)

        self.outboxes.send(chat, send)

    def announce(self, game: Game) -> None:
        """A game opened in a group: a private note with a Join button for each person
        who asked to hear of that group's games (``/ludo notify here``), but its host."""
        task = asyncio.create_task(self._announce(game))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _announce(self, game: Game) -> None:
        listeners = await asyncio.to_thread(self.service.corners.listeners, game, PLATFORM)
        for person, corner in listeners:
            if not corner.started:
                continue  # never started the bot: it may not write to them
            lang = corner.lang or game.lang
            text = say(opened_note(game), html.escape, lang)
            join = corner_button("join", game.id)
            label = say(Text("btn.join"), lang=lang)
            markup = InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=join)]])
            chat = int(person.partition(":")[2])

            self.outboxes.send(chat, self._note(chat, text, markup))

    def _note(self, chat: int, text: str, markup: InlineKeyboardMarkup) -> Job:
        """The job sending a new game's note to private chat ``chat``."""

        async def send(turn: Turn) -> None:
            await turn()
            try:
                await self.bot.send_message(
                    chat, text, parse_mode=ParseMode.HTML, reply_markup=markup
                )
            except Forbidden as e:
                await self.cards.unreachable(f"{PLATFORM}:{chat}", e)
            except BadRequest as e:
                log.info("a note of a new game could not be sent: %s", e)

        return send

    async def quiet(self) -> None:
        """Wait until the cards and the notes of new games are on their way."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def opened_note(game: Game) -> Text:
    """The note of a game opened in a group the person hears of."""
    place = Text("card.in", {"place": game.place}) if game.place else Text("card.somewhere")
    return Text("corner.opened", {"host": game.creator.name, "rules": game.rules, "place": place})
