"""Board rendering cost against a bare RGB PNG encode of the same board.

    python bench/render.py [--positions N] [--size PX] [--theme NAME]

Positions come from seeded random games of every rule set.  For each, it times
the whole ``render_board`` call (drawing, mapping to the theme's palette, the
palette PNG encode) and, beside it, a bare RGB PNG encode of the same board (the
RGB image ``board_image`` draws, saved with the project's ``PNG_OPTIONS``): what
one encode alone cost before boards were palette PNGs.  It prints both medians,
their ratio (target: at most 0.4), its 95th percentile, and the largest image
(target: at most 30 KB at the default size, 600 px, where the render should
take at most about 5 ms).  A target missed is said on the last line; the exit
status stays 0 (figures, not a gate: a busy machine must not fail CI).
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
#: render_board's time over a bare RGB encode's, at most
MAX_RATIO = 0.4
#: the largest board at the default size, in bytes
MAX_BYTES = 30 * 1024


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
    parser.add_argument("--theme", default="classic")
    args = parser.parse_args()
    print(f"size {args.size}px, theme {args.theme}; times are medians in milliseconds")
    print(
        f"{'rules':8} {'render':>8} {'RGB enc':>8} {'ratio':>6} {'p95 ratio':>9} "
        f"{'KB':>6} {'max KB':>7}"
    )
    ok = True
    ratios_all = []
    for rules in engine.RULE_SETS:
        pos = positions(rules, args.positions, args.seed)
        # the static board and the palette, once
        render_board(pos[0][0], names=NAMES, size=args.size, theme=args.theme)
        full, enc, ratios, sizes = [], [], [], []
        for state, last in pos:
            t0 = time.perf_counter()
            png = render_board(state, names=NAMES, last_move=last, size=args.size, theme=args.theme)
            t1 = time.perf_counter()
            img = board_image(state, names=NAMES, last_move=last, size=args.size, theme=args.theme)
            t2 = time.perf_counter()
            img.save(io.BytesIO(), **PNG_OPTIONS)  # type: ignore[arg-type]
            t3 = time.perf_counter()
            full.append(t1 - t0)
            enc.append(t3 - t2)
            ratios.append((t1 - t0) / (t3 - t2))
            sizes.append(len(png))
        ratios_all += ratios
        ratio = statistics.median(full) / statistics.median(enc)
        ok = ok and ratio <= MAX_RATIO and (args.size != DEFAULT_SIZE or max(sizes) <= MAX_BYTES)
        print(
            f"{rules:8} {statistics.median(full) * 1000:8.2f} {statistics.median(enc) * 1000:8.2f} "
            f"{ratio:6.2f} {sorted(ratios)[int(len(ratios) * 0.95)]:9.2f} "
            f"{statistics.median(sizes) / 1024:6.1f} {max(sizes) / 1024:7.1f}"
        )
    print(f"all      median ratio {statistics.median(ratios_all):.2f}", end="")
    print(f" (target <= {MAX_RATIO}; max KB target <= {MAX_BYTES // 1024} at {DEFAULT_SIZE}px)")
    print("targets met" if ok else "TARGET MISSED")


if __name__ == "__main__":
    main()
