"""The second-step bench (``bench/iterate.py``): its fit, its data and its players."""

from __future__ import annotations

import math
import random

import numpy as np

import engine
from bench.iterate import (
    BASES,
    DONE,
    FEATURES,
    THEIRS,
    encode,
    fit_board,
    fit_refit,
    positions,
    run_chunk,
    searcher,
)
from bot.players.value import WEIGHTS, win_chance
from tests.helpers.ai import position


def test_the_refit_finds_the_searching_seats_edge() -> None:
    # the searching seat wins more than its features say (a bias of 0.8): the
    # refit finds that bias and the features' weights, and predicts its wins
    # better than weights that do not know who searches
    rng = np.random.default_rng(4)
    n, f = 6000, len(WEIGHTS["classic"])
    x = rng.normal(size=(n, 4, f))
    true = np.zeros(f)
    true[:3] = (1.0, -1.0, 0.5)
    me = rng.integers(0, 4, n)
    s = x @ true
    s[np.arange(n), me] += 0.8
    p = np.exp(s) / np.exp(s).sum(1, keepdims=True)
    y = np.zeros((n, 4))
    winner = (p.cumsum(1) < rng.random((n, 1))).sum(1)
    y[np.arange(n), np.minimum(winner, 3)] = 1.0
    (mine, bias, theirs), shipped, refitted = fit_refit(x, y, me)
    assert abs(bias - 0.8) < 0.25
    assert np.allclose(mine[:3], true[:3], atol=0.25)
    assert np.allclose(theirs[:3], true[:3], atol=0.2)
    assert refitted < shipped


def test_a_refit_like_the_shipped_weights_values_positions_alike() -> None:
    w = WEIGHTS["classic"]
    player = searcher(random.Random(1), (w, 0.0, w))
    state = engine.new_game(
        "classic", 4, position=position(red=[10, 0, 0, 0], green=[30, 5, 0, 0]), turn="green"
    )
    for c in state.seats:
        assert math.isclose(player.search.evaluate(state, c), win_chance(state, c))
    # a bias for the searching seat raises the chance it sees for itself, whichever it is
    favoured = searcher(random.Random(1), (w, 1.0, w)).search.evaluate
    assert favoured(state, 0) > win_chance(state, 0)
    assert favoured(state, 1) > win_chance(state, 1)


def test_positions_come_from_finished_games_with_the_searching_seat_rotating() -> None:
    data = positions("classic", 3, seed=5)
    n = len(data["x"])
    assert n > 0
    assert data["x"].shape == (n, 4, len(WEIGHTS["classic"]))
    assert data["pieces"].shape == (n, 4, 4)
    assert np.allclose(data["y"].sum(1), 1.0)
    assert set(data["me"].tolist()) <= {1, 2, 3} and len(set(data["me"].tolist())) > 1
    assert data["pieces"].min() >= 0 and data["pieces"].max() <= 57
    # a piece's features count it where the pieces say it is (the first: at home)
    homes = (data["pieces"] == 57).sum(2)
    assert np.array_equal(data["x"][:, :, 1], homes)


def test_the_board_is_seen_from_each_colours_side() -> None:
    pieces = np.array([[[0, 57, 52, 10], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]])
    x = np.arange(4 * 12, dtype=float).reshape(1, 4, 12)
    out = encode(pieces, x)[0]
    red, green = out[0], out[1]
    assert [red[k] for k in (0, 10, 52, 57)] == [1, 1, 1, 1]
    assert red[THEIRS + 13] == 1  # green's start square, 13 squares on from red's
    assert red[BASES] == 3 and red[BASES + 1] == 4 and red[BASES + 2] == 4
    assert green[0] == 3 and green[1] == 1
    assert green[THEIRS + 2 * 52 + (9 - 13) % 52] == 1  # red's piece, seen from green
    assert green[BASES + 2] == 1 and green[DONE + 2] == 2
    assert list(green[FEATURES:]) == list(x[0, 1])
    assert out.sum() == sum(float(x[0, c].sum()) for c in range(4)) + 4 * 16


def test_the_network_and_the_games_give_figures() -> None:
    data = positions("classic", 4, seed=2, board=True)
    linear, network = fit_board(data["pieces"], data["x"], data["y"], hidden=4, epochs=1)
    assert 0 < linear < 5 and 0 < network < 5
    played, won = run_chunk("classic", 2, 3, None)
    assert played == 2 and 0 <= won <= 2
