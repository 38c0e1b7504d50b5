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

from bot.store import redis_scripts as lua
from bot.store.base import DEFAULT_TTL, KEEP, Keep, Shown, Stored, StoreError

#: seconds to wait for a connection to Redis, and for an answer
CONNECT_TIMEOUT = 5.0
SOCKET_TIMEOUT = 15.0


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
        self._create = self._client.register_script(lua.CREATE)
        self._save = self._client.register_script(lua.SAVE)
        self._save_shown = self._client.register_script(lua.SAVE_SHOWN)
        self._load_in = self._client.register_script(lua.LOAD_IN)
        self._channel_game = self._client.register_script(lua.CHANNEL_GAME)
        self._release = self._client.register_script(lua.RELEASE)
        self._claim = self._client.register_script(lua.CLAIM)
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
