"""The store interface: games as opaque bytes with a revision, channel
bindings, and turn deadlines.  Two implementations pass the same contract
tests: Redis (several workers) and SQLite (one host, no server)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

#: abandoned games (and their channel bindings) expire after this long without a save
DEFAULT_TTL = 14 * 24 * 3600.0


@dataclass(frozen=True)
class Stored:
    """A game as stored: the service's bytes and their revision (1 when created)."""

    data: bytes
    rev: int


class StoreError(Exception):
    """The store cannot be reached or used (a message an operator understands)."""


class Store(Protocol):
    """What the game service needs from a store.  Every method is atomic.

    Expiry: a game not saved for ``ttl`` seconds (by the store's clock) is
    gone, and with it its channel binding and its deadline: ``load`` and
    ``channel_game`` no longer see it, ``save`` refuses it, ``claim_due``
    never returns it, and its id and channel can be used again.  Loading
    does not renew a game; ``create`` and ``save`` do.

    Failures to reach or use the store raise :class:`StoreError`.
    """

    def create(self, game_id: str, data: bytes, *, channel: str) -> bool:
        """Store a new game at revision 1 and bind ``channel`` to it.

        Only if ``channel`` has no game bound and ``game_id`` is unused;
        otherwise nothing is written and the result is False.
        """
        ...

    def load(self, game_id: str) -> Stored | None:
        """The game, or None if unknown or expired."""
        ...

    def save(self, game_id: str, data: bytes, rev: int) -> bool:
        """Compare-and-set: write ``data`` at revision ``rev + 1`` if the stored
        revision is ``rev``; False (and nothing written) otherwise.  A save
        also renews the game's expiry and that of the channel bound to it."""
        ...

    def channel_game(self, channel: str) -> str | None:
        """The id of the game bound to ``channel``, if any."""
        ...

    def release_channel(self, channel: str, game_id: str) -> None:
        """Unbind ``channel``, only if it is still bound to ``game_id``."""
        ...

    def schedule(self, game_id: str, due: float) -> None:
        """Set (or move) the game's deadline to the Unix time ``due``."""
        ...

    def unschedule(self, game_id: str) -> None:
        """Remove the game's deadline, if any."""
        ...

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        """Take up to ``limit`` games whose deadline is at or before ``now``,
        earliest deadline first (ties by id).  Games that are gone (expired,
        or never created) are never returned.

        Each claimed deadline moves to ``now + lease`` in the same atomic
        step, so no other worker claims it meanwhile; the claimer then
        reschedules or unschedules it.  If the claimer dies, the game comes
        due again after the lease.
        """
        ...

    def close(self) -> None: ...
