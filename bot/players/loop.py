"""The one game loop: the chat service, the terminal game and ``simulate`` all play through it.

A game is a sequence of actions (``{"roll": d}`` or ``{"move": i}``); who
decides each one differs (a person's press, a computer player, a seeded die),
so the loop asks a ``decide`` function for the next action and stops when it
answers None (a person must act) or the game is over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine import Event, GameState, Move, move_for, move_in_place, roll_in_place

Action = dict[str, int]
#: the next action in this state, or None when someone else must act (a person)
Decide = Callable[[GameState], Action | None]

#: a game longer than this many actions is stopped (none comes near it: a safety net)
MAX_ACTIONS = 100_000


@dataclass(frozen=True)
class Step:
    """One action as played: who acted, what, the move it made, what happened."""

    colour: str
    action: Action
    #: the phase it was played in ("roll", "move" or "bonus")
    phase: str
    #: the move made (for a move action)
    move: Move | None
    #: the die shown when the action was played (the roll itself, for a roll)
    die: int
    events: list[Event]


def play(state: GameState, action: Action) -> Step:
    """Apply one action to ``state`` itself and tell what happened.

    An illegal action raises :class:`engine.IllegalAction` and changes nothing.
    """
    colour, phase, die = state.turn, state.phase, state.die
    events: list[Event] = []
    if "move" in action:
        move = move_for(state, action["move"])
        move_in_place(state, action["move"], events)
        return Step(colour, action, phase, move, die, events)
    roll_in_place(state, action["roll"], events)
    return Step(colour, action, phase, None, action["roll"], events)


def play_on(
    state: GameState,
    decide: Decide,
    on_step: Callable[[Step], None] | None = None,
    limit: int = MAX_ACTIONS,
) -> int:
    """Play ``state`` itself on while ``decide`` gives actions; the number played.

    Without ``on_step`` the engine's fast path is taken: no events, no moves
    looked up (what ``simulate`` needs for speed).
    """
    n = 0
    while state.phase != "over" and n < limit:
        action = decide(state)
        if action is None:
            break
        if on_step is not None:
            on_step(play(state, action))
        elif "roll" in action:
            roll_in_place(state, action["roll"], None)
        else:
            move_in_place(state, action["move"], None)
        n += 1
    return n
