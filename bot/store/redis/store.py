"""The Redis store: games shared by several workers on several hosts, on one
Redis server (or one behind Sentinel) or on Redis Cluster.

Key layout: a game's keys start with the base of its *bucket* (one of 1,024:
see :mod:`bot.store.buckets`), ``{prefix}{{{tag}.{bucket}}}:`` (``ludo:{ludo.517}:``),
where ``prefix`` defaults to ``"ludo:"`` and the tag is the prefix without its
colons; the bot-wide keys start with ``{prefix}{{{tag}}}:`` (:attr:`RedisStore.base`)::

    {bucket of id}game:{id}            hash: rev, data (the bytes), channel, exp, tok,
                                       and the adapters' notes: shown (the bytes),
                                       srev (their revision; absent: no notes), stok
    {bucket of channel}chan:{channel}  string: the id of the game bound to the channel
    {bucket}due                        sorted set: game id -> deadline (Unix time)
    {base}layout                       "3": games under older key names were moved

and the finished games kept for good, in their chat's bucket (see
:mod:`bot.store.redis.kept`).

Each bucket is its own Redis Cluster hash tag: the buckets spread over the
cluster's slots and nodes.  A game made by the service has an id in its
channel's bucket (:func:`bot.store.buckets.new_game_id`), so each script
touches one slot; on one server any id works (the scripts find a key's bucket
with the same CRC-32 in Lua).  ``claim_due`` looks over every bucket at once
(see :func:`bot.store.redis.layout.claim_due`).

Older layouts (before hash tags; "2", one hash tag) are moved to the buckets
by the first store opened (see :func:`bot.store.redis.layout.migrate_old_keys`).

A game key and its channel key carry the store's ttl as a Redis expiry,
set on create and renewed by every save (the channel key only while it is
still bound to that game), counted from the game's deadline if that is later
(:func:`bot.store.base.lifetime`: a slow game waiting days for a move stays; a
save that keeps the deadline never shortens it).  ``exp`` is the same expiry by
the store's ``clock``: a game past it is treated as gone even if Redis still
holds the key, so the store honours an injected clock, and Redis itself deletes it
soon after.  The notes live in the game's hash, so ``load`` reads them in
the same HMGET and they expire with the game; ``save_shown`` does not
touch the expiry.  A create deletes whatever an expired game with the same
id left, notes included.  Deadlines of games that are gone are dropped by
``claim_due``.

Everything but ``load`` is a Lua script, atomic on the server.  Each create
and save also writes a random token (field ``tok``; ``stok`` for
``save_shown``): redis-py sends a command once more after a connection error,
and a write whose reply was lost then finds its own token and answers True
instead of a false "someone else got there first".  Every call waits at
most :data:`SOCKET_TIMEOUT` for an answer and is never sent again after a
timeout.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import redis
import redis.exceptions

from bot.store.base import KEEP, Keep, Kept, Stored, StoreError, damaged, lifetime
from bot.store.buckets import bucket
from bot.store.redis import layout, ops
from bot.store.redis.connection import RedisConnection
from bot.store.redis.ops import CONNECT_TIMEOUT, SOCKET_TIMEOUT, redact

__all__ = ["CONNECT_TIMEOUT", "SOCKET_TIMEOUT", "RedisStore", "redact"]


class RedisStore(RedisConnection):
    """Games in Redis, shared by every worker that uses the same server and prefix."""

    def create(self, game_id: str, data: bytes, *, channel: str, due: float | None = None) -> bool:
        return self._create_once(game_id, data, channel, _token(), due)

    def _create_once(
        self, game_id: str, data: bytes, channel: str, token: str, due: float | None = None
    ) -> bool:
        if self.cluster and bucket(game_id) != bucket(channel):
            raise StoreError(
                f"game id {game_id!r} is not in the bucket of channel {channel!r} "
                "(on Redis Cluster ids come from bot.store.buckets.new_game_id)"
            )
        now = self._clock()
        life = lifetime(self.ttl, now, due)
        done = self._write(
            self._create,
            [self._game(game_id), self._chan(channel), self._due(game_id)],
            [
                bytes(data),
                channel,
                repr(now),
                repr(now + life),
                _ms(life),
                self.tmpl,
                game_id,
                token,
                "" if due is None else repr(float(due)),
            ],
        )
        return bool(done)

    def load(self, game_id: str) -> Stored | None:
        fields = ["rev", "data", "exp", "channel", "shown", "srev"]
        with self._errors():
            try:
                found = self._client.hmget(self._game(game_id), fields)
            except redis.exceptions.ResponseError as exc:
                if str(exc).startswith("WRONGTYPE"):
                    raise damaged(game_id, "its key holds no hash") from exc
                raise
        return ops.read_game(game_id, list(found), self._clock())

    def load_in(self, channel: str) -> Stored | None:
        found = self._run(self._load_in, [self._chan(channel)], [self.tmpl])
        if not found:
            return None
        game_id = bytes(found[0]).decode(errors="replace")
        if found[1] == b"wrongtype":
            raise damaged(game_id, "its key holds no hash")
        return ops.read_game(game_id, list(found[2:]), self._clock(), channel)

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
        life = lifetime(self.ttl, now, due)  # KEEP: the script keeps a longer expiry
        done = self._write(
            self._save,
            [self._game(game_id), self._due(game_id)],
            [
                str(int(rev)),
                bytes(data),
                repr(now),
                repr(now + life),
                _ms(life),
                self.tmpl,
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
        done = self._write(
            self._save_shown,
            [self._game(game_id)],
            [str(int(rev)), bytes(data), repr(self._clock()), token],
        )
        return bool(done)

    def channel_game(self, channel: str) -> str | None:
        found = self._run(
            self._channel_game, [self._chan(channel)], [channel, repr(self._clock()), self.tmpl]
        )
        return None if found is None else bytes(found).decode(errors="replace")

    def active_games(self) -> int:
        with self._errors():
            return layout.count_bound(self._client, self.tmpl)

    def release_channel(self, channel: str, game_id: str) -> None:
        self._run(self._release, [self._chan(channel)], [game_id])

    def discard(self, game_id: str, channel: str) -> None:
        keys = [self._game(game_id), self._chan(channel), self._due(game_id)]
        self._run(self._discard, keys, [game_id, self.tmpl])

    def schedule(self, game_id: str, due: float) -> None:
        self._run(self._schedule, [self._due(game_id)], [game_id, repr(float(due))])

    def unschedule(self, game_id: str) -> None:
        self._run(self._schedule, [self._due(game_id)], [game_id, ""])

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        if limit <= 0:
            return []
        with self._errors():
            return layout.claim_due(
                self._client, self._claim, self.tmpl, now, self._clock(), lease, limit
            )

    def keep(self, kept: Kept) -> bool:
        return self._kept.keep(kept)

    def last_game(self, channel: str) -> bytes | None:
        return self._kept.last_game(channel)

    def entries(self, chat: str, since: float = 0.0) -> list[tuple[str, bytes]]:
        return self._kept.entries(chat, since)

    def chats(self) -> list[str]:
        return self._kept.chats()

    def forget(self, person: str, scrub: Callable[[bytes], bytes | None] | None = None) -> int:
        return self._kept.forget(person, scrub)

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, ttl={self.ttl!r}, prefix={self.prefix!r})"


def _ms(seconds: float) -> int:
    """A game's Redis expiry (PEXPIRE), in ms."""
    return max(1, round(seconds * 1000))


def _token() -> str:
    """A fresh mark for one create, save or save_shown, so that the same script sent
    again (redis-py retries after a connection error) knows it was done."""
    return os.urandom(12).hex()
