"""The faults the game service survives, and how each is told.

* :class:`Outage`: whether the game store answers.  The service reports every
  store call's fate here (:meth:`Outage.failed`, :meth:`Outage.answered`): the
  first failure logs one warning ("the game store is unreachable: ..."), the
  end of the outage one more ("the game store is back after N s"), and
  nothing in between, however many presses fail.  Sets ``STORE_UP`` in
  :mod:`bot.ops.metrics` (whether the last call was answered).
* :class:`Damaged` and :class:`Isolation`: a game that cannot go on (its
  stored data unreadable, or its state refused by the engine) is let go:
  logged once with its id, counted in ``STORE_ERRORS{kind="damaged"}``,
  forgotten by the store, its channel free again.  A game saved by a newer
  ludo-bot is not damaged, only unreadable here: it is never let go.
* :class:`Guard`: both, and bugs, around each request of the game service.

All are safe from any thread.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ..hosting import Refusal
from ..ops.metrics import STORE_ERRORS, STORE_UP
from ..store import Store, StoreError, StoreUnavailable
from ..store.base import DamagedRecord
from .outcome import STORE_DOWN, STORE_UNSURE, Outcome

log = logging.getLogger(__name__)
T = TypeVar("T")

#: how many damaged games' ids are remembered, so each is logged once
REMEMBERED = 1024


class Outage:
    """The store's state: answering, or down since when.

    An outage ends when the store has answered for :attr:`settle` seconds
    without a failure in between, so a store that answers some calls and not
    others (an SQLite file locked for writing still reads) is one outage,
    not a warning pair per press.  With ``trouble`` (the store's ``write_trouble``),
    it does not end while that says writes still fail (a full disk: reads answer,
    and a quiet while between presses is no end of it).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        settle: float = 3.0,
        trouble: Callable[[], str | None] | None = None,
    ) -> None:
        self._clock = clock
        #: seconds the store must answer without a failure for an outage to end
        self.settle = settle
        self._trouble = trouble
        self._lock = threading.Lock()
        #: when the outage began (None: no outage)
        self._since: float | None = None
        #: when the store first answered again in this outage (None: not yet)
        self._answers: float | None = None
        #: whether the last call was answered (None: no call yet)
        self._last: bool | None = None

    @property
    def down(self) -> bool:
        """Whether there is an outage (it began, and has not ended yet)."""
        return self._since is not None

    @property
    def answering(self) -> bool:
        """Whether the last store call (from any thread) was answered."""
        return self._last is not False

    def failed(self, error: BaseException) -> None:
        """A store call failed: the first failure of an outage is logged."""
        with self._lock:
            was, self._last = self._last, False
            self._answers = None
            begins = self._since is None
            if begins:
                self._since = self._clock()
        if was is not False:
            STORE_UP.set(0)
        if begins:
            log.warning("the game store is unreachable: %s", error)

    def _writes_fail(self) -> bool:
        return self._trouble is not None and self._trouble() is not None

    def answered(self) -> None:
        """A store call was answered: the end of an outage is logged."""
        if self._last and self._since is None:  # the usual case, without the lock
            return
        ended = None
        with self._lock:
            was, self._last = self._last, True
            now = self._clock()
            if self._since is not None:
                if self._answers is None:
                    self._answers = now
                if now - self._answers >= self.settle and not self._writes_fail():
                    ended = self._answers - self._since
                    self._since = self._answers = None
        if not was:
            STORE_UP.set(1)
        if ended is not None:
            log.warning("the game store is back after %.0f s", max(0.0, ended))


class Damaged(Exception):
    """A game met that cannot go on: unreadable, or its state refused by the engine.

    ``game_id`` and ``channel``: what is known of it (None: nothing)."""

    def __init__(
        self,
        why: str,
        game_id: str | None,
        channel: str | None,
        *,
        newer: bool = False,
        error: BaseException | None = None,
        counted: bool = False,
    ) -> None:
        super().__init__(why)
        self.why, self.game_id, self.channel = why, game_id, channel
        #: saved by a newer ludo-bot: refused, never let go
        self.newer = newer
        #: what a step of hosting raised (the engine refusing the game's state)
        self.error = error
        #: counted in ``STORE_ERRORS`` already (by the store that found it)
        self.counted = counted

    @classmethod
    def of(
        cls, e: Damaged | DamagedRecord, channel: str | None, game_id: str | None = None
    ) -> Damaged:
        """``e`` (the service's, or the store's) as a :class:`Damaged`, with what
        the caller knows of the game."""
        if isinstance(e, DamagedRecord):
            return cls(str(e), e.game_id or game_id, channel, counted=True)
        e.game_id = e.game_id or game_id
        e.channel = e.channel or channel
        return e


