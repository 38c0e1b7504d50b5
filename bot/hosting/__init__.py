"""The hosted game, without any I/O: lobby, seats, turns, timeouts, computer seats.

Every step is a function on a :class:`Game` (loaded fresh for each request)
that changes it and tells what happened in a :class:`Happened`, or raises a
:class:`Refusal` (and the caller throws the changed copy away).
"""

from .game import ENDED, LOBBY, NORMAL, OVER, PLAYING, SCHEMA, DamagedGame, Game, Seat, User
from .happened import Fact, Happened, Luck, Note, Refusal
from .intents import KINDS, Intent, perform
from .lobby import (
    add_computer,
    end,
    join,
    leave,
    open_game,
    remove_computer,
    set_level,
    start,
)
from .slow import TIMER_RANGE
from .tables import timeout
from .turns import MAX_TIMEOUTS, move, roll

__all__ = [
    "ENDED",
    "KINDS",
    "LOBBY",
    "MAX_TIMEOUTS",
    "NORMAL",
    "OVER",
    "PLAYING",
    "SCHEMA",
    "TIMER_RANGE",
    "DamagedGame",
    "Fact",
    "Game",
    "Happened",
    "Intent",
    "Luck",
    "Note",
    "Refusal",
    "Seat",
    "User",
    "add_computer",
    "end",
    "join",
    "leave",
    "move",
    "open_game",
    "perform",
    "remove_computer",
    "roll",
    "set_level",
    "start",
    "timeout",
]
