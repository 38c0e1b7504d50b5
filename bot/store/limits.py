"""Where the limits count: token buckets (:class:`Buckets`) and each person's open
games (:class:`OpenGames`), in this process (the SQLite mode: one process).  The
Redis versions, shared by every worker, are in :mod:`bot.store.redis.limits`.

A bucket holds at most ``burst`` tokens and gains ``per_second`` a second; it is
kept as one number, the time it is full again (the generic cell rate algorithm,
GCRA: :func:`gcra`).  A person's open games are only a list of ids: the caller
checks each against the game store (a game that ended, however it ended, is
simply dropped from the list then), so nothing has to be told when a game ends.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

#: a refused person is told (where the chat would see it) at most this often, in seconds
TELL_EVERY = 30.0
#: the most keys kept in memory (buckets, people); the oldest go first
MEMORY_KEYS = 100_000
#: the most open games remembered per person
PER_PERSON = 32


@dataclass(frozen=True)
class Rate:
    """A bucket: at most ``burst`` at once, then ``per_second`` a second (0: no limit)."""

    burst: int
    per_second: float

    @property
    def on(self) -> bool:
        return self.burst > 0 and self.per_second > 0

    @property
    def interval(self) -> float:
        """Seconds between two tokens."""
        return 1.0 / self.per_second


class Taken(NamedTuple):
    """What :meth:`Buckets.take` came to."""

    #: 0: a token taken from every bucket; else the 1-based index of the first empty one
    refused: int
    #: seconds until every bucket has a token again (0: taken)
    wait: float
    #: refused, asked to tell, and nobody was told of that bucket in the last
    #: :data:`TELL_EVERY` seconds (from now, nobody else will be)
    tell: bool


TAKEN = Taken(0, 0.0, False)


class Buckets(Protocol):
    """Token buckets."""

    #: kept in a store (asked from a thread) rather than in this process (asked at once)
    shared: bool

    def take(self, asks: Sequence[tuple[str, Rate]], tell: bool = False) -> Taken:
        """One token from each bucket ``(key, rate)``, or from none if any is empty;
        ``tell``: refused, whether to tell (once per :data:`TELL_EVERY` seconds per
        empty bucket: a person once for theirs, a chat once for its own).  Raises
        StoreError."""
        ...

    def refund(self, key: str, rate: Rate) -> None:
        """A token given back to bucket ``key`` (of ``rate``): what it let through did
        not count after all.  Raises StoreError."""
        ...


class OpenGames(Protocol):
    """The ids of the games each person opened (a hint: the caller checks each)."""

    def ids(self, person: str) -> list[str]:
        """``person``'s games, oldest first.  Raises StoreError."""
        ...

    def add(self, person: str, game_id: str) -> None:
        """``person`` opened ``game_id``.  Raises StoreError."""
        ...

    def drop(self, person: str, game_ids: Collection[str]) -> None:
        """These games of ``person`` are over (or gone).  Raises StoreError."""
        ...


#: a bucket over by less than this is not over (Redis keeps its times to the microsecond)
TOLERANCE = 1e-6


def gcra(tat: float, now: float, rate: Rate) -> tuple[float, float]:
    """A token from a bucket full again at ``tat``: its new ``tat`` if taken, and how
    long to wait for it (0: taken now)."""
    new = max(tat, now) + rate.interval
    over = new - now - rate.burst * rate.interval
    return new, over if over > TOLERANCE else 0.0


class MemoryBuckets:
    """The buckets of this process (safe from any thread)."""

    shared = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tat: dict[str, float] = {}
        self._told: dict[str, float] = {}

    def take(self, asks: Sequence[tuple[str, Rate]], tell: bool = False) -> Taken:
        now = self._clock()
        with self._lock:
            refused, wait, news = 0, 0.0, []
            for i, (key, rate) in enumerate(asks, 1):
                new, over = gcra(self._tat.get(key, now), now, rate)
                news.append(new)
                if over > 0:
                    refused = refused or i
                    wait = max(wait, over)
            if not refused:
                for (key, _), new in zip(asks, news, strict=True):
                    self._tat.pop(key, None)  # the newest last: the oldest go first
                    self._tat[key] = new
                self._tat = _trimmed(self._tat, now)
                return TAKEN
            key = asks[refused - 1][0]
            told = tell and self._told.get(key, -math.inf) <= now
            if told:
                self._told.pop(key, None)
                self._told[key] = now + TELL_EVERY
                self._told = _trimmed(self._told, now)
            return Taken(refused, wait, told)

    def refund(self, key: str, rate: Rate) -> None:
        now = self._clock()
        with self._lock:
            tat = self._tat.get(key)
            if tat is None:
                return
            if tat - rate.interval <= now:
                del self._tat[key]
            else:
                self._tat[key] = tat - rate.interval


def _trimmed(times: dict[str, float], now: float) -> dict[str, float]:
    """``times`` (key -> when it no longer matters) within :data:`MEMORY_KEYS`."""
    if len(times) <= MEMORY_KEYS:
        return times
    times = {k: t for k, t in times.items() if t > now}
    while len(times) > MEMORY_KEYS:
        del times[next(iter(times))]
    return times


class MemoryOpenGames:
    """Each person's open games, in this process (safe from any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: dict[str, list[str]] = {}

    def ids(self, person: str) -> list[str]:
        with self._lock:
            return list(self._ids.get(person, ()))

    def add(self, person: str, game_id: str) -> None:
        with self._lock:
            ids = [i for i in self._ids.pop(person, []) if i != game_id]
            self._ids[person] = [*ids, game_id][-PER_PERSON:]
            while len(self._ids) > MEMORY_KEYS:
                del self._ids[next(iter(self._ids))]

    def drop(self, person: str, game_ids: Collection[str]) -> None:
        with self._lock:
            left = [i for i in self._ids.get(person, ()) if i not in game_ids]
            if left:
                self._ids[person] = left
            else:
                self._ids.pop(person, None)
