"""Telegram's group limit, kept without a backlog: the newest table or nothing.

Telegram lets a bot send or edit about 20 messages a minute in one group.
:class:`Window` counts those calls per chat in a sliding window (a leaky
bucket would let 40 through in some minute).  :class:`Shows` keeps, for each
game, only the newest table still to be shown: while a chat waits for its
window, a newer view replaces an older one (its story carried over), so a
burst of presses ends in one board instead of a queue of old ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ...present import TableView
from ...store import Shown
from ..faults import FaultLog

log = logging.getLogger(__name__)


class Window:
    """At most ``rate`` calls in any ``period`` seconds in each group (0: no limit);
    private chats (positive ids) are not limited here.

    The window is kept a little longer than ``period`` (a tenth, at most a second):
    calls reach Telegram a moment after they leave, not all after the same moment.
    """

    def __init__(
        self, rate: int, period: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.period = period + min(1.0, period / 10)
        self.clock = clock
        self._calls: dict[int, deque[float]] = {}

    def wait_time(self, chat: int) -> float:
        """Seconds until a call in ``chat`` fits in the window (0: now)."""
        if self.rate <= 0 or chat > 0:
            return 0.0
        calls = self._calls.get(chat)
        if not calls:
            return 0.0
        now = self.clock()
        while calls and calls[0] <= now - self.period:
            calls.popleft()
        if len(calls) < self.rate:
            return 0.0
        return calls[len(calls) - self.rate] + self.period - now

    async def ready(self, chat: int) -> None:
        """Wait until a call in ``chat`` fits (without making it)."""
        while (wait := self.wait_time(chat)) > 0:
            await asyncio.sleep(wait)

    async def take(self, chat: int) -> None:
        """Wait until a call in ``chat`` fits, and count it."""
        await self.ready(chat)
        if self.rate > 0 and chat < 0:
            self._calls.setdefault(chat, deque()).append(self.clock())
            if len(self._calls) > 4096:  # forget quiet chats
                now = self.clock()
                self._calls = {
                    c: q for c, q in self._calls.items() if q and q[-1] > now - self.period
                }


@dataclass(frozen=True)
class Pending:
    """A table to show, and how."""

    view: TableView
    shown: Shown | None
    fresh: bool = False
    pressed: str | None = None

    def then(self, newer: Pending) -> Pending:
        """One show for both: the newer view (telling the older one's story too)."""
        if newer.view.rev < self.view.rev:
            view, shown = self.view, self.shown
        else:
            view, shown = newer.view.after(self.view), newer.shown
        if self.shown is not None and (shown is None or self.shown.rev > shown.rev):
            shown = self.shown
        return Pending(view, shown, self.fresh or newer.fresh, newer.pressed or self.pressed)


class Shows:
    """The newest table of each game waiting to be shown, shown as soon as its chat's
    window allows; handlers never wait for it."""

    def __init__(
        self,
        window: Window,
        show: Callable[[Pending], Awaitable[None]],
        chat_of: Callable[[str], int],
    ) -> None:
        self.window = window
        self._show = show
        self._chat_of = chat_of
        self._pending: dict[str, Pending] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._idle = asyncio.Event()
        self._idle.set()
        self.faults = FaultLog(log)

    def submit(self, pending: Pending) -> None:
        """Show ``pending`` (or a newer view of its game) as soon as the chat allows."""
        key = pending.view.game_id
        older = self._pending.get(key)
        self._pending[key] = older.then(pending) if older is not None else pending
        if key not in self._tasks:
            self._idle.clear()
            self._tasks[key] = asyncio.create_task(self._drain(key))

    async def _drain(self, key: str) -> None:
        try:
            while key in self._pending:
                await self.window.ready(self._chat_of(self._pending[key].view.channel))
                pending = self._pending.pop(key)
                try:
                    await self._show(pending)
                except Exception as e:
                    # the game is saved; the next press or look shows it
                    self.faults.note(e, f"could not show game {key}")
        finally:
            del self._tasks[key]
            if not self._tasks:
                self._idle.set()

    async def quiet(self) -> None:
        """Wait until every table waiting to be shown is shown."""
        await self._idle.wait()

    async def close(self, timeout: float) -> None:
        """Show what waits (for at most ``timeout`` seconds), then give up the rest."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.quiet(), timeout)
        for task in list(self._tasks.values()):
            task.cancel()
        self._pending.clear()
