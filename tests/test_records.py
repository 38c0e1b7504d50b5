"""Game records (RULES.md section 7): replay, and clear errors for bad ones."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine import GameState, IllegalAction, LudoError, RecordError


def record(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "rules": "classic",
        "options": {},
        "players": ["red", "green", "yellow", "blue"],
        "turn": "red",
        "actions": [{"roll": 6}, {"move": 0}, {"roll": 3}, {"move": 0}],
    }
    base.update(changes)
    return base


def test_the_example_record_of_rules_md_replays() -> None:
    # the record printed in RULES.md 7: red brings a piece out with a 6,
    # rolls again (classic 3) and walks it 3 squares: p = 1 + 3 = 4
    state = engine.replay(
        record(position={c: [0, 0, 0, 0] for c in ("red", "green", "yellow", "blue")})
    )
    assert state.pieces["red"] == (4, 0, 0, 0)
    assert state.turn == "green" and state.phase == "roll"
    out = state.summary()
    assert set(out) >= {"pieces", "turn", "phase", "winner", "ranking", "scores"}
    assert out["winner"] is None and out["ranking"] is None
    assert out["scores"] == {"red": 4, "green": 0, "yellow": 0, "blue": 0}


def test_replay_accepts_json_text_and_a_missing_position() -> None:
    state = engine.replay(json.dumps(record()))
    assert state.pieces["red"] == (4, 0, 0, 0)


def test_super_record_without_position_starts_with_one_piece_out() -> None:
    # RULES.md 7: without a position, the rule set's own start (super 2)
    state = engine.replay(
        {
            "rules": "super",
            "players": ["red", "green", "yellow", "blue"],
            "turn": "green",
            "actions": [],
        }
    )
    assert all(p == (1, 0, 0, 0) for p in state.pieces.values())
    assert state.turn == "green"


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"rules": "parcheesi"}, "unknown rule set 'parcheesi'"),
        ({"rules": 7}, "unknown rule set"),
        ({"players": ["red", "purple"]}, "unknown colour 'purple'"),
        ({"players": ["red", "red"]}, "cannot play twice"),
        ({"players": ["red", "green"]}, "with 2 players the colours are red, yellow"),
        ({"players": ["red"]}, "2 to 4 players"),
        ({"players": "red"}, "players must be a list"),
        ({"turn": "blue", "players": ["red", "yellow"]}, "turn must be one of"),
        ({"options": {"teams": "yes"}}, "'teams' must be true or false"),
        ({"options": {"colour_blind": True}}, "unknown option 'colour_blind'"),
        ({"options": [1]}, "options must be"),
        ({"position": {"red": [0, 0, 0]}}, "red needs a list of 4"),
        (
            {
                "position": {
                    "red": [0, 0, 0, 58],
                    "green": [0] * 4,
                    "yellow": [0] * 4,
                    "blue": [0] * 4,
                }
            },
            "progress runs from 0",
        ),
        ({"actions": "roll 6"}, "actions must be a list"),
        ({"extra": 1}, "unknown record field"),
    ],
)
def test_bad_records_give_a_clear_error(changes: dict[str, Any], words: str) -> None:
    with pytest.raises(RecordError) as err:
        engine.replay(record(**changes))
    assert words in str(err.value)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '{"rules": "classic"'])
def test_malformed_json_gives_a_clear_error(text: str) -> None:
    with pytest.raises(RecordError) as err:
        engine.replay(text)
    assert "record" in str(err.value)


@pytest.mark.parametrize(
    ("actions", "index", "words"),
    [
        ([{"roll": 0}], 0, "a die shows 1 to 6, not 0"),
        ([{"roll": 7}], 0, "a die shows 1 to 6, not 7"),
        ([{"roll": 6}, {"move": 0}, {"roll": 2.5}], 2, "roll needs a whole die value"),
        ([{"move": 0}], 0, "red must roll the die before moving"),
        ([{"roll": 6}, {"roll": 6}], 1, "red has rolled 6 and must move a piece first"),
        ([{"roll": 6}, {"move": 4}], 1, "piece 4 does not exist: red has pieces 0 to 3"),
        ([{"roll": 6}, {"move": -1}], 1, "piece -1 does not exist"),
        (
            [{"roll": 6}, {"move": 0}, {"roll": 3}, {"move": 1}],
            3,
            "piece 1 is in the base: it needs a 6 to come out",
        ),
        ([{"roll": 6}, {"jump": 0}], 1, "unknown action 'jump'"),
        ([{"roll": 6, "move": 0}], 0, "an action is"),
        (["roll"], 0, "an action is"),
        ([{"move": True}], 0, "needs a whole piece number"),
    ],
)
def test_illegal_actions_name_their_index(actions: list[Any], index: int, words: str) -> None:
    with pytest.raises(IllegalAction) as err:
        engine.replay(record(actions=actions))
    assert str(err.value).startswith(f"action {index}: ")
    assert words in str(err.value)
    assert err.value.index == index  # type: ignore[attr-defined]


def test_overshoot_message_reads_like_rules_md() -> None:
    # RULES.md 7's own example wording: "piece 2 cannot move 4: it would overshoot home"
    rec = record(
        position={"red": [0, 0, 55, 0], "green": [0] * 4, "yellow": [0] * 4, "blue": [0] * 4},
        actions=[{"roll": 4}, {"move": 2}],
    )
    # a 4 from p=55 would need p=59: red has no legal move and passes by itself,
    # so the move is refused as out of order
    with pytest.raises(IllegalAction, match="action 1: green must roll"):
        engine.replay(rec)
    rec["position"]["red"] = [10, 0, 55, 0]
    with pytest.raises(IllegalAction) as err:
        engine.replay(rec)
    assert str(err.value) == "action 1: piece 2 cannot move 4: it would overshoot home"


def test_a_finished_game_refuses_more_actions() -> None:
    rec = record(
        players=["red", "yellow"],
        position={"red": [57, 57, 57, 56], "yellow": [0, 0, 0, 0]},
        actions=[{"roll": 1}, {"move": 3}, {"roll": 6}],
    )
    with pytest.raises(IllegalAction, match="action 2: the game is over"):
        engine.replay(rec)
    rec["actions"] = rec["actions"][:2]
    state = engine.replay(rec)
    assert state.winner == ["red"] and state.phase == "over"
    assert state.ranking == ["red", "yellow"]
    assert state.scores == {"red": 1000, "yellow": 0}


def test_every_engine_error_is_a_ludo_error_and_a_value_error() -> None:
    for exc in (IllegalAction, RecordError, engine.RulesError):
        assert issubclass(exc, LudoError) and issubclass(exc, ValueError)


def test_rules_lookup_and_overrides() -> None:
    assert engine.rules_for("italian").teams is False
    opts = engine.rules_for("italian", teams=True)
    assert opts.teams is True and opts.name == "italian"
    assert opts.overrides() == {"teams": True}
    assert engine.rules_for("italian", {"pieces": {"red": 6}}).pieces_for("red") == 6
    assert engine.rules_for("italian", {"pieces": {"red": 6}}).pieces_for("green") == 4
    with pytest.raises(engine.RulesError, match="unknown rule set"):
        engine.rules_for("ludo")
    with pytest.raises(engine.RulesError, match="'pieces' takes 4, 5 or 6"):
        engine.rules_for("italian", pieces=9)
    with pytest.raises(engine.RulesError, match="teams are only available"):
        engine.rules_for("tower", teams=True)
    with pytest.raises(engine.RulesError, match="'three_sixes' must be one of"):
        engine.rules_for("classic", three_sixes="sometimes")
    # presets are frozen: an override never leaks into the preset
    assert engine.rules_for("italian").teams is False


def test_state_json_round_trip_and_schema_version() -> None:
    state = engine.replay(record())
    text = state.to_json()
    data = json.loads(text)
    assert data["v"] == engine.SCHEMA_VERSION
    assert len(text) < 200
    assert GameState.from_json(text) == state
    data["v"] = 99
    with pytest.raises(RecordError, match="schema version 99"):
        GameState.from_dict(data)


@pytest.mark.parametrize(
    "corrupt",
    [
        "not json",
        "[]",
        '{"v": 1}',
        '{"v": 1, "rules": "classic", "players": ["red", "yellow"], '
        '"pieces": {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]}, "turn": "red"}',
        '{"v": 1, "rules": "classic", "players": ["red", "yellow"], '
        '"pieces": {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]}, "turn": "red", "phase": "fly"}',
        '{"v": 1, "rules": "classic", "players": ["red", "yellow"], '
        '"pieces": {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]}, "turn": "red", "phase": "move"}',
        '{"v": 1, "rules": "classic", "players": ["red", "yellow"], '
        '"pieces": {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]}, "turn": "red", "phase": "over"}',
    ],
)
def test_corrupt_states_raise_record_error(corrupt: str) -> None:
    with pytest.raises(RecordError):
        GameState.from_json(corrupt)


def test_equal_results_share_a_place() -> None:
    # classic 13: equal scores share a rank; RULES.md 7: the ranking list
    # keeps seating order from red for them
    state = engine.new_game(
        "classic",
        4,
        position={
            "red": [57, 57, 57, 56],
            "green": [10, 0, 0, 0],
            "yellow": [10, 0, 0, 0],
            "blue": [2, 3, 0, 0],
        },
    )
    state, _ = engine.apply(state, {"roll": 1})
    state, _ = engine.apply(state, {"move": 3})
    assert state.ranking == ["red", "green", "yellow", "blue"]
    assert state.places == {"red": 1, "green": 2, "yellow": 2, "blue": 4}
    assert state.summary()["places"] == state.places


def test_a_saved_state_naming_a_missing_piece_is_refused() -> None:
    # super 6 sends "the piece moved last" back: a saved state must not name
    # a piece the player does not have
    state = engine.new_game("super", 4)
    data = state.to_dict()
    data.update(sixes=2, last=5)
    with pytest.raises(RecordError, match="has no piece 5"):
        GameState.from_dict(data)


def test_a_long_run_of_sixes_without_a_penalty_saves_and_loads() -> None:
    # italian 3: no penalty for three 6s, so a run of 6s can go on; the
    # saved state must load whatever its length (found by a service soak run)
    state = engine.new_game("italian", 2, position={"red": [10, 20, 0, 0], "yellow": [0] * 4})
    for _ in range(5):
        state, _ = engine.apply(state, {"roll": 6})
        state, _ = engine.apply(state, {"move": 0})
    assert state.turn == "red" and state.sixes == 5
    assert GameState.from_json(state.to_json()) == state
