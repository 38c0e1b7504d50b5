"""Slow games: turn timers of up to a week, and one reminder in a slow turn.

A turn timer is off, or 10 seconds to 7 days.  In a *slow* turn (a timer of an hour or
more) the person on turn is reminded once, when three quarters of their time has
passed without a move: the game's deadline in the store (:attr:`bot.hosting.Game.due`)
is the reminder's time first, and the turn's own deadline once it was reminded
(:func:`bot.hosting.turns.timeout`).  See docs/decisions.md, "Decisions about slow
games".
"""

from __future__ import annotations

DAY = 24 * 3600
#: the turn timer, when on, is this many seconds at least and at most
TIMER_RANGE = (10, 7 * DAY)
#: a turn timer this long or longer makes slow turns: each gets one reminder
SLOW = 3600
#: the part of a slow turn's time that passes before its reminder
REMIND_AFTER = 0.75
#: the longest timer a ludo-bot before slow games could read (a game with a longer one
#: is saved in the format those cannot read, so they leave it alone: see ``Game.to_bytes``)
OLD_LONGEST = DAY


def is_slow(timer: int) -> bool:
    """Whether turns of ``timer`` seconds are slow ones (reminded once)."""
    return timer >= SLOW


def reminder_at(timer: int, deadline: float | None, reminded: bool) -> float | None:
    """When the person on turn is to be reminded: three quarters into a slow turn that
    runs out at ``deadline`` (None: no reminder is due, or it was given already)."""
    if deadline is None or reminded or not is_slow(timer):
        return None
    return deadline - timer * (1 - REMIND_AFTER)
