"""One bounded outbox per chat: handlers put work in and return at once.

Everything a chat needs from the Bot API (its tables, refused commands'
answers, help, stats, replays) goes through that chat's :class:`Outbox`,
drained by one sender task per chat that waits for *that chat's* pace (see
:mod:`bot.store.pace`), so a busy or hostile chat only ever delays itself.

What an outbox holds is bounded: for each game only the newest table still to
be shown (a newer view replaces an older one, its story carried over), and at
most :data:`JOBS` other messages; under a flood the surplus is dropped (an
identical message already waiting absorbs a new one).  Tables go first.

Deleting a message is not counted by Telegram and never waits.

While Telegram refuses a chat's calls (429 Too Many Requests, a 5xx) or does not
answer, the chat's sender waits as Telegram asks (a 429's ``retry_after``) or backs
off (see :mod:`bot.adapters.storm`), and then shows the newest table: a table that
could not be shown stays in the outbox, and newer views of its game replace it there.
Another message is tried again only if Telegram surely did not send it (a 429 to its
first call); else it is given up, as under a flood.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram.error import NetworkError, RetryAfter

from ...ops.metrics import OUTBOX_DROPPED, PACED
from ...present import TableView
from ...store import Shown
from ...store.pace import PaceKey, Pacer
from ..faults import FaultLog
from ..storm import Storm
from .weather import retry_after, transient

log = logging.getLogger(__name__)

#: the most messages other than tables waiting in one chat
JOBS = 4
#: a pace that does not answer within this many seconds lets the call go
PACE_TIMEOUT = 2.0

#: a call's turn: wait for the chat's pace, and take it
Turn = Callable[[], Awaitable[None]]
#: a message to send: given the chat's turn, which it awaits before each counted call
Job = Callable[[Turn], Awaitable[None]]


@dataclass(frozen=True)
class Pending:
    """A table to show, and how."""

    view: TableView
    shown: Shown | None
    fresh: bool = False
    pressed: str | None = None
    #: the press or command that led to it was refused (a repair: nobody is notified)
    refused: bool = False
    #: the person whose card of the game this is (None: the game's table)
    card: str | None = None

    @property
    def key(self) -> str:
        """What the outbox keeps one of: the game's table, or one person's card of it."""
        return self.view.game_id if self.card is None else f"{self.view.game_id} {self.card}"

    def then(self, newer: Pending) -> Pending:
        """One show for both: the newer view (telling the older one's story too)."""
        if newer.view.rev < self.view.rev:
            view, shown = self.view, self.shown
        else:
            view, shown = newer.view.after(self.view), newer.shown
        if self.shown is not None and (shown is None or self.shown.rev > shown.rev):
            shown = self.shown
        return Pending(
            view,
            shown,
            self.fresh or newer.fresh,
            newer.pressed or self.pressed,
            self.refused and newer.refused,
            self.card,
        )


@dataclass
class Outbox:
    """What one chat still has to be sent."""

    tables: dict[str, Pending] = field(default_factory=dict)
    jobs: deque[tuple[str | None, Job]] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None
    #: tries Telegram refused in a row (the backoff grows with them), and the time
    #: (``time.monotonic``) before which the chat's next call waits
    tries: int = 0
    until: float = 0.0

    def empty(self) -> bool:
        return not self.tables and not self.jobs


class Pace:
    """The pacer's answers awaited without blocking the loop (a Redis pacer runs in a
    thread)."""

    def __init__(self, pacer: Pacer, threaded: bool) -> None:
        self.pacer = pacer
        self.threaded = threaded

    async def take(self, chat: PaceKey) -> None:
        """Wait until a call in ``chat`` may go, and count it."""
        while True:
            if self.threaded:
                try:
                    wait = await asyncio.wait_for(
                        asyncio.to_thread(self.pacer.try_take, chat), PACE_TIMEOUT
                    )
                except TimeoutError:
                    return
            else:
                wait = self.pacer.try_take(chat)
            if wait <= 0:
                return
            PACED.labels("telegram").inc()
            await asyncio.sleep(wait)


class Turns:
    """The turns of one send: the first is the one the sender took already."""

    def __init__(self, pace: Pace, chat: PaceKey) -> None:
        self.pace = pace
        self.chat = chat
        self.paid = True
        #: the counted calls begun
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.paid:
            self.paid = False
            return
        await self.pace.take(self.chat)


class Outboxes:
    """The outboxes of every chat, and their senders."""

    def __init__(
        self,
        pace: Pace,
        show: Callable[[Pending, Turn], Awaitable[None]],
        storm: Storm | None = None,
    ) -> None:
        self.pace = pace
        self._show = show
        #: Telegram refusing calls: how long to wait, and the log lines
        self.storm = storm if storm is not None else Storm("Telegram", log)
        self._boxes: dict[PaceKey, Outbox] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self.faults = FaultLog(log, (NetworkError,))  # Telegram does not answer
        #: jobs dropped under a flood (for the tests and the figures)
        self.dropped = 0

    def table(self, chat: PaceKey, pending: Pending) -> None:
        """Show ``pending`` (or a newer view of its game) as soon as ``chat`` allows."""
        box = self._box(chat)
        key = pending.key
        older = box.tables.get(key)
        box.tables[key] = older.then(pending) if older is not None else pending
        self._wake(chat, box)

    def send(self, chat: PaceKey, job: Job, *, key: str | None = None) -> bool:
        """Send ``job`` in ``chat`` when its turn comes; False if it was dropped (the chat
        has :data:`JOBS` waiting) or absorbed (one with the same ``key`` waits)."""
        box = self._box(chat)
        if key is not None and any(k == key for k, _ in box.jobs):
            return False
        if len(box.jobs) >= JOBS:
            self.dropped += 1
            OUTBOX_DROPPED.labels("telegram").inc()
            log.debug("chat %s: a message dropped, %d waiting", chat, len(box.jobs))
            return False
        box.jobs.append((key, job))
        self._wake(chat, box)
        return True

    def _box(self, chat: PaceKey) -> Outbox:
        box = self._boxes.get(chat)
        if box is None:
            box = self._boxes[chat] = Outbox()
        return box

    def _wake(self, chat: PaceKey, box: Outbox) -> None:
        if box.task is None:
            self._idle.clear()
            box.task = asyncio.create_task(self._drain(chat, box))

    async def _drain(self, chat: PaceKey, box: Outbox) -> None:
        try:
            while not box.empty():
                wait = box.until - time.monotonic()
                if wait > 0:  # Telegram refused the chat's last call: as it asked, or backing off
                    await asyncio.sleep(wait)
                await self.pace.take(chat)
                await self._next(chat, box, Turns(self.pace, chat))
        finally:
            box.task = None
            if box.empty():
                self._boxes.pop(chat, None)
            if not any(b.task for b in self._boxes.values()):
                self._idle.set()

    async def _next(self, chat: PaceKey, box: Outbox, turn: Turns) -> None:
        """Send the chat's next table (tables first), or its next other message."""
        if box.tables:
            key = next(iter(box.tables))
            pending = box.tables.pop(key)
            try:
                await self._show(pending, turn)
            except Exception as e:
                if not self._later(chat, box, e):  # the game is saved: a press or look shows it
                    self.faults.note(e, f"could not show game {key}")
                    return
                newer = box.tables.pop(key, None)  # shown after the wait, with any newer view
                box.tables[key] = pending.then(newer) if newer is not None else pending
                return
        else:
            name, job = box.jobs.popleft()
            try:
                await job(turn)
            except Exception as e:
                # sent again only if it surely was not: a 429 to its first call
                if isinstance(e, RetryAfter) and turn.calls <= 1 and self._later(chat, box, e):
                    box.jobs.appendleft((name, job))
                elif transient(e):
                    log.debug("chat %s: a message given up, Telegram refusing: %s", chat, e)
                else:
                    self.faults.note(e, f"could not send in chat {chat}")
                return
        box.tries = 0

    def _later(self, chat: PaceKey, box: Outbox, error: BaseException) -> bool:
        """Whether ``error`` is Telegram refusing for a while; if so the chat waits (as it
        asked, or a backoff that grows with each refusal in a row)."""
        if not transient(error):
            return False
        wait = self.storm.wait(box.tries, retry_after(error))
        box.tries += 1
        box.until = time.monotonic() + wait
        log.debug("chat %s: Telegram refused (%s), trying again in %.1f s", chat, error, wait)
        return True

    async def quiet(self) -> None:
        """Wait until every outbox is empty."""
        await self._idle.wait()

    async def close(self, timeout: float, give_up: asyncio.Event | None = None) -> None:
        """Send what waits (for at most ``timeout`` seconds, or until ``give_up`` is set:
        nothing can be sent), then give up the rest."""
        if timeout > 0 and not (give_up is not None and give_up.is_set()):
            waits: list[asyncio.Future[object]] = [asyncio.ensure_future(self.quiet())]
            if give_up is not None:
                waits.append(asyncio.ensure_future(give_up.wait()))
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
        for box in list(self._boxes.values()):
            if box.task is not None:
                box.task.cancel()
        self._boxes.clear()
        self._idle.set()
