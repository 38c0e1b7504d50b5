"""A second step of policy improvement, measured: ``python bench/iterate.py [--games N]``.

The expert is one step of policy improvement over the heuristic: it searches
with the chance of winning learned from games between four heuristic players
(decision 15 about computer levels).  This bench takes the next step and
measures it:

1. it plays ``--games`` games with the learned one-roll search
   (``SearchPlayer(depth=1, learned=True)``: the expert's strength at a seventh
   of its cost) in one seat against three heuristic players, the seat and the
   first player rotating, and keeps about one position in seven;
2. it fits the chance that *the searching seat* wins, as ``value.py`` does but
   with weights of its own and a bias for that seat, the opponents sharing
   theirs, and prints the searcher's held-out log loss under the shipped and
   the refitted weights;
3. it plays ``--play`` games of the search with each evaluation at tables of
   three heuristic players and prints both win rates with their 95% intervals.

``--board`` also asks whether a richer evaluation would know more: it fits a
small neural network that sees the whole board (each colour's pieces square by
square, the others' in that colour's frame, with ``value.py``'s features) to
games between four heuristic players, and prints its held-out log loss against
the shipped weights'.  Needs numpy (the ``dev`` extra); slow (about 25 minutes
on two cores with ``--board``): not part of CI.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

# bench/engine.py is named like the engine package: keep this folder off the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fit_value import adam, play_keeping, softmax  # noqa: E402
from bench.levels import wilson  # noqa: E402
from bot.app.simulate import simulate  # noqa: E402
from bot.players import player_for  # noqa: E402
from bot.players.levels import SearchPlayer  # noqa: E402
from bot.players.value import WEIGHTS, score  # noqa: E402
from engine import COLOURS, GameState, Move, new_game  # noqa: E402
from engine.board import HOME, LAST_TRACK, QUARTER  # noqa: E402
from engine.board import TRACK_SQUARES as TRACK  # noqa: E402

#: games per worker task
CHUNK = 25
#: a refitted evaluation: the searching seat's weights, its bias, the opponents' weights
Refit = tuple[tuple[float, ...], float, tuple[float, ...]]


def searcher(rng: random.Random, refit: Refit | None = None) -> SearchPlayer:
    """The learned one-roll search, valuing positions by the shipped or a refitted chance."""
    player = SearchPlayer(rng, depth=1, learned=True)
    if refit is not None:
        mine, bias, theirs = refit

        def chance(state: GameState, c: int) -> float:
            if state.won:
                return 1.0 if c in state.won else 0.0
            scores = {x: score(state, x, mine if x == c else theirs) for x in state.seats}
            scores[c] += bias
            top = max(scores.values())
            return math.exp(scores[c] - top) / sum(math.exp(v - top) for v in scores.values())

        player.search.evaluate = chance
    return player


def positions(rules: str, games: int, seed: int, board: bool = False) -> dict[str, Any]:
    """Positions of ``games`` games: every colour's features and pieces, the searching
    seat, the win shares.

    With ``board`` all four seats are heuristic players (``me`` is then only
    the seat that would have searched).
    """
    rng = random.Random(seed)
    search = searcher(random.Random(seed + 1))
    heuristic = player_for("normal", rng)
    xs: list[list[tuple[float, ...]]] = []
    pieces: list[list[list[int]]] = []
    mes: list[int] = []
    ys: list[list[float]] = []
    for g in range(games):
        s = new_game(rules, 4)
        me = s.seats[(seed + g) % 4]
        s.cur = s.seats[((seed + g) // 4) % 4]

        def choose(state: GameState, moves: list[Move], me: int = me) -> Move:
            return (search if state.cur == me and not board else heuristic).choose(state, moves)

        played = play_keeping(s, rng, choose)
        if played is None:
            continue
        kept, share = played
        for x, p in kept:
            xs.append(x)
            pieces.append(p)
            mes.append(me)
            ys.append(share)
    return {"x": np.array(xs), "pieces": np.array(pieces), "me": np.array(mes), "y": np.array(ys)}


def split(n: int) -> tuple[Any, Any]:
    """A fixed 80/20 split of ``n`` positions (train, held out)."""
    order = np.random.default_rng(0).permutation(n)
    cut = int(n * 0.8)
    return order[:cut], order[cut:]


def log_loss(p: Any, y: Any) -> float:
    """The mean log loss of chances ``p`` of a yes/no (or shared) outcome ``y``."""
    return float(-(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)).mean())


def fit_refit(
    x: Any, y: Any, me: Any, rules: str = "classic", steps: int = 600
) -> tuple[Refit, float, float]:
    """The refitted evaluation and the searching seat's held-out log loss: shipped, refitted.

    ``x`` is positions x 4 colours x features, ``y`` the win shares, ``me``
    the searching seat of each position.
    """
    n, _, f = x.shape
    turn = np.stack([(me + j) % 4 for j in range(4)], 1)  # the searching seat first
    x = np.take_along_axis(x, turn[:, :, None], 1)
    y = np.take_along_axis(y, turn, 1)
    train, test = split(n)
    mu = x[train].reshape(-1, f).mean(0)
    sd = x[train].reshape(-1, f).std(0) + 1e-9
    z = (x - mu) / sd

    def chances(w: dict[str, Any], ids: Any) -> Any:
        s = np.concatenate([z[ids, :1] @ w["mine"] + w["bias"], z[ids, 1:] @ w["theirs"]], 1)
        return softmax(s)

    def grad(w: dict[str, Any], ids: Any) -> dict[str, Any]:
        d = (chances(w, ids) - y[ids]) / len(ids)
        return {
            "mine": d[:, 0] @ z[ids, 0],
            "theirs": np.einsum("nk,nkf->f", d[:, 1:], z[ids, 1:]),
            "bias": d[:, 0].sum(keepdims=True),
        }

    w = {"mine": np.zeros(f), "theirs": np.zeros(f), "bias": np.zeros(1)}
    adam(w, steps, 0.1, grad, lambda t: train)
    refitted = log_loss(chances(w, test)[:, 0], y[test, 0])
    shipped = log_loss(softmax(x[test] @ np.array(WEIGHTS[rules]))[:, 0], y[test, 0])
    mine, theirs = w["mine"] / sd, w["theirs"] / sd
    bias = float(w["bias"][0] - mine @ mu + theirs @ mu)  # the standardising shifts, folded in
    refit = (tuple(float(a) for a in mine), bias, tuple(float(a) for a in theirs))
    return refit, shipped, refitted


#: the board's inputs per colour: its pieces by progress (0..57), each
#: opponent's track pieces by square in its frame (3 x 52), each opponent's
#: pieces in the base and past the track (3 + 3), then ``value.py``'s features
OWN, THEIRS, BASES, DONE = 0, HOME + 1, HOME + 1 + 3 * TRACK, HOME + 4 + 3 * TRACK
FEATURES = HOME + 7 + 3 * TRACK


def encode(pieces: Any, x: Any) -> Any:
    """The board's inputs (positions x 4 colours x inputs) of ``pieces`` and features ``x``."""
    n = len(pieces)
    out = np.zeros((n, 4, FEATURES + x.shape[2]), np.float32)
    rows = np.arange(n)
    for c in range(4):
        for k in range(4):
            np.add.at(out[:, c], (rows, OWN + pieces[:, c, k]), 1)
        for j in range(1, 4):
            o = (c + j) % 4
            for k in range(4):
                p = pieces[:, o, k]
                track = (p >= 1) & (p <= LAST_TRACK)
                square = (QUARTER * o + p - 1 - QUARTER * c) % TRACK
                np.add.at(out[:, c], (rows[track], THEIRS + TRACK * (j - 1) + square[track]), 1)
                np.add.at(out[:, c], (rows[p == 0], BASES + j - 1), 1)
                np.add.at(out[:, c], (rows[p > LAST_TRACK], DONE + j - 1), 1)
        out[:, c, FEATURES:] = x[:, c]
    return out


