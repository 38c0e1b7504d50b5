"""The Redis store: games shared by several workers on several hosts.

Key layout (``prefix`` defaults to ``"ludo:"``)::

    {prefix}game:{id}        hash: rev, data (the bytes), channel, exp, tok,
                             and the adapters' notes: shown (the bytes),
                             srev (their revision; absent: no notes), stok
    {prefix}chan:{channel}   string: the id of the game bound to the channel
    {prefix}due              sorted set: game id -> deadline (Unix time)

A game key and its channel key carry the store's ttl as a Redis expiry,
set on create and renewed by every save (the channel key only while it is
still bound to that game).  ``exp`` is the same expiry by the store's
``clock``: a game past it is treated as gone even if Redis still holds the
key, so the store honours an injected clock, and Redis itself deletes it
soon after.  The notes live in the game's hash, so ``load`` reads them in
the same HMGET and they expire with the game; ``save_shown`` does not
touch the expiry.  A create deletes whatever an expired game with the same
id left, notes included.  Deadlines of games that are gone are dropped by
``claim_due``.

``create``, ``save``, ``save_shown``, ``load_in``, ``claim_due``,
``channel_game`` and ``release_channel`` are Lua scripts, each atomic on
the server; ``save`` sets or removes the deadline and releases the channel
in the same script.  Each create and save also writes a random token
(field ``tok``; ``stok`` for ``save_shown``): redis-py sends a command
again after a connection error, and a write whose reply was lost then
finds its own token and answers True instead of a false "someone else got
there first".

The scripts touch keys derived from values they read (the game a channel
is bound to), so this store wants a single Redis server (with replicas if
you like), not Redis Cluster.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import redis
import redis.exceptions

from bot.store.base import DEFAULT_TTL, KEEP, Keep, Shown, Stored, StoreError

#: seconds to wait for a connection to Redis, and for an answer
CONNECT_TIMEOUT = 5.0
SOCKET_TIMEOUT = 15.0

# Shared by the scripts: is the game at key k there and not past its exp?
_ALIVE = """
local function alive(k, now)
  local e = redis.call('HGET', k, 'exp')
  return e ~= false and tonumber(e) > now
end
"""

# KEYS: game key, channel key
# ARGV: data, channel, now, exp, ttl_ms, prefix, game_id, token, due ('' for none)
_CREATE = (
    _ALIVE
    + """
-- this very create, sent again after its reply was lost: it was done
if redis.call('HGET', KEYS[1], 'tok') == ARGV[8] then return 1 end
local now = tonumber(ARGV[3])
if alive(KEYS[1], now) then return 0 end
local bound = redis.call('GET', KEYS[2])
if bound then
  local bk = ARGV[6] .. 'game:' .. bound
  if alive(bk, now) and redis.call('HGET', bk, 'channel') == ARGV[2] then return 0 end
end
-- leftovers of an expired game with this id: its channel binding, notes and deadline
local old = redis.call('HGET', KEYS[1], 'channel')
if old and old ~= ARGV[2] then
  local ok = ARGV[6] .. 'chan:' .. old
  if redis.call('GET', ok) == ARGV[7] then redis.call('DEL', ok) end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'rev', '1', 'data', ARGV[1], 'channel', ARGV[2], 'exp', ARGV[4],
           'tok', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[7], 'PX', ARGV[5])
if ARGV[9] == '' then
  redis.call('ZREM', ARGV[6] .. 'due', ARGV[7])
else
  redis.call('ZADD', ARGV[6] .. 'due', ARGV[9], ARGV[7])
end
return 1
"""
)

# KEYS: game key, due key
# ARGV: rev, data, now, exp, ttl_ms, prefix, game_id, token,
#       due ('keep', 'none' or the deadline), release ('1' or '0')
_SAVE = """
local cur = redis.call('HMGET', KEYS[1], 'rev', 'exp', 'channel', 'tok')
if not cur[1] or not cur[2] then return 0 end
-- this very save, sent again after its reply was lost: it was done
if cur[4] == ARGV[8] and tonumber(cur[1]) == tonumber(ARGV[1]) + 1 then return 1 end
if tonumber(cur[2]) <= tonumber(ARGV[3]) then return 0 end
if cur[1] ~= ARGV[1] then return 0 end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('HSET', KEYS[1], 'data', ARGV[2], 'exp', ARGV[4], 'tok', ARGV[8])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if cur[3] then
  local ck = ARGV[6] .. 'chan:' .. cur[3]
  if redis.call('GET', ck) == ARGV[7] then
    if ARGV[10] == '1' then
      redis.call('DEL', ck)
    else
      redis.call('PEXPIRE', ck, ARGV[5])
    end
  end
