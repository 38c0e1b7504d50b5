"""Tables sent in doubt: a send Telegram answered with a 5xx, or not at all, may have
reached the chat all the same, and the Bot API has no way to send a message only once
(no idempotency key).  Sending it again could show the board twice.

So before a table is sent again, the message lost on the way is looked for.  Telegram
numbers a chat's messages one after another, so the lost one, if it exists, is just
above the highest message id the bot knew in the chat before it sent
(:meth:`Doubts.saw`: every message the bot sent, every update).  Each message above
it in turn (a few at most) is asked to take the buttons the lost table was sent with:
Telegram answers "message is not modified" only for a message of the bot that has
exactly these buttons (each carries the game and its version), "message can't be
edited" for someone else's, and "message to edit not found" past the chat's last
message.  A table found is taken for the one sent (and edited into the newest view);
none found, it is sent again.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden

log = logging.getLogger(__name__)

#: the most messages looked at above the last one known
PROBES = 8
#: how many chats' highest message ids are remembered
CHATS = 4096


@dataclass(frozen=True)
class Doubt:
    """A table sent in doubt: the highest message id known in its chat before, and the
    buttons it was sent with."""

    floor: int
    markup: InlineKeyboardMarkup | None


class Doubts:
    """The tables of one adapter sent in doubt, and the highest message id it knows in
    each chat."""

    def __init__(self) -> None:
        self._highest: OrderedDict[int, int] = OrderedDict()
        self._doubts: dict[tuple[int, str], Doubt] = {}

    def saw(self, chat: int, message_id: int) -> None:
        """Message ``message_id`` of ``chat`` exists (the bot sent it, or was told of it)."""
        if message_id > self._highest.get(chat, 0):
            self._highest[chat] = message_id
        self._highest.move_to_end(chat)
        while len(self._highest) > CHATS:
            self._highest.popitem(last=False)

    def floor(self, chat: int) -> int | None:
        """The highest message id known in ``chat`` (None: none)."""
        return self._highest.get(chat)

    def doubt(
        self, chat: int, key: str, floor: int | None, markup: InlineKeyboardMarkup | None
    ) -> None:
        """The table ``key`` (a game) sent in ``chat`` with ``markup`` may be there,
        above message ``floor`` (None: the chat's messages unknown, nothing to look
        for); a doubt already there stands (it is the older, lower one)."""
        if floor is not None:
            self._doubts.setdefault((chat, key), Doubt(floor, markup))

    def pending(self, chat: int, key: str) -> bool:
        return (chat, key) in self._doubts

    async def find(
        self, bot: Bot, chat: int, key: str, turn: Callable[[], Awaitable[None]]
    ) -> int | None:
        """The message id of table ``key`` sent in doubt in ``chat``, if it is there
        (the doubt is resolved either way; Telegram refusing again raises, and the
        doubt stays).  ``turn`` is awaited before each call (the chat's pace)."""
        doubt = self._doubts.get((chat, key))
        if doubt is None:
            return None
        found = None
        for message_id in range(doubt.floor + 1, doubt.floor + 1 + PROBES):
            await turn()
            try:
                await bot.edit_message_reply_markup(
                    chat_id=chat, message_id=message_id, reply_markup=doubt.markup
                )
            except BadRequest as e:
                said = str(e).lower()
                if "not modified" in said:
                    found = message_id  # exactly the buttons of the table lost: it is there
                    break
                if "not found" in said:
                    break  # past the chat's last message: it never arrived
                continue  # someone else's message
            except Forbidden:
                break
            # a message of the bot with other buttons, which it did not know of: no table
            # sent in doubt can have them; they are now those of the table
            log.debug("chat %s: message %s took the buttons of table %s", chat, message_id, key)
        del self._doubts[(chat, key)]
        if found is not None:
            self.saw(chat, found)
        log.debug("chat %s: table %s sent in doubt: %s", chat, key, found or "not there")
        return found
