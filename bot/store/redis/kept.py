"""Finished games kept for good in Redis: the part of :class:`bot.store.redis.store.RedisStore`
behind ``keep``, ``last_game``, ``entries`` and ``forget`` (see
:class:`bot.store.base.Store`).

Key layout: under the base of the bucket of the game's *chat* (``ludo:{ludo.517}:``,
see :mod:`bot.store.buckets`), so that each chat's kept games share one Redis
Cluster slot and the chats spread over the cluster; none of them with an expiry::

    {chat's}kept              hash: kept key -> the token of the keep that wrote it
    {chat's}stats:{key}       hash: who played a seat -> its stats entry (bytes)
    {chat's}chat:{chat}       sorted set: kept key -> the Unix time it finished
    {chat's}person:{who}      set: the kept keys of this bucket with an entry of ``who``
    {chat's}last:{channel}    hash: finished, key, game (the bytes) of the
                              channel's game that finished last
    {chat's}named:{who}       set: the channels whose last game named ``who``
                              (when it became their last: a later one may not)

and, outside the chat's bucket::

    {base}chats                  set: every chat with a kept game, bot-wide
    {base}chats-listed           string: the chats kept before that set are in it
    {who's}in:{who}              set: the buckets with a kept game of ``who``
                                 (written first: forget must find them all)
    {channel's}lastin:{channel}  string: the chat of the channel's last game
    {base}kept                   hash: every kept key -> its token, bot-wide
                                 (written last; a key kept in another chat
                                 is refused before anything is written)

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

from bot.store.base import Kept, Scrub, unavailable
from bot.store.buckets import bucket
from bot.store.redis import kept_scripts as lua
from bot.store.redis import ops


class KeptGames:
    """The finished games kept in the Redis of ``client``, under the bucket bases
    made from ``tmpl`` (``%d`` for the bucket); ``where`` names that Redis in errors
    (its URL without password)."""

    def __init__(self, client: Any, base: str, tmpl: str, where: str) -> None:
        self.client = client
        self.tmpl = tmpl
        self.where = where
        #: every kept key, bot-wide (see the module docstring)
        self.marks = f"{base}kept"
        #: every chat with a kept game, bot-wide; set once the chats kept before it are in
        self.chat_set, self.chats_listed = f"{base}chats", f"{base}chats-listed"
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
        except redis.exceptions.RedisClusterException as exc:  # no node answers
            raise unavailable(f"Redis Cluster at {self.where}: {exc}") from exc

    def _at(self, name: str) -> str:
        """The base of the bucket of ``name`` (a chat, channel or person)."""
        return self.tmpl % bucket(name)

    def keep(self, kept: Kept) -> bool:
        return self.keep_once(kept, os.urandom(12).hex())

    def keep_once(self, kept: Kept, token: str) -> bool:
        """``keep`` marked with ``token`` (the same token again: the same keep)."""
        at = self._at(kept.chat)
        who = list(kept.entries)
        keys = [
            f"{at}kept",
            f"{at}stats:{kept.key}",
            f"{at}chat:{kept.chat}",
            f"{at}last:{kept.channel}",
            *(f"{at}person:{person}" for person in who),
            *(f"{at}named:{person}" for person in kept.people),
        ]
        args: list[Any] = [token, kept.key, repr(float(kept.finished)), bytes(kept.game)]
        args += [kept.channel, len(who)]
        for person in who:
            args += [person, bytes(kept.entries[person])]
        with self._errors():
            done = self.client.hget(self.marks, kept.key)  # kept in another chat?
            if done is not None:
                return bool(done == token.encode())
            pipe = self.client.pipeline(transaction=False)
            for person in {*who, *kept.people}:  # first: forget must find this bucket
                pipe.sadd(f"{self._at(person)}in:{person}", bucket(kept.chat))
            pipe.sadd(self.chat_set, kept.chat)
            pipe.execute()
            if not self._keep(keys=keys, args=args):
                return False
            self.client.set(f"{self._at(kept.channel)}lastin:{kept.channel}", kept.chat)
            self.client.hsetnx(self.marks, kept.key, token)
            return True

    def last_game(self, channel: str) -> bytes | None:
        with self._errors():
            chat = self.client.get(f"{self._at(channel)}lastin:{channel}")
            if not isinstance(chat, bytes):
                return None
            try:
                at = self._at(chat.decode(errors="replace"))
                found = self.client.hget(f"{at}last:{channel}", "game")
            except redis.exceptions.ResponseError as exc:
                if str(exc).startswith("WRONGTYPE"):
                    return None  # no last game there: the next keep replaces it
                raise
        return found if isinstance(found, bytes) else None

    def entries(self, chat: str, since: float = 0.0) -> list[tuple[str, bytes]]:
        at = self._at(chat)
        with self._errors():
            found = self._entries(keys=[f"{at}chat:{chat}"], args=[repr(float(since)), at])
        out: list[tuple[str, bytes]] = []
        for flat in found[1::2]:  # [key, [who, entry, ...], key, ...]
            pairs = sorted(zip(flat[::2], flat[1::2], strict=True))
            out += [(bytes(who).decode(errors="replace"), bytes(entry)) for who, entry in pairs]
        return out

    def chats(self) -> list[str]:
        with self._errors():
            if not self.client.exists(self.chats_listed):
                self._list_chats()
            found = self.client.smembers(self.chat_set)
        return sorted(bytes(c).decode(errors="replace") for c in found)

    def _list_chats(self) -> None:
        """Chats kept before the set of chats was: found once, by their sorted sets."""
        left, right = self.tmpl.split("%d")
        head = f"{right}chat:".encode()
        match = f"{ops.glob_escape(left)}*{ops.glob_escape(right)}chat:*"
        found = {
            bytes(key).split(head, 1)[1]
            for key in self.client.scan_iter(match=match, count=1000)
            if head in bytes(key)
        }
        if found:
            self.client.sadd(self.chat_set, *found)
        self.client.set(self.chats_listed, b"1")

    def forget(self, person: str, scrub: Scrub | None = None) -> int:
        index = f"{self._at(person)}in:{person}"
        forgotten = 0
        with self._errors():
            for b in self._members(index):
                if not b.isdigit():
                    continue
                at = self.tmpl % int(b)
                named = f"{at}named:{person}"
                if scrub is not None:
                    for channel in self._members(named):
                        last = f"{at}last:{channel.decode(errors='replace')}"
                        found = self._read_last(last)
                        new = scrub(found[1]) if found is not None else None
                        if found is not None and new is not None:
                            self._scrub(keys=[last], args=[found[0], new])
                keys = [f"{at}person:{person}", named]
                forgotten += int(self._forget(keys=keys, args=[person, at]))
            self.client.delete(index)
        return forgotten

    def _members(self, key: str) -> list[bytes]:
        try:
            found = self.client.smembers(key)
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
