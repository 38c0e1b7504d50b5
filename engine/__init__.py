"""The rules of Ludo: pure, deterministic, replayable.

The die is an input (``{"roll": d}``), so a game record replays the same game
everywhere.  The public API::

    state = new_game("classic", ["red", "yellow"])
    state, events = apply(state, {"roll": 6})
    legal_moves(state)            # [Move(colour='red', piece=0, frm=0, to=1, ...)]
    state, events = apply(state, {"move": 0})
    replay(record)                # the final state of a game record
"""

from .board import COLOURS, HOME
from .errors import IllegalAction, LudoError, RecordError, RulesError
from .game import apply, legal_moves, new_game
from .record import load_record, make_record, replay
from .rules import PRESETS, RULE_SETS, Options, rules_for
from .state import SCHEMA_VERSION, Event, GameState, Move

__all__ = [
    "COLOURS",
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
    "legal_moves",
    "load_record",
    "make_record",
    "new_game",
    "replay",
    "rules_for",
]
