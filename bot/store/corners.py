"""Each person's corner, kept beside the games: what a person asked of their private chat
with the bot (their settings), the cards it shows (one per game, with its own
revision), the games they sit in, and the chats whose new games they asked to hear of.

A person's corner is a second screen of every game they sit in (``DESIGN.md``: one
game, several screens).  What is kept here is small and per person:

* **settings**: opaque bytes (:class:`bot.hosting.corner.Corner` reads them), the last
  writer's;
* **cards**: a game's card in a person's corner, as notes with a revision of their own
  (compare-and-set, like the table's notes: two workers never both send a card);
  each is forgotten :data:`CARD_TTL` seconds after its last write;
* **seats**: the ids of the games a person sat down in, the newest :data:`SEATS` (a
  hint: the caller reads each game, and drops those that ended or that they left);
* **watchers**: the people of a chat who asked for a private word when a game opens
  there, at most :data:`WATCHERS` a chat.

:class:`MemoryCorners` keeps them in this process (tests, a bot without a store of its
own); :class:`bot.store.sqlite.corners.SqliteCorners` in the SQLite file and
:class:`bot.store.redis.corners.RedisCorners` in Redis, for every worker.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from typing import Protocol

from bot.store.base import Shown

#: the newest games a person sat down in that are remembered
SEATS = 64
#: the most people of one chat told of its new games
WATCHERS = 200
#: a card's notes are forgotten this long after they were last written (a game that
#: stands still for longer is older than the store keeps a game anyway)
CARD_TTL = 30 * 24 * 3600.0
#: a person's settings are forgotten this long after they were last written
PERSON_TTL = 400 * 24 * 3600.0


class Corners(Protocol):
    """The corners of every person.  Every method raises StoreError when the store
    cannot be reached."""

    def person(self, person: str) -> bytes | None:
        """``person``'s settings (None: never written, or forgotten)."""
        ...

    def set_person(self, person: str, data: bytes) -> None:
        """Write ``person``'s settings."""
        ...

    def card(self, game_id: str, person: str) -> Shown | None:
        """The notes of game ``game_id``'s card in ``person``'s corner (None: none)."""
        ...

    def save_card(self, game_id: str, person: str, data: bytes, rev: int) -> bool:
        """Write the card's notes if they are still at revision ``rev`` (0: none yet);
        False if another write came first."""
        ...

    def seats(self, person: str) -> list[str]:
        """The games ``person`` sat down in, oldest first."""
        ...

    def sit(self, person: str, game_id: str) -> None:
        """``person`` sat down in ``game_id``."""
        ...

    def unsit(self, person: str, game_ids: Collection[str]) -> None:
        """These games of ``person`` ended, or they left them."""
        ...

    def watchers(self, channel: str) -> list[str]:
        """Who asked to hear of each game opened in ``channel``."""
        ...

    def watch(self, channel: str, person: str, on: bool) -> bool:
        """``person`` asks (``on``), or no longer asks, to hear of the games of
        ``channel``; False if the chat has :data:`WATCHERS` already (nothing changes)."""
        ...

    def forget(self, person: str, channels: Collection[str] = ()) -> None:
        """Erase ``person``'s settings and seats, and their watch of ``channels``."""
        ...


def kept_newest(ids: list[str], game_id: str, limit: int = SEATS) -> list[str]:
    """``ids`` with ``game_id`` last (once), the newest ``limit``."""
    return [*(i for i in ids if i != game_id), game_id][-limit:]


class MemoryCorners:
    """The corners in this process (safe from any thread); ``clock`` ages the cards."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._people: dict[str, bytes] = {}
        self._cards: dict[tuple[str, str], tuple[Shown, float]] = {}
        self._seats: dict[str, list[str]] = {}
        self._watch: dict[str, list[str]] = {}

    def person(self, person: str) -> bytes | None:
        with self._lock:
            return self._people.get(person)

    def set_person(self, person: str, data: bytes) -> None:
        with self._lock:
            self._people[person] = bytes(data)

    def card(self, game_id: str, person: str) -> Shown | None:
        with self._lock:
            found = self._cards.get((game_id, person))
            if found is None or found[1] <= self._clock():
                return None
            return found[0]

    def save_card(self, game_id: str, person: str, data: bytes, rev: int) -> bool:
        now = self._clock()
        with self._lock:
            found = self._cards.get((game_id, person))
            current = found[0].rev if found is not None and found[1] > now else 0
            if current != rev:
                return False
            self._cards[(game_id, person)] = (Shown(bytes(data), rev + 1), now + CARD_TTL)
            if len(self._cards) > 4 * SEATS * WATCHERS:
                self._cards = {k: v for k, v in self._cards.items() if v[1] > now}
            return True

    def seats(self, person: str) -> list[str]:
        with self._lock:
            return list(self._seats.get(person, ()))

    def sit(self, person: str, game_id: str) -> None:
        with self._lock:
            self._seats[person] = kept_newest(self._seats.get(person, []), game_id)

    def unsit(self, person: str, game_ids: Collection[str]) -> None:
        with self._lock:
            left = [i for i in self._seats.get(person, ()) if i not in game_ids]
            if left:
                self._seats[person] = left
            else:
                self._seats.pop(person, None)

    def watchers(self, channel: str) -> list[str]:
        with self._lock:
            return list(self._watch.get(channel, ()))

    def watch(self, channel: str, person: str, on: bool) -> bool:
        with self._lock:
            them = [p for p in self._watch.get(channel, ()) if p != person]
            if on:
                if len(them) >= WATCHERS:
                    return False
                them.append(person)
            if them:
                self._watch[channel] = them
            else:
                self._watch.pop(channel, None)
            return True

    def forget(self, person: str, channels: Collection[str] = ()) -> None:
        with self._lock:
            self._people.pop(person, None)
            self._seats.pop(person, None)
        for channel in channels:
            self.watch(channel, person, False)
