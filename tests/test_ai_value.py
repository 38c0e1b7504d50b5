"""The expert's learned evaluation: each side's chance of winning a position."""

from __future__ import annotations

import math

import pytest

import engine
from bot.players.value import WEIGHTS, features, win_chance
from engine import COLOURS
from tests.helpers.ai import position

RULES = [
    ("classic", None),
    ("tower", None),
    ("italian", None),
    ("italian", {"teams": True}),
    ("super", None),
]


@pytest.mark.parametrize(("rules", "options"), RULES)
def test_the_chances_of_the_sides_add_up_to_one(
    rules: str, options: dict[str, bool] | None
) -> None:
    state = engine.new_game(rules, 4, options=options, position=position(red=[20, 5, 0, 0]))
    sides = [0, 1] if options else [0, 1, 2, 3]
    chances = [win_chance(state, c) for c in sides]
    assert math.isclose(sum(chances), 1.0, rel_tol=1e-9)
    assert all(0.0 < p < 1.0 for p in chances)
    # red is ahead of everyone: its side is the favourite
    assert chances[0] == max(chances)


def test_every_rule_set_has_a_weight_per_feature() -> None:
    state = engine.new_game("classic", 4)
    n = len(features(state, 0))
    assert {len(w) for w in WEIGHTS.values()} == {n}
    assert set(WEIGHTS) == {"classic", "tower", "italian", "teams", "super"}


def test_at_the_start_the_player_on_turn_is_a_little_ahead() -> None:
    state = engine.new_game("classic", 4, turn="green")
    chances = {COLOURS[c]: win_chance(state, c) for c in state.seats}
    assert max(chances, key=lambda c: chances[c]) == "green"
    assert all(0.2 < p < 0.3 for p in chances.values())


def test_walking_on_and_being_captured_move_the_chance_the_right_way() -> None:
    behind = engine.new_game("classic", 4, position=position(red=[10, 0, 0, 0]), turn="green")
    ahead = engine.new_game("classic", 4, position=position(red=[40, 0, 0, 0]), turn="green")
    assert win_chance(ahead, 0) > win_chance(behind, 0)
    # a lone red piece just ahead of a green one risks being hit
    safe = engine.new_game(
        "classic", 4, position=position(red=[30, 0, 0, 0], green=[2, 0, 0, 0]), turn="green"
    )
    exposed = engine.new_game(
        "classic", 4, position=position(red=[30, 0, 0, 0], green=[15, 0, 0, 0]), turn="green"
    )
    assert win_chance(exposed, 0) < win_chance(safe, 0)


def test_a_won_game_is_certain() -> None:
    state = engine.new_game(
        "classic", 4, position=position(red=[57, 57, 57, 56], green=[10, 0, 0, 0]), turn="red"
    )
    state, _ = engine.apply(state, {"roll": 1})
    state, _ = engine.apply(state, {"move": 3})
    assert win_chance(state, 0) == 1.0
    assert win_chance(state, 1) == 0.0


def test_partners_share_their_chance_in_teams() -> None:
    state = engine.new_game(
        "italian", 4, options={"teams": True}, position=position(yellow=[40, 0, 0, 0]), turn="red"
    )
    assert win_chance(state, 0) == win_chance(state, 2) > 0.5
    assert win_chance(state, 1) == win_chance(state, 3) < 0.5
