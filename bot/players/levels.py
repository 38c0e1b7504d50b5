"""The four computer levels, one factory: ``player_for(level, rng)``.

- ``easy``: the heuristic with a beginner's mistakes: now and then a random
  legal move, or the second best;
- ``normal``: the heuristic (:class:`HeuristicPlayer`), unchanged;
- ``hard``: a search one roll deep (:class:`SearchPlayer`, depth 1) valuing
  positions with the hand-made :func:`~bot.players.search.evaluate`;
- ``expert``: the search over the dice valuing positions by their learned
  chance of winning (:func:`~bot.players.value.win_chance`), deepened to two
  rolls while its node budget lasts, the wall clock only a cap; in tower,
  where that chance plays worse than the hand-made worth, the hand-made worth
  one opponent's answer deep (:data:`HAND_MADE`).

Every level chooses among the legal moves it is given, so none can play an
illegal one; the rng is the only source of chance, so a seeded level repeats.
"""

from __future__ import annotations

import random

from engine import GameState, Move

from .heuristic import HeuristicPlayer, score_moves
from .policy import Policy
from .search import DiceSearch, evaluate
from .value import win_chance

LEVELS = ("easy", "normal", "hard", "expert")

#: easy: the chance of a random legal move, and of the second best
BLUNDER = 0.3
SECOND = 0.2
#: the heuristic's score added to a searched value (it breaks near ties with
#: what the search does not see: threats, blockades): for the hand-made
#: evaluation (in squares), and for the chance of winning (a fraction)
HEURISTIC_WEIGHT = 1.0
HEURISTIC_WEIGHT_LEARNED = 0.0001
#: expert: nodes per decision, deepest roll looked at, wall-clock cap (seconds)
EXPERT_NODES = 1200
EXPERT_DEPTH = 2
EXPERT_SECONDS = 0.15
#: rule sets whose expert searches with the hand-made worth, its own follow-up
#: roll not counted as depth (docs/decisions.md, computer levels 18)
HAND_MADE = frozenset({"tower"})


class EasyPlayer:
    """The heuristic, with mistakes: a beginner should win against it often."""

    def __init__(self, rng: random.Random, blunder: float = BLUNDER, second: float = SECOND):
        self.rng = rng
        self.blunder = blunder
        self.second = second

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        x = self.rng.random()
        if x < self.blunder:
            return moves[int(self.rng.random() * len(moves))]
        scores = score_moves(state, moves)
        order = sorted(range(len(moves)), key=lambda k: -scores[k])
        if x < self.blunder + self.second:
            return moves[order[1]]
        return moves[order[0]]


class SearchPlayer:
    """Plays the move the dice search values most (the heuristic breaking near ties)."""

    def __init__(
        self,
        rng: random.Random | None = None,
        *,
        depth: int = 1,
        nodes: int = EXPERT_NODES,
        seconds: float | None = None,
        learned: bool = False,
        free_own: int = 0,
    ) -> None:
        self.rng = rng
        self.depth = depth
        self.search = DiceSearch(nodes, seconds, win_chance if learned else evaluate, free_own)
        self.hint = HEURISTIC_WEIGHT_LEARNED if learned else HEURISTIC_WEIGHT

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        values = self.search.best(state, moves, self.depth)
        hints = score_moves(state, moves)
        totals = [v + self.hint * h for v, h in zip(values, hints, strict=True)]
        top = max(totals)
        ties = [m for m, t in zip(moves, totals, strict=True) if t == top]
        if len(ties) == 1 or self.rng is None:
            return ties[0]
        return ties[int(self.rng.random() * len(ties))]


class ExpertPlayer:
    """The strongest level: the search that plays best in the rule set of the game."""

    def __init__(self, rng: random.Random, nodes: int, seconds: float | None) -> None:
        self.learned = SearchPlayer(
            rng, depth=EXPERT_DEPTH, nodes=nodes, seconds=seconds, learned=True
        )
        self.hand_made = SearchPlayer(rng, depth=1, free_own=1)

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        if state.options.name in HAND_MADE:
            return self.hand_made.choose(state, moves)
        return self.learned.choose(state, moves)


def player_for(
    level: str,
    rng: random.Random,
    *,
    nodes: int = EXPERT_NODES,
    seconds: float | None = EXPERT_SECONDS,
) -> Policy:
    """The computer player of ``level`` (one of :data:`LEVELS`).

    ``nodes`` and ``seconds`` are the expert's budget per move: the node
    budget makes it repeat; the seconds only cap it on a slow machine (None:
    no cap, fully deterministic).
    """
    if level == "easy":
        return EasyPlayer(rng)
    if level == "normal":
        return HeuristicPlayer(rng)
    if level == "hard":
        return SearchPlayer(rng, depth=1)
    if level == "expert":
        return ExpertPlayer(rng, nodes, seconds)
    raise ValueError(f"unknown level {level!r}; the levels are {', '.join(LEVELS)}")
