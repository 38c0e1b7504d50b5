"""The platforms' send limits, spent evenly: one pace per chat and one for the bot.

Telegram lets a bot send or edit about 20 messages a minute in one group,
about one a second in a private chat, and about 30 a second in all.  A
:class:`Pacer` hands out the right to make one such call: in a chat, when
both that chat's pace and the bot-wide pace allow it.

Each pace is a GCRA (the "generic cell rate algorithm", a leaky bucket kept
as one timestamp): calls are spaced ``interval`` apart, with a small burst
allowed after a quiet while.  The group pace is chosen so that no window of
``period`` seconds (plus a margin: a call reaches Telegram a moment after it
leaves) ever holds more than ``rate`` calls, however they fall: a burst of
``burst`` calls, then one every ``(period + margin) / (rate - burst + 1)``
seconds (about 3.4 s for Telegram's 20 a minute), so a board waits a few
seconds at most instead of a minute after twenty quick ones.

:class:`MemoryPacer` keeps the paces in this process (one worker, SQLite);
:class:`bot.store.redis.pace.RedisPacer` keeps them in Redis, in one script,
so that every worker together keeps the limits.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

#: chats whose pace a :class:`MemoryPacer` remembers (the quietest are forgotten)
MEMORY = 8192

#: where a pace is kept: a chat's id (below 0: a group), or a place known by another
#: name (Telegram's ``chat_instance`` of an inline message): ``"g:<name>"`` paced as a
#: group, ``"p:<name>"`` as a private chat
PaceKey = int | str


def is_group(chat: PaceKey) -> bool:
    """Whether ``chat`` is paced as a group."""
    return chat < 0 if isinstance(chat, int) else chat.startswith("g:")


@dataclass(frozen=True)
class Limits:
    """The platform's limits: ``rate`` calls in any ``period`` seconds in one group
    (0: none), one call every ``private`` seconds in a private chat (0: none),
    ``overall`` calls a second in all (0: none); ``burst`` calls may go at once
    after a quiet while."""

    rate: int = 20
    period: float = 60.0
    private: float = 1.0
    overall: float = 30.0
    burst: int = 3

    @property
    def margin(self) -> float:
        """Extra seconds counted in a group's window: a tenth of it, at most one."""
        return min(1.0, self.period / 10)

    def pace(self, chat: PaceKey) -> tuple[float, int]:
        """(interval, burst) of the pace in ``chat`` (negative ids: groups); interval 0:
        no limit there."""
        if is_group(chat):
            if self.rate <= 0:
                return 0.0, 1
            burst = max(1, min(self.burst, self.rate // 2))
            # b at once, then one every T: any window W then holds at most
            # b + ceil(W / T) - 1 calls, which is the rate for this T
            return (self.period + self.margin) / (self.rate - burst + 1), burst
        if self.private <= 0:
            return 0.0, 1
        return self.private, self.burst

    def bot_pace(self) -> tuple[float, int]:
        """(interval, burst) of the bot-wide pace (interval 0: no limit).  As a group's:
        no second ever holds more than ``overall`` calls, however they fall (with the
        same margin: a call reaches Telegram a moment after it leaves)."""
        if self.overall <= 0:
            return 0.0, 1
        if self.overall < 2:  # a slow pace: one at a time
            return 1.0 / self.overall, 1
        rate = int(self.overall)
        burst = max(1, min(self.burst, rate // 2))
        return (1.0 + min(1.0, 1.0 / 10)) / (rate - burst + 1), burst


def gcra(tat: float | None, now: float, interval: float, burst: int) -> tuple[float, float]:
    """One GCRA step: (seconds to wait, 0 if a call may go now; the new theoretical
    arrival time if it goes).  ``tat`` is the stored one (None: never used)."""
    if interval <= 0:
        return 0.0, now
    start = now if tat is None else max(tat, now)
    new = start + interval
    wait = new - now - burst * interval
    return (wait if wait > 1e-9 else 0.0), new


class Pacer(Protocol):
    """Hands out the right to make one counted call in a chat."""

    def try_take(self, chat: PaceKey) -> float:
        """0 if a call in ``chat`` may go now (and it is counted); else the seconds to
        wait before asking again (nothing counted)."""
        ...


class MemoryPacer:
    """The paces kept in this process."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._tat: OrderedDict[PaceKey, float] = OrderedDict()
        self._bot: float | None = None

    def try_take(self, chat: PaceKey) -> float:
        now = self.clock()
        interval, burst = self.limits.pace(chat)
        wait, tat = gcra(self._tat.get(chat), now, interval, burst)
        bot_interval, bot_burst = self.limits.bot_pace()
        bot_wait, bot_tat = gcra(self._bot, now, bot_interval, bot_burst)
        if wait > 0 or bot_wait > 0:
            return max(wait, bot_wait)
        if interval > 0:
            self._tat[chat] = tat
            self._tat.move_to_end(chat)
            while len(self._tat) > MEMORY:
                self._tat.popitem(last=False)
        if bot_interval > 0:
            self._bot = bot_tat
        return 0.0
