"""What the live board's Discord sign-in keeps in Redis, shared by every worker on it
(see :mod:`bot.store.signin`).

Keys, under the store's bot-wide base (``ludo:{ludo}:``: one hash tag, so each script
runs on Redis Cluster)::

    {base}dt:{digest}        string: the person an issued access token is of
    {base}db:calls           string: the time the calls bucket is full again
    {base}db:fail            string: the time the failures bucket is full again
    {base}db:hold:{scope}    string "1": nothing asked on that route (or every route,
                             ``global``) while it lives

Every key expires on its own: a token when Discord says it does, a bucket when it is
full again, a hold when Discord said it may be asked again.  The buckets run on
Redis' own clock, so workers whose clocks differ share one budget (a clock can be
given instead, for tests).
"""

from __future__ import annotations

from collections.abc import Callable

import redis

from bot.store.redis.limits import errors
from bot.store.redis.store import RedisStore
from bot.store.signin import GLOBAL, LONGEST, BudgetRates

#: KEYS: calls, failures, the route's hold, the global hold.  ARGV: calls' interval and
#: burst, failures' interval and burst, the time ("": Redis' own).  Returns the wait in
#: seconds, as a string ("0": both tokens taken; a refusal is at least "0.000001").
RESERVE = """
local now = tonumber(ARGV[5])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local wait = math.max(redis.call('PTTL', KEYS[3]), redis.call('PTTL', KEYS[4]), 0) / 1000
local news = {}
for i = 1, 2 do
  local interval, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i])) or now
  if tat < now then tat = now end
  news[i] = tat + interval
  local over = news[i] - now - burst * interval
  if over > wait then wait = over end
end
-- the times are kept to the microsecond: a wait shorter than that is none
if wait > 0.000001 then return string.format('%.6f', wait) end
for i = 1, 2 do
  local ms = math.ceil((news[i] - now) * 1000) + 1
  redis.call('SET', KEYS[i], string.format('%.6f', news[i]), 'PX', ms)
end
return '0'
"""

#: KEYS: failures.  ARGV: its interval, the time ("": Redis' own).
REFUND = """
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local tat = tonumber(redis.call('GET', KEYS[1]))
if not tat then return 0 end
local new = tat - tonumber(ARGV[1])
if new <= now then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.6f', new), 'PX', math.ceil((new - now) * 1000) + 1)
end
return 1
"""

#: KEYS: the hold.  ARGV: milliseconds.  A longer hold already there stays.
HOLD = """
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
"""


class RedisIssued:
    """The tokens issued, in the Redis of ``client`` under ``base``."""

    shared = True

    def __init__(self, client: redis.Redis, base: str, where: str) -> None:
        self.client = client
        self.base = base
        self.where = where

    @classmethod
    def of(cls, store: RedisStore) -> RedisIssued:
        return cls(store.client, store.base, store.url)

    def keep(self, token_digest: str, login: str, seconds: float) -> None:
        ms = max(1, round(min(seconds, LONGEST) * 1000))
        with errors(self.where):
            self.client.set(f"{self.base}dt:{token_digest}", login, px=ms)

    def find(self, token_digest: str) -> str | None:
        with errors(self.where):
            found = self.client.get(f"{self.base}dt:{token_digest}")
        if found is None:
            return None
        return found.decode(errors="replace") if isinstance(found, bytes) else str(found)


class RedisBudget:
    """The budget in the Redis of ``client`` under ``base``, for every worker there."""

    shared = True

    def __init__(
        self,
        client: redis.Redis,
        base: str,
        where: str,
        rates: BudgetRates | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.client = client
        self.base = base
        self.where = where
        self.rates = rates or BudgetRates()
        #: the time (None: Redis' own, the same for every worker)
        self.clock = clock
        self._reserve = client.register_script(RESERVE)
        self._refund = client.register_script(REFUND)
        self._hold = client.register_script(HOLD)

    @classmethod
    def of(
        cls,
        store: RedisStore,
        rates: BudgetRates | None = None,
        clock: Callable[[], float] | None = None,
    ) -> RedisBudget:
        return cls(store.client, store.base, store.url, rates, clock)

    def _now(self) -> str:
        return "" if self.clock is None else repr(self.clock())

    def reserve(self, route: str) -> float:
        calls, failures = self.rates.calls, self.rates.failures
        keys = [
            f"{self.base}db:calls",
            f"{self.base}db:fail",
            f"{self.base}db:hold:{route}",
            f"{self.base}db:hold:{GLOBAL}",
        ]
        args: list[str | int] = [
            repr(calls.interval),
            calls.burst,
            repr(failures.interval),
            failures.burst,
            self._now(),
        ]
        with errors(self.where):
            wait = self._reserve(keys=keys, args=args)
        return float(wait)

    def refund(self) -> None:
        args = [repr(self.rates.failures.interval), self._now()]
        with errors(self.where):
            self._refund(keys=[f"{self.base}db:fail"], args=args)

    def hold(self, scope: str, seconds: float) -> None:
        ms = max(1, round(seconds * 1000))
        with errors(self.where):
            self._hold(keys=[f"{self.base}db:hold:{scope}"], args=[ms])
