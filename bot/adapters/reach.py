"""Whether a chat platform answers, as operators read it.

The platforms' libraries retry on their own while a platform cannot be reached
(python-telegram-bot's polling loop, discord.py's reconnections), and would log
a traceback on every try.  Instead, a :class:`Reach` logs one warning when the
platform stops answering, one when it answers again (saying after how long),
and, if the bot stops in between, one saying how long it went unanswered.
:func:`within` bounds each step of an adapter's stop, so that a platform that
cannot be reached does not hold the bot up.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable

from .faults import one_line


class Reach:
    """One platform's state: answering, or not since when."""

    def __init__(
        self, platform: str, log: logging.Logger, clock: Callable[[], float] = time.monotonic
    ) -> None:
        #: the platform's name as operators know it ("Telegram", "Discord")
        self.platform = platform
        self.log = log
        self._clock = clock
        self._lock = threading.Lock()
        #: when the platform stopped answering (None: it answers)
        self._since: float | None = None
        #: the outage going on was told at the stop already
        self._told = False

    @property
    def down(self) -> bool:
        """Whether the platform has not answered since its last failure."""
        return self._since is not None

    def lost(self, error: BaseException | str) -> None:
        """A call got no answer (``error``: why): the first of an outage is logged."""
        with self._lock:
            if self._since is not None:
                return
            self._since, self._told = self._clock(), False
        why = one_line(str(error)) or type(error).__name__
        self.log.warning("%s does not answer: %s (trying again until it does)", self.platform, why)

    def answered(self, asked: float | None = None) -> None:
        """The platform answered (a call made at ``asked``, on the clock; None: now):
        the end of an outage is logged, with how long it took."""
        if self._since is None:  # the usual case, without the lock
            return
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            took = (self._clock() if asked is None else asked) - since
            self.log.warning("%s answers again after %.0f s", self.platform, max(0.0, took))

    def stopping(self) -> None:
        """The bot stops: an outage still going on is logged (once), with how long it
        lasted (the platform still counts as down)."""
        since = self._since
        if since is not None and not self._told:
            self._told = True
            took = self._clock() - since
            self.log.warning(
                "%s had not answered for %.0f s when the bot stopped", self.platform, took
            )


async def within(step: Awaitable[object], seconds: float, what: str, log: logging.Logger) -> None:
    """Let ``step`` of a stop run for at most ``seconds``, then cancel it (and again,
    should it go on after that, each time after ``seconds`` more).  What it raised,
    or that it was cut short, is only logged at debug level: the bot is stopping."""
    task = asyncio.ensure_future(step)
    for _ in range(3):
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if done:
            break
        task.cancel()
    if not task.done():
        log.debug("%s: not done, left behind", what)
    elif task.cancelled():
        log.debug("%s: cut short after %g s", what, seconds)
    elif (error := task.exception()) is not None:
        log.debug("%s: %s", what, one_line(str(error)) or type(error).__name__)
