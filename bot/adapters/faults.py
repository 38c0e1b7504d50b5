"""Faults the chat adapters share, and the figures operators watch (:mod:`bot.ops.metrics`).

* :class:`AdapterError` and :class:`Fatal`: a platform that cannot be used any more
  (a token refused, intents disallowed) ends the process with one line saying what
  to fix; an adapter keeps the error in a :class:`Fatal`, which the runner awaits
  (``adapter.failed()``) beside the stop signal.
* :func:`handling`: one press or command, counted in ``PRESSES`` by what came of it
  and timed in ``PRESS_SECONDS``.
* :class:`FaultLog`: a press or a show that failed, logged once: a store failure
  or the platform not answering as a warning line (no traceback; a flood of them
  during an outage is one warning every :data:`QUIET_SECONDS`), anything else with
  its traceback.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from ..hosting import Refusal
from ..ops.metrics import PRESS_SECONDS, PRESSES
from ..present import Text, refusal_text
from ..service.outcome import Outcome
from ..store import StoreError

#: a store failure is logged as a warning at most this often (the others at debug level)
QUIET_SECONDS = 30.0
#: the refusals counted as their own result in ``PRESSES``
RESULTS = {"refuse.store_down": "store_down", "refuse.damaged": "damaged"}


class AdapterError(Exception):
    """A chat platform cannot be used (a token refused, intents disallowed, the platform
    unreachable): one line for the operator, saying what to fix.  ``later``: it may
    well work later by itself (the platform could not be reached)."""

    def __init__(self, message: str, *, later: bool = False) -> None:
        super().__init__(message)
        self.later = later


class Fatal:
    """The error that ended an adapter's connection for good, once there is one."""

    def __init__(self) -> None:
        #: the first fatal error (None: all is well)
        self.error: AdapterError | None = None
        self._event = asyncio.Event()

    def set(self, error: AdapterError) -> None:
        """The platform cannot be used any more (only the first error is kept)."""
        if self.error is None:
            self.error = error
            self._event.set()

    async def wait(self) -> AdapterError:
        """Wait until the platform failed for good; its error."""
        await self._event.wait()
        assert self.error is not None
        return self.error


def one_line(text: str) -> str:
    """``text`` on one line (an exception's message may have several)."""
    return " ".join(text.split())


def store_down() -> Text:
    """What the asker is told when their press or command could not be handled."""
    return refusal_text(Refusal("refuse.store_down"))


def result_of(outcome: Outcome) -> str:
    """What a press came to, for ``PRESSES``: done, refused, store_down or damaged."""
    refusal = outcome.refusal
    if refusal is None:
        return "done"
    return RESULTS.get(refusal.key, "refused")


class Handling:
    """One press or command being handled."""

    def __init__(self) -> None:
        #: ``done``, ``refused``, ``store_down``, ``damaged``, ``limited`` (too fast),
        #: or ``failed`` (a bug)
        self.result = "done"

    def failed(self, error: BaseException) -> None:
        self.result = "store_down" if isinstance(error, StoreError) else "failed"


_current: ContextVar[Handling | None] = ContextVar("handling", default=None)


@contextmanager
def handling(platform: str) -> Iterator[Handling]:
    """Count one press or command on ``platform``, and time it."""
    press = Handling()
    token = _current.set(press)
    started = time.monotonic()
    try:
        yield press
    finally:
        _current.reset(token)
        PRESSES.labels(platform, press.result).inc()
        PRESS_SECONDS.labels(platform).observe(time.monotonic() - started)


def settle(outcome: Outcome) -> None:
    """The press or command being handled (in this task) came to ``outcome``."""
    press = _current.get()
    if press is not None:
        press.result = result_of(outcome)


def limited() -> None:
    """The press or command being handled (in this task) was turned away at the entrance:
    its person or chat is going too fast (:mod:`bot.limits`)."""
    press = _current.get()
    if press is not None:
        press.result = "limited"


def refused() -> None:
    """The press or command being handled (in this task) was refused (a bad button, a
    command's arguments), unless it came to something else already."""
    press = _current.get()
    if press is not None and press.result == "done":
        press.result = "refused"


class FaultLog:
    """Logs what failed: a store failure, or the platform not answering (the errors
    ``unanswered``), as one warning line, again at most every :data:`QUIET_SECONDS`
    (the others at debug level); anything else with its traceback, as the bug it is."""

    def __init__(
        self, log: logging.Logger, unanswered: tuple[type[BaseException], ...] = ()
    ) -> None:
        self.log = log
        self.unanswered = unanswered
        self._warned = {"store": -math.inf, "platform": -math.inf}

    def note(self, error: BaseException, what: str) -> None:
        """``what`` (``"could not show game 1a2b3c4d"``) happened because of ``error``."""
        if isinstance(error, StoreError):
            kind, why = "store", "the game store failed"
        elif isinstance(error, self.unanswered):
            kind, why = "platform", "no answer"
        else:
            self.log.error("%s", what, exc_info=error)
            return
        now = time.monotonic()
        level = logging.WARNING if now - self._warned[kind] >= QUIET_SECONDS else logging.DEBUG
        if level == logging.WARNING:
            self._warned[kind] = now
        self.log.log(level, "%s: %s (%s)", what, why, one_line(str(error)))
