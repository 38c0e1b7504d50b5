"""A budget for expensive drawing: animations in a small pool of their own.

A game's replay takes a second or two of CPU to draw.  Drawn in the default
thread pool (the one the service's store calls use), twenty of them would
hold up every chat's presses; here they get :data:`WORKERS` threads of
their own, and a chat or a person can have at most one such job waiting or
running (a second ask while one is under way is turned down, and told so).
A replay once drawn is remembered (the platform's file id where it gives one,
else the bytes, within :data:`CACHE_BYTES`), so asking again costs no drawing.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: threads drawing animations (the rest of the machine keeps answering presses)
WORKERS = 1
#: the most bytes of drawn replays remembered in this process
CACHE_BYTES = 64 * 1024 * 1024


class Busy(Exception):
    """The chat or person asking already has an expensive job waiting or running."""


class Drawing:
    """Expensive jobs, in their own pool, at most one per key (a chat, a person)."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="ludo-draw")
        self._busy: set[str] = set()
        #: replays drawn: game key -> the platform's file id (str) or the bytes
        self._done: OrderedDict[str, str | bytes] = OrderedDict()

    def busy(self, keys: Iterable[str]) -> bool:
        return any(k in self._busy for k in keys)

    async def run(self, keys: Iterable[str], fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in the pool; raises :class:`Busy` if one of ``keys`` has a job."""
        keys = tuple(keys)
        if self.busy(keys):
            raise Busy(", ".join(keys))
        self._busy.update(keys)
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, partial(fn, *args))
        finally:
            self._busy.difference_update(keys)

    def drawn(self, game_key: str) -> str | bytes | None:
        """The replay of ``game_key`` drawn before: a file id, or the bytes."""
        found = self._done.get(game_key)
        if found is not None:
            self._done.move_to_end(game_key)
        return found

    def remember(self, game_key: str, replay: str | bytes) -> None:
        """Keep ``replay`` (a file id, or the bytes) for ``game_key``."""
        self._done[game_key] = replay
        self._done.move_to_end(game_key)
        while sum(len(v) for v in self._done.values()) > CACHE_BYTES and len(self._done) > 1:
            self._done.popitem(last=False)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
