"""What a step of a hosted game produced: what happened, or why it was refused.

Hosting says *what* happened (engine events and its own notes with their
facts); the presenter (:mod:`bot.present`) chooses the words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import Event

from ..players import Policy
from .game import User


class Refusal(Exception):
    """A request that cannot be done now: nothing changes, the asker is told why.

    ``key`` names the reason (``refuse.not_your_turn``); ``params`` are its facts.
    """

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True)
class Note:
    """Something hosting did (a person joined, a timer ran out), as a key and its facts."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)


#: one thing that happened: an engine event or a hosting note
Fact = Event | Note


@dataclass
class Happened:
    """What one request (or one timer firing) did to a game."""

    #: who asked (None: a timer)
    by: User | None = None
    facts: list[Fact] = field(default_factory=list)
    #: a slow turn's reminder: nothing moved, the person on turn is to be reminded that
    #: a quarter of their time is left (:mod:`.slow`)
    reminder: bool = False

    def note(self, key: str, **params: Any) -> None:
        self.facts.append(Note(key, params))


@dataclass(frozen=True)
class Luck:
    """What hosting needs from outside the rules: chance, a computer player, the time."""

    #: a fair die, 1..6
    die: Callable[[], int]
    #: a uniform draw of 0..n-1 (who starts, when drawn at random)
    draw: Callable[[int], int]
    #: the computer player of a level (one of :data:`bot.players.LEVELS`), asked
    #: afresh for each decision
    computer: Callable[[str], Policy]
    now: float
