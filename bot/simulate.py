"""Many computer-vs-computer games, fast: ``ludo-bot simulate``."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

from engine import COLOURS, new_game
from engine.game import current_moves, move_in_place, roll_in_place

from .players import Policy, RandomPlayer

#: a game longer than this is stopped (none comes near it: a safety net)
MAX_ACTIONS = 100_000


def simulate(
    rules: str,
    games: int = 100,
    *,
    seed: int | None = None,
    players: int = 4,
    options: Mapping[str, Any] | None = None,
    policy: Policy | None = None,
    policies: Mapping[str, Policy] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games with a seeded die and random legal choices; return figures.

    ``policy`` chooses for every seat (default: random legal moves); ``policies``
    maps a colour to the policy of that seat, ``policy`` playing the others.
    """
    rng = random.Random(seed)
    chooser = policy or RandomPlayer(rng)
    if policies:
        unknown = set(policies) - set(COLOURS)
        if unknown:
            raise ValueError(f"policies: unknown colour {sorted(unknown)[0]!r}")
    # the chooser of each colour index
    choosers = [(policies or {}).get(name, chooser) for name in COLOURS]
    wins: Counter[str] = Counter()
    rolls = moves = 0
    lengths = []
    start = time.perf_counter()
    template = new_game(rules, players, options=options)
    seats = template.seats
    for g in range(games):
        s = template.copy()
        s.cur = seats[g % len(seats)]  # rotate the first player for fairness
        n = 0
        rand = rng.random
        while s.phase != "over" and n < MAX_ACTIONS:
            if s.phase == "roll":
                roll_in_place(s, int(rand() * 6) + 1, None)
                rolls += 1
            else:
                ms = current_moves(s)
                m = ms[0] if len(ms) == 1 else choosers[s.cur].choose(s, ms)
                move_in_place(s, m.piece, None)
                moves += 1
            n += 1
        lengths.append(n)
        if s.phase == "over":
            wins[" + ".join(COLOURS[c] for c in s.won)] += 1
    seconds = time.perf_counter() - start
    return {
        "rules": rules,
        "options": template.options.overrides(),
        "players": list(template.players),
        "games": games,
        "rolls": rolls,
        "moves": moves,
        "seconds": round(seconds, 4),
        "moves_per_second": round(moves / seconds) if seconds > 0 else None,
        "wins": dict(sorted(wins.items())),
        "mean_game_length": {
            "actions": round(sum(lengths) / games, 1) if games else 0,
            "rolls": round(rolls / games, 1) if games else 0,
            "moves": round(moves / games, 1) if games else 0,
        },
    }
