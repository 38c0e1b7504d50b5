"""The project's own rule decisions (docs/decisions.md), one test each."""

from __future__ import annotations

import pytest

import engine
from engine import RecordError, RulesError
from tests.helpers.rules import game, kinds, run, targets

HOME = 57


def test_decision_1_italian_six_without_a_move_passes_the_turn() -> None:
    # decision 1: a pass ends the turn in every rule set, the roll again of a
    # 6 included: red's only piece is on column square 5 and cannot move 6
    state = game("italian", {"red": [56, 57, 57, 57]})
    state, events = run(state, "r6")
    assert ("pass", "no_move") in [(e.kind, e.reason) for e in events]
    assert state.turn == "yellow" and state.phase == "roll"


def test_decision_1_super_six_without_a_move_passes_the_turn() -> None:
    # decision 1 with super 6 ("after moving with a 6"): no move, no new roll
    state = game(
        "super", {"red": [55, 57, 57, 57], "green": [0] * 4, "yellow": [0] * 4, "blue": [0] * 4}
    )
    state, events = run(state, "r6")
    assert "pass" in kinds(events)
    assert state.turn == "green"


def test_decision_2_one_move_lists_the_base_but_any_base_piece_comes_out() -> None:
    # decision 2: pieces in the base are interchangeable: one "come out" move
    # is listed (the lowest-numbered), and naming another base piece works too
    state = game("classic", {"red": [0, 10, 0, 0]})
    state, _ = run(state, "r6")
    enters = [m for m in engine.legal_moves(state) if m.enter]
    assert [m.piece for m in enters] == [0]
    after, events = run(state, "m3")
    assert after.pieces["red"] == (0, 10, 0, 1)
    assert any(e.kind == "move" and e.piece == 3 and e.to == 1 for e in events)


def test_decision_4_tower_bounce_may_end_where_it_started() -> None:
    # decision 4: p = 55 rolling 4 walks 56, home, 56, 55: back on its own
    # square (114 - (55 + 4) = 55), and its own tower-mate there does not block
    # it: the piece left the square, so the square is no tower on the way back
    state = game("tower", {"red": [55, 55, 0, 0]})
    state, _ = run(state, "r4")
    assert targets(state) == {0: 55, 1: 55}
    state, events = run(state, "m0")
    assert state.pieces["red"] == (55, 55, 0, 0)
    assert ("stack", "tower") in [(e.kind, e.reason) for e in events]


def test_decision_6_super_a_home_column_barrier_is_never_forced_open() -> None:
    # decision 6: a 6 from any home column square (52..56) overshoots home,
    # so super 7 can never force a column barrier open: the track piece moves
    state = game(
        "super", {"red": [20, 52, 52, 0], "green": [0] * 4, "yellow": [0] * 4, "blue": [0] * 4}
    )
    state, _ = run(state, "r6")
    assert set(targets(state)) == {0}
    # while a barrier on the last track square (p = 51) reaches home with a 6
    # and must open: only its pieces may move
    state = game(
        "super", {"red": [20, 51, 51, 0], "green": [0] * 4, "yellow": [0] * 4, "blue": [0] * 4}
    )
    state, _ = run(state, "r6")
    assert set(targets(state)) == {1, 2}


def test_decision_9_distance_counts_only_the_pieces_still_needed() -> None:
    # decision 9: with pieces_to_win 2, green (one home, one on column 5 at
    # p=56, two in base) needs one more piece: 1 square; yellow (two at
    # p=50, two on track far back) needs two pieces: 7 + 7 = 14. Summing every
    # piece instead would rank green (1 + 57 + 57 = 115) behind yellow.
    state = game(
        "italian",
        {
            "red": [57, 56, 0, 0],
            "green": [57, 56, 0, 0],
            "yellow": [50, 50, 10, 10],
            "blue": [0, 0, 0, 0],
        },
        pieces_to_win=2,
    )
    assert state.distance("green") == 1
    assert state.distance("yellow") == 14
    state, _ = run(state, "r1", "m1")  # red's second piece home: red wins
    assert state.winner == ["red"]
    assert state.ranking == ["red", "green", "yellow", "blue"]


def test_decision_9_default_distance_is_the_sum_of_every_piece() -> None:
    # with all pieces needed the distance is tower 8's sum of 57 - p
    state = game("tower", {"red": [57, 50, 1, 0], "yellow": [0, 0, 0, 0]})
    assert state.distance("red") == 0 + 7 + 56 + 57


def test_decision_10_team_player_finishing_ends_the_turn_at_once() -> None:
    # decision 10: red brings its last piece home with a 6 (owed another roll)
    # but has nothing left to move: the turn passes, and red is skipped later
    state = game(
        "italian",
        {
            "red": [57, 57, 57, 51],
            "green": [10, 0, 0, 0],
            "yellow": [10, 0, 0, 0],
            "blue": [10, 0, 0, 0],
        },
        teams=True,
    )
    state, events = run(state, "r6", "m3")
    assert "finish" in kinds(events)
    assert state.turn == "green" and not state.is_over


def test_decision_12_a_position_already_won_is_refused() -> None:
    with pytest.raises(RecordError, match="red has already won"):
        engine.new_game("classic", 2, position={"red": [57] * 4, "yellow": [0] * 4})
    with pytest.raises(RecordError, match="at most 2 fit"):
        engine.new_game("tower", 2, position={"red": [5, 5, 5, 0], "yellow": [44, 0, 0, 0]})


def test_decision_12_two_colours_on_a_tower_square_are_refused() -> None:
    # yellow p=31 and red p=5 are both absolute square 4
    with pytest.raises(RecordError, match="two colours"):
        engine.new_game("tower", 2, position={"red": [5, 0, 0, 0], "yellow": [31, 0, 0, 0]})


@pytest.mark.parametrize(
    ("rules", "options", "words"),
    [
        ("tower", {"teams": True}, "teams are only available"),
        ("tower", {"safe_stars": True}, "no safe squares"),
        ("super", {"pieces": 5}, "played with 4 pieces"),
        ("super", {"overshoot": "bounce"}, "bouncing"),
        ("classic", {"open_barriers": True}, "needs barrier"),
        ("tower", {"exit_forced": True}, "cannot both be on"),
        ("classic", {"min_players": 4, "max_players": 3}, "min_players"),
    ],
)
def test_decision_13_impossible_option_combinations_are_refused(
    rules: str, options: dict[str, object], words: str
) -> None:
    with pytest.raises(RulesError, match=words):
        engine.rules_for(rules, options)
