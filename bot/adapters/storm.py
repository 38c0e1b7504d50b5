"""A platform answering errors for a while (429 Too Many Requests, 500, 502...): how long
the bot waits before calling again, and how operators read it.

A 429 says how long to wait (Telegram's ``parameters.retry_after``, Discord's
``retry_after`` and ``Retry-After``): the bot waits exactly that, never less.  A 5xx
says nothing: the bot waits an exponential backoff with jitter, capped
(:class:`Backoff`), growing while the same work keeps being refused.

Every refused call is counted (``PLATFORM_REFUSED``), but however many calls are
refused, one :class:`Storm` (an outage of refusals) is at most three log lines: one
when it begins, at most one while it lasts (after :data:`STILL` seconds), and one when
the platform answers again, saying after how long.  A storm is over when a call
succeeds after every wait handed out has passed (with some slack, so that a retry
still on its way is not taken for the end), not at the first success of another
kind of call: a platform refusing one method while answering the others is one storm.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import threading
import time
from collections.abc import Callable

from ..ops.metrics import PLATFORM_BACKING_OFF, PLATFORM_REFUSED

#: a storm still going on after this many seconds is said once more
STILL = 60.0
#: the backoff of a 5xx: this long at first, doubling with each refusal, at most CAP
BASE, CAP = 1.0, 60.0


def refusal(status: int | None) -> bool:
    """Whether an HTTP status is a platform refusing a call for a while (429, 5xx)."""
    return status is not None and (status == 429 or 500 <= status <= 599)


class Backoff:
    """How long to wait before trying refused work again."""

    def __init__(
        self, base: float = BASE, cap: float = CAP, rng: random.Random | None = None
    ) -> None:
        self.base = base
        self.cap = cap
        self._rng = rng or random.Random()

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before try number ``attempt + 1`` (``attempt`` tries refused in
        a row): ``retry_after`` if the platform said it, else an exponential backoff with
        "equal jitter" (half of it fixed, half random), at most :attr:`cap`."""
        if retry_after is not None and retry_after >= 0:
            return float(retry_after)
        ceiling = min(self.cap, self.base * 2.0 ** min(attempt, 30))
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)


class Storm:
    """One platform's refusals: the outage going on (if any) and its log lines."""

    def __init__(
        self,
        platform: str,
        log: logging.Logger,
        clock: Callable[[], float] = time.monotonic,
        *,
        still: float = STILL,
        backoff: Backoff | None = None,
    ) -> None:
        #: the platform's name as operators know it ("Telegram", "Discord")
        self.platform = platform
        self.log = log
        self.still = still
        self.backoff = backoff or Backoff()
        self._clock = clock
        self._lock = threading.Lock()
        #: when the storm began (None: no storm)
        self._since: float | None = None
        #: the storm is not over before this time (every wait handed out passed)
        self._calm = -math.inf
        #: the first answer since the last refusal (None: none yet)
        self._back: float | None = None
        #: the status of the storm's last refusal, and how many calls it refused
        self._status = 0
        self.count = 0
        self._told = False
        self._timer: asyncio.TimerHandle | None = None

    @property
    def stormy(self) -> bool:
        """Whether the platform refuses calls now (a storm began and is not over)."""
        return self._since is not None

    def refused(self, status: int, where: str, retry_after: float | None = None) -> None:
        """A call (``where``: what and where, for the log) was answered ``status`` (with
        ``retry_after``, if the platform said how long to wait)."""
        PLATFORM_REFUSED.labels(self.platform.lower(), str(status)).inc()
        now = self._clock()
        with self._lock:
            first = self._since is None
            if first:
                self._since, self.count, self._told = now, 0, False
            self.count += 1
            self._status, self._back = status, None
            self._calm = max(self._calm, now + _slack(retry_after or 0.0))
            since, count = self._since, self.count
            assert since is not None
            still = not first and not self._told and now - since >= self.still
            if still:
                self._told = True
        if first:
            PLATFORM_BACKING_OFF.labels(self.platform.lower()).set(1)
            after = f" (retry after {retry_after:g} s)" if retry_after else ""
            self.log.warning(
                "%s answers %d to %s: backing off%s", self.platform, status, where, after
            )
        elif still:
            self.log.warning(
                "%s still answers %d after %.0f s (%d calls refused): backing off, "
                "at most %.0f s between tries",
                self.platform,
                status,
                now - since,
                count,
                self.backoff.cap,
            )

    def wait(self, attempt: int, retry_after: float | None = None) -> float:
        """How long refused work waits before its try number ``attempt + 1`` (see
        :meth:`Backoff.delay`); the storm is not over before that."""
        seconds = self.backoff.delay(attempt, retry_after)
        self.waiting(seconds)
        return seconds

    def waiting(self, seconds: float) -> None:
        """Some work waits ``seconds`` before calling again: the storm is not over
        before it has (with some slack for its answer)."""
        now = self._clock()
        with self._lock:
            if self._since is not None:
                self._calm = max(self._calm, now + _slack(seconds))

    def answered(self, at: float | None = None) -> None:
        """A call (made at ``at``, on the clock; None: now) was answered: the end of the
        storm, if every wait handed out has passed (else, if nothing is refused
        meanwhile, once they have)."""
        if self._since is None:  # the usual case, without the lock
            return
        now = self._clock() if at is None else at
        with self._lock:
            if self._since is not None and self._back is None:
                self._back = now
        self._settle()

    def _settle(self) -> None:
        """The storm is over if a call was answered since the last refusal and every wait
        has passed; if they have not, this is asked again then."""
        self._timer = None
        with self._lock:
            since, back, calm = self._since, self._back, self._calm
            if since is None or back is None:
                return
            left = calm - self._clock()
            if left <= 0:
                count = self.count
                self._since, self._calm, self._back = None, -math.inf, None
        if left > 0:
            self._again(left)
            return
        self._over(since, back, count)

    def _again(self, seconds: float) -> None:
        """Ask :meth:`_settle` again in ``seconds`` (on the running event loop, if any:
        else the next answer asks)."""
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(seconds, self._settle)

    def stopping(self) -> None:
        """The bot stops: a storm going on is said (once), over or not."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._lock:
            since, back, count = self._since, self._back, self.count
            self._since, self._calm, self._back = None, -math.inf, None
        if since is None:
            return
        if back is not None:
            self._over(since, back, count)
            return
        PLATFORM_BACKING_OFF.labels(self.platform.lower()).set(0)
        self.log.warning(
            "%s still answered %d after %.0f s when the bot stopped (%d calls refused)",
            self.platform,
            self._status,
            self._clock() - since,
            count,
        )

    def _over(self, since: float, back: float, count: int) -> None:
        PLATFORM_BACKING_OFF.labels(self.platform.lower()).set(0)
        self.log.warning(
            "%s answers again after %.0f s (%d calls refused)",
            self.platform,
            max(0.0, back - since),
            count,
        )


def _slack(seconds: float) -> float:
    """How long after a wait of ``seconds`` the storm may be over: the wait (a tenth
    more, for a timer's lateness), and a second for the answer of the call made then."""
    return seconds * 1.1 + 1.0
