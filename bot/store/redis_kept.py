"""Finished games kept for good in Redis: the part of :class:`bot.store.redis.RedisStore`
behind ``keep``, ``last_game``, ``entries`` and ``forget`` (see
:class:`bot.store.base.Store`).

Key layout, under the store's base (``ludo:{ludo}:``, with its Redis Cluster
hash tag), none of them with an expiry::

    {base}kept              hash: kept key -> the token of the keep that wrote it
    {base}stats:{key}       hash: who played a seat -> its stats entry (bytes)
    {base}chat:{chat}       sorted set: kept key -> the Unix time it finished
    {base}person:{who}      set: the kept keys with an entry of ``who``
    {base}last:{channel}    hash: finished, key, game (the bytes) of the
                            channel's game that finished last
    {base}named:{who}       set: the channels whose last game named ``who``
                            (when it became their last: a later one may not)

Each name ends in its one free part (a key, chat, person or channel) after a
kind that no other kind of the store starts with, so two names never meet
whatever ``:`` the free parts hold; fields and members are whole strings,
never joined.  ``keep`` is one script: it refuses a key already in ``kept``,
else writes the stats, the chat's and the people's indexes, the channel's
last game if this one finished later, and the key into ``kept`` last (with
a token, so the same script sent again after a lost reply answers True).
``entries`` and ``forget`` are scripts too, so each is atomic; ``forget``
sent again after a lost reply finds nothing left and answers 0.  Its scrub of
the last games first reads each one named, then replaces it by script only if
it is still that channel's last game.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
import redis.exceptions

from bot.store import redis_ops as ops
from bot.store import redis_scripts as lua
from bot.store.base import Kept, Scrub


class KeptGames:
    """The finished games kept in the Redis of ``client``, under ``base``;
    ``where`` names that Redis in errors (its URL without password)."""

    def __init__(self, client: redis.Redis, base: str, where: str) -> None:
        self.client = client
        self.base = base
        self.where = where
        reg = client.register_script
        self._keep, self._entries, self._forget, self._scrub = (
            reg(lua.KEEP),
            reg(lua.ENTRIES),
            reg(lua.FORGET),
            reg(lua.SCRUB),
        )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Redis errors as StoreError, with a message an operator understands."""
        try:
            yield
        except redis.exceptions.RedisError as exc:
            raise ops.translate(exc, self.where, ops.SOCKET_TIMEOUT) from exc

    def _key(self, kind: str, name: str = "") -> str:
        return f"{self.base}{kind}{name}"

    def keep(self, kept: Kept) -> bool:
        return self.keep_once(kept, os.urandom(12).hex())

    def keep_once(self, kept: Kept, token: str) -> bool:
        """``keep`` marked with ``token`` (the same token again: the same keep)."""
        who = list(kept.entries)
        keys = [
            self._key("kept"),
            self._key("stats:", kept.key),
            self._key("chat:", kept.chat),
            self._key("last:", kept.channel),
            *(self._key("person:", person) for person in who),
            *(self._key("named:", person) for person in kept.people),
        ]
        args: list[Any] = [token, kept.key, repr(float(kept.finished)), bytes(kept.game)]
        args += [kept.channel, len(who)]
        for person in who:
            args += [person, bytes(kept.entries[person])]
        with self._errors():
            return bool(self._keep(keys=keys, args=args))

    def last_game(self, channel: str) -> bytes | None:
        with self._errors():
            try:
                found = self.client.hget(self._key("last:", channel), "game")
            except redis.exceptions.ResponseError as exc:
                if str(exc).startswith("WRONGTYPE"):
                    return None  # no last game there: the next keep replaces it
                raise
        return found if isinstance(found, bytes) else None

    def entries(self, chat: str, since: float = 0.0) -> list[tuple[str, bytes]]:
        with self._errors():
            found = self._entries(
                keys=[self._key("chat:", chat)], args=[repr(float(since)), self.base]
            )
        out: list[tuple[str, bytes]] = []
        for flat in found[1::2]:  # [key, [who, entry, ...], key, ...]
            pairs = sorted(zip(flat[::2], flat[1::2], strict=True))
            out += [(bytes(who).decode(errors="replace"), bytes(entry)) for who, entry in pairs]
        return out

    def forget(self, person: str, scrub: Scrub | None = None) -> int:
        named = self._key("named:", person)
        with self._errors():
            if scrub is not None:
                for channel in self._named(named):
                    last = self._key("last:", channel.decode(errors="replace"))
                    found = self._read_last(last)
                    new = scrub(found[1]) if found is not None else None
                    if found is not None and new is not None:
                        self._scrub(keys=[last], args=[found[0], new])
            return int(
                self._forget(keys=[self._key("person:", person), named], args=[person, self.base])
            )

    def _named(self, named: str) -> list[bytes]:
        try:
            found = self.client.smembers(named)
        except redis.exceptions.ResponseError as exc:
            if str(exc).startswith("WRONGTYPE"):
                return []
            raise
        return sorted(m for m in found if isinstance(m, bytes))

    def _read_last(self, last: str) -> tuple[bytes, bytes] | None:
        """The key and the bytes of a channel's last game (None: none there)."""
        try:
            key, game = self.client.hmget(last, ["key", "game"])
        except redis.exceptions.ResponseError as exc:
            if str(exc).startswith("WRONGTYPE"):
                return None
            raise
        return (key, game) if isinstance(key, bytes) and isinstance(game, bytes) else None
