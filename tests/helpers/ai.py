"""What the tests of the computer players share: a position of a 4-player game, the
rules, player counts and options they are tried on, and a game played on with the
die of a seeded generator."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import engine
from engine import COLOURS, GameState, Move


def position(**pieces: list[int]) -> dict[str, list[int]]:
    """Every colour of a 4-player game in its base, except those given."""
    return {c: pieces.get(c, [0, 0, 0, 0]) for c in COLOURS}


CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("classic", 2, {}),
    ("classic", 3, {}),
    ("classic", 4, {}),
    ("classic", 4, {"safe_starts": False, "safe_stars": False}),
    ("tower", 2, {}),
    ("tower", 3, {}),
    ("tower", 4, {}),
    ("italian", 4, {}),
    ("italian", 4, {"teams": True}),
    ("italian", 4, {"teams": True, "pieces_to_win": 2}),
    ("italian", 3, {"pieces": 5}),
    ("italian", 2, {"pieces": 6, "pieces_to_win": 3}),
    ("italian", 4, {"pieces": {"red": 6, "green": 5}}),
    ("super", 4, {}),
]


def play_on(
    state: GameState,
    rng: random.Random,
    steps: int,
    choose: Callable[[GameState, list[Move]], int | None],
) -> GameState:
    """``state`` played on for at most ``steps`` steps (a roll or a move each), or until
    the game is over: the die rolled with ``rng``, each move the piece that
    ``choose(state, moves)`` picks (None: stop there).  The state reached."""
    for _ in range(steps):
        if state.phase == "over":
            break
        if state.phase == "roll":
            state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
            continue
        piece = choose(state, engine.legal_moves(state))
        if piece is None:
            break
        state, _ = engine.apply(state, {"move": piece})
    return state
