"""What the live board's Discord sign-in keeps: the access tokens the bot issued
(:class:`Issued`) and the budget of the requests to Discord that web requests cause
(:class:`CallBudget`), in this process (the SQLite mode: one process).  The Redis
versions, shared by every worker, are in :mod:`bot.store.redis.signin`.

**Issued tokens.**  The bot exchanges the Embedded App SDK's code itself
(``POST /api/discord/token``) and asks Discord once, with the fresh token, who it
belongs to.  It keeps a digest of the token (SHA-256: a token is 30 random
characters, so the digest gives nothing away) with the person, until Discord says
the token expires.  A session is then signed in by looking the digest up, with no
call to Discord: a token the bot never issued is never sent there.

**The budget.**  Discord shuts an address out of its whole API for a while after
10,000 invalid requests (answered 401, 403 or 429) in 10 minutes.  Every request a
web request causes takes, before it is made, a token from two buckets (the generic
cell rate algorithm, as :mod:`bot.store.limits`):

* **calls**: every request, answered well or not (:attr:`BudgetRates.calls`);
* **failures**: the request's right to be refused (:attr:`BudgetRates.failures`).
  A request answered 2xx (or 5xx, or not at all) gives it back at once
  (:meth:`CallBudget.refund`); one answered 4xx keeps it.  Taken *before* the
  request, it bounds the refusals in flight too: however many workers ask at once,
  no more requests can be refused than the bucket holds.

A 429 (or a bucket Discord says is empty: ``X-RateLimit-Remaining: 0``) holds its
route, or every route for a global limit, until the time Discord gives
(:meth:`CallBudget.hold`): nothing is asked there before it.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from bot.store.limits import Rate, gcra

#: the most tokens kept in memory (the oldest go first)
MEMORY_TOKENS = 100_000
#: the longest a token is kept, in seconds (Discord's access tokens last 7 days)
LONGEST = 7 * 24 * 3600.0
#: the scope a global limit holds
GLOBAL = "global"
#: a wait shorter than this is none (Redis keeps the times to the microsecond)
TOLERANCE = 1e-6


def digest(token: str) -> str:
    """What is kept of an access token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class BudgetRates:
    """The budget of the requests to Discord that web requests cause (every worker
    together).  Discord's limits are 50 requests a second for a bot, and 10,000
    invalid requests in 10 minutes for an address; the defaults keep to a fifth of the
    first and, under any attack, to 3.4% of the second: 40 refusals at once, then one
    every 2 s (340 in 10 minutes, 70 in a minute)."""

    #: every request: 50 at once, then 10 a second
    calls: Rate = field(default_factory=lambda: Rate(50, 10.0))
    #: requests Discord may refuse: 40 at once, then one every 2 seconds
    failures: Rate = field(default_factory=lambda: Rate(40, 0.5))


class Issued(Protocol):
    """The access tokens the bot issued, by digest (:func:`digest`)."""

    #: kept in a store (asked from a thread) rather than in this process
    shared: bool

    def keep(self, token_digest: str, login: str, seconds: float) -> None:
        """Keep ``login`` (the person, as the board writes it) for ``seconds``.
        Raises StoreError."""
        ...

    def find(self, token_digest: str) -> str | None:
        """The login kept for the digest (None: none, or it expired).  Raises
        StoreError."""
        ...


class CallBudget(Protocol):
    """The shared budget of the requests to Discord that web requests cause."""

    shared: bool
    rates: BudgetRates

    def reserve(self, route: str) -> float:
        """A request on ``route`` may be made now: 0, a token taken from both buckets;
        else the seconds to wait (nothing taken): a bucket is empty, or the route (or
        every route) is held.  Raises StoreError."""
        ...

    def refund(self) -> None:
        """The request reserved was not refused: its failure token is given back.
        Raises StoreError."""
        ...

    def hold(self, scope: str, seconds: float) -> None:
        """Nothing is asked on ``scope`` (a route, or :data:`GLOBAL`) for ``seconds``
        (a longer hold already there stays).  Raises StoreError."""
        ...


class MemoryIssued:
    """The tokens issued, in this process (safe from any thread)."""

    shared = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[float, str]] = OrderedDict()

    def keep(self, token_digest: str, login: str, seconds: float) -> None:
        until = self._clock() + min(seconds, LONGEST)
        with self._lock:
            self._kept[token_digest] = (until, login)
            self._kept.move_to_end(token_digest)
            while len(self._kept) > MEMORY_TOKENS:
                self._kept.popitem(last=False)

    def find(self, token_digest: str) -> str | None:
        with self._lock:
            found = self._kept.get(token_digest)
            if found is None:
                return None
            if found[0] <= self._clock():
                del self._kept[token_digest]
                return None
            return found[1]


class MemoryBudget:
    """The budget in this process (safe from any thread)."""

    shared = False

    def __init__(
        self, rates: BudgetRates | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rates = rates or BudgetRates()
        self._clock = clock
        self._lock = threading.Lock()
        self._calls = self._failures = -1e300
        #: scope -> the time it is free again
        self._held: dict[str, float] = {}

    def reserve(self, route: str) -> float:
        now = self._clock()
        with self._lock:
            held = max(self._held.get(route, now), self._held.get(GLOBAL, now)) - now
            calls, wait_calls = gcra(self._calls, now, self.rates.calls)
            failures, wait_failures = gcra(self._failures, now, self.rates.failures)
            wait = max(held, wait_calls, wait_failures)
            if wait > TOLERANCE:
                return wait
            self._calls, self._failures = calls, failures
            return 0.0

    def refund(self) -> None:
        now = self._clock()
        with self._lock:
            self._failures = max(now, self._failures - self.rates.failures.interval)

    def hold(self, scope: str, seconds: float) -> None:
        now = self._clock()
        with self._lock:
            self._held = {k: t for k, t in self._held.items() if t > now}
            self._held[scope] = max(self._held.get(scope, now), now + seconds)
