"""Every update answered: a handler that fails (the game store unreachable, a bug) is
logged once, counted, and the asker still gets an answer.  Telegram refusing an
answer (the network down, the token revoked) is no bug: one warning line.  A command
with far more words than any command takes is answered that it is too long."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from ...present import Text
from ..faults import FaultLog, handling
from .updates import PLATFORM
from .weather import transient

log = logging.getLogger(__name__)

#: a handler of an update, as python-telegram-bot calls it
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
#: the most words a command's arguments may have (no command of ours takes more)
MAX_WORDS = 24
#: the most characters they may have: twice the longest message Telegram delivers
#: (4096), so only a forged update meets it
MAX_CHARS = 8192


def guarded(
    handler: Handler,
    faults: FaultLog,
    sorry: Callable[[Update], Awaitable[None]],
    admit: Callable[[Update], Awaitable[bool]] | None = None,
) -> Handler:
    """``handler``, counted and timed (``PRESSES``, ``PRESS_SECONDS``); if it fails,
    the failure is logged (:class:`~bot.adapters.faults.FaultLog`) and ``sorry``
    answers the asker.  ``admit``: the entrance (the rate limits, :mod:`.limited`);
    an update it turns away (it answers it) never reaches ``handler``."""

    async def run(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        with handling(PLATFORM) as press:
            chat = update.effective_chat
            where = f"chat {chat.id}" if chat is not None else "a chat"
            try:
                if admit is None or await admit(update):
                    await handler(update, context)
            except TelegramError as e:
                press.failed(e)
                # Telegram refusing for a while: its storm says so, once
                level = logging.DEBUG if transient(e) else logging.WARNING
                log.log(level, "could not answer an update in %s: Telegram: %s", where, e)
            except Exception as e:
                press.failed(e)
                faults.note(e, f"could not handle an update in {where}")
                await sorry(update)

    return run


def too_long(args: Sequence[str]) -> bool:
    """More words, or characters, than any command of ours takes."""
    return len(args) > MAX_WORDS or sum(len(a) for a in args) > MAX_CHARS


def bounded(handler: Handler, tell: Callable[[Update, Text], Awaitable[None]]) -> Handler:
    """``handler``, but a command with far too many arguments is answered (``tell``)
    that it is too long, and goes no further."""

    async def run(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if too_long(context.args or []):
            await tell(update, Text("tg.too_long"))
            return
        await handler(update, context)

    return run
