"""Board rendering cost against its floor, the PNG encode alone.

    python bench/render.py [--positions N] [--size PX]

Positions come from seeded random games of every rule set.  For each, it times
the whole ``render_board`` call and the PNG encode of the same finished image
with the same settings, and prints both, their ratio (target: at most 1.5) and
the image sizes (target: at most 150 KB at the default size).
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from pathlib import Path

# bench/engine.py is named like the engine package: keep this folder off the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import engine  # noqa: E402
from renderer import DEFAULT_SIZE, board_image, render_board  # noqa: E402
from renderer.board import PNG_OPTIONS  # noqa: E402

NAMES = {"red": "Ana", "green": "Bartholomew the Magnificent", "yellow": "Ёжик", "blue": "Zoë"}


def positions(
    rules: str, count: int, seed: int
) -> list[tuple[engine.GameState, engine.Move | None]]:
    """States from random games, each with the move that led to it."""
    rng = random.Random(seed)
    out: list[tuple[engine.GameState, engine.Move | None]] = []
    players = 4
    while len(out) < count:
        state = engine.new_game(rules, players)
        last = None
        while not state.is_over and len(out) < count:
            if state.phase == "roll":
                state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
            else:
                last = rng.choice(engine.legal_moves(state))
                state, _ = engine.apply(state, {"move": last.piece})
            if rng.random() < 0.05:
                out.append((state, last))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=60, help="positions per rule set")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"size {args.size}px; times are medians in milliseconds")
    print(f"{'rules':8} {'render':>8} {'encode':>8} {'ratio':>6} {'p95 ratio':>9} {'max KB':>7}")
    ratios_all = []
    for rules in engine.RULE_SETS:
        pos = positions(rules, args.positions, args.seed)
        render_board(pos[0][0], names=NAMES, size=args.size)  # the static board, once
        full, enc, ratios, sizes = [], [], [], []
        for state, last in pos:
            t0 = time.perf_counter()
            png = render_board(state, names=NAMES, last_move=last, size=args.size)
            t1 = time.perf_counter()
            img = board_image(state, names=NAMES, last_move=last, size=args.size)
            t2 = time.perf_counter()
            img.save(io.BytesIO(), **PNG_OPTIONS)  # type: ignore[arg-type]
            t3 = time.perf_counter()
            full.append(t1 - t0)
            enc.append(t3 - t2)
            ratios.append((t1 - t0) / (t3 - t2))
            sizes.append(len(png))
        ratios_all += ratios
        print(
            f"{rules:8} {statistics.median(full) * 1000:8.2f} {statistics.median(enc) * 1000:8.2f} "
            f"{statistics.median(full) / statistics.median(enc):6.2f} "
            f"{sorted(ratios)[int(len(ratios) * 0.95)]:9.2f} {max(sizes) / 1024:7.1f}"
        )
    print(f"all      median ratio {statistics.median(ratios_all):.2f}")


if __name__ == "__main__":
    main()
