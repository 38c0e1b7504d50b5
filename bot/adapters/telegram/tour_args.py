"""``/ludo tournament``'s words on Telegram (Discord has options): what to do to the
tournament here (``join``, ``leave``, ``start``, ``end``, ``show``), or how to set a
new one up (``/ludo tournament knockout super size=12 timer=60``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...hosting import tournament as tour
from ...present import Text
from .commands import whole_number

#: ``/ludo <word>`` of a tournament, in the languages the bot speaks
WORDS = ("tournament", "tourney", "torneio", "torneo")
#: what can be done to the tournament here
ACTIONS = ("join", "leave", "start", "end", "show")
#: the formats' names as typed
FORMATS = {
    "swiss": tour.SWISS,
    "suico": tour.SWISS,
    "suíço": tour.SWISS,
    "suizo": tour.SWISS,
    "svizzero": tour.SWISS,
    "knockout": tour.KNOCKOUT,
    "ko": tour.KNOCKOUT,
    "eliminatoria": tour.KNOCKOUT,
    "eliminatória": tour.KNOCKOUT,
    "eliminazione": tour.KNOCKOUT,
}


@dataclass(frozen=True)
class TourArgs:
    """A new tournament as asked; ``rest``: the words left for the game's set-up (rules,
    options, ``lang=``, ``level=``), parsed as ``/ludo``'s."""

    fmt: str = tour.SWISS
    size: int = 8
    rounds: int = 3
    timer: int = 120
    rest: list[str] = field(default_factory=list)
    error: Text | None = None


def parse_tour_args(words: Sequence[str]) -> TourArgs:
    """``swiss|knockout``, ``size=N``, ``rounds=N``, ``timer=N`` anywhere; the rest as
    ``/ludo``'s (the rule set first)."""
    asked = TourArgs()
    numbers = {"size": asked.size, "rounds": asked.rounds, "timer": asked.timer}
    fmt, rest = asked.fmt, []
    for raw in words:
        word = raw.strip().lower()
        key, eq, value = word.partition("=")
        if not eq and word in FORMATS:
            fmt = FORMATS[word]
        elif eq and key in numbers:
            number = whole_number(value)
            if number is None:
                return TourArgs(error=Text("refuse.tour_number", {"name": key}))
            numbers[key] = number
        else:
            rest.append(raw)
    return TourArgs(fmt, numbers["size"], numbers["rounds"], numbers["timer"], rest)