end
if ARGV[9] == 'none' then
  redis.call('ZREM', KEYS[2], ARGV[7])
elseif ARGV[9] ~= 'keep' then
  redis.call('ZADD', KEYS[2], ARGV[9], ARGV[7])
end
return 1
"""

# KEYS: game key
# ARGV: rev (of the notes), data, now, token
_SAVE_SHOWN = """
local cur = redis.call('HMGET', KEYS[1], 'exp', 'srev', 'stok')
if not cur[1] or tonumber(cur[1]) <= tonumber(ARGV[3]) then return 0 end
local srev = tonumber(cur[2] or '0')
-- this very write, sent again after its reply was lost: it was done
if cur[3] == ARGV[4] and srev == tonumber(ARGV[1]) + 1 then return 1 end
if srev ~= tonumber(ARGV[1]) then return 0 end
-- HSET keeps the key's expiry: the notes do not renew the game
redis.call('HSET', KEYS[1], 'shown', ARGV[2], 'srev', tostring(srev + 1), 'stok', ARGV[4])
return 1
"""

# KEYS: channel key
# ARGV: channel, now, prefix
# The game bound to the channel as {rev, data, shown, srev}, or false.
_LOAD_IN = """
local id = redis.call('GET', KEYS[1])
if not id then return false end
local g = redis.call('HMGET', ARGV[3] .. 'game:' .. id,
                     'rev', 'data', 'exp', 'channel', 'shown', 'srev')
if not g[1] or not g[2] or not g[3] or tonumber(g[3]) <= tonumber(ARGV[2]) then return false end
if g[4] ~= ARGV[1] then return false end
return {g[1], g[2], g[5] or '', g[6] or '0'}
"""

# KEYS: channel key
# ARGV: channel, now, prefix
_CHANNEL_GAME = (
    _ALIVE
    + """
local id = redis.call('GET', KEYS[1])
if not id then return false end
local gk = ARGV[3] .. 'game:' .. id
if alive(gk, tonumber(ARGV[2])) and redis.call('HGET', gk, 'channel') == ARGV[1] then
  return id
