"""Many presses at once: every one acknowledged at once, its table shown after.

A press is normally answered by its own table, edited with the new board (type
7), which needs the board drawn first: about 20 ms alone, but drawing is work for
the processor, and fifty presses at the same moment (a busy server) would leave
the last ones waiting for a second or more for their first answer, and Discord
shows "This interaction failed" after three seconds.  So while more than
:data:`BURST` commands and presses are being answered at once, each of them
(also those already on their way, whose boards are not drawn yet) is
acknowledged at once, silently (a press: type 6; a command: a private
"thinking…"), and its table is shown through the channel when it is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from .screen import InteractionScreen

log = logging.getLogger(__name__)

#: more interactions than this answered at once: each acknowledged at once
BURST = 4


class Burst:
    """The interactions one adapter is answering now (see the module's doc)."""

    def __init__(self, limit: int = BURST) -> None:
        self.limit = limit
        self._answering: set[InteractionScreen] = set()
        #: acknowledgements of others, sent by the interaction that made the burst
        self._tasks: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._answering)

    @contextlib.asynccontextmanager
    async def answering(self, screen: InteractionScreen) -> AsyncIterator[None]:
        """While ``screen``'s interaction is answered; acknowledged at once in a burst."""
        self._answering.add(screen)
        try:
            if len(self._answering) > self.limit:
                for other in self._answering - {screen}:
                    if other.waiting():
                        task = asyncio.create_task(acknowledge(other))
                        self._tasks.add(task)
                        task.add_done_callback(self._tasks.discard)
                await screen.defer()
            yield
        finally:
            self._answering.discard(screen)

    async def quiet(self) -> None:
        """Wait until every acknowledgement sent for another interaction is done."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))


async def acknowledge(screen: InteractionScreen) -> None:
    """Acknowledge another interaction (its own answer follows through the channel)."""
    try:
        await screen.defer()
    except Exception as e:  # the bot stopping: that interaction answers itself, or fails
        log.info("an interaction could not be acknowledged in a burst: %s", e)
