"""The entrance on Telegram: every command and press passes the rate limits first
(:mod:`bot.limits`), before the game service sees it.

The person is the Telegram account; the chat is the group itself (its forum
topics share its budget, as they share Telegram's own limit of the group).  A
person turned away is told privately and in their language: a toast for a
press; for a command a short reply (gone after a while in a group), at most
once every :data:`~bot.limits.rate.TELL_EVERY` seconds, so the answers never
become a flood themselves.  Nothing else happens.
"""

from __future__ import annotations

from telegram import InlineQueryResultsButton, Update

from ...limits.rate import Limiter, Verdict
from ...present import Text, say
from ..faults import limited
from .notices import Notices, toast
from .screen import PREFIX
from .updates import PLATFORM, language

__all__ = ["Entrance", "Limiter", "words"]


def words(verdict: Verdict) -> Text:
    """What a person turned away is told."""
    return Text(f"limit.{verdict.scope}", {"count": verdict.seconds})


class Entrance:
    """The rate limits of every update (None: no limit)."""

    def __init__(self, limiter: Limiter | None, notices: Notices) -> None:
        self.limiter = limiter
        self.notices = notices

    async def admit(self, update: Update) -> bool:
        """Whether ``update`` may go on; if not, the person was told (or told already)."""
        person, chat = update.effective_user, update.effective_chat
        if self.limiter is None or person is None:
            return True
        where = f"{PREFIX}{chat.id}" if chat is not None else None
        query = update.callback_query
        if where is None and query is not None and query.chat_instance:
            where = f"tgc:{query.chat_instance}"  # an inline table's chat, as Telegram names it
        # a toast or an inline answer: always, and the asker's alone
        private = query is not None or update.inline_query is not None
        verdict = await self.limiter.admit(f"{PLATFORM}:{person.id}", where, tell=not private)
        if verdict.allowed:
            return True
        limited()
        said = say(words(verdict), lang=language(update))
        if query is not None:
            await toast(query, said)
        elif update.inline_query is not None:  # no table listed, and the reason above
            button = InlineQueryResultsButton(text=said[:64], start_parameter="help")
            await update.inline_query.answer([], cache_time=0, is_personal=True, button=button)
        elif verdict.tell:
            await self.notices.tell(update, words(verdict))
        return False
