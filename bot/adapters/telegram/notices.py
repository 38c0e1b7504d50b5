"""Answers to commands in a chat: kept, or (a refused command in a group) deleted
after a short while, so that a group keeps only the games' boards; toasts for presses.

An answer goes through the chat's outbox (:mod:`.outbox`): the handler returns at
once, and under a flood identical answers waiting are sent once and the surplus
dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from telegram import Bot, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from ...present import Text, say
from ..faults import refused, store_down
from .outbox import Outboxes, Turn
from .screen import TEXT_LIMIT, caption
from .units import fit_html, shorten
from .updates import language
from .weather import transient

log = logging.getLogger(__name__)

#: the longest toast Telegram shows
TOAST_LIMIT = 200
#: a rule chooser nobody pressed stays this many times as long as a refusal
CHOOSER_TIMES = 20


class Notices:
    """Replies to commands, sent through the chat's outbox; short-lived ones deleted."""

    def __init__(self, bot: Bot, outboxes: Outboxes, seconds: float) -> None:
        self.bot = bot
        self.outboxes = outboxes
        #: how long a short-lived answer stays in a group (0: for good)
        self.seconds = seconds
        #: how long a rule chooser nobody pressed stays in a group
        self.chooser_seconds = seconds * CHOOSER_TIMES
        #: short-lived answers still up: (chat, message) -> the timer deleting it
        self._up: dict[tuple[int, int], asyncio.Task[None]] = {}

    def reply(self, message: Message, text: str, *, seconds: float = 0.0) -> bool:
        """Answer ``message`` in its chat (HTML) when the chat's turn comes; in a group,
        deleted after ``seconds`` (0: it stays).  False if the chat's outbox is full."""

        async def send(turn: Turn) -> None:
            await turn()
            try:
                sent = await message.reply_text(
                    fit_html(text, TEXT_LIMIT), parse_mode=ParseMode.HTML
                )
            except (BadRequest, Forbidden) as e:
                log.info("a command could not be answered: %s", e)
                return
            self.expire(sent, seconds)

        # the same short-lived answer already waiting in a flood is sent once
        key = f"brief {text}" if seconds else None
        return self.outboxes.send(message.chat.id, send, key=key)

    def send(self, chat_id: int, text: str, markup: InlineKeyboardMarkup | None = None) -> bool:
        """A message (HTML) with ``markup`` in chat ``chat_id`` (a person's private chat)
        when its turn comes; it stays.  False if the chat's outbox is full."""

        async def send(turn: Turn) -> None:
            await turn()
            try:
                await self.bot.send_message(
                    chat_id,
                    fit_html(text, TEXT_LIMIT),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                )
            except (BadRequest, Forbidden) as e:
                log.info("a message could not be sent: %s", e)

        return self.outboxes.send(chat_id, send)

    async def say(self, update: Update, text: str) -> None:
        """Answer a command (help, rules): the answer stays."""
        if update.effective_message is not None:
            self.reply(update.effective_message, text)

    async def sorry(self, update: Update) -> None:
        """The asker's command or press failed: the games cannot be reached now."""
        with contextlib.suppress(TelegramError):
            if update.callback_query is not None:
                await toast(update.callback_query, say(store_down(), lang=language(update)))
            else:
                await self.tell(update, store_down())

    async def tell(self, update: Update, line: Text) -> None:
        """A short answer to the asker in their language (a refused command: in a group,
        the answer goes after a short while)."""
        refused()
        if update.effective_message is not None:
            text = caption([line], limit=TEXT_LIMIT, lang=language(update))
            await self.brief(update.effective_message, text)

    async def brief(self, message: Message, text: str) -> None:
        """Answer ``message``; in a group the answer goes after :attr:`seconds`."""
        self.reply(message, text, seconds=self.seconds)

    def expire(self, sent: Message, seconds: float) -> None:
        """Delete ``sent`` after ``seconds`` (in a group; 0: never)."""
        if sent.chat.type == ChatType.PRIVATE or seconds <= 0:
            return
        key = (sent.chat.id, sent.message_id)
        self._up[key] = asyncio.create_task(self._expire(key, seconds))

    def keep(self, chat_id: int, message_id: int) -> None:
        """Let message ``message_id`` stay after all (a rule chooser that became a lobby)."""
        timer = self._up.pop((chat_id, message_id), None)
        if timer is not None:
            timer.cancel()

    async def _expire(self, key: tuple[int, int], seconds: float) -> None:
        await asyncio.sleep(seconds)
        self._up.pop(key, None)
        with contextlib.suppress(TelegramError):
            await self.bot.delete_message(*key)

    async def close(self, *, delete: bool = True) -> None:
        """Delete the short-lived answers still up now (the bot is stopping); with
        ``delete`` False (Telegram does not answer) leave them."""
        for (chat, msg), timer in list(self._up.items()):
            timer.cancel()
            if delete:
                with contextlib.suppress(TelegramError):
                    await self.bot.delete_message(chat, msg)
        self._up.clear()


async def toast(query: Any, text: str | None) -> None:
    """Answer a button press (``query``) with ``text``, cut to what Telegram shows."""
    if text is not None:
        text = shorten(text, TOAST_LIMIT)
    try:
        await query.answer(text)
    except TelegramError as e:  # Telegram refusing for a while: its storm says so, once
        log.log(
            logging.DEBUG if transient(e) else logging.INFO,
            "a button press could not be answered (%s)",
            e,
        )
