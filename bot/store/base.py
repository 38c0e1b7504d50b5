"""The store interface: games as opaque bytes with a revision, the notes
the chat adapters keep about what the chat shows of each game (also opaque
bytes, with their own revision), channel bindings, and turn deadlines.  Two
implementations pass the same contract tests: Redis (several workers) and
SQLite (one host, no server).

A button press costs one read of the game (``load`` or ``load_in``, which
bring the notes along) and one compare-and-set of it (``save``, which also
sets or removes the game's deadline and, when the game is over, releases
its channel, all in the same atomic step), plus at most one compare-and-set
of the notes (``save_shown``).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from bot.ops.metrics import STORE_ERRORS

#: a kept game's bytes rewritten without a person (None: the game does not name them)
Scrub = Callable[[bytes], bytes | None]

#: abandoned games (and their channel bindings) expire after this long without a save
DEFAULT_TTL = 14 * 24 * 3600.0
#: the most a deadline keeps a game beyond its ttl (none the bot sets is so far: a turn
#: timer is at most 7 days, a lobby's wait minutes)
LONGEST_WAIT = 366 * 24 * 3600.0


class Keep(enum.Enum):
    """The type of :data:`KEEP`."""

    KEEP = "keep"

    def __repr__(self) -> str:
        return "KEEP"


#: ``save(..., due=KEEP)`` (the default): leave the game's deadline as it is.
#: ``due=None`` removes it and a number sets it.  The default exists for
#: callers written before ``save`` took a deadline; new code should pass one.
KEEP: Final = Keep.KEEP


def lifetime(ttl: float, now: float, due: float | Keep | None) -> float:
    """How long a game created or saved at ``now`` with the deadline ``due`` is kept:
    ``ttl`` from then, or from its deadline if that is later, so that a slow game that
    waits days for a move is never dropped before its deadline (and lives ``ttl`` after
    it, as long as after a save); a deadline counts at most :data:`LONGEST_WAIT` ahead."""
    if due is None or isinstance(due, Keep) or not math.isfinite(due):
        return ttl
    return ttl + min(max(0.0, float(due) - now), LONGEST_WAIT)


@dataclass(frozen=True)
class Shown:
    """What the chat shows of a game: the adapters' notes (opaque bytes) and
    their own revision, 1 after the first ``save_shown``."""

    data: bytes
    rev: int


@dataclass(frozen=True)
class Stored:
    """A game as stored: the service's bytes and their revision (1 when
    created), and the adapters' notes about it (None until the first
    ``save_shown``), read in the same round trip."""

    data: bytes
    rev: int
    shown: Shown | None = None


@dataclass(frozen=True)
class Kept:
    """A finished game kept for good (stats, the chat's last game), beyond the
    game's own expiry.

    ``key`` names this finished game uniquely (game ids are reused over time:
    the service makes it from the id and the time the game was created);
    ``chat`` is where its stats count (a group, a forum topic, a Discord
    server); ``channel`` is where it was played; ``finished`` its Unix time.
    ``game`` is the finished game's bytes (its record, seats, rules): only the
    last one of each channel is kept (:meth:`Store.last_game`).  ``entries``
    are its stats, one opaque entry per seat, keyed by who played it: a
    person's key (``telegram:123``) or a computer's (``computer:<colour>``).
    ``people``: the keys of everyone the game names (so that :meth:`Store.forget`
    finds the last games of a person).
    """

    key: str
    chat: str
    channel: str
    finished: float
    game: bytes
    entries: dict[str, bytes]
    people: tuple[str, ...] = ()


class StoreError(Exception):
    """The store cannot be reached or used (a message an operator understands).

    The subclasses say more: :class:`StoreUnavailable` (try again in a
    moment) and :class:`DamagedRecord` (one stored game cannot be read)."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or did not answer in time: nothing is
    known to have changed, and the same call may well work in a moment.

    ``kind`` is ``"unreachable"`` (refused, reset, the server is loading or
    read-only, the file cannot be opened) or ``"timeout"`` (no answer in
    time, the file stayed locked), as counted in
    ``bot.ops.metrics.STORE_ERRORS``.  ``unsure``: a write that was sent and whose
    answer never came, so that whether it was done is not known yet (it may have
    been done before Redis became unreachable; it will not be done later)."""

    def __init__(self, message: str, *, kind: str = "unreachable", unsure: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.unsure = unsure


class DamagedRecord(StoreError):
    """The stored record of game ``game_id`` cannot be read by the store (a
    revision or expiry that is not a number, a missing field, a value of the
    wrong type).  Only that game is affected: free its channel and forget it
    with :meth:`Store.discard`."""

    def __init__(self, game_id: str, detail: str) -> None:
        super().__init__(f"stored game {game_id!r} is damaged: {detail}")
        self.game_id = game_id
        self.detail = detail


def unavailable(message: str, *, kind: str = "unreachable") -> StoreUnavailable:
    """A :class:`StoreUnavailable` to raise, counted in ``STORE_ERRORS`` under ``kind``."""
    STORE_ERRORS.labels(kind=kind).inc()
    return StoreUnavailable(message, kind=kind)


def damaged(game_id: str, detail: str) -> DamagedRecord:
    """A :class:`DamagedRecord` to raise, counted in ``STORE_ERRORS`` as ``damaged``."""
    STORE_ERRORS.labels(kind="damaged").inc()
    return DamagedRecord(game_id, detail)


def failed(message: str) -> StoreError:
    """A plain :class:`StoreError` to raise (the store answered, but with an
    error), counted in ``STORE_ERRORS`` as ``failed``."""
    STORE_ERRORS.labels(kind="failed").inc()
    return StoreError(message)


class Store(Protocol):
    """What the game service needs from a store.  Every method is atomic.

    Expiry: a game is gone ``ttl`` seconds (by the store's clock) after its
    last create or save, or after the deadline that set, if that is later
    (:func:`lifetime`: a slow game waiting days for a move stays; a save that
    keeps the deadline, :data:`KEEP`, never shortens the expiry).  With it go
    its notes, its channel binding and its deadline: ``load``, ``load_in`` and
    ``channel_game`` no longer see it, ``save`` and ``save_shown`` refuse it,
    ``claim_due`` never returns it, and its id and channel can be used again (a
    new game with the same id starts without notes).  Loading does not renew a
    game; ``create`` and ``save`` do, ``save_shown`` does not.

    Failures to reach or use the store raise :class:`StoreError`, never an
    exception of the underlying client: :class:`StoreUnavailable` when it
    cannot be reached or does not answer within about a second or two
    (every call has a short timeout).  A game whose stored record the store
    cannot read is *damaged*: ``load`` and ``load_in`` raise
    :class:`DamagedRecord` for it, ``create`` treats its id and channel as
    taken, ``save`` and ``save_shown`` refuse it (False), ``channel_game``
    still names it, ``claim_due`` skips and unschedules it, and
    :meth:`discard` removes it.  No damaged record makes a call about
    another game fail.
    """

    def create(self, game_id: str, data: bytes, *, channel: str, due: float | None = None) -> bool:
        """Store a new game at revision 1, without notes, bind ``channel`` to
        it and, if ``due`` is given, set its deadline to the Unix time ``due``.

        Only if ``channel`` has no game bound and ``game_id`` is unused;
        otherwise nothing is written and the result is False.
        """
        ...

    def load(self, game_id: str) -> Stored | None:
        """The game with its notes (one round trip), or None if unknown or
        expired.  Raises :class:`DamagedRecord` if its record is damaged."""
        ...

    def load_in(self, channel: str) -> Stored | None:
        """The game bound to ``channel`` with its notes (one round trip), or
        None if no live game is bound to it.  Raises :class:`DamagedRecord`
        (with the game's id) if the game bound to it is damaged."""
        ...

    def save(
        self,
        game_id: str,
        data: bytes,
        rev: int,
        *,
        due: float | Keep | None = KEEP,
        release: bool = False,
    ) -> bool:
        """Compare-and-set: write ``data`` at revision ``rev + 1`` if the stored
        revision is ``rev``; False (and nothing written) otherwise.  A save
        also renews the game's expiry and that of the channel bound to it.

        In the same atomic step, and only if the compare-and-set succeeds:
        ``due=None`` removes the game's deadline, a number sets it to that
        Unix time, :data:`KEEP` (the default) leaves it alone; and
        ``release=True`` unbinds the game's channel if it is still bound to
        this game.  The notes are left alone.
        """
        ...

    def save_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        """Compare-and-set of the game's notes on their own revision: write
        ``data`` at notes revision ``rev + 1`` if the notes are at ``rev``
        (0: there are none yet); False (and nothing written) otherwise, or
        if the game is unknown or expired.  Never changes the game's data,
        revision or expiry: the notes expire with the game."""
        ...

    def channel_game(self, channel: str) -> str | None:
        """The id of the game bound to ``channel``, if any."""
        ...

    def active_games(self) -> int:
        """How many games hold a channel now (in a lobby or being played); for the
        figures, not exact under concurrent changes."""
        ...

    def release_channel(self, channel: str, game_id: str) -> None:
        """Unbind ``channel``, only if it is still bound to ``game_id``."""
        ...

    def discard(self, game_id: str, channel: str) -> None:
        """Forget the game ``game_id`` at once, whatever state its record is
        in (damaged or not): its data, notes and deadline, and its channel
        binding; ``channel`` is unbound too if it is bound to this game (and
        left alone if it is bound to another).  Its id and channel can be used
        again right away.  Nothing happens if the game is unknown."""
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

        Deadlines of damaged games are skipped and removed (the game itself
        is left for :meth:`discard`); they never stop the others being claimed.

        Each claimed deadline moves to ``now + lease`` in the same atomic
        step, so no other worker claims it meanwhile; the claimer then
        reschedules or unschedules it (or saves the game with ``due``).  If
        the claimer dies, the game comes due again after the lease.
        """
        ...

    # -- finished games, kept for good ------------------------------------

    def keep(self, kept: Kept) -> bool:
        """Keep a finished game: its stats entries in its chat, and its bytes as
        the last game of its channel (replacing the one before, if this one
        finished later).  Once per ``kept.key``: False (and nothing written) if
        that key was kept before.  Nothing of it ever expires."""
        ...

    def last_game(self, channel: str) -> bytes | None:
        """The bytes of the game finished last in ``channel`` (None: none kept)."""
        ...

    def entries(self, chat: str, since: float = 0.0) -> list[tuple[str, bytes]]:
        """Every stats entry kept in ``chat`` of the games finished at or after
        ``since``, as (who played the seat, entry), oldest game first."""
        ...

    def chats(self) -> list[str]:
        """Every chat with a kept game, sorted (for ratings across a platform's chats)."""
        ...

    def forget(self, person: str, scrub: Scrub | None = None) -> int:
        """Delete every stats entry of ``person`` (their key), in every chat; how
        many there were.  With ``scrub``, every channel's last game naming them
        (see :attr:`Kept.people`) is replaced by ``scrub(game)`` (None: left as it
        is), if it is still that channel's last game."""
        ...

    def close(self) -> None: ...