def fit_board(
    pieces: Any, x: Any, y: Any, rules: str = "classic", hidden: int = 64, epochs: int = 5
) -> tuple[float, float]:
    """Held-out log loss (over the four colours) of the shipped weights and of the network."""
    inputs = encode(pieces, x)
    train, test = split(len(inputs))
    d = inputs.shape[2]
    mu = inputs[train].reshape(-1, d).mean(0)
    sd = inputs[train].reshape(-1, d).std(0) + 1e-3
    z = ((inputs - mu) / sd).astype(np.float32)
    rng = np.random.default_rng(1)
    w = {
        "in": rng.normal(0, 1 / math.sqrt(d), (d, hidden)).astype(np.float32),
        "b": np.zeros(hidden, np.float32),
        "out": rng.normal(0, 1 / math.sqrt(hidden), hidden).astype(np.float32),
        "linear": np.zeros(d, np.float32),
    }

    def scores(w: dict[str, Any], ids: Any) -> tuple[Any, Any]:
        h = np.maximum(z[ids] @ w["in"] + w["b"], 0)
        return h, h @ w["out"] + z[ids] @ w["linear"]

    def grad(w: dict[str, Any], ids: Any) -> dict[str, Any]:
        h, s = scores(w, ids)
        dl = ((softmax(s) - y[ids]) / len(ids)).astype(np.float32)
        dh = dl[:, :, None] * w["out"] * (h > 0)
        return {
            "in": np.einsum("nkd,nkh->dh", z[ids], dh),
            "b": dh.sum((0, 1)),
            "out": np.einsum("nk,nkh->h", dl, h),
            "linear": np.einsum("nk,nkd->d", dl, z[ids]),
        }

    batch = 2048
    per_epoch = math.ceil(len(train) / batch)
    order = [rng.permutation(train) for _ in range(epochs)]

    def batches(t: int) -> Any:
        e, b = divmod(t - 1, per_epoch)
        return order[e][b * batch : (b + 1) * batch]

    adam(w, epochs * per_epoch, 0.001, grad, batches)

    def loss(s: Any) -> float:
        return float(-(y[test] * np.log(softmax(s) + 1e-12)).sum(1).mean())

    held_out = np.concatenate(
        [scores(w, test[k : k + 50_000])[1] for k in range(0, len(test), 50_000)]
    )
    return loss(x[test] @ np.array(WEIGHTS[rules])), loss(held_out)


