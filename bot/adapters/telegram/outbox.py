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
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram.error import NetworkError

from ...ops.metrics import OUTBOX_DROPPED, PACED
from ...present import TableView
from ...store import Shown
from ...store.pace import PaceKey, Pacer
from ..faults import FaultLog

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
        )


@dataclass
class Outbox:
    """What one chat still has to be sent."""

    tables: dict[str, Pending] = field(default_factory=dict)
    jobs: deque[tuple[str | None, Job]] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None

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

    async def __call__(self) -> None:
        if self.paid:
            self.paid = False
            return
        await self.pace.take(self.chat)


class Outboxes:
    """The outboxes of every chat, and their senders."""

    def __init__(self, pace: Pace, show: Callable[[Pending, Turn], Awaitable[None]]) -> None:
        self.pace = pace
        self._show = show
        self._boxes: dict[PaceKey, Outbox] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self.faults = FaultLog(log, (NetworkError,))  # Telegram does not answer
        #: jobs dropped under a flood (for the tests and the figures)
        self.dropped = 0

    def table(self, chat: PaceKey, pending: Pending) -> None:
        """Show ``pending`` (or a newer view of its game) as soon as ``chat`` allows."""
        box = self._box(chat)
        key = pending.view.game_id
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
                await self.pace.take(chat)
                await self._next(chat, box, Turns(self.pace, chat))
        finally:
            box.task = None
            if box.empty():
                self._boxes.pop(chat, None)
            if not any(b.task for b in self._boxes.values()):
                self._idle.set()

    async def _next(self, chat: PaceKey, box: Outbox, turn: Turn) -> None:
        """Send the chat's next table (tables first), or its next other message."""
        if box.tables:
            key = next(iter(box.tables))
            try:
                await self._show(box.tables.pop(key), turn)
            except Exception as e:
                # the game is saved; the next press or look shows it
                self.faults.note(e, f"could not show game {key}")
        else:
            _, job = box.jobs.popleft()
            try:
                await job(turn)
            except Exception as e:
                self.faults.note(e, f"could not send in chat {chat}")

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
