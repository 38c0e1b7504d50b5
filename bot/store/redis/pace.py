"""The platforms' send limits kept in Redis, so that every worker together keeps them
(see :mod:`bot.store.pace` for the paces themselves).

One script takes a call's right atomically: it reads the chat's and the bot's
theoretical arrival times, and only if both paces allow the call moves both
on; otherwise it answers how long to wait.  Time is Redis's own (``TIME``),
so workers whose clocks differ still agree.  Keys, under the store's bot-wide
base (one Redis Cluster hash tag: the script moves a chat's pace and the bot's
together)::

    {base}pace:{platform}:{chat}   string: the chat's theoretical arrival time (ms)
    {base}pace:{platform}          string: the bot's

each expiring once it no longer holds anything back.

When Redis cannot be reached the pacer falls back to paces kept in this
process (logged once, at the start of the outage), and asks Redis again only
after :data:`RETRY` seconds: sending goes on within the limits as one worker sees
them, without waiting on a Redis that does not answer; the next answer from
Redis ends the fallback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import redis
import redis.exceptions

from bot.store.pace import Limits, MemoryPacer, PaceKey

log = logging.getLogger(__name__)

#: seconds between two tries of a Redis that could not be reached
RETRY = 5.0

# KEYS: the chat's pace, the bot's pace
# ARGV: chat interval (ms, 0: none), chat burst, bot interval (ms, 0: none), bot burst
# Answers the milliseconds to wait (0: taken).
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function step(key, interval, burst)
  if interval <= 0 then return 0, nil end
  local tat = tonumber(redis.call('GET', key) or '')
  if tat == nil or tat < now then tat = now end
  local new = tat + interval
  local wait = new - now - burst * interval
  if wait < 0 then wait = 0 end
  return wait, new
end
local ci, cb, bi, bb = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local cw, cnew = step(KEYS[1], ci, cb)
local bw, bnew = step(KEYS[2], bi, bb)
if cw > 0 or bw > 0 then return math.max(cw, bw) end
if cnew then redis.call('SET', KEYS[1], cnew, 'PX', math.max(1, cnew - now)) end
if bnew then redis.call('SET', KEYS[2], bnew, 'PX', math.max(1, bnew - now)) end
return 0
"""


class RedisPacer:
    """The paces of ``platform`` kept in the Redis of ``client`` under ``base``."""

    def __init__(
        self,
        client: redis.Redis,
        base: str,
        limits: Limits,
        platform: str = "tg",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self._take = client.register_script(TAKE)
        self._base = f"{base}pace:{platform}"
        #: the paces used while Redis cannot be reached
        self.fallback = MemoryPacer(limits, clock)
        self.clock = clock
        self._down = False
        self._retry_at = 0.0

    def try_take(self, chat: PaceKey) -> float:
        interval, burst = self.limits.pace(chat)
        bot_interval, bot_burst = self.limits.bot_pace()
        if interval <= 0 and bot_interval <= 0:
            return 0.0
        if self._down and self.clock() < self._retry_at:
            return self.fallback.try_take(chat)
        try:
            waited = self._take(
                keys=[f"{self._base}:{chat}", self._base],
                args=[round(interval * 1000), burst, round(bot_interval * 1000), bot_burst],
            )
        except redis.exceptions.RedisError as e:
            if not self._down:
                log.warning("send limits kept in this worker alone: Redis: %s", type(e).__name__)
                self._down = True
            self._retry_at = self.clock() + RETRY
            return self.fallback.try_take(chat)
        if self._down:
            log.warning("send limits shared through Redis again")
            self._down = False
        return int(waited) / 1000