def run_chunk(rules: str, games: int, seed: int, refit: Refit | None) -> tuple[int, int]:
    """Games played and won by the search (shipped or ``refit`` chance) against three heuristics."""
    colour = COLOURS[seed % 4]
    result = simulate(
        rules,
        games,
        seed=seed,
        policy=player_for("normal", random.Random(seed + 1)),
        policies={colour: searcher(random.Random(seed + 2), refit)},
    )
    return games, result["wins"].get(colour, 0)


def gather(pool: ProcessPoolExecutor, rules: str, games: int, seed: int, board: bool) -> Any:
    parts = [
        pool.submit(positions, rules, CHUNK, seed * 1_000_000 + k * CHUNK, board)
        for k in range(max(1, games // CHUNK))
    ]
    found = [p.result() for p in parts]
    return {k: np.concatenate([f[k] for f in found]) for k in found[0]}


def play(pool: ProcessPoolExecutor, rules: str, games: int, refit: Refit | None) -> str:
    tasks = [pool.submit(run_chunk, rules, CHUNK, 7_000 + k, refit) for k in range(games // CHUNK)]
    played = won = 0
    for task in tasks:
        p, w = task.result()
        played += p
        won += w
    lo, hi = wilson(won, played)
    return f"{won}/{played} = {won / max(1, played):.1%} (95% {lo:.1%}-{hi:.1%})"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rules", choices=("classic", "tower", "italian", "super"), default="classic"
    )
    parser.add_argument("--games", type=int, default=8000, help="games to learn from")
    parser.add_argument("--play", type=int, default=2000, help="games per evaluation played")
    parser.add_argument("--board", action="store_true", help="also fit the whole-board network")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        data = gather(pool, args.rules, args.games, 1, board=False)
        refit, shipped, refitted = fit_refit(data["x"], data["y"], data["me"], args.rules)
        share = float(data["y"][np.arange(len(data["me"])), data["me"]].mean())
        print(
            f"{args.rules}: {len(data['x'])} positions of the search's games (its share of wins"
            f" {share:.1%}); its held-out log loss: shipped {shipped:.4f}, refitted {refitted:.4f}",
            flush=True,
        )
        print(f"refitted: mine {refit[0]}, bias {refit[1]:.4f}, theirs {refit[2]}", flush=True)
        for name, evaluation in (("shipped", None), ("refitted", refit)):
            found = play(pool, args.rules, args.play, evaluation)
            print(f"search with the {name} chance vs 3 normal: {found}", flush=True)
        if args.board:
            data = gather(pool, args.rules, args.games * 2, 2, board=True)
            linear, network = fit_board(data["pieces"], data["x"], data["y"], args.rules)
            print(
                f"whole board, {len(data['x'])} positions of heuristic games: held-out log loss"
                f" shipped {linear:.4f}, network {network:.4f} (uniform {math.log(4):.4f})",
                flush=True,
            )
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
