"""``ludo-bot simulate --seats expert,normal,normal,normal``: the computer levels
against each other, a level per seat, with each level's win rate and its time per
decision.

Game ``g`` rotates the levels by ``g`` mod the number of players (the level of seat
``k`` is the ``(k + g) mod n``-th named), so each level plays each colour equally
often; the first player is the seat of the ``(g // n) mod n``-th level, so over
``n * n`` games every level also starts equally often from every colour.  In a game
of teams (Italian ``teams``) partners sit opposite (seats 1 and 3, 2 and 4): they
must be named with one level, and a rotation keeps them sharing it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from engine import GameState, Move, current_moves, new_game

from ..players import LEVELS, Policy, RandomPlayer, player_for
from ..players.loop import MAX_ACTIONS, Action, play_on

#: a seat's computer: a level, or random legal moves
SEAT_LEVELS = (*LEVELS, "random")


def seat_levels(text: str) -> list[str]:
    """``expert,normal,normal,normal``: a level per seat (``ValueError`` naming a bad one)."""
    names = [name.strip().lower() for name in text.split(",")]
    for name in names:
        if name not in SEAT_LEVELS:
            shown = name[:20] or "(nothing)"
            raise ValueError(f"{shown!r} is no level: choose from {', '.join(SEAT_LEVELS)}")
    return names


def check_seats(seats: Sequence[str], players: int, teams: bool) -> None:
    """A level per player; with teams, partners (opposite seats) named alike."""
    if len(seats) != players:
        raise ValueError(f"--seats names {len(seats)} levels for {players} players")
    if teams and (seats[0] != seats[2] or seats[1] != seats[3]):
        raise ValueError("with teams, partners share a level: seats 1 and 3, 2 and 4")


def wilson(wins: int, n: int, z: float = 1.96) -> list[float]:
    """The Wilson score interval (95% by default) of ``wins`` in ``n``."""
    if n == 0:
        return [0.0, 1.0]
    p = wins / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return [
        round(max(0.0, (centre - spread) / scale), 4),
        round(min(1.0, (centre + spread) / scale), 4),
    ]


def percentile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (0..1) of ``values`` by the nearest rank (None if none)."""
    if not values:
        return None
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, math.ceil(q * len(ranked)) - 1))]


def simulate_seats(
    rules: str,
    games: int,
    seats: Sequence[str],
    *,
    seed: int | None = None,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games, seat ``k`` of game ``g`` at level ``seats[(k + g) % n]``;
    each level's wins per seat-game, its Wilson interval, and its milliseconds per
    decision that had a choice (more than one legal move)."""
    rng = random.Random(seed)
    n = len(seats) if players is None else players
    template = new_game(rules, n, options=options)
    check_seats(seats, n, template.options.teams)
    chooser: dict[str, Policy] = {
        level: RandomPlayer(rng) if level == "random" else player_for(level, rng)
        for level in dict.fromkeys(seats)
    }
    wins = dict.fromkeys(chooser, 0)
    played = dict.fromkeys(chooser, 0)
    ms: dict[str, list[float]] = {level: [] for level in chooser}
    rand = rng.random
    colour_level: dict[int, str] = {}

    def decide(s: GameState) -> Action:
        if s.phase == "roll":
            return {"roll": int(rand() * 6) + 1}
        moves = current_moves(s)
        if len(moves) == 1:
            return {"move": moves[0].piece}
        level = colour_level[s.cur]
        return {"move": _timed(chooser[level], s, moves, ms[level]).piece}

    for g in range(games):
        s = template.copy()
        turn = g % n
        colour_level.clear()
        for k, colour in enumerate(template.seats):
            colour_level[colour] = seats[(k + turn) % n]
            played[colour_level[colour]] += 1
        s.cur = template.seats[((g // n) % n - turn) % n]
        play_on(s, decide, limit=MAX_ACTIONS)
        if s.phase == "over":
            for colour in s.won:
                wins[colour_level[colour]] += 1
    levels = {}
    for level in chooser:
        median, p99 = percentile(ms[level], 0.5), percentile(ms[level], 0.99)
        levels[level] = {
            "wins": wins[level],
            "games": played[level],
            "seats": seats.count(level),
            "win_rate": round(wins[level] / played[level], 4) if played[level] else None,
            "ci95": wilson(wins[level], played[level]),
            "ms_median": round(median, 2) if median is not None else None,
            "ms_p99": round(p99, 2) if p99 is not None else None,
        }
    return {
        "rules": rules,
        "options": template.options.overrides(),
        "games": games,
        "seats": list(seats),
        "levels": levels,
    }


def _timed(policy: Policy, s: GameState, moves: list[Move], into: list[float]) -> Move:
    began = time.perf_counter()
    move = policy.choose(s, moves)
    into.append((time.perf_counter() - began) * 1000)
    return move
