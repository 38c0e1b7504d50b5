"""The computer levels against each other: ``python bench/ai.py --levels``.

Each table seats one level (both partners of a team in italian teams) against
three players of another level (``random``: random movers).  The level's seat
rotates over the colours and the first player rotates game by game; games run
in chunks over a process pool.  For each table it prints the games, the wins,
the win rate with its 95% Wilson interval, the fair share and the level's
milliseconds per decision (median and 99th percentile, decisions with a real
choice only).
"""

from __future__ import annotations

import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.app.simulate import simulate
from bot.players import player_for
from engine import GameState, Move

#: rule set label -> (rule set, options, the sides a level can play)
RULE_SETS: dict[str, tuple[str, dict[str, Any] | None, list[tuple[str, ...]]]] = {
    "classic": ("classic", None, [("red",), ("green",), ("yellow",), ("blue",)]),
    "tower": ("tower", None, [("red",), ("green",), ("yellow",), ("blue",)]),
    "italian": ("italian", None, [("red",), ("green",), ("yellow",), ("blue",)]),
    "italian teams": ("italian", {"teams": True}, [("red", "yellow"), ("green", "blue")]),
    "super": ("super", None, [("red",), ("green",), ("yellow",), ("blue",)]),
}

#: (level, opponents' level, rule set label): the tables the issue asks about
TABLES: list[tuple[str, str, str]] = [
    *(("expert", "normal", label) for label in RULE_SETS),
    ("expert", "random", "classic"),
    *(("hard", "normal", label) for label in RULE_SETS),
    ("easy", "normal", "classic"),
    ("easy", "random", "classic"),
]

#: games per worker task (small, so the pool shares the work evenly)
CHUNK = 25


class Timed:
    """A policy recording how long each decision takes (seconds)."""

    def __init__(self, level: str, seed: int) -> None:
        self.policy = player_for(level, random.Random(seed))
        self.times: list[float] = []

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        t = time.perf_counter()
        m = self.policy.choose(state, moves)
        self.times.append(time.perf_counter() - t)
        return m


def run_chunk(
    level: str, against: str, label: str, side: int, games: int, seed: int
) -> tuple[int, int, list[float]]:
    """Games played and won by ``level`` on side number ``side``, and its decision times."""
    rules, options, sides = RULE_SETS[label]
    timed = Timed(level, seed)
    others = None if against == "random" else player_for(against, random.Random(seed + 1))
    result = simulate(
        rules,
        games,
        seed=seed,
        players=4,
        options=options,
        policy=others,
        policies=dict.fromkeys(sides[side], timed),
    )
    return games, result["wins"].get(" + ".join(sides[side]), 0), timed.times


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if not games:
        return 0.0, 1.0
    p = wins / games
    d = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / d
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / d
    return centre - half, centre + half


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def run_levels(games: int, seed: int, jobs: int, only: list[str] | None = None) -> None:
    """Play every table (or those whose name contains one of ``only``) and print the figures."""
    print(
        f"{'table':<34} {'games':>6} {'wins':>5} {'rate':>6} {'95% interval':>14}"
        f" {'fair':>5} {'ms med':>7} {'ms p99':>7}",
        flush=True,
    )
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for level, against, label in TABLES:
            name = f"{label}: {level} vs 3 {against}"
            if only and not any(o in name for o in only):
                continue
            sides = RULE_SETS[label][2]
            tasks = []
            for k in range(len(sides)):
                n = games // len(sides) + (1 if k < games % len(sides) else 0)
                for c, start in enumerate(range(0, n, CHUNK)):
                    size = min(CHUNK, n - start)
                    task_seed = seed * 1_000_000 + k * 10_000 + c
                    tasks.append(pool.submit(run_chunk, level, against, label, k, size, task_seed))
            played = won = 0
            times: list[float] = []
            for task in tasks:
                p, w, t = task.result()
                played += p
                won += w
                times.extend(t)
            times.sort()
            lo, hi = wilson(won, played)
            fair = len(sides[0]) / 4
            rate = won / played if played else 0.0
            print(
                f"{name:<34} {played:>6} {won:>5} {rate:>6.1%} {f'{lo:.1%}-{hi:.1%}':>14}"
                f" {fair:>5.0%} {percentile(times, 0.5) * 1e3:>7.2f}"
                f" {percentile(times, 0.99) * 1e3:>7.2f}",
                flush=True,
            )
