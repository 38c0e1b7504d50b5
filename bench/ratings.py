"""How well the ratings know the players: a league of computer players.

    python bench/ratings.py [--games N] [--seed S] [--jobs J]

Ten computer players of five known strengths (two each of random movers and
the ``easy``, ``normal``, ``hard`` and ``expert`` levels) play ``N`` classic
games at mixed tables of 2 to 4 seats.  Who sits down is drawn with an
activity of their own (some play four times as often as others, whatever
their strength), as in a chat where whoever plays most wins most.  The games
are played over a process pool (their results do not depend on the ratings),
then rated in order exactly as a chat's kept results are
(:func:`bot.hosting.rating.ratings`).

It prints each player's games, wins and rating, whether the ratings order the
five strengths, and how often the shown rating (before each game) names the
table's winner against the player with the most wins so far, on the games
after the first fifth (ties shared; chance is one in the table's size).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.hosting.rating import Rating, Ratings, games  # noqa: E402
from bot.hosting.results import Entry  # noqa: E402
from bot.hosting.tally import tally  # noqa: E402
from bot.players import RandomPlayer, player_for  # noqa: E402
from bot.players.policy import Policy  # noqa: E402
from engine import COLOURS, current_moves, move_in_place, new_game, roll_in_place  # noqa: E402

#: the strengths, weakest first
STRENGTHS = ("random", "easy", "normal", "hard", "expert")
#: the league: (name, strength, activity)
PLAYERS = [
    (f"{level}-{k}", level, activity)
    for level in STRENGTHS
    for k, activity in ((1, 1 + STRENGTHS.index(level) % 4), (2, 4 - STRENGTHS.index(level) % 4))
]
#: seats colours by table size (opposite seats for two)
SEATS = {2: ("red", "yellow"), 3: ("red", "green", "yellow"), 4: COLOURS}
#: games played out before predictions are counted
WARM_UP = 0.2


def policy(level: str, seed: int) -> Policy:
    rng = random.Random(seed)
    if level == "random":
        return RandomPlayer(rng)
    return player_for(level, rng, seconds=None)


def play(table: list[str], seed: int) -> dict[str, int]:
    """One classic game of ``table`` (player names, seated in order): each one's place."""
    levels = {name: level for name, level, _ in PLAYERS}
    colours = SEATS[len(table)]
    seated = {
        c: policy(levels[name], seed + k)
        for k, (c, name) in enumerate(zip(colours, table, strict=True))
    }
    dice = random.Random(seed)
    s = new_game("classic", list(colours), turn=colours[seed % len(colours)])
    while s.phase != "over":
        if s.phase == "roll":
            roll_in_place(s, dice.randint(1, 6), None)
            continue
        moves = current_moves(s)
        who = seated[COLOURS[s.cur]]
        move_in_place(s, (moves[0] if len(moves) == 1 else who.choose(s, moves)).piece, None)
    places = s.places
    assert places is not None
    return {name: places[c] for c, name in zip(colours, table, strict=True)}


def schedule(n: int, seed: int) -> list[list[str]]:
    """The tables of ``n`` games: 2 to 4 players drawn by activity."""
    rng = random.Random(seed)
    names = [name for name, _, _ in PLAYERS]
    weights = [activity for _, _, activity in PLAYERS]
    out = []
    for _ in range(n):
        size = rng.choice((2, 3, 4, 4))
        table: list[str] = []
        while len(table) < size:
            pick = rng.choices(names, weights)[0]
            if pick not in table:
                table.append(pick)
        out.append(table)
    return out


def kept(results: list[dict[str, int]]) -> list[tuple[str, bytes]]:
    """The results as a chat keeps them."""
    out = []
    for g, places in enumerate(results):
        for name, place in places.items():
            e = Entry(
                name,
                "classic",
                float(g),
                place,
                place == 1,
                len(places),
                0,
                0,
                0,
                0,
                False,
                f"g{g}",
            )
            out.append((name, e.to_bytes()))
    return out


def share(scores: dict[str, float], winners: set[str]) -> float:
    """The share of a correct prediction when the best ``scores`` tie."""
    top = max(scores.values())
    best = [w for w, v in scores.items() if v == top]
    return sum(w in winners for w in best) / len(best)


