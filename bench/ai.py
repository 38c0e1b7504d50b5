"""How strong the heuristic computer player is: one seat against random movers.

    python bench/ai.py [--games N] [--seed S]
    python bench/ai.py --levels [--games N] [--jobs J] [--only TEXT ...]

For each rule set (4 players) one :class:`bot.ai.HeuristicPlayer` seat plays
against three random movers; with italian teams the heuristic plays both
partners of one team against a random team.  The heuristic seat (or team)
rotates over the colours and the first player rotates game by game, so no seat
is favoured.  It prints games, wins, the win rate, the fair share and the
heuristic's mean time per decision.  Target: at least 45% in classic.

With ``--levels`` it plays the computer levels' tables instead (bench/levels.py):
expert, hard and easy against normal or random movers, with Wilson intervals
and the time per move.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for bench/levels.py
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.app.simulate import simulate  # noqa: E402
from bot.players import Policy  # noqa: E402
from bot.players.heuristic import HeuristicPlayer  # noqa: E402
from engine import GameState, Move  # noqa: E402

#: (label, rule set, options, the heuristic sides: colours playing together)
CASES: list[tuple[str, str, dict[str, Any] | None, list[tuple[str, ...]]]] = [
    ("classic", "classic", None, [("red",), ("green",), ("yellow",), ("blue",)]),
    ("tower", "tower", None, [("red",), ("green",), ("yellow",), ("blue",)]),
    ("italian", "italian", None, [("red",), ("green",), ("yellow",), ("blue",)]),
    ("italian teams", "italian", {"teams": True}, [("red", "yellow"), ("green", "blue")]),
    ("super", "super", None, [("red",), ("green",), ("yellow",), ("blue",)]),
]


class Timed:
    """A policy that counts its decisions and the time they take."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.calls = 0
        self.seconds = 0.0

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        t = time.perf_counter()
        m = self.policy.choose(state, moves)
        self.seconds += time.perf_counter() - t
        self.calls += 1
        return m


def bench_case(
    rules: str, options: dict[str, Any] | None, sides: list[tuple[str, ...]], games: int, seed: int
) -> tuple[int, int, Timed]:
    """Games played and won by the heuristic side, and its timing."""
    timed = Timed(HeuristicPlayer(random.Random(seed)))
    played = won = 0
    for k, side in enumerate(sides):
        n = games // len(sides) + (1 if k < games % len(sides) else 0)
        if not n:
            continue
        result = simulate(
            rules,
            n,
            seed=seed * 100 + k,
            players=4,
            options=options,
            policies=dict.fromkeys(side, timed),
        )
        played += n
        won += result["wins"].get(" + ".join(side), 0)
    return played, won, timed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000, help="games per rule set (default 2000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the dice and random movers")
    ap.add_argument("--levels", action="store_true", help="the levels' tables (bench/levels.py)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes for --levels")
    ap.add_argument("--only", nargs="*", help="with --levels: tables whose name contains TEXT")
    args = ap.parse_args(argv)
    if args.levels:
        from bench.levels import run_levels

        run_levels(args.games, args.seed, args.jobs, args.only)
        return 0
    print(f"{'rule set':<14} {'games':>6} {'wins':>6} {'win rate':>9} {'fair':>6} {'µs/move':>8}")
    for label, rules, options, sides in CASES:
        played, won, timed = bench_case(rules, options, sides, args.games, args.seed)
        fair = len(sides[0]) / 4
        rate = won / played if played else 0.0
        per_move = timed.seconds / timed.calls * 1e6 if timed.calls else 0.0
        print(
            f"{label:<14} {played:>6} {won:>6} {rate:>9.1%} {fair:>6.0%} {per_move:>8.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
