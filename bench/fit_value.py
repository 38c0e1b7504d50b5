"""Fit the expert's evaluation: ``python bench/fit_value.py [--games N]``.

Plays games between four heuristic players (the opponents the expert's search
models) for each rule set, keeps about one position in seven (taken before a
roll) with the features of every colour (:func:`bot.players.value.features`)
and who won, and fits the weights of a conditional logit: the chance that a
colour wins is the softmax of its features' weighted sum over the colours at
the table (in italian teams, of the two teams' summed features).  Prints the
held-out log loss against a uniform guess and the ``WEIGHTS`` table to put in
``bot/players/value.py``.  Needs numpy (the ``dev`` extra).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

# bench/engine.py is named like the engine package: keep this folder off the path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.players import player_for  # noqa: E402
from bot.players.value import features  # noqa: E402
from engine import (  # noqa: E402
    GameState,
    Move,
    current_moves,
    move_in_place,
    new_game,
    roll_in_place,
)

#: label -> (rule set, options)
RULE_SETS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "classic": ("classic", None),
    "tower": ("tower", None),
    "italian": ("italian", None),
    "teams": ("italian", {"teams": True}),
    "super": ("super", None),
}
#: the share of positions kept (neighbouring positions say nearly the same)
KEEP = 0.15
#: games per worker task
CHUNK = 50


def play_keeping(
    s: GameState, rng: random.Random, choose: Callable[[GameState, list[Move]], Move]
) -> tuple[list[tuple[list[tuple[float, ...]], list[list[int]]]], list[float]] | None:
    """Play ``s`` to its end with ``rng``'s dice, ``choose`` deciding every real choice.

    Keeps about one position in seven (taken before a roll): every colour's
    features and pieces.  Returns them with the colours' shares of the win, or
    None if the game did not end.
    """
    kept = []
    for _ in range(5000):
        if s.phase == "over":
            break
        if s.phase == "roll":
            if rng.random() < KEEP:
                kept.append(([features(s, c) for c in range(4)], [list(p) for p in s.pos]))
            roll_in_place(s, rng.randint(1, 6), None)
        else:
            moves = current_moves(s)
            m = moves[0] if len(moves) == 1 else choose(s, moves)
            move_in_place(s, m.piece, None)
    if s.phase != "over":
        return None
    return kept, [1.0 / len(s.won) if c in s.won else 0.0 for c in range(4)]


def positions(label: str, games: int, seed: int) -> tuple[Any, Any]:
    """Features (positions x 4 colours x features) and win shares of ``games`` games."""
    rules, options = RULE_SETS[label]
    rng = random.Random(seed)
    player = player_for("normal", rng)
    xs: list[list[tuple[float, ...]]] = []
    ys: list[list[float]] = []
    for g in range(games):
        s = new_game(rules, 4, options=options)
        s.cur = s.seats[g % 4]
        played = play_keeping(s, rng, player.choose)
        if played is None:
            continue
        kept, share = played
        xs.extend(x for x, _ in kept)
        ys.extend([share] * len(kept))
    return np.array(xs), np.array(ys)


def softmax(s: Any) -> Any:
    """The softmax over the last axis."""
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    return p / p.sum(-1, keepdims=True)


def adam(
    params: dict[str, Any],
    steps: int,
    rate: float,
    grad: Callable[[dict[str, Any], Any], dict[str, Any]],
    batches: Callable[[int], Any],
) -> None:
    """Minimise with Adam in place: ``grad(params, batches(step))`` gives the gradients."""
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(x) for k, x in params.items()}
    for t in range(1, steps + 1):
        g = grad(params, batches(t))
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * g[k]
            v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k]
            params[k] -= rate * (m[k] / (1 - 0.9**t)) / (np.sqrt(v[k] / (1 - 0.999**t)) + 1e-8)


def fit(x: Any, y: Any, steps: int = 400, rate: float = 0.1) -> tuple[Any, float, float]:
    """Weights on the raw features (Adam on the standardised ones), train and test log loss."""
    n, _, f = x.shape
    order = np.random.default_rng(0).permutation(n)
    cut = int(n * 0.8)
    train, test = order[:cut], order[cut:]
    mu = x[train].reshape(-1, f).mean(0)
    sd = x[train].reshape(-1, f).std(0) + 1e-9
    z = (x - mu) / sd

    def loss(w: Any, ids: Any) -> float:
        return float(-(y[ids] * np.log(softmax(z[ids] @ w) + 1e-12)).sum(1).mean())

    def grad(params: dict[str, Any], ids: Any) -> dict[str, Any]:
        p = softmax(z[ids] @ params["w"])
        return {"w": np.einsum("nk,nkf->f", p - y[ids], z[ids]) / len(ids)}

    params = {"w": np.zeros(f)}
    adam(params, steps, rate, grad, lambda t: train)
    w = params["w"]
    return w / sd, loss(w, train), loss(w, test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6000, help="games per rule set")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()
    table = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for label in RULE_SETS:
            tasks = [
                pool.submit(positions, label, CHUNK, 1000 + k) for k in range(args.games // CHUNK)
            ]
            parts = [t.result() for t in tasks]
            x = np.concatenate([p[0] for p in parts])
            y = np.concatenate([p[1] for p in parts])
            if label == "teams":  # a team's features are its two colours' together
                x = np.stack([x[:, 0] + x[:, 2], x[:, 1] + x[:, 3]], 1)
                y = np.stack([y[:, 0] + y[:, 2], y[:, 1] + y[:, 3]], 1)
            w, train, test = fit(x, y)
            uniform = float(np.log(x.shape[1]))
            print(
                f"{label}: {len(x)} positions, log loss {train:.4f} (train)"
                f" {test:.4f} (test), uniform {uniform:.4f}",
                flush=True,
            )
            table[label] = [round(float(a), 4) for a in w]
    print("WEIGHTS = {")
    for label, w in table.items():
        print(f'    "{label}": ({", ".join(map(str, w))}),')
    print("}")


if __name__ == "__main__":
    main()
