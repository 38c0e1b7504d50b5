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

The board facts (:mod:`engine.board`: the progress coordinate, the start and
star squares, ``track_square``...) are exported here too, so the renderer and
the bot draw and reason about the same board.
"""

from .actions import Event, Move
from .board import (
    BASE,
    COLOUR_INDEX,
    COLOURS,
    DEFAULT_SEATS,
    FIRST_COLUMN,
    HOME,
    LAST_TRACK,
    STAR_SQUARES,
    START,
    START_SQUARES,
    TRACK_SQUARES,
    is_star,
    quarter_of,
    start_colour,
    track_square,
)
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
from .state import SCHEMA_VERSION, GameState

__all__ = [
    "BASE",
    "COLOURS",
    "COLOUR_INDEX",
    "DEFAULT_SEATS",
    "FIRST_COLUMN",
    "HOME",
    "LAST_TRACK",
    "PRESETS",
    "RULE_SETS",
    "SCHEMA_VERSION",
    "START",
    "START_SQUARES",
    "STAR_SQUARES",
    "TRACK_SQUARES",
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
    "is_star",
    "legal_moves",
    "load_record",
    "make_record",
    "move_for",
    "move_in_place",
    "new_game",
    "quarter_of",
    "replay",
    "roll_in_place",
    "rules_for",
    "start_colour",
    "start_of",
    "track_square",
]
