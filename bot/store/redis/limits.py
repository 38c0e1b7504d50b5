"""The limits kept in Redis, shared by every worker on it (see :mod:`bot.store.limits`).

Keys, under the store's bot-wide base (``ludo:{ludo}:``: one hash tag, so the
script that takes a person's and a chat's budgets at once runs on Redis Cluster)::

    {base}rl:{bucket}      string: the time the bucket is full again (Redis' clock)
    {base}rl:t:{bucket}    string "1": told of that bucket, for TELL_EVERY seconds
    {base}open:{person}    sorted set: game id -> when the person opened it

Every key expires on its own: a bucket when it is full again, a person's open
games :data:`OPEN_TTL` after the last one was opened.  :data:`TAKE` takes the
tokens of every bucket asked, or none, in one script on Redis' own clock, so
workers on hosts whose clocks differ still share one budget (a clock can be given
instead, for tests).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager

import redis
import redis.exceptions

from bot.store.limits import PER_PERSON, TAKEN, TELL_EVERY, Rate, Taken
from bot.store.redis import ops
from bot.store.redis.beside import Beside
from bot.store.redis.store import RedisStore

#: a person's list of open games is forgotten this long after their last new game
OPEN_TTL = 30 * 24 * 3600


#: KEYS: the buckets, then (to tell) their tell keys.  ARGV: the number of buckets, then
#: per bucket its interval (seconds between tokens) and burst, then TELL_EVERY (ms),
#: then the time ("": Redis' own).  Returns {refused (0: taken, else the 1-based first
#: empty bucket), wait (a string of seconds), told (1: that bucket's tell key was free)}.
def lua_now(arg: str) -> str:
    """Lua setting ``now`` to the time given in ``arg`` (a script's ARGV), or, given
    "", to Redis' own clock."""
    return f"""
local now = tonumber({arg})
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) + tonumber(t[2]) / 1000000
end
"""


#: the times are kept to the microsecond: a bucket over by less than that is not over
#: (its time was rounded up when it was kept)
TAKE = (
    "local n = tonumber(ARGV[1])"
    + lua_now("ARGV[2 * n + 3]")
    + """
local news, refused, wait = {}, 0, 0
for i = 1, n do
  local interval, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local tat = tonumber(redis.call('GET', KEYS[i])) or now
  if tat < now then tat = now end
  local new = tat + interval
  local over = new - now - burst * interval
  if over > 0.000001 then
    if refused == 0 then refused = i end
    if over > wait then wait = over end
  end
  news[i] = new
end
if refused == 0 then
  for i = 1, n do
    local ms = math.ceil((news[i] - now) * 1000) + 1
    redis.call('SET', KEYS[i], string.format('%.6f', news[i]), 'PX', ms)
  end
  return {0, '0', 0}
end
local told = 0
if #KEYS > n and redis.call('SET', KEYS[n + refused], '1', 'NX', 'PX', ARGV[2 * n + 2]) then
  told = 1
end
return {refused, string.format('%.6f', wait), told}
"""
)

#: KEYS: a bucket.  ARGV: its interval, the time ("": Redis' own).  A token given back.
REFUND = (
    lua_now("ARGV[2]")
    + """
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
)


class RedisBuckets:
    """Token buckets in the Redis of ``client``, under ``base``; ``where`` names that
    Redis in errors (its URL without password)."""

    shared = True

    def __init__(
        self,
        client: redis.Redis,
        base: str,
        where: str,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.client = client
        self.base = base
        self.where = where
        #: the time (None: Redis' own, the same for every worker)
        self.clock = clock
        self._take = client.register_script(TAKE)
        self._refund = client.register_script(REFUND)

    @classmethod
    def of(cls, store: RedisStore, clock: Callable[[], float] | None = None) -> RedisBuckets:
        """The buckets beside the games of ``store`` (its connections, its keys)."""
        return cls(store.client, store.base, store.url, clock)

    def take(self, asks: Sequence[tuple[str, Rate]], tell: bool = False) -> Taken:
        if not asks:
            return TAKEN
        keys = [f"{self.base}rl:{key}" for key, _ in asks]
        args: list[str | int] = [len(asks)]
        for _, rate in asks:
            args += [repr(rate.interval), rate.burst]
        if tell:
            keys += [f"{self.base}rl:t:{key}" for key, _ in asks]
        args += [round(TELL_EVERY * 1000), "" if self.clock is None else repr(self.clock())]
        with errors(self.where):
            refused, wait, told = self._take(keys=keys, args=args)
        return Taken(int(refused), float(wait), bool(told))

    def refund(self, key: str, rate: Rate) -> None:
        args = [repr(rate.interval), "" if self.clock is None else repr(self.clock())]
        with errors(self.where):
            self._refund(keys=[f"{self.base}rl:{key}"], args=args)


class RedisOpenGames(Beside):
    """Each person's open games in the Redis of ``client``, under ``base``."""

    def _key(self, person: str) -> str:
        return f"{self.base}open:{person}"

    def ids(self, person: str) -> list[str]:
        with errors(self.where):
            found = self.client.zrange(self._key(person), 0, -1)
        return [i.decode(errors="replace") if isinstance(i, bytes) else str(i) for i in found]

    def add(self, person: str, game_id: str) -> None:
        key = self._key(person)
        with errors(self.where):
            pipe = self.client.pipeline(transaction=True)
            pipe.zadd(key, {game_id: time.time()})
            pipe.zremrangebyrank(key, 0, -PER_PERSON - 1)
            pipe.expire(key, OPEN_TTL)
            pipe.execute()

    def drop(self, person: str, game_ids: Collection[str]) -> None:
        if game_ids:
            with errors(self.where):
                self.client.zrem(self._key(person), *game_ids)


@contextmanager
def errors(where: str) -> Iterator[None]:
    """Redis errors as StoreError, with a message an operator understands."""
    try:
        yield
    except redis.exceptions.RedisError as exc:
        raise ops.translate(exc, where, ops.SOCKET_TIMEOUT) from exc
