"""Many computer-vs-computer games, fast: ``ludo-bot simulate``."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from engine import COLOURS, GameState, current_moves, make_record, new_game

from ..hosting import dice
from ..players import Policy, RandomPlayer
from ..players.loop import MAX_ACTIONS, Action, play_on


def simulate(
    rules: str,
    games: int = 100,
    *,
    seed: int | None = None,
    players: int = 4,
    options: Mapping[str, Any] | None = None,
    policy: Policy | None = None,
    policies: Mapping[str, Policy] | None = None,
    keep: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games with a seeded die and random legal choices; return figures.

    ``policy`` chooses for every seat (default: random legal moves); ``policies``
    maps a colour to the policy of that seat, ``policy`` playing the others.
    ``keep`` is given each game's record: its rolls then come from dice anyone can
    verify, a seed per game drawn from ``seed`` (the record reveals it).
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
    lengths = []
    start = time.perf_counter()
    template = new_game(rules, players, options=options)
    seats = template.seats
    rand = rng.random
    counts = [0, 0]  # rolls, moves

    #: the game's dice seed and actions, when its record is kept
    kept: tuple[str, list[Action]] | None = None

    def decide(s: GameState) -> Action:
        action: Action
        if s.phase == "roll":
            if kept is None:
                action = {"roll": int(rand() * 6) + 1}
            else:
                action = {"roll": dice.roll(kept[0], counts[0] - first)}
            counts[0] += 1
        else:
            counts[1] += 1
            ms = current_moves(s)
            action = {"move": (ms[0] if len(ms) == 1 else choosers[s.cur].choose(s, ms)).piece}
        if kept is not None:
            kept[1].append(action)
        return action

    for g in range(games):
        s = template.copy()
        s.cur = seats[g % len(seats)]  # rotate the first player for fairness
        first = counts[0]
        if keep is not None:
            kept = (f"{rng.getrandbits(256):064x}", [])
            begun = s.copy()
        lengths.append(play_on(s, decide, limit=MAX_ACTIONS))
        if s.phase == "over":
            wins[" + ".join(COLOURS[c] for c in s.won)] += 1
        if keep is not None and kept is not None:
            record = make_record(begun, kept[1])
            record["dice"] = {"commitment": dice.commitment(kept[0]), "seed": kept[0]}
            keep(record)
    seconds = time.perf_counter() - start
    rolls, moves = counts
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
