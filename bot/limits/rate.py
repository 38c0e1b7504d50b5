"""Rate limits at the entrance: token buckets per person and per chat.

Every command, button press and autocompletion takes one token from its
person's bucket and one from its chat's (a Telegram group, whose forum topics
share it; a Discord channel), both or neither: a person refused takes nothing
from the chat, so one person flooding never slows the others.  A bucket holds
at most ``burst`` tokens and gains ``per_second`` a second (the generic cell
rate algorithm, GCRA: one number per bucket, the time it is full again).

Where the buckets live (:class:`Buckets`): in Redis when the games do, one
script for every worker together (:mod:`bot.store.redis.limits`); in this
process otherwise (:class:`MemoryBuckets`, the SQLite mode: one process).

:class:`Limiter` is what the adapters ask.  It never blocks play: a store that
does not answer lets everyone in (logged once, and once more when it answers
again) and is not asked again for :data:`PAUSE` seconds.  A refused person is
to be told at most once every :data:`TELL_EVERY` seconds where the answer
would show in the chat (a command's reply), and a chat turning many away at
most once too: :attr:`Verdict.tell`.

The live board's sessions and sockets count against the client's address (an
IPv6 client's /64, see :mod:`bot.web.address`), and a player's against their
person too (:meth:`Limiter.check_web`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..store import RedisStore, Store, StoreError
from ..store.limits import TELL_EVERY, Buckets, MemoryBuckets, MemoryOpenGames, OpenGames, Rate
from ..store.redis.limits import RedisBuckets, RedisOpenGames

__all__ = [
    "LET_IN",
    "LOOPBACK",
    "TELL_EVERY",
    "UNLIMITED",
    "LimitSettings",
    "Limiter",
    "Network",
    "Rate",
    "Verdict",
    "shared_parts",
]

log = logging.getLogger(__name__)

#: after a failure, the store is not asked again for this many seconds (all let in)
PAUSE = 5.0

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
#: this host: the reverse proxy trusted by default (the web server listens on 127.0.0.1)
LOOPBACK: tuple[Network, ...] = (
    ipaddress.ip_network("127.0.0.1/32"),
    ipaddress.ip_network("::1/128"),
)
#: what each bucket's key begins with -> the scope a refusal names
SCOPES = {"p": "person", "c": "chat", "a": "address"}


@dataclass(frozen=True)
class LimitSettings:
    """The limits and quotas (``LUDO_*`` settings; see the README's configuration)."""

    #: commands and presses per person (across every chat)
    person: Rate = field(default_factory=lambda: Rate(10, 2.0))
    #: commands and presses per chat (a Telegram group with its topics, a Discord channel)
    chat: Rate = field(default_factory=lambda: Rate(30, 3.0))
    #: games a person opened that may be open (in a lobby or played) at once (0: no limit)
    open_games: int = 3
    #: finished games a person may have counted in the stats per hour (0: no limit)
    stats_per_hour: int = 20
    #: the live board's sessions and sockets per client address (an IPv6 client per /64);
    #: a viewer costs two (a session, then its socket's hello)
    address: Rate = field(default_factory=lambda: Rate(60, 2.0))
    #: the reverse proxies whose X-Forwarded-For names the client (see bot.web.address)
    trusted_proxies: tuple[Network, ...] = LOOPBACK

    @property
    def stats(self) -> Rate:
        """The stats quota as a bucket: that many at once, then as many an hour."""
        return Rate(self.stats_per_hour, self.stats_per_hour / 3600.0)


#: no limit and no quota at all (tests, benchmarks, the terminal)
UNLIMITED = LimitSettings(Rate(0, 0.0), Rate(0, 0.0), 0, 0, Rate(0, 0.0))


@dataclass(frozen=True)
class Verdict:
    """What the limiter said: let in, or refused by ``scope`` (``person``, ``chat`` or
    ``address``) for ``wait`` seconds; ``tell``: the first refusal by that bucket in a while (a
    person's, or a chat's: a busy chat is told once, not once per person)."""

    allowed: bool = True
    scope: str = ""
    wait: float = 0.0
    tell: bool = False

    @property
    def seconds(self) -> int:
        """The wait in whole seconds, at least 1."""
        return max(1, math.ceil(self.wait))


LET_IN = Verdict()


class Limiter:
    """The limits the adapters ask at the entrance; never raises, never blocks play."""

    def __init__(
        self,
        buckets: Buckets,
        settings: LimitSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.buckets = buckets
        self.settings = settings or LimitSettings()
        self.clock = clock
        self._lock = threading.Lock()
        #: the store is not asked before this time (it failed)
        self._paused = -math.inf
        #: the last time the store was asked, it failed
        self._failing = False

    def check(self, person: str, chat: str | None, tell: bool = True) -> Verdict:
        """One command or press by ``person`` (``telegram:101``) in ``chat``
        (``tg:-100123``; None: no chat's limit).  ``tell``: the answer to a refusal
        would show in the chat (:attr:`Verdict.tell` then says whether to give it)."""
        asks: list[tuple[str, Rate]] = []
        if self.settings.person.on:
            asks.append((f"p:{person}", self.settings.person))
        if chat is not None and self.settings.chat.on:
            asks.append((f"c:{chat}", self.settings.chat))
        return self._take(asks, tell)

    def check_web(self, address: str, person: str | None = None) -> Verdict:
        """One session or socket of the live board from the client at ``address`` (an
        IPv6 client's /64: :func:`bot.web.address.client_address`) for ``person``
        (None: a spectator, nobody): a token from both buckets, or from neither."""
        asks: list[tuple[str, Rate]] = []
        if self.settings.address.on:
            asks.append((f"a:{address}", self.settings.address))
        if person is not None and self.settings.person.on:
            asks.append((f"p:{person}", self.settings.person))
        return self._take(asks, False)

    async def admit(self, person: str, chat: str | None, tell: bool = True) -> Verdict:
        """:meth:`check`, off the event loop when the buckets are in the store."""
        if self.buckets.shared:
            return await asyncio.to_thread(self.check, person, chat, tell)
        return self.check(person, chat, tell)

    async def admit_web(self, address: str, person: str | None = None) -> Verdict:
        """:meth:`check_web`, off the event loop when the buckets are in the store."""
        if self.buckets.shared:
            return await asyncio.to_thread(self.check_web, address, person)
        return self.check_web(address, person)

    def _take(self, asks: list[tuple[str, Rate]], tell: bool) -> Verdict:
        """A token from every bucket of ``asks``, or none; a store that fails lets in."""
        if not asks or self.clock() < self._paused:
            return LET_IN
        try:
            refused, wait, told = self.buckets.take(asks, tell)
        except Exception as e:
            self._failed(e)
            return LET_IN
        if self._failing:
            self._answered()
        if not refused:
            return LET_IN
        return Verdict(False, SCOPES[asks[refused - 1][0][0]], wait, told)

    def _failed(self, error: Exception) -> None:
        with self._lock:
            first, self._failing = not self._failing, True
            self._paused = self.clock() + PAUSE
        if not first:
            return
        if isinstance(error, StoreError):
            log.warning("rate limits are off while the store does not answer: %s", error)
        else:
            log.error("rate limits are off: checking them failed", exc_info=error)

    def _answered(self) -> None:
        with self._lock:
            was, self._failing = self._failing, False
        if was:
            log.warning("rate limits are checked again")


def shared_parts(store: Store) -> tuple[Buckets, OpenGames]:
    """Where the limits count beside ``store``: in Redis if the games are (every
    worker shares them), else in this process."""
    if isinstance(store, RedisStore):
        return RedisBuckets.of(store), RedisOpenGames.of(store)
    return MemoryBuckets(), MemoryOpenGames()
