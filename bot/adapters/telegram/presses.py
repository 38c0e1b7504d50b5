"""Button presses on Telegram: a table's, a rule chooser's, a tournament's, a card's in
a private chat, and an inline table's.  Each press is answered at once (a toast: what it
did, or why nothing happened), then the table is brought up to date (see :mod:`.tables`).
No rule and no game state lives here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from ...present import Text, parse_new_game, parse_press, refusal_text, say, table_view
from ...present.buttons import parse_corner, parse_tour_press, parse_unborn
from ...service.game import GameService
from ...service.outcome import Outcome
from ..faults import refused
from .chooser import RuleChooser
from .corner_commands import CornerCommands
from .inline_screen import INLINE
from .notices import toast
from .tables import Tables
from .tours import TelegramTours
from .updates import channel_of, language, moderated, user_of


class Presses:
    """The button presses of one Telegram adapter."""

    def __init__(
        self,
        service: GameService,
        tables: Tables,
        tours: TelegramTours,
        chooser: RuleChooser,
        corner: CornerCommands,
        call: Callable[..., Awaitable[Any]],
        show: Callable[..., Awaitable[None]],
        image_size: int,
    ) -> None:
        self.service, self.tables, self.tours = service, tables, tours
        self.chooser, self.corner = chooser, corner
        #: runs a service call off the event loop
        self.call = call
        self.show = show
        self.image_size = image_size

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button press: always answered (a toast when refused), then the table reconciled."""
        query = update.callback_query
        if query is None:
            return
        lang = language(update)
        if query.inline_message_id is not None and query.from_user is not None:
            await self.on_inline_button(update, lang)
            return
        message = query.message if isinstance(query.message, Message) else None
        if message is None or query.from_user is None:
            refused()
            await toast(query, say(Text("refuse.bad_button"), lang=lang))
            return
        channel = channel_of(message, message.chat.id)
        user = user_of(query.from_user)
        pressed: str | None = str(message.message_id)
        chosen, tour_press = parse_new_game(query.data), parse_tour_press(query.data)
        if tour_press is not None:
            await self.tours.pressed(update, query, message, channel, user, tour_press)
            return
        if chosen is not None:
            outcome = await self.chooser.chosen(message, channel, user, chosen, lang)
        else:
            press = parse_press(query.data)
            corner = parse_corner(query.data)
            if corner is not None:
                await self.corner.pressed(query, user, corner, lang)
                return
            if press is None:
                await toast(query, say(Text("refuse.bad_button"), lang=lang))
                return
            outcome = await moderated(update, press, self.call, self.service.press, channel, user)
            if _elsewhere(outcome) and message.chat.type == ChatType.PRIVATE:
                await self.corner.card_press(query, user, press, lang)  # a card's button
                return
            if outcome.game is not None and outcome.game.id != press.game_id:
                # a rematch: the new table goes below, the old one keeps no button
                self.tables.retire(channel, str(pressed))
                pressed = None
        await self._answer(query, outcome, lang, pressed)

    async def on_inline_button(self, update: Update, lang: str) -> None:
        """A press on a table posted through inline mode: the same game, played in its
        one message; the press tells the table its chat (``chat_instance``)."""
        query = update.callback_query
        assert query is not None and query.inline_message_id is not None
        assert query.from_user is not None
        where = INLINE + query.inline_message_id, user_of(query.from_user)
        told = query.chat_instance or ""  # what the press tells of the chat
        press, unborn = parse_press(query.data), parse_unborn(query.data)
        if unborn is not None:  # the lobby as posted: its game, by the message
            outcome = await self.call(self.service.act, *where, unborn, told)
            if outcome.refusal is not None and outcome.refusal.key == "refuse.no_game":
                # the bot was not told yet that this table was chosen
                await toast(query, say(Text("tg.inline.not_yet"), lang=lang))
                return
        elif press is not None:
            args = press.game_id, press.version, press.intent, told
            outcome = await self.call(self.service.press, *where, *args)
        else:
            refused()
            await toast(query, say(Text("refuse.bad_button"), lang=lang))
            return
        await self._answer(query, outcome, lang, None)

    async def _answer(
        self, query: CallbackQuery, outcome: Outcome, lang: str, pressed: str | None
    ) -> None:
        """The answer first, at once: what the press did (even while the table waits for
        the chat's limit), or why nothing happened; then the table shown (a late answer
        must not stop the show)."""
        view = None
        if outcome.refusal is not None:
            text: str | None = say(refusal_text(outcome.refusal), lang=lang)
        elif outcome.game is not None:
            view = table_view(outcome.game, outcome.happened, size=self.image_size)
            text = " ".join(say(t, lang=lang) for t in view.toast) or None
        else:
            text = None
        await toast(query, text)
        await self.show(outcome, pressed=pressed, view=view, lang=lang)


def _elsewhere(outcome: Outcome) -> bool:
    """The press named a game that is not this chat's, or none kept (a card's button,
    in a private chat)."""
    return outcome.refusal is not None and outcome.refusal.key in (
        "refuse.bad_button",
        "refuse.no_game",
    )