class Isolation:
    """Lets damaged games go, each logged once (by this process)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._seen: dict[str, None] = {}

    def let_go(self, d: Damaged) -> tuple[bool, str | None]:
        """Forget the damaged game and free its channel.  Whether it was let go (not
        if saved by a newer ludo-bot, or if nothing says which game it is), and the
        channel it holds, the one whose chat may be told (None: not known for
        sure).  Raises StoreError."""
        game_id, channel = d.game_id, d.channel
        if game_id is None and channel is not None:
            game_id = self.store.channel_game(channel)
        elif channel is not None and self.store.channel_game(channel) != game_id:
            channel = None  # not the channel it holds: a damaged name, a button from elsewhere
        if game_id is None:
            return False, None
        if self._first_time(game_id):
            if d.newer:
                log.warning("game %s cannot be read by this ludo-bot: %s", game_id, d.why)
            else:
                if not d.counted:
                    STORE_ERRORS.labels("damaged").inc()
                log.warning(
                    "game %s is damaged (%s): it is let go and its channel %s freed",
                    game_id,
                    d.why,
                    channel or "(unknown)",
                    exc_info=d.error,
                )
        if d.newer:
            return False, channel
        self.store.discard(game_id, channel or "")
        return True, channel

    def _first_time(self, game_id: str) -> bool:
        with self._lock:
            if game_id in self._seen:
                return False
            self._seen[game_id] = None
            while len(self._seen) > REMEMBERED:
                del self._seen[next(iter(self._seen))]
            return True


class Guard:
    """The game service's requests made safe: an unreachable store becomes the
    refusal ``refuse.store_down`` (``refuse.store_unsure`` if a save was sent and
    never answered; :class:`Outage` tells it), a damaged game is
    let go (:class:`Isolation`) and refused ``refuse.damaged``; a bug is logged
    with its traceback and refused ``refuse.busy``.  Nothing is raised."""

    def __init__(self, store: Store) -> None:
        self.outage = Outage(trouble=getattr(store, "write_trouble", None))
        self.isolation = Isolation(store)

    def request(self, work: Callable[[], Outcome], channel: str) -> Outcome:
        """A request made safe: an unreachable store and a damaged game become
        refusals (the damaged game let go); nothing is raised."""
        try:
            try:
                outcome = work()
            except (Damaged, DamagedRecord) as e:
                outcome = self.isolate(Damaged.of(e, channel))
        except StoreError as e:
            self.outage.failed(e)
            unsure = isinstance(e, StoreUnavailable) and e.unsure
            return Outcome(None, refusal=Refusal(STORE_UNSURE if unsure else STORE_DOWN))
        except Exception:  # a bug: logged, and the asker asked to try again
            log.exception("the game service failed in %s", channel)
            return Outcome(None, refusal=Refusal("refuse.busy"))
        self.outage.answered()
        return outcome

    def read(self, read: Callable[[], T], default: T) -> T:
        """A read helper made safe: ``default`` if the store fails or the game is
        unreadable (a damaged game is let go by the next press, command or timer)."""
        try:
            result = read()
        except Refusal:
            return default
        except (Damaged, DamagedRecord):
            self.outage.answered()
            return default
        except StoreError as e:
            self.outage.failed(e)
            return default
        except Exception:
            log.exception("the game service failed")
            return default
        self.outage.answered()
        return result

    def isolate(self, d: Damaged) -> Outcome:
        """Let a damaged game go (see :class:`Isolation`): refused, and its channel
        ``freed`` unless it is kept.  Raises StoreError."""
        let_go, channel = self.isolation.let_go(d)
        refusal = Refusal("refuse.damaged", why=d.why)
        return Outcome(None, refusal=refusal, freed=channel if let_go else None)
