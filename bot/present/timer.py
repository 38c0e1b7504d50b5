"""The turn timer as people type it and read it: ``timer=12h`` (or ``3d``, ``90m``,
``45s``, ``60`` seconds, ``off``) becomes seconds; seconds become words ("a day per
turn", "90 minutes per turn"), and so does a time left ("3 hours").

Pure: the lobby (:func:`bot.hosting.open_game`) checks the range, 10 seconds to 7 days
(:data:`bot.hosting.TIMER_RANGE`), and refuses a timer out of it saying the range in
words (:func:`bad_timer`).
"""

from __future__ import annotations

import re

from ..hosting import TIMER_RANGE
from .text import Text, echoed

#: the units a timer is said in (and typed in, by their first letter), largest first
UNITS = (("days", 86400), ("hours", 3600), ("minutes", 60), ("seconds", 1))
#: each unit's words: a length of time ("3 hours"), and the turn timer ("3 hours per turn")
TIME = {unit: f"time.{unit}" for unit, _ in UNITS}
PER_TURN = {
    "days": "timer.per_turn.days",
    "hours": "timer.per_turn.hours",
    "minutes": "timer.per_turn.minutes",
    "seconds": "timer.per_turn.seconds",
}
#: ``off`` and its like: no timer
OFF = ("off", "0", "none", "no")
#: a number typed has at most this many digits (docs/decisions.md, what people type)
MAX_DIGITS = 6
#: a timer typed with a longer number: beyond every range (refused, saying the range)
TOO_LONG = TIMER_RANGE[1] + 1
#: what :func:`asked_timer` makes of an option that is no timer at all: out of every
#: range, so the lobby refuses it saying what a timer may be
UNREADABLE = -1
#: ``1d12h``, ``90m``, ``45s``: numbers with their units, largest first (a bare number
#: alone is seconds)
_TYPED = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


def timer_seconds(typed: str) -> int | None:
    """The seconds a typed timer asks for (0: off), case and spaces aside: ``12h``,
    ``3d``, ``90m``, ``45s``, ``1h30m``, ``60`` (seconds), ``off``; None if it is no
    timer.  Not checked against the range; a number of more than :data:`MAX_DIGITS`
    digits is :data:`TOO_LONG`."""
    word = "".join(typed.split()).lower()
    if word in OFF:
        return 0
    if word.isascii() and word.isdigit():
        word += "s"
    found = _TYPED.fullmatch(word) if word.isascii() else None
    if found is None or not any(found.groups()):
        return None
    if any(len(n) > MAX_DIGITS for n in found.groups() if n):
        return TOO_LONG
    return sum(int(n) * size for n, (_, size) in zip(found.groups(), UNITS, strict=True) if n)


def typed_timer(typed: str) -> int | Text:
    """What ``timer=<typed>`` asks for (Telegram's ``/ludo``, inline tables): its seconds
    (the lobby checks the range), or why it is no timer, in words."""
    seconds = timer_seconds(typed)
    if seconds is None:
        return Text("tg.bad_timer", {"value": echoed(typed.strip())})
    return seconds


def asked_timer(value: str | int | None) -> int | None:
    """The seconds a command's timer option asks for (Discord's ``/ludo new timer``):
    None if not given; :data:`UNREADABLE` if it is no timer (the lobby refuses it)."""
    if value is None:
        return None
    seconds = timer_seconds(str(value))
    return UNREADABLE if seconds is None else seconds


def bad_timer() -> Text:
    """Why a timer is refused: off, or from 10 seconds to 7 days (the range, in words)."""
    low, high = TIMER_RANGE
    return Text("refuse.bad_timer", {"low": duration(low), "high": duration(high)})


def duration(seconds: int) -> Text:
    """A length of time, exactly, in the largest unit that measures it: "a day",
    "36 hours", "90 minutes", "45 seconds"."""
    return _said(TIME, seconds)


def per_turn(timer: int) -> Text:
    """The turn timer in words: "a day per turn", "12 hours per turn", "2 minutes per
    turn", "90 seconds per turn"; "off" (0)."""
    if timer <= 0:
        return Text("timer.off")
    return _said(PER_TURN, timer)


def time_left(seconds: float) -> Text:
    """About how long is left, in words: "2 days" (from 2 days on), "5 hours",
    "45 minutes", "30 seconds"."""
    left = max(0, round(seconds))
    for name, size in UNITS[:-1]:
        if left >= 2 * size:
            return Text(TIME[name], {"count": int(left / size + 0.5)})
    return Text(TIME["seconds"], {"count": left})


def _said(keys: dict[str, str], seconds: int) -> Text:
    seconds = max(0, int(seconds))
    for name, size in UNITS:
        if seconds >= size and seconds % size == 0:
            return Text(keys[name], {"count": seconds // size})
    return Text(keys["seconds"], {"count": seconds})
