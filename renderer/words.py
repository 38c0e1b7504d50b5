"""The words drawn in the pictures, given by the caller in the reader's language.

The renderer knows no language: it draws what a :class:`Words` says.  The default
is English; a caller in another language builds its own from its catalog (the
counted words get the count, so each language can say its plurals).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


def _bonus(steps: int) -> str:
    return f"bonus move of {steps}"


def _won(winners: int) -> str:
    return "wins!" if winners == 1 else "win!"


def _title(over: bool, rules: str) -> str:
    return f"{'Final standings' if over else 'Standings so far'} · {rules}"


def _points(count: int) -> str:
    return f"{count} point" if count == 1 else f"{count} points"


def _to_go(count: int) -> str:
    return f"{count} square to go" if count == 1 else f"{count} squares to go"


def _colour(colour: str) -> str:
    return colour.capitalize()


@dataclass(frozen=True)
class Words:
    """What the board's status bar and the standings say (default: English)."""

    #: after the name of the player on turn: "Ana: to roll"
    to_roll: str = "to roll"
    #: "Ana: choose a piece"
    choose: str = "choose a piece"
    #: the steps of a bonus move -> "bonus move of 6"
    bonus: Callable[[int], str] = _bonus
    #: the number of winners -> what follows their names: "wins!", "win!"
    won: Callable[[int], str] = _won
    #: (the game is over, the rule set) -> the standings' title: "Final standings · classic"
    title: Callable[[bool, str], str] = _title
    #: a classic score -> "250 points"
    points: Callable[[int], str] = _points
    #: a player with every piece home (no scores)
    all_home: str = "all home"
    #: the squares a player still has to walk -> "12 squares to go"
    to_go: Callable[[int], str] = _to_go
    #: a colour -> the name shown for a seat without one: "Red"
    colour: Callable[[str], str] = _colour


#: the words in English
ENGLISH = Words()
