"""Random-play speed of the engine: moves per second for each rule set.

    python bench/engine.py [--games N] [--seed S]

Runs ``ludo-bot simulate``'s loop (seeded die, random legal choices, 4 players)
on one core and prints one line per rule set.  Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# this file is named like the engine package: keep its folder off the path
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

from bot.app.simulate import simulate  # noqa: E402
from engine import RULE_SETS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    args = parser.parse_args()
    if not args.json:
        print(f"{'rules':8} {'games':>6} {'moves':>9} {'rolls':>9} {'seconds':>8} {'moves/s':>9}")
    for rules in RULE_SETS:
        simulate(rules, 20, seed=args.seed)  # warm up
        r = simulate(rules, args.games, seed=args.seed)
        if args.json:
            print(
                json.dumps(
                    {
                        k: r[k]
                        for k in ("rules", "games", "moves", "rolls", "seconds", "moves_per_second")
                    }
                )
            )
        else:
            print(
                f"{rules:8} {r['games']:>6} {r['moves']:>9} {r['rolls']:>9} "
                f"{r['seconds']:>8.3f} {r['moves_per_second']:>9,}"
            )


if __name__ == "__main__":
    main()
