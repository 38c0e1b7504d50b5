"""Seating a tournament's round: how many tables, and who sits at which.

Pure and deterministic (equal inputs, equal tables), so every worker seats a
round alike and a test can check it.

- :func:`table_sizes`: tables of four as far as they go, the rest as even as
  can be (9 players: 3 + 3 + 3; 10: 4 + 3 + 3).
- :func:`snake`: the first round of a Swiss tournament, and every round of a
  knockout: players by rating dealt to the tables as cards, there and back
  (1, 2, 3 / 6, 5, 4 / 7, 8, 9), so each table has its share of the strong.
- :func:`swiss`: a later Swiss round: players of similar scores together, and
  as few pairs as possible who met before (a repeat costs more than any spread
  of scores); improved by swapping two players of different tables while a
  swap lowers the cost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations

#: the largest table
TABLE = 4
#: a pair who met before costs this much more than one point of score spread
REPEAT = 1000.0
#: swaps tried at most while improving a round (far more than 32 players need)
MAX_SWAPS = 10_000

Met = Counter[frozenset[str]]


def table_sizes(n: int) -> list[int]:
    """The sizes of the tables that seat ``n`` players (at least 2), largest first."""
    if n < 2:
        raise ValueError(f"a round needs 2 players or more, not {n}")
    tables = -(-n // TABLE)
    small, extra = divmod(n, tables)
    return [small + 1] * extra + [small] * (tables - extra)


def by_rating(players: Sequence[str], rating: Mapping[str, int]) -> list[str]:
    """``players`` best rated first (ties: in the order given)."""
    return sorted(players, key=lambda p: -rating.get(p, 0))


def snake(players: Sequence[str], rating: Mapping[str, int]) -> list[list[str]]:
    """The tables of a round seated by rating alone, dealt there and back."""
    sizes = table_sizes(len(players))
    tables: list[list[str]] = [[] for _ in sizes]
    order = iter(by_rating(players, rating))
    left, lap = len(players), 0
    while left:
        ks = range(len(tables)) if lap % 2 == 0 else range(len(tables) - 1, -1, -1)
        for k in ks:
            if left and len(tables[k]) < sizes[k]:
                tables[k].append(next(order))
                left -= 1
        lap += 1
    return tables


def met_pairs(tables: Sequence[Sequence[str]]) -> Met:
    """How often each pair of players sat at one table, over ``tables``."""
    met: Met = Counter()
    for table in tables:
        for a, b in combinations(table, 2):
            met[frozenset((a, b))] += 1
    return met


def swiss(
    players: Sequence[str],
    points: Mapping[str, float],
    rating: Mapping[str, int],
    met: Met,
) -> list[list[str]]:
    """A later Swiss round: by score (then rating) in order, then improved by swaps."""
    order = sorted(players, key=lambda p: (-points.get(p, 0.0), -rating.get(p, 0)))
    tables: list[list[str]] = []
    at = 0
    for size in table_sizes(len(order)):
        tables.append(order[at : at + size])
        at += size

    def cost(table: Sequence[str]) -> float:
        scores = [points.get(p, 0.0) for p in table]
        repeats = sum(met[frozenset(pair)] for pair in combinations(table, 2))
        return REPEAT * repeats + (max(scores) - min(scores))

    costs = [cost(t) for t in tables]
    for _ in range(MAX_SWAPS):
        best: tuple[float, int, int, int, int] | None = None
        for i, j in combinations(range(len(tables)), 2):
            for a in range(len(tables[i])):
                for b in range(len(tables[j])):
                    ti, tj = list(tables[i]), list(tables[j])
                    ti[a], tj[b] = tj[b], ti[a]
                    gain = costs[i] + costs[j] - cost(ti) - cost(tj)
                    if gain > 1e-9 and (best is None or gain > best[0]):
                        best = (gain, i, j, a, b)
        if best is None:
            break
        _, i, j, a, b = best
        tables[i][a], tables[j][b] = tables[j][b], tables[i][a]
        costs[i], costs[j] = cost(tables[i]), cost(tables[j])
    return tables
