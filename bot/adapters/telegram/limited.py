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

from telegram import Update

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
        press = update.callback_query is not None  # a toast: always, and the asker's alone
        verdict = await self.limiter.admit(f"{PLATFORM}:{person.id}", where, tell=not press)
        if verdict.allowed:
            return True
        limited()
        if update.callback_query is not None:
            await toast(update.callback_query, say(words(verdict), lang=language(update)))
        elif verdict.tell:
            await self.notices.tell(update, words(verdict))
        return False
