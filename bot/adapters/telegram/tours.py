"""Tournaments on Telegram: ``/ludo tournament``, the sign-up message's buttons (a
press edits that message in place), and what the tournament tells the chat as its
tables finish (posted through the chat's outbox, like every message)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ParseMode
from telegram.error import TelegramError

from ...hosting import Game, User
from ...hosting import tournament as tour
from ...hosting.tournament import Tournament
from ...present import refusal_text, say
from ...present.buttons import TourPress
from ...present.tour import TourView, room_name, signup_message, tour_view
from ...service.outcome import Outcome, TourOutcome
from ...service.tournaments import Tournaments
from .commands import parse_ludo_args
from .notices import Notices, toast
from .screen import PREFIX, TEXT_LIMIT, caption, quietly, target
from .tables import Tables
from .tour_args import ACTIONS, parse_tour_args
from .updates import is_admin, language

log = logging.getLogger(__name__)

Call = Callable[..., Awaitable[Any]]


def markup(view: TourView) -> InlineKeyboardMarkup | None:
    rows = [
        [InlineKeyboardButton(say(b.label, lang=view.lang), callback_data=b.data) for b in row]
        for row in view.buttons
    ]
    return InlineKeyboardMarkup(rows) if rows else None


class TelegramTours:
    """The tournaments of one Telegram adapter."""

    def __init__(
        self,
        tours: Tournaments,
        tables: Tables,
        notices: Notices,
        call: Call,
        show: Callable[[Outcome], Awaitable[None]],
    ) -> None:
        self.tours = tours
        self.tables = tables
        self.notices = notices
        self.call = call
        #: a table game's outcome shown (the adapter's ``show``)
        self.show = show

    async def command(self, update: Update, channel: str, user: User, words: list[str]) -> None:
        """``/ludo tournament [join|leave|start|end|show]``, or a new one's set-up."""
        what = words[0].lower() if words else "show"
        if what in ACTIONS:
            manage = await is_admin(update) if what in ("start", "end") else False
            out = await self.call(self.tours.act, channel, user, what, manage)
            if out.refusal is not None and out.refusal.key == "refuse.no_tour" and not words:
                what = ""  # a bare /ludo tournament with none here: a new one
            else:
                await self.answer(update, out)
                return
        asked = parse_tour_args(words)
        game = parse_ludo_args(asked.rest)
        error = asked.error or game.error
        if error is not None:
            await self.notices.tell(update, error)
            return
        out = await self.call(
            self.tours.open,
            channel,
            user,
            game.rules,
            game.options,
            fmt=asked.fmt,
            size=asked.size,
            rounds=asked.rounds,
            timer=asked.timer,
            lang=game.lang or language(update),
            level=game.level,
            rooms=bool(update.effective_chat and update.effective_chat.is_forum),
        )
        await self.answer(update, out)

    async def answer(self, update: Update, out: TourOutcome) -> None:
        if out.refusal is not None:
            await self.notices.tell(update, refusal_text(out.refusal))
            if out.tour is not None and out.refusal.key == "refuse.tour_running":
                self.post(TourOutcome(out.tour))  # the one running, told again
        if out.tour is not None and out.refusal is None:
            self.post(out, then=out.tables)  # the round's tables below its word
        else:
            for table in out.tables:
                await self.show(table)
        await self.rooms(out.tour)

    async def pressed(
        self,
        update: Update,
        query: Any,
        message: Message,
        channel: str,
        user: User,
        press: TourPress,
    ) -> None:
        """A sign-up button: answered at once (a toast), the message edited in place."""
        lang = language(update)
        manage = await is_admin(update) if press.what in ("start", "end") else False
        out = await self.call(
            self.tours.press, channel, user, press.tour_id, press.version, press.what, manage
        )
        text = say(refusal_text(out.refusal), lang=lang) if out.refusal is not None else None
        await toast(query, text)
        t = out.tour
        if t is None:
            return
        view = signup_message(t)
        self.edit(channel, str(message.message_id), view)
        if out.refusal is None and t.status != tour.SIGNUP:
            self.post(out, then=out.tables)  # the round's tables below its word
        else:
            for table in out.tables:
                await self.show(table)
        await self.rooms(t)

    def post(self, out: TourOutcome, then: Sequence[Outcome] = ()) -> None:
        """What the tournament tells the chat now, as a message of its own; ``then``:
        the tables to show below it."""
        view = tour_view(out.tour, out.happened) if out.tour is not None else None
        if view is None:
            for table in then:
                self.tables.show(table)
            return
        text = caption(view.lines, limit=TEXT_LIMIT, lang=view.lang)
        self.tables.say(view.channel, text, markup(view), then=then)

    def edit(self, channel: str, msg: str, view: TourView) -> None:
        """The sign-up message ``msg`` brought to ``view``."""
        bot = self.tables.bot
        text = caption(view.lines, limit=TEXT_LIMIT, lang=view.lang)

        async def send(turn: Any) -> None:
            await turn()
            await quietly(
                bot.edit_message_text(
                    text,
                    chat_id=target(channel)[0],
                    message_id=int(msg),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup(view),
                )
            )

        self.tables.outboxes.send(target(channel)[0], send)

    async def rooms(self, t: Tournament | None) -> None:
        """A tournament waiting for its rooms: a forum topic for each table of the round
        (none if the bot may not make them: the tables play one after another), then its
        tables opened in them."""
        if t is None or not t.awaiting_rooms:
            return
        chat_id = target(t.channel)[0]
        rooms: list[str] = []
        for number in range(1, len(t.current()) + 1):
            try:
                topic = await self.tables.bot.create_forum_topic(chat_id, room_name(t, number))
            except TelegramError as e:
                log.warning("no forum topics for the tournament in %s: %s", t.channel, e)
                rooms = []
                break
            rooms.append(f"{PREFIX}{chat_id}:{topic.message_thread_id}")
        out = await self.call(self.tours.rooms, t.channel, t.id, rooms)
        self.post(out, then=out.tables)  # where the tables play, then the tables

    async def news(self, game: Game | None) -> None:
        """What saving ``game`` set off: the tournament's word, then the next tables."""
        news = game.news if game is not None else []
        words = [n for n in news if isinstance(n, TourOutcome)]
        tables = [n for n in news if isinstance(n, Outcome)]
        for told in words[:-1]:
            self.post(told)
        if words:
            self.post(words[-1], then=tables)  # the standings above the next table
            return
        for table in tables:
            await self.show(table)
