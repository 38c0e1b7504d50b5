"""Discord's invalid requests, as this process drew them.

Discord shuts an address out of its whole API for a while once it has made 10,000
invalid requests (answered 401, 403 or 429) in 10 minutes: the gateway, the buttons
and the tables all stop.  Every answer the bot gets from Discord, through discord.py
(the tables) or from the live board's sign-in, is told to :func:`answered`: an invalid
one counts in ``ludo_discord_invalid_total`` and in the last 10 minutes' count, which
``/healthz`` warns of from :data:`WARN_AT` on (:func:`warnings`), long before a tenth
of the limit.

The count is this process's: workers that share an address add up (the sum of
``ludo_discord_invalid_total`` over them tells).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .metrics import DISCORD_INVALID

#: Discord's limit: invalid requests an address may make in :data:`WINDOW` seconds
LIMIT = 10_000
#: the window Discord counts over, in seconds
WINDOW = 600.0
#: /healthz warns from this many in the window (a twentieth of the limit: half of a
#: tenth, so the warning comes before the count nears a tenth)
WARN_AT = 500
#: the window is counted in slots of this many seconds
SLOT = 10.0
#: what Discord counts as invalid
INVALID = frozenset({401, 403, 429})


class Window:
    """Counts over the last :data:`WINDOW` seconds, by slots of :data:`SLOT`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        #: slot number -> count
        self._slots: dict[int, int] = {}

    def add(self, n: int = 1) -> None:
        slot = int(self._clock() // SLOT)
        with self._lock:
            self._slots[slot] = self._slots.get(slot, 0) + n
            self._trim(slot)

    def count(self) -> int:
        slot = int(self._clock() // SLOT)
        with self._lock:
            self._trim(slot)
            return sum(self._slots.values())

    def _trim(self, slot: int) -> None:
        first = slot - int(WINDOW // SLOT) + 1
        for old in [s for s in self._slots if s < first]:
            del self._slots[old]


#: this process's invalid requests in the last 10 minutes
RECENT = Window()


def answered(status: int, caller: str) -> bool:
    """Discord answered ``status`` to a request of ``caller`` (``bot`` or ``web``);
    whether it was an invalid request (counted)."""
    if status not in INVALID:
        return False
    DISCORD_INVALID.labels(caller).inc()
    RECENT.add()
    return True


def warnings(window: Window | None = None) -> dict[str, str]:
    """What ``/healthz`` warns of: invalid requests nearing Discord's limit (in
    ``window``; this process's by default)."""
    n = (window or RECENT).count()
    if n < WARN_AT:
        return {}
    return {
        "discord": (
            f"{n} requests answered 401, 403 or 429 in the last 10 minutes: Discord shuts "
            f"an address out of its API at {LIMIT:,}"
        )
    }
