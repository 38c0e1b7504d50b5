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

from telegram import Bot, Message, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from ...present import Text
from ..faults import refused
from .outbox import Outboxes, Turn
from .screen import TEXT_LIMIT, caption
from .updates import language

log = logging.getLogger(__name__)

#: the longest toast Telegram shows
TOAST_LIMIT = 200


class Notices:
    """Replies to commands, sent through the chat's outbox; short-lived ones deleted."""

    def __init__(self, bot: Bot, outboxes: Outboxes, seconds: float) -> None:
        self.bot = bot
        self.outboxes = outboxes
        #: how long a short-lived answer stays in a group (0: for good)
        self.seconds = seconds
        #: short-lived answers still up: (chat, message) -> the timer deleting it
        self._up: dict[tuple[int, int], asyncio.Task[None]] = {}

    def reply(self, message: Message, text: str, *, brief: bool = False) -> bool:
        """Answer ``message`` in its chat (HTML) when the chat's turn comes; ``brief``: in a
        group, deleted after :attr:`seconds`.  False if the chat's outbox is full."""

        async def send(turn: Turn) -> None:
            await turn()
            try:
                sent = await message.reply_text(text[:TEXT_LIMIT], parse_mode=ParseMode.HTML)
            except (BadRequest, Forbidden) as e:
                log.info("a command could not be answered: %s", e)
                return
            if brief and sent.chat.type != ChatType.PRIVATE and self.seconds > 0:
                key = (sent.chat.id, sent.message_id)
                self._up[key] = asyncio.create_task(self._expire(key))

        # the same brief answer already waiting in a flood is sent once
        key = f"brief {text}" if brief else None
        return self.outboxes.send(message.chat.id, send, key=key)

    async def say(self, update: Update, text: str) -> None:
        """Answer a command (help, rules): the answer stays."""
        if update.effective_message is not None:
            self.reply(update.effective_message, text)

    async def tell(self, update: Update, line: Text) -> None:
        """A short answer to the asker in their language (a refused command: in a group,
        the answer goes after a short while)."""
        refused()
        if update.effective_message is not None:
            text = caption([line], limit=TEXT_LIMIT, lang=language(update))
            await self.brief(update.effective_message, text)

    async def brief(self, message: Message, text: str) -> None:
        """Answer ``message``; in a group the answer goes after :attr:`seconds`."""
        self.reply(message, text, brief=True)

    async def _expire(self, key: tuple[int, int]) -> None:
        await asyncio.sleep(self.seconds)
        self._up.pop(key, None)
        with contextlib.suppress(TelegramError):
            await self.bot.delete_message(*key)

    async def close(self) -> None:
        """Delete the short-lived answers still up now (the bot is stopping)."""
        for (chat, msg), timer in list(self._up.items()):
            timer.cancel()
            with contextlib.suppress(TelegramError):
                await self.bot.delete_message(chat, msg)
        self._up.clear()


async def toast(query: Any, text: str | None) -> None:
    """Answer a button press (``query``) with ``text``, cut to what Telegram shows."""
    if text is not None and len(text) > TOAST_LIMIT:
        text = text[: TOAST_LIMIT - 1].rsplit(" ", 1)[0] + "…"
    try:
        await query.answer(text)
    except TelegramError as e:
        log.info("a button press could not be answered (%s)", e)
