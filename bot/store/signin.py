"""What the live board's Discord sign-in keeps: the access tokens the bot issued
(:class:`Issued`) and the waits Discord asked for (:class:`Holds`), in this process
(the SQLite mode: one process).  The Redis versions, shared by every worker, are in
:mod:`bot.store.redis.signin`; the budget they serve is :mod:`bot.limits.budget`.

**Issued tokens.**  The bot exchanges the Embedded App SDK's code itself
(``POST /api/discord/token``) and asks Discord once, with the fresh token, who it
belongs to.  It keeps a digest of the token (SHA-256: a token is 30 random
characters, so the digest gives nothing away) with the person, until Discord says
the token expires.  A session is then signed in by looking the digest up, with no
call to Discord: a token the bot never issued is never sent there.

**Holds.**  A 429 (or a bucket Discord says is empty) holds its route, or every route
(:data:`GLOBAL`), until the time Discord gives: nothing is asked there before it.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

#: the most tokens kept in memory (the oldest go first)
MEMORY_TOKENS = 100_000
#: the longest a token is kept, in seconds (Discord's access tokens last 7 days)
LONGEST = 7 * 24 * 3600.0
#: the scope a global limit holds
GLOBAL = "global"


def digest(token: str) -> str:
    """What is kept of an access token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class Issued(Protocol):
    """The access tokens the bot issued, by digest (:func:`digest`)."""

    #: kept in a store (asked from a thread) rather than in this process
    shared: bool

    def keep(self, token_digest: str, login: str, seconds: float) -> None:
        """Keep ``login`` (the person, as the board writes it) for ``seconds``.
        Raises StoreError."""
        ...

    def find(self, token_digest: str) -> str | None:
        """The login kept for the digest (None: none, or it expired).  Raises
        StoreError."""
        ...


class Holds(Protocol):
    """The routes Discord asked not to be asked on for a while."""

    shared: bool

    def hold(self, scope: str, seconds: float) -> None:
        """Nothing is asked on ``scope`` (a route, or :data:`GLOBAL`) for ``seconds``
        (a longer hold already there stays).  Raises StoreError."""
        ...

    def left(self, scopes: Sequence[str]) -> float:
        """The longest time any of ``scopes`` is still held, in seconds (0: none).
        Raises StoreError."""
        ...


class MemoryIssued:
    """The tokens issued, in this process (safe from any thread)."""

    shared = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[float, str]] = OrderedDict()

    def keep(self, token_digest: str, login: str, seconds: float) -> None:
        until = self._clock() + min(seconds, LONGEST)
        with self._lock:
            self._kept[token_digest] = (until, login)
            self._kept.move_to_end(token_digest)
            while len(self._kept) > MEMORY_TOKENS:
                self._kept.popitem(last=False)

    def find(self, token_digest: str) -> str | None:
        with self._lock:
            found = self._kept.get(token_digest)
            if found is None:
                return None
            if found[0] <= self._clock():
                del self._kept[token_digest]
                return None
            return found[1]


class MemoryHolds:
    """The holds in this process (safe from any thread)."""

    shared = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        #: scope -> the time it is free again
        self._until: dict[str, float] = {}

    def hold(self, scope: str, seconds: float) -> None:
        now = self._clock()
        with self._lock:
            self._until = {k: t for k, t in self._until.items() if t > now}
            self._until[scope] = max(self._until.get(scope, now), now + seconds)

    def left(self, scopes: Sequence[str]) -> float:
        now = self._clock()
        with self._lock:
            return max([0.0, *(self._until.get(s, now) - now for s in scopes)])
