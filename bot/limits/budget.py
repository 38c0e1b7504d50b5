"""The budget of the requests to Discord that web requests cause (the live board's
sign-in), every worker together.

Discord shuts an address out of its whole API for a while after 10,000 invalid
requests (answered 401, 403 or 429) in 10 minutes.  Every request a web request causes
takes, before it is made, a token from two of the rate limits' buckets
(:mod:`bot.store.limits`: in Redis for every worker, or in this process):

* **calls**: every request, answered well or not (:attr:`BudgetRates.calls`);
* **refusals**: the request's right to be refused (:attr:`BudgetRates.refusals`).  A
  request answered 2xx (or 5xx, or not at all) gives it back at once
  (:meth:`CallBudget.refund`); one answered 4xx keeps it.  Taken *before* the
  request, it bounds the refusals in flight too: however many workers ask at once, no
  more requests can be refused than the bucket holds.

A route Discord asked to wait on (a 429, or ``X-RateLimit-Remaining: 0``) is held
until Discord's time (:mod:`bot.store.signin`'s holds): nothing is asked there before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..store.limits import Buckets, Rate
from ..store.signin import GLOBAL, Holds

#: the buckets' keys among the rate limits'
CALLS, REFUSALS = "dc:calls", "dc:refusals"
#: the wait told for a refusal that came to less (a bucket over by a rounding)
LEAST = 0.001


@dataclass(frozen=True)
class BudgetRates:
    """The budget's buckets.  Discord's limits are 50 requests a second for a bot, and
    10,000 invalid requests in 10 minutes for an address; the defaults keep to a fifth
    of the first and, under any attack, to 3.4% of the second: 40 refusals at once,
    then one every 2 s (340 in 10 minutes, 70 in a minute)."""

    #: every request: 50 at once, then 10 a second
    calls: Rate = field(default_factory=lambda: Rate(50, 10.0))
    #: requests Discord may refuse: 40 at once, then one every 2 seconds
    refusals: Rate = field(default_factory=lambda: Rate(40, 0.5))


class CallBudget:
    """The budget in ``buckets`` (the rate limits') and ``holds``.  Its methods may
    block on a store: call them from a thread when :attr:`shared`.  Each raises
    StoreError."""

    def __init__(self, buckets: Buckets, holds: Holds, rates: BudgetRates | None = None) -> None:
        self.buckets = buckets
        self.holds = holds
        self.rates = rates or BudgetRates()

    @property
    def shared(self) -> bool:
        """Kept in a store (asked from a thread) rather than in this process."""
        return self.buckets.shared or self.holds.shared

    def reserve(self, route: str) -> float:
        """A request on ``route`` may be made now: 0, a call and a refusal taken; else
        the seconds to wait (nothing taken): the route (or every route) is held, or a
        bucket is empty."""
        held = self.holds.left((route, GLOBAL))
        if held > 0:
            return held
        asks = [(CALLS, self.rates.calls), (REFUSALS, self.rates.refusals)]
        taken = self.buckets.take(asks)
        return max(taken.wait, LEAST) if taken.refused else 0.0

    def refund(self) -> None:
        """The request reserved was not refused: its refusal is given back."""
        self.buckets.refund(REFUSALS, self.rates.refusals)

    def hold(self, scope: str, seconds: float) -> None:
        """Nothing is asked on ``scope`` (a route, or every route: ``global``) for
        ``seconds``."""
        self.holds.hold(scope, seconds)
