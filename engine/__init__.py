"""The rules of Ludo: pure, deterministic, replayable.

The die is an input (``{"roll": d}``), so a game record replays the same game
everywhere.  The public API::

    state = new_game("classic", ["red", "yellow"])
    state, events = apply(state, {"roll": 6})
    legal_moves(state)            # [Move(colour='red', piece=0, frm=0, to=1, ...)]
    move_for(state, 2)            # the Move that moving piece 2 makes now
    state, events = apply(state, {"move": 0})
    replay(record)                # the final state of a game record
    start_of(record)              # the state a game record starts from

Fast random play owns its state and changes it in place, skipping the copy
and the events::

    moves = current_moves(state)  # cached in the state: do not change the list
    move_in_place(state, moves[0].piece, None)
    roll_in_place(state, 4, None)
"""

from .board import COLOURS, DEFAULT_SEATS, HOME
from .errors import IllegalAction, LudoError, RecordError, RulesError
from .game import (
    apply,
    current_moves,
    legal_moves,
    move_for,
    move_in_place,
    new_game,
    roll_in_place,
)
from .record import load_record, make_record, replay, start_of
from .rules import PRESETS, RULE_SETS, Options, rules_for
from .state import SCHEMA_VERSION, Event, GameState, Move

__all__ = [
    "COLOURS",
    "DEFAULT_SEATS",
    "HOME",
    "PRESETS",
    "RULE_SETS",
    "SCHEMA_VERSION",
    "Event",
    "GameState",
    "IllegalAction",
    "LudoError",
    "Move",
    "Options",
    "RecordError",
    "RulesError",
    "apply",
    "current_moves",
    "legal_moves",
    "load_record",
    "make_record",
    "move_for",
    "move_in_place",
    "new_game",
    "replay",
    "roll_in_place",
    "rules_for",
    "start_of",
]
