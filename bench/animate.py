"""The animated replay of whole games: frames, GIF bytes, length and render time.

    python bench/animate.py [--games N] [--seed S] [--size PX]

Plays 4-player games with the heuristic computer player and a seeded die, the
rule sets in turn, with 0, 1, 2, 3 ... people (the other seats are computer
players, whose moves the animation speeds up), and animates each with
:func:`renderer.animate`.  It prints one line per game: the actions played, the
frames and bytes of the GIF, its length in seconds (target: about 30) and the
time taken to draw it.  Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import time
from pathlib import Path
from typing import Any

# bench/engine.py is named like the engine package: keep this folder off the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from PIL import Image, ImageSequence  # noqa: E402

from bot.players import HeuristicPlayer  # noqa: E402
from engine import COLOURS, RULE_SETS, apply, legal_moves, make_record, new_game  # noqa: E402
from renderer import animate  # noqa: E402
from renderer.animate import ANIMATION_SIZE  # noqa: E402

NAMES = {"red": "Ana", "green": "Bartholomew the Magnificent", "yellow": "Ёжик", "blue": "Zoë"}


def play(rules: str, seed: int) -> dict[str, Any]:
    """The record of a whole 4-player game: a seeded die, heuristic choices."""
    rng = random.Random(seed)
    player = HeuristicPlayer(rng)
    start = state = new_game(rules, 4)
    actions = []
    while not state.is_over:
        if state.phase == "roll":
            action = {"roll": rng.randint(1, 6)}
        else:
            action = {"move": player.choose(state, legal_moves(state)).piece}
        actions.append(action)
        state, _ = apply(state, action)
    return make_record(start, actions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=ANIMATION_SIZE)
    args = parser.parse_args()
    print(f"size {args.size}px")
    print(
        f"{'rules':8} {'people':>6} {'actions':>7} {'frames':>6} {'KB':>7} "
        f"{'seconds':>7} {'render s':>8}"
    )
    for k in range(args.games):
        rules = RULE_SETS[k % len(RULE_SETS)]
        people = k % 5
        record = play(rules, args.seed + k)
        computers = COLOURS[people:]
        t = time.perf_counter()
        gif = animate(record, names=NAMES, computers=computers, size=args.size)
        took = time.perf_counter() - t
        with Image.open(io.BytesIO(gif)) as img:
            frames = img.n_frames
            length = sum(f.info.get("duration", 0) for f in ImageSequence.Iterator(img)) / 1000
        print(
            f"{rules:8} {people:>6} {len(record['actions']):>7} {frames:>6} "
            f"{len(gif) / 1024:>7.0f} {length:>7.2f} {took:>8.2f}"
        )


if __name__ == "__main__":
    main()
