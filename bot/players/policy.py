"""The simplest computer player, and what every player is: a policy choosing among legal moves."""

from __future__ import annotations

import random
from typing import Protocol

from engine import GameState, Move, legal_moves


class Policy(Protocol):
    def choose(self, state: GameState, moves: list[Move]) -> Move: ...


class RandomPlayer:
    """Picks uniformly among the legal moves (seeded, so games repeat)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        return moves[int(self.rng.random() * len(moves))] if len(moves) > 1 else moves[0]


def choose_move(policy: Policy, state: GameState) -> Move:
    """The policy's choice among the legal moves of ``state``."""
    moves = legal_moves(state)
    if not moves:
        raise ValueError("no move is due in this state")
    return policy.choose(state, moves)
