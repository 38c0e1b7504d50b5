"""How much room the heuristic leaves: a Monte Carlo rollout player against three ``normal``.

    python bench/rollout.py [--rules R] [--games N] [--rollouts R] [--rolls T] [--jobs J]

For each candidate move the rollout player plays the game on ``R`` times, every
player (itself too) moving as the heuristic, for ``T`` rolls, and values the end
by the learned chance of winning (a finished game by its result); every
candidate sees the same ``R`` dice sequences, so the comparison between moves
is not drowned by the dice.  This is one step of policy improvement over the
heuristic, as the rollouts of backgammon programs are: what it wins at a table
of three heuristic players bounds what any one-step improvement (the expert's
search included) can win there.  Seat and first player rotate as in
``bench/ai.py --levels``.  Slow (about 20 minutes on two cores for 400 games
with the defaults): not part of CI.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bench.levels import percentile, wilson  # noqa: E402
from bot.app.simulate import simulate  # noqa: E402
from bot.players import player_for  # noqa: E402
from bot.players.heuristic import score_moves  # noqa: E402
from bot.players.value import win_chance  # noqa: E402
from engine import GameState, Move, current_moves, move_in_place, roll_in_place  # noqa: E402
from engine.rules import RULE_SETS  # noqa: E402

COLOURS = ("red", "green", "yellow", "blue")
CHUNK = 10


def play_on(s: GameState, me: int, dice: random.Random, rolls: int) -> float:
    """Play ``s`` on in place with the heuristic for ``rolls`` rolls: ``me``'s chance of winning."""
    done = 0
    while s.phase != "over":
        if s.phase == "roll":
            if done == rolls:
                return win_chance(s, me)
            roll_in_place(s, dice.randint(1, 6), None)
            done += 1
            continue
        moves = current_moves(s)
        best = moves[0]
        if len(moves) > 1:
            scores = score_moves(s, moves)
            best = moves[scores.index(max(scores))]
        move_in_place(s, best.piece, None)
    return 1.0 if me in s.won else 0.0


class RolloutPlayer:
    """Plays the move whose rollouts win most (the dice shared between candidates)."""

    def __init__(self, rng: random.Random, rollouts: int, rolls: int) -> None:
        self.rng = rng
        self.rollouts = rollouts
        self.rolls = rolls
        self.times: list[float] = []

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        start = time.perf_counter()
        seeds = [self.rng.random() for _ in range(self.rollouts)]
        values = []
        for m in moves:
            total = 0.0
            for seed in seeds:
                s = state.copy()
                move_in_place(s, m.piece, None)
                total += play_on(s, state.cur, random.Random(seed), self.rolls)
            values.append(total)
        self.times.append(time.perf_counter() - start)
        return moves[values.index(max(values))]


def run_chunk(
    rules: str, side: int, games: int, seed: int, rollouts: int, rolls: int
) -> tuple[int, int, list[float]]:
    player = RolloutPlayer(random.Random(seed), rollouts, rolls)
    result = simulate(
        rules,
        games,
        seed=seed,
        players=4,
        policy=player_for("normal", random.Random(seed + 1)),
        policies={COLOURS[side]: player},
    )
    return games, result["wins"].get(COLOURS[side], 0), player.times


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rules", default="classic", choices=RULE_SETS)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--rollouts", type=int, default=64)
    ap.add_argument("--rolls", type=int, default=16)
    ap.add_argument("--seed", type=int, default=91)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    tasks = []
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for side in range(4):
            n = a.games // 4 + (1 if side < a.games % 4 else 0)
            for c, start in enumerate(range(0, n, CHUNK)):
                task_seed = a.seed * 1_000_000 + side * 10_000 + c
                size = min(CHUNK, n - start)
                tasks.append(
                    pool.submit(run_chunk, a.rules, side, size, task_seed, a.rollouts, a.rolls)
                )
        played = won = 0
        times: list[float] = []
        for task in tasks:
            p, w, t = task.result()
            played += p
            won += w
            times.extend(t)
    times.sort()
    lo, hi = wilson(won, played)
    print(
        f"{a.rules}: rollouts {a.rollouts} x {a.rolls} rolls vs 3 normal: {won}/{played}"
        f" = {won / played:.1%} (95% {lo:.1%}-{hi:.1%}, fair 25%),"
        f" ms median {percentile(times, 0.5) * 1e3:.1f}, p99 {percentile(times, 0.99) * 1e3:.1f}"
    )


if __name__ == "__main__":
    main()
