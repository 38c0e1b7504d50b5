"""Property tests over random games of every rule set and option."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import COLOURS, HOME, GameState
from engine.board import (
    DEFAULT_SEATS,
    START_SQUARES,
    TRACK_SQUARES,
    is_star,
    square_key,
    start_colour,
)
from engine.setup import build_occupancy

# (rules, players, options): every rule set and every option the presets offer
VARIANTS: list[tuple[str, int, dict[str, Any]]] = [
    ("classic", 2, {}),
    ("classic", 3, {}),
    ("classic", 4, {}),
    ("classic", 4, {"teams": True}),
    ("classic", 4, {"six_extra_turn": False, "three_sixes": "none"}),
    ("tower", 2, {}),
    ("tower", 3, {}),
    ("tower", 4, {}),
    ("italian", 2, {}),
    ("italian", 3, {"pieces": 5}),
    ("italian", 4, {}),
    ("italian", 4, {"teams": True}),
    ("italian", 4, {"teams": True, "pieces_to_win": 2}),
    ("italian", 4, {"pieces_to_win": 3}),
    ("italian", 2, {"pieces": 6}),
    ("italian", 4, {"pieces": {"red": 6, "green": 4, "yellow": 5, "blue": 4}}),
    ("super", 4, {}),
]

MAX_ACTIONS = 20_000


def random_game(
    rules: str, players: int, options: dict[str, Any], seed: int, check: bool = True
) -> tuple[GameState, GameState, list[dict[str, int]]]:
    """Play a whole game with random rolls and choices through the pure API."""
    rng = random.Random(seed)
    start = engine.new_game(
        rules, players, options=options, turn=rng.choice(DEFAULT_SEATS[players])
    )
    state = start
    actions: list[dict[str, int]] = []
    counts = {c: len(p) for c, p in state.pieces.items()}
    while not state.is_over and len(actions) < MAX_ACTIONS:
        if state.phase == "roll":
            action = {"roll": rng.randint(1, 6)}
        else:
            moves = engine.legal_moves(state)
            assert moves, "a move phase always has a legal move"
            action = {"move": rng.choice(moves).piece}
        state, _ = engine.apply(state, action)
        actions.append(action)
        if check:
            check_invariants(state, counts)
    return start, state, actions


def check_invariants(state: GameState, counts: dict[str, int]) -> None:
    pieces = state.pieces
    # pieces are conserved: same colours, same number each, all on the board
    assert {c: len(p) for c, p in pieces.items()} == counts
    assert all(0 <= p <= HOME for ps in pieces.values() for p in ps)
    # the engine's occupancy cache matches the pieces
    assert {k: sorted(v) for k, v in state.occ.items()} == {
        k: sorted(v) for k, v in build_occupancy(state.pos).items()
    }
    for key, here in build_occupancy(state.pos).items():
        colours = [x >> 3 for x in here]
        if key >= TRACK_SQUARES:
            # a home column square holds only its owner's pieces
            owner = (key - TRACK_SQUARES) // 5
            assert set(colours) == {owner}
        stacking = state.options.stacking
        if stacking == "free":
            continue
        # towers and barriers: at most two pieces on a square
        assert len(here) <= 2, f"square {key} holds {len(here)} pieces"
        if len(here) == 2:
            if stacking == "tower":
                assert colours[0] == colours[1]
            else:
                sc = start_colour(key)
                if colours[0] == colours[1]:
                    assert sc < 0, "no barrier on a start square"
                else:
                    assert is_star(key) or sc in colours
    assert state.phase in ("roll", "move", "bonus", "over")
    if state.phase in ("move", "bonus"):
        assert engine.legal_moves(state)


variant = st.sampled_from(VARIANTS)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(variant, seeds)
def test_random_games_end_and_keep_the_invariants(
    v: tuple[str, int, dict[str, Any]], seed: int
) -> None:
    rules, players, options = v
    _, state, actions = random_game(rules, players, options, seed)
    assert state.is_over, f"no end after {len(actions)} actions"
    winner = state.winner
    assert winner
    ranking = state.ranking
    assert ranking is not None and sorted(ranking) == sorted(state.players)
    assert ranking[: len(winner)] == winner
    if state.options.teams:
        # a team wins: the two partners, opposite seats
        assert len(winner) == 2 and (COLOURS.index(winner[1]) - COLOURS.index(winner[0])) == 2


@fast
@given(variant, seeds)
def test_replaying_the_record_gives_the_same_state(
    v: tuple[str, int, dict[str, Any]], seed: int
) -> None:
    rules, players, options = v
    start, state, actions = random_game(rules, players, options, seed, check=False)
    record = engine.make_record(start, actions)
    assert engine.replay(record) == state
    # and from the JSON text, as a file would hold it
    import json

    assert engine.replay(json.dumps(record)).summary() == state.summary()


@fast
@given(variant, seeds, st.integers(min_value=0, max_value=400))
def test_saving_and_loading_a_state_changes_nothing(
    v: tuple[str, int, dict[str, Any]], seed: int, cut: int
) -> None:
    rules, players, options = v
    rng = random.Random(seed)
    state = engine.new_game(rules, players, options=options)
    for _ in range(cut):
        if state.is_over:
            break
        if state.phase == "roll":
            state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
        else:
            state, _ = engine.apply(state, {"move": rng.choice(engine.legal_moves(state)).piece})
    loaded = GameState.from_json(state.to_json())
    assert loaded == state
    assert loaded.summary() == state.summary()
    assert engine.legal_moves(loaded) == engine.legal_moves(state)
    # the loaded state plays on exactly like the original
    for d in range(1, 7):
        if state.phase == "roll":
            a, ea = engine.apply(state, {"roll": d})
            b, eb = engine.apply(loaded, {"roll": d})
            assert a == b and ea == eb


def test_apply_never_changes_its_input() -> None:
    # apply is pure: the state passed in is left as it was
    rng = random.Random(7)
    state = engine.new_game("super", 4)
    for _ in range(300):
        before = state.to_json()
        if state.phase == "roll":
            new, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
        else:
            new, _ = engine.apply(state, {"move": rng.choice(engine.legal_moves(state)).piece})
        assert state.to_json() == before
        state = new


def test_start_squares_and_column_keys_are_where_rules_md_puts_them() -> None:
    # RULES.md 1: start square of colour c is absolute 13*c; p=1 stands on it
    for c in range(4):
        assert square_key(c, 1) == START_SQUARES[c] == 13 * c
        # p = 51 is the square just before the own start square... minus one
        assert square_key(c, 51) == (13 * c + 50) % 52
        assert {square_key(c, p) for p in range(52, 57)} == set(range(52 + 5 * c, 57 + 5 * c))
        assert square_key(c, 0) == square_key(c, HOME) == -1