end
return false
"""
)

# KEYS: channel key
# ARGV: game_id
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: due key
# ARGV: now (deadlines), clock now (expiry), new score (now + lease), limit, prefix
_CLAIM = (
    _ALIVE
    + """
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[4])
local out, dead = {}, {}
local offset = 0
while #out < limit do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', offset, limit)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if #out >= limit then break end
    if alive(ARGV[5] .. 'game:' .. id, now) then
      out[#out + 1] = id
    else
      dead[#dead + 1] = id
    end
  end
  offset = offset + #ids
end
for _, id in ipairs(dead) do redis.call('ZREM', KEYS[1], id) end
for _, id in ipairs(out) do redis.call('ZADD', KEYS[1], ARGV[3], id) end
return out
"""
)


def redact(url: str) -> str:
    """``url`` without its password, fit for a log line or an error."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        if parts.port is not None:
            host = f"{host}:{parts.port}"
        netloc = f"{parts.username or ''}:***@{host}"
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "<unparsable Redis URL>"


class RedisStore:
    """Games in Redis, shared by every worker that uses the same URL and prefix."""

    def __init__(
        self,
        url: str,
        *,
        ttl: float = DEFAULT_TTL,
        prefix: str = "ludo:",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl must be positive, not {ttl!r}")
        self.url = redact(url)
        self.ttl = ttl
        self.prefix = prefix
        self._clock = clock
        self._ttl_ms = max(1, round(ttl * 1000))
        try:
            self._client: redis.Redis = redis.Redis.from_url(
                url,
                decode_responses=False,
                socket_connect_timeout=CONNECT_TIMEOUT,
                socket_timeout=SOCKET_TIMEOUT,
            )
        except ValueError as exc:
            raise StoreError(f"bad Redis URL {self.url!r}: {exc}") from exc
        self._create = self._client.register_script(_CREATE)
        self._save = self._client.register_script(_SAVE)
        self._save_shown = self._client.register_script(_SAVE_SHOWN)
        self._load_in = self._client.register_script(_LOAD_IN)
        self._channel_game = self._client.register_script(_CHANNEL_GAME)
        self._release = self._client.register_script(_RELEASE)
        self._claim = self._client.register_script(_CLAIM)
        try:
            with self._errors():  # fail at start-up, not at the first move
                self._client.ping()
        except StoreError:
            self.close()
            raise

    # -- plumbing ----------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Redis errors as StoreError, with a message an operator understands."""
        try:
            yield
        except redis.exceptions.AuthenticationError as exc:
            raise StoreError(f"Redis at {self.url} refused to log in: {exc}") from exc
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise StoreError(f"cannot reach Redis at {self.url}: {exc}") from exc
        except redis.exceptions.RedisError as exc:
            raise StoreError(f"Redis at {self.url} failed: {exc}") from exc

    def _game(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}"

    def _chan(self, channel: str) -> str:
        return f"{self.prefix}chan:{channel}"

    def _due(self) -> str:
        return f"{self.prefix}due"

    def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        with self._errors():
            return script(keys=keys, args=args)

    # -- the Store protocol ------------------------------------------------

    def create(self, game_id: str, data: bytes, *, channel: str, due: float | None = None) -> bool:
        return self._create_once(game_id, data, channel, _token(), due)

    def _create_once(
        self, game_id: str, data: bytes, channel: str, token: str, due: float | None = None
    ) -> bool:
        now = self._clock()
        done = self._run(
            self._create,
            [self._game(game_id), self._chan(channel)],
            [
                bytes(data),
                channel,
                repr(now),
                repr(now + self.ttl),
                self._ttl_ms,
                self.prefix,
                game_id,
                token,
                "" if due is None else repr(float(due)),
            ],
        )
        return bool(done)

    def load(self, game_id: str) -> Stored | None:
        with self._errors():
            rev, data, exp, shown, srev = self._client.hmget(
                self._game(game_id), ["rev", "data", "exp", "shown", "srev"]
            )
        if rev is None or not isinstance(data, bytes) or exp is None:
            return None
        if float(exp) <= self._clock():
            return None
        return _stored(rev, data, shown, srev)

    def load_in(self, channel: str) -> Stored | None:
        found = self._run(
            self._load_in, [self._chan(channel)], [channel, repr(self._clock()), self.prefix]
        )
        if not found:
            return None
        rev, data, shown, srev = found
        return _stored(rev, data, shown, srev)

    def save(
        self,
        game_id: str,
        data: bytes,
        rev: int,
        *,
        due: float | Keep | None = KEEP,
        release: bool = False,
    ) -> bool:
        return self._save_once(game_id, data, rev, _token(), due=due, release=release)

    def _save_once(
        self,
        game_id: str,
        data: bytes,
        rev: int,
        token: str,
        *,
        due: float | Keep | None = KEEP,
        release: bool = False,
    ) -> bool:
        if isinstance(due, Keep):
            when = "keep"
        elif due is None:
            when = "none"
        else:
            when = repr(float(due))
        now = self._clock()
        done = self._run(
            self._save,
            [self._game(game_id), self._due()],
            [
                str(int(rev)),
                bytes(data),
                repr(now),
                repr(now + self.ttl),
                self._ttl_ms,
                self.prefix,
                game_id,
                token,
                when,
                "1" if release else "0",
            ],
        )
        return bool(done)

    def save_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        return self._save_shown_once(game_id, data, rev, _token())

    def _save_shown_once(self, game_id: str, data: bytes, rev: int, token: str) -> bool:
        done = self._run(
            self._save_shown,
            [self._game(game_id)],
            [str(int(rev)), bytes(data), repr(self._clock()), token],
        )
        return bool(done)

    def channel_game(self, channel: str) -> str | None:
        found = self._run(
            self._channel_game, [self._chan(channel)], [channel, repr(self._clock()), self.prefix]
        )
        return None if found is None else bytes(found).decode()

    def release_channel(self, channel: str, game_id: str) -> None:
        self._run(self._release, [self._chan(channel)], [game_id])

    def schedule(self, game_id: str, due: float) -> None:
        with self._errors():
            self._client.zadd(self._due(), {game_id: float(due)})

    def unschedule(self, game_id: str) -> None:
        with self._errors():
            self._client.zrem(self._due(), game_id)

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        if limit <= 0:
            return []
        ids = self._run(
            self._claim,
            [self._due()],
            [repr(float(now)), repr(self._clock()), repr(float(now + lease)), limit, self.prefix],
        )
        return [bytes(i).decode() for i in ids]

    def close(self) -> None:
        with suppress(redis.exceptions.RedisError):  # a broken connection: nothing to do
            self._client.close()

    # -- extras ------------------------------------------------------------

    def __enter__(self) -> RedisStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, ttl={self.ttl!r}, prefix={self.prefix!r})"


def _stored(rev: Any, data: Any, shown: Any, srev: Any) -> Stored:
    """A game read from its hash fields (srev missing or 0: no notes)."""
    notes = None
    if srev is not None and int(srev) > 0:
        notes = Shown(data=bytes(shown or b""), rev=int(srev))
    return Stored(data=bytes(data), rev=int(rev), shown=notes)


def _token() -> str:
    """A fresh mark for one create, save or save_shown, so that the same script sent
    again (redis-py retries after a connection error) knows it was done."""
    return os.urandom(12).hex()
