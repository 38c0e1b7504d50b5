"""A person's corner on Telegram: their private chat with the bot, where the cards of
their games come (see :mod:`bot.adapters.cards`).

A card is the table's message for one person: where the table is, the board (by the
file id of the table's own upload of that picture, when this worker made it: a card
costs no drawing and no upload of its own), what happened, whose turn it is, and the
table's buttons, with *Mute this game* below them.  Telegram refusing to write to the
person (403: they blocked the bot, or never started it) stops their cards.
"""

from __future__ import annotations

import html
import logging
from typing import Any

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from ...present import Text, say
from ...present.alt import alt_lines
from ...present.buttons import corner_button
from ..cards import LIVE, Card, Unreachable
from .outbox import Turn
from .screen import CAPTION_LIMIT, TEXT_LIMIT, caption
from .units import units
from .uploads import Uploads

log = logging.getLogger(__name__)


def card_text(card: Card, pictured: bool = True) -> str:
    """The card's words as HTML: where the table is, then the table's own lines (the
    board in words first, where the card has no picture)."""
    view = card.view
    limit = CAPTION_LIMIT if pictured else TEXT_LIMIT
    where = "<b>" + say(card.where, html.escape, card.lang) + "</b>"
    lines = [*alt_lines(view.game), *view.lines] if view.picture and not pictured else view.lines
    said = caption(lines, None, limit - units(where) - 1, links=False, lang=card.lang)
    return f"{where}\n{said}"


def card_keyboard(card: Card) -> InlineKeyboardMarkup | None:
    """The table's buttons (none on a stilled card), and *Mute this game* on a live one."""
    if not card.buttons:
        return None
    rows = [
        [InlineKeyboardButton(say(b.label, lang=card.lang), callback_data=b.data) for b in row]
        for row in card.view.buttons
    ]
    if card.mode == LIVE:
        mute = corner_button("mute", card.view.game_id)
        rows.append(
            [InlineKeyboardButton(say(Text("btn.mute"), lang=card.lang), callback_data=mute)]
        )
    return InlineKeyboardMarkup(rows)


class CornerScreen:
    """One person's private chat with the bot, through the Bot API."""

    def __init__(
        self, bot: Bot, chat_id: int, turn: Turn, uploads: Uploads, draw: bool = True
    ) -> None:
        self.bot = bot
        self.chat_id = chat_id
        self.turn = turn
        self.uploads = uploads
        #: a picture not uploaded by this worker is drawn (else the card is in words: a
        #: table whose own pictures are not uploaded here, an inline one's)
        self.draw = draw

    async def send(self, card: Card) -> str | None:
        photo = await self.uploads.photo(card.view, self.draw)
        await self.turn()
        try:
            if photo is not None:
                sent: Any = None
                try:
                    sent = await self.bot.send_photo(
                        self.chat_id,
                        photo,
                        caption=card_text(card),
                        parse_mode=ParseMode.HTML,
                        reply_markup=card_keyboard(card),
                    )
                finally:
                    self.uploads.saw(card.view, sent)
            else:
                sent = await self.bot.send_message(
                    self.chat_id,
                    card_text(card, pictured=False),
                    parse_mode=ParseMode.HTML,
                    reply_markup=card_keyboard(card),
                )
        except Forbidden as e:  # blocked, or never started: no card until they write
            raise Unreachable(str(e)) from None
        except BadRequest as e:
            if "chat not found" in str(e).lower():
                raise Unreachable(str(e)) from None
            log.warning("a card could not be sent: %s", e)
            return None
        return str(sent.message_id)

    async def edit(self, msg: str, card: Card) -> bool:
        photo = await self.uploads.photo(card.view, self.draw)
        await self.turn()
        try:
            if photo is not None:
                sent: Any = None
                try:
                    sent = await self.bot.edit_message_media(
                        InputMediaPhoto(photo, caption=card_text(card), parse_mode=ParseMode.HTML),
                        chat_id=self.chat_id,
                        message_id=int(msg),
                        reply_markup=card_keyboard(card),
                    )
                finally:
                    self.uploads.saw(card.view, sent)
            else:
                await self.bot.edit_message_text(
                    card_text(card, pictured=False),
                    chat_id=self.chat_id,
                    message_id=int(msg),
                    parse_mode=ParseMode.HTML,
                    reply_markup=card_keyboard(card),
                )
        except Forbidden as e:
            raise Unreachable(str(e)) from None
        except BadRequest as e:
            if "not modified" in str(e).lower():
                return True
            log.info("card %s not edited (%s)", msg, e)
            return False
        return True

    async def remove(self, msg: str) -> bool:
        try:
            await self.bot.delete_message(self.chat_id, int(msg))
        except BadRequest as e:
            return "not found" in str(e).lower()
        except Forbidden:
            return False
        return True
