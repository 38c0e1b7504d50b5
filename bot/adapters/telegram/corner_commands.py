"""What a person asks of their corner on Telegram: starting the bot opens it (their
consent to hear from it), ``/ludo notify on`` and ``off`` turn the cards on and off, a
card's *Mute this game* mutes one game, and a press on a card is a press on its game
(its table, wherever it is, is then brought up to date as after any press)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from ...hosting import LOBBY, PLAYING, Game, Intent, User
from ...hosting.corner import Corner
from ...hosting.results import person_key
from ...present import Text, refusal_text, say, table_view
from ...present.buttons import CornerPress, Press, corner_button
from ...present.corner import GAMES_SHOWN, games_lines
from ...service.game import GameService
from ...service.outcome import Outcome
from ..cards import STILL, Card
from .corners import TelegramCorners, where
from .notices import Notices, toast
from .screen import TEXT_LIMIT, caption
from .updates import language

#: what ``/ludo notify`` takes
NOTIFY_WORDS = ("on", "off")


def private(update: Update) -> bool:
    """Whether ``update`` came from a private chat with the bot."""
    chat = update.effective_chat
    return chat is not None and chat.type == ChatType.PRIVATE


class CornerCommands:
    """The corner's commands and buttons of one Telegram adapter."""

    def __init__(
        self,
        service: GameService,
        notices: Notices,
        corners: TelegramCorners,
        call: Callable[..., Awaitable[Any]],
        show: Callable[..., Awaitable[None]],
    ) -> None:
        self.service = service
        self.notices = notices
        self.corners = corners
        self.call = call
        self.show = show

    async def opened(self, update: Update, user: User) -> None:
        """The person wrote to the bot in private: their corner is open (again)."""
        if not private(update):
            return
        lang = language(update)
        await asyncio.to_thread(
            self.service.corners.change, person_key(user), lambda c: c.opened(lang)
        )

    async def notify(self, update: Update, channel: str, user: User, args: list[str]) -> None:
        """``/ludo notify on|off``: every game's cards, in the person's private chat;
        ``/ludo notify here`` (in a group): a private note when a game opens there, and
        again: no more."""
        lang = language(update)
        word = args[0].lower() if args else ""
        if word == "here":
            await self._here(update, channel, user)
            return
        if word not in NOTIFY_WORDS:
            await self.notices.tell(update, Text("corner.bad_word"))
            return
        on = word == "on"

        def change(corner: Corner) -> Corner:
            asked = corner.asked(on)
            return asked.opened(lang) if private(update) else asked

        done = await asyncio.to_thread(self.service.corners.change, person_key(user), change)
        key = "corner.store_down" if done is None else "corner.on" if on else "corner.off"
        await self.notices.say(update, say(Text(key), lang=lang))

    async def _here(self, update: Update, channel: str, user: User) -> None:
        if private(update):
            await self.notices.tell(update, Text("corner.here_private"))
            return
        person = person_key(user)
        corner = await asyncio.to_thread(self.service.corners.corner, person)
        on = channel not in corner.here
        done = await asyncio.to_thread(self.service.corners.watch, channel, person, on)
        if done is None:
            await self.notices.tell(update, Text("corner.store_down"))
        elif not done:
            await self.notices.tell(update, Text("corner.here_full"))
        elif on and not corner.started:
            await self.notices.tell(update, Text("corner.start_first"))
        else:
            await self.notices.tell(update, Text("corner.here_on" if on else "corner.here_off"))

    async def join(self, query: CallbackQuery, user: User, game_id: str, lang: str) -> None:
        """Join pressed on the note of a game opened in a group: the person sits down at
        that table (its lobby then shown there as after any join)."""
        game = await self.call(self.service.get, game_id)
        if game is None or game.status != LOBBY:
            key = (
                "refuse.already_started"
                if game is not None and game.status == PLAYING
                else ("refuse.game_over")
            )
            await toast(query, say(Text(key), lang=lang))
            return
        outcome: Outcome = await self.call(
            self.service.press, game.channel, user, game.id, game.version, Intent("join")
        )
        await self._answer(query, outcome, lang)
        if outcome.refusal is None and isinstance(query.message, Message):
            with contextlib.suppress(TelegramError):
                await query.message.edit_reply_markup(None)  # seated: the note is done

    async def games(self, update: Update, user: User) -> None:
        """``/ludo games``: every open game the person sits in, where it is and whose turn
        it is, with a button bringing each one's card; in their private chat (asked in a
        group, the list goes there if they started the bot)."""
        lang = language(update)
        person = person_key(user)
        found = await asyncio.to_thread(self.service.corners.games, person)
        if found is None:
            await self.notices.tell(update, Text("corner.store_down"))
            return
        text, markup = games_list(found, person, self.service.clock(), lang)
        if private(update):
            self.notices.send(int(user.id), text, markup)
            return
        corner = await asyncio.to_thread(self.service.corners.corner, person)
        if not corner.started or corner.blocked:
            await self.notices.tell(update, Text("corner.start_first"))
            return
        self.notices.send(int(user.id), text, markup)
        await self.notices.tell(update, Text("corner.sent"))

    async def pressed(
        self, query: CallbackQuery, user: User, press: CornerPress, lang: str
    ) -> None:
        """A corner's own button: *Mute this game* (the card stilled at once), or a
        game's card asked for from ``/ludo games`` (sent anew)."""
        person = person_key(user)
        if press.what == "card":
            await self.bring(query, user, press.game_id, lang)
            return
        if press.what == "join":
            await self.join(query, user, press.game_id, lang)
            return
        if press.what != "mute":
            await toast(query, say(Text("refuse.bad_button"), lang=lang))
            return
        done = await asyncio.to_thread(
            self.service.corners.change, person, lambda c: c.mute(press.game_id)
        )
        if done is None:
            await toast(query, say(Text("corner.store_down"), lang=lang))
            return
        await toast(query, say(Text("corner.muted"), lang=lang))
        game = await self.call(self.service.get, press.game_id)
        message = query.message
        if game is None or message is None:
            return
        view = table_view(game)
        card = Card(view, STILL, person, where(view), lang)
        self.corners.still(card, message.chat.id, str(message.message_id))

    async def bring(self, query: CallbackQuery, user: User, game_id: str, lang: str) -> None:
        """The card of game ``game_id``, sent anew in the person's private chat."""
        game = await self.call(self.service.get, game_id)
        if game is None or not any(user.same(s.user) for s in game.seats):
            await toast(query, say(Text("refuse.not_seated"), lang=lang))
            return
        await toast(query, None)
        view = table_view(game)
        card = Card(view, "", person_key(user), where(view), lang)
        self.corners.bring(card, int(user.id))

    async def card_press(self, query: CallbackQuery, user: User, press: Press, lang: str) -> None:
        """A press on a card: the same press on its game, by a person seated at it; the
        answer at once, then the table (and the cards) brought up to date."""
        outcome: Outcome = await self.call(
            self.service.press_card, user, press.game_id, press.version, press.intent
        )
        await self._answer(query, outcome, lang)

    async def _answer(self, query: CallbackQuery, outcome: Outcome, lang: str) -> None:
        """What the press did, or why not, at once; then the table (and the cards)."""
        view = None
        if outcome.refusal is not None:
            text: str | None = say(refusal_text(outcome.refusal), lang=lang)
        elif outcome.game is not None:
            view = table_view(outcome.game, outcome.happened)
            text = " ".join(say(t, lang=lang) for t in view.toast) or None
        else:
            text = None
        await toast(query, text)
        await self.show(outcome, view=view, lang=lang)


def games_list(
    games: list[Game], person: str, now: float, lang: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The person's open games in words (HTML), and a button for each one's card."""
    lines = games_lines(games, person, now, lang, lambda game: where(table_view(game)))
    text = caption(lines, limit=TEXT_LIMIT, links=False, lang=lang)
    buttons = [
        InlineKeyboardButton(
            say(Text("btn.card", {"n": n}), lang=lang),
            callback_data=corner_button("card", game.id),
        )
        for n, game in enumerate(games[:GAMES_SHOWN], 1)
    ]
    rows = [buttons[i : i + 4] for i in range(0, len(buttons), 4)]
    return text, InlineKeyboardMarkup(rows) if rows else None
