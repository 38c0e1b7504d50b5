"""No record, however broken, gets anything but a clear LudoError out of the engine."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import GameState, LudoError

#: every field of a saved state (GameState.to_dict)
STATE_FIELDS = [
    "v",
    "rules",
    "players",
    "pieces",
    "turn",
    "phase",
    "die",
    "sixes",
    "extra",
    "bonus",
    "last",
    "follow",
    "winner",
    "options",
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)
colours = st.sampled_from(["red", "green", "yellow", "blue", "purple", ""])
actions = st.lists(
    st.one_of(
        st.fixed_dictionaries({"roll": st.integers(-1, 8)}),
        st.fixed_dictionaries({"move": st.integers(-2, 7)}),
        json_values,
    ),
    max_size=40,
)
records = st.fixed_dictionaries(
    {
        "rules": st.sampled_from(["classic", "tower", "italian", "super", "x"]) | json_values,
        "players": st.lists(colours, max_size=5) | json_values,
        "actions": actions,
    },
    optional={
        "options": st.dictionaries(
            st.sampled_from(["teams", "pieces", "pieces_to_win", "exit_rolls", "stacking", "x"]),
            json_values,
            max_size=3,
        )
        | json_values,
        "position": st.dictionaries(colours, st.lists(st.integers(-1, 58), max_size=7), max_size=4)
        | json_values,
        "turn": colours | json_values,
    },
)


def _replay(record: Any) -> None:
    try:
        engine.replay(record)
    except LudoError as e:
        assert str(e), "an error always says something"


@settings(max_examples=400, deadline=None)
@given(records)
def test_broken_records_raise_only_ludo_errors(record: dict[str, Any]) -> None:
    _replay(record)
    _replay(json.dumps(record))


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_value_is_refused_cleanly(value: Any) -> None:
    _replay(value)
    with contextlib.suppress(LudoError):
        GameState.from_dict(value)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(STATE_FIELDS),
        json_values,
    )
)
def test_corrupt_saved_states_raise_only_ludo_errors(data: dict[str, Any]) -> None:
    data.setdefault("v", 1)
    with contextlib.suppress(LudoError):
        GameState.from_dict(data)


def _mid_game_states() -> list[dict[str, Any]]:
    import random

    out = []
    for rules in engine.RULE_SETS:
        rng = random.Random(rules)
        state = engine.new_game(rules, 4)
        for k in range(600):
            if state.is_over:
                break
            if state.phase == "roll":
                state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
            else:
                state, _ = engine.apply(
                    state, {"move": rng.choice(engine.legal_moves(state)).piece}
                )
            if k % 97 == 0:
                out.append(state.to_dict())
    return out


MID_GAME = _mid_game_states()


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(MID_GAME),
    st.sampled_from(STATE_FIELDS),
    json_values | st.integers(-2, 9),
)
def test_a_state_with_one_corrupt_field_loads_cleanly_or_is_refused(
    good: dict[str, Any], key: str, value: Any
) -> None:
    data = json.loads(json.dumps(good))
    data[key] = value
    try:
        state = GameState.from_dict(data)
    except LudoError:
        return
    # whatever loads must play on without a crash: every action either
    # applies or is refused with a LudoError
    for action in [{"roll": d} for d in range(1, 7)] + [{"move": i} for i in range(-1, 7)]:
        with contextlib.suppress(LudoError):
            engine.apply(state, action)
    engine.legal_moves(state)
    state.summary()