def concordance(score: dict[str, float]) -> float:
    """Kendall's tau between ``score`` and the players' strengths (pairs of unequal strength)."""
    level = {name: STRENGTHS.index(lv) for name, lv, _ in PLAYERS}
    agree = differ = 0
    for a, b in itertools.combinations(level, 2):
        if level[a] == level[b]:
            continue
        sign = (level[a] - level[b]) * (score.get(a, 0.0) - score.get(b, 0.0))
        agree += sign > 0
        differ += sign < 0
    return (agree - differ) / (agree + differ) if agree + differ else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--save", help="write the games' results to this JSON file")
    ap.add_argument("--load", help="rate the results of this JSON file instead of playing")
    a = ap.parse_args()
    start = time.perf_counter()
    if a.load:
        results = json.loads(Path(a.load).read_text())
        a.games = len(results)
    else:
        tables = schedule(a.games, a.seed)
        with ProcessPoolExecutor(max_workers=a.jobs) as pool:
            seeds = [a.seed * 100_000 + g for g in range(a.games)]
            results = list(pool.map(play, tables, seeds, chunksize=10))
    if a.save:
        Path(a.save).write_text(json.dumps(results))
    played = time.perf_counter() - start

    entries = kept(results)
    t = time.perf_counter()
    tally(entries)
    took = time.perf_counter() - t
    rated = Ratings()
    wins: dict[str, int] = {}
    warm = int(a.games * WARM_UP)
    hits = {"rating": 0.0, "wins": 0.0, "rate": 0.0, "chance": 0.0}
    played_games: dict[str, int] = {}
    for g, game in enumerate(games(entries)):
        if g >= warm:
            table = rated.by_rules.get("classic", {})
            winners = {w for w, e in game.seats.items() if e.won}
            hits["rating"] += share(
                {w: (table.get(w) or Rating()).shown for w in game.seats}, winners
            )
            hits["wins"] += share({w: wins.get(w, 0) for w in game.seats}, winners)
            rate = {w: wins.get(w, 0) / max(1, played_games.get(w, 0)) for w in game.seats}
            hits["rate"] += share(rate, winners)
            hits["chance"] += len(winners) / len(game.seats)
        rated.add(game)
        for w, e in game.seats.items():
            wins[w] = wins.get(w, 0) + e.won
            played_games[w] = played_games.get(w, 0) + 1

    final = rated.by_rules["classic"]
    counted = a.games - warm
    print(f"league: {a.games} classic games at tables of 2-4, played in {played:.0f} s")
    print(
        f"the chat's stats with ratings and rivals from its {len(entries)} kept entries:"
        f" {took * 1e3:.0f} ms ({took / a.games * 1e3:.3f} ms a game)"
    )
    print(f"{'player':<10} {'games':>6} {'wins':>5} {'rating':>7} {'mu':>6} {'sigma':>6}")
    for name, _, _ in sorted(PLAYERS, key=lambda p: -final[p[0]].shown):
        r = final[name]
        print(
            f"{name:<10} {r.games:>6} {wins.get(name, 0):>5} {r.shown:>7}"
            f" {r.mu:>6.1f} {r.sigma:>6.2f}"
        )
    means = [sum(final[n].shown for n, lv, _ in PLAYERS if lv == level) / 2 for level in STRENGTHS]
    ordered = all(x < y for x, y in itertools.pairwise(means))
    print(
        "mean rating by strength: "
        + ", ".join(f"{lv} {m:.0f}" for lv, m in zip(STRENGTHS, means, strict=True))
        + f" (in order: {'yes' if ordered else 'no'})"
    )
    tau_rating = concordance({n: float(r.shown) for n, r in final.items()})
    tau_wins = concordance({n: float(w) for n, w in wins.items()})
    tau_rate = concordance({n: wins.get(n, 0) / max(1, c) for n, c in played_games.items()})
    print(
        f"Kendall tau with strength: rating {tau_rating:.2f}, wins {tau_wins:.2f},"
        f" win rate {tau_rate:.2f}"
    )
    print(
        f"winner named, games {warm + 1}-{a.games}: rating {hits['rating'] / counted:.1%},"
        f" most wins {hits['wins'] / counted:.1%}, best win rate {hits['rate'] / counted:.1%},"
        f" chance {hits['chance'] / counted:.1%}"
    )


if __name__ == "__main__":
    main()
