"""Rule set ``classic``, rules 8 to 13 and the game record (RULES.md sections 3 and 7;
seeds 000 and 002): the exact number home, extra turns accumulating, no legal move,
the end of the game, scoring and ranking, and replaying a record.

Every test names the numbered rule it checks; the comment in it says why the
expected result holds.  Positions are built with progress values (RULES.md 1):
``on(colour, square)`` is the progress of a ``colour`` piece standing on the
absolute track square ``square``.  Safe squares: starts 0, 13, 26, 39; stars
8, 21, 34, 47."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import IllegalAction
from tests.helpers.rules import game, kinds, on, reasons, run, targets

# --------------------------------------------------------------------------
# rule 8: exact number to reach home


def test_classic_8_exact_number_reaches_home() -> None:
    # Classic 8: from p = 54 home (57) is 3 away: a 3 takes the piece home.
    state = game("classic", {"red": [54, 0, 0, 0]})
    state, _ = run(state, "r3")
    [move] = engine.legal_moves(state)
    assert move.home
    state, events = run(state, "m0")
    assert state.pieces["red"] == (57, 0, 0, 0)
    assert "home" in kinds(events)


def test_classic_8_smaller_die_moves_up_the_column() -> None:
    # Classic 8: a die smaller than the distance just walks up the column.
    state = game("classic", {"red": [54, 0, 0, 0]})
    state, _ = run(state, "r2", "m0")
    assert state.pieces["red"] == (56, 0, 0, 0)


def test_classic_8_larger_die_means_that_piece_cannot_move() -> None:
    # Classic 8: a 4 from p = 54 would overshoot home: piece 0 cannot move,
    # piece 1 on the track can.
    state = game("classic", {"red": [54, 10, 0, 0]})
    state, _ = run(state, "r4")
    assert targets(state) == {1: 14}
    with pytest.raises(IllegalAction) as err:
        run(state, "m0")
    assert err.value.reason == "overshoot"
    assert str(err.value) == "piece 0 cannot move 4: it would overshoot home"


def test_classic_8_overshooting_only_piece_passes() -> None:
    # Classic 8 + 11: the only piece out cannot move a 4, the rest are in the
    # base: no legal move, red passes and the piece stays on p = 54.
    state = game("classic", {"red": [54, 0, 0, 0]})
    state, events = run(state, "r4")
    assert reasons(events, "pass") == ["no_move"]
    assert state.pieces["red"] == (54, 0, 0, 0)
    assert state.turn == "yellow"


def test_classic_8_piece_at_home_never_moves_again() -> None:
    # RULES.md 1 / classic 8: p = 57 is home; the piece never moves again.
    state = game("classic", {"red": [57, 10, 0, 0]})
    state, _ = run(state, "r1")
    assert targets(state) == {1: 11}
    with pytest.raises(IllegalAction) as err:
        run(state, "m0")
    assert err.value.reason == "home"


# --------------------------------------------------------------------------
# rule 9: reaching home gives an extra turn


def test_classic_9_reaching_home_gives_extra_turn() -> None:
    # Classic 9: a 3 takes the piece home: one extra turn (and only one: the
    # plain 2 after it ends the turn).
    state = game("classic", {"red": [54, 10, 0, 0]})
    state, events = run(state, "r3", "m0")
    assert reasons(events, "extra_turn") == ["home"]
    assert (state.turn, state.phase) == ("red", "roll")
    state, _ = run(state, "r2", "m1")
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 10: extra turns accumulate


def test_classic_10_six_and_capture_give_two_extra_rolls() -> None:
    # Classic 10: a 6 that captures gives two extra turns, played one after
    # the other: two more rolls (plain 1s), then the turn passes.
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 15), 0, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert sorted(reasons(events, "extra_turn")) == ["capture", "six"]
    state, _ = run(state, "r1", "m0")
    assert (state.turn, state.phase) == ("red", "roll")
    state, _ = run(state, "r1", "m0")
    assert state.turn == "yellow"
    assert state.pieces["red"] == (18, 0, 0, 0)


def test_classic_10_six_reaching_home_gives_two_extra_rolls() -> None:
    # Classic 10: a 6 that takes a piece home (51 + 6 = 57) gives two extra turns.
    state = game("classic", {"red": [51, 10, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert sorted(reasons(events, "extra_turn")) == ["home", "six"]
    state, _ = run(state, "r1", "m1")
    assert (state.turn, state.phase) == ("red", "roll")
    state, _ = run(state, "r1", "m1")
    assert state.turn == "yellow"
    assert state.pieces["red"] == (57, 12, 0, 0)


def test_classic_10_extra_turns_keep_accumulating() -> None:
    # Classic 10: 6 + capture owes two rolls; the first of them is a 6, which
    # owes one more: three rolls in all after the capture (6, 1, 1).
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 15), 0, 0, 0]})
    state, _ = run(state, "r6", "m0", "r6", "m0", "r1", "m0")
    assert state.turn == "red"
    state, _ = run(state, "r1", "m0")
    assert state.turn == "yellow"
    assert state.pieces["red"] == (24, 0, 0, 0)


def test_classic_10_seed_002_six_turn_chain() -> None:
    # Seed 002 "Turnos extras consecutivos": 1) 6, extra; 2) 6, extra;
    # 3) 3 that captures, extra; 4) 6 that reaches home, two extras; 5) 2;
    # 6) 4.  The three 6s are not consecutive, so no penalty (classic 4); after
    # the sixth turn's move the turn passes to the next player (green).
    state = game(
        "classic",
        {"red": [10, 51, 0, 0], "yellow": [on("yellow", 24), 0, 0, 0]},
        players=4,
    )
    chain = [
        ("r6", "m0", ["six"]),  # 10 -> 16
        ("r6", "m0", ["six"]),  # 16 -> 22
        ("r3", "m0", ["capture"]),  # 22 -> 25, captures yellow on square 24
        ("r6", "m1", ["home", "six"]),  # 51 -> 57
        ("r2", "m0", []),  # 25 -> 27
        ("r4", "m0", []),  # 27 -> 31
    ]
    for number, (roll, move, extras) in enumerate(chain, 1):
        assert (state.turn, state.phase) == ("red", "roll"), f"turn {number}"
        state, events = run(state, roll)
        assert state.phase == "move", f"turn {number}: {roll} must be playable"
        state, events = run(state, move)
        assert sorted(reasons(events, "extra_turn")) == extras, f"turn {number}"
        if number < len(chain):
            assert "turn" not in kinds(events), f"turn {number}"
    assert state.pieces["red"] == (31, 57, 0, 0)
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert [e.colour for e in events if e.kind == "turn"] == ["green"]
    assert (state.turn, state.phase) == ("green", "roll")


# --------------------------------------------------------------------------
# rule 11: no legal move


def test_classic_11_no_legal_move_passes() -> None:
    # Classic 11: all pieces in base and a 3: no legal move, red passes.
    state = engine.new_game("classic", 4)
    state, events = run(state, "r3")
    assert reasons(events, "pass") == ["no_move"]
    assert engine.legal_moves(state) == []
    assert (state.turn, state.phase) == ("green", "roll")


def test_classic_11_pass_loses_pending_extra_turns() -> None:
    # Classic 11: a 6 that reaches home owes two extra rolls.  The first is a
    # 3, which the last piece (p = 55) cannot use: red passes and the second
    # pending extra turn is lost.
    state = game("classic", {"red": [51, 55, 57, 57], "yellow": [10, 0, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert sorted(reasons(events, "extra_turn")) == ["home", "six"]
    state, events = run(state, "r3")
    assert reasons(events, "pass") == ["no_move"]
    assert state.turn == "yellow"
    # the lost turn is played by nobody: yellow's plain move passes to red,
    # red's plain move passes back to yellow
    state, _ = run(state, "r1", "m0")
    assert state.turn == "red"
    state, _ = run(state, "r1", "m1")
    assert state.pieces["red"] == (57, 56, 57, 57)
    assert state.turn == "yellow"


def test_classic_11_six_without_a_move_gives_no_extra_turn() -> None:
    # Classic 11 (seed 000's example): a 6 with pieces only home and in the
    # column (55 + 6 overshoots) is no move: red passes instead of rolling again.
    state = game("classic", {"red": [55, 57, 57, 57]})
    state, events = run(state, "r6")
    assert reasons(events, "pass") == ["no_move"]
    assert "extra_turn" not in kinds(events)
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 12: the end of the game


def test_classic_12_all_four_pieces_home_wins() -> None:
    # Classic 12: red brings its fourth piece home: the game ends, red wins.
    state = game("classic", {"red": [57, 57, 57, 54]}, players=4)
    state, events = run(state, "r3", "m3")
    assert state.phase == "over"
    assert state.winner == ["red"]
    assert "game_over" in kinds(events)
    assert state.ranking is not None and state.ranking[0] == "red"


def test_classic_12_game_ends_at_once_without_extra_turn() -> None:
    # Classic 12: the game ends as soon as the fourth piece is home, so the
    # two extra turns of a 6 reaching home (classic 10) are never played.
    state = game("classic", {"red": [57, 57, 57, 51]})
    state, _ = run(state, "r6", "m3")
    assert state.phase == "over"
    assert state.winner == ["red"]
    with pytest.raises(IllegalAction) as err:
        run(state, "r1")
    assert err.value.reason == "game_over"


def test_classic_12_three_pieces_home_is_not_a_win() -> None:
    # Classic 12: all 4 pieces are needed; a third one home just gives the
    # home extra turn.
    state = game("classic", {"red": [57, 57, 54, 10]})
    state, _ = run(state, "r3", "m2")
    assert state.phase == "roll"
    assert state.winner is None
    assert state.ranking is None


# --------------------------------------------------------------------------
# rule 13: scoring and ranking


def test_classic_13_seed_000_example_scores_271() -> None:
    # Classic 13 (seed 000): one piece home (250), one at p = 20 (20), one on
    # the start square (1), one in base (0): 271.  Yellow wins: 1000.
    state = game(
        "classic",
        {"red": [57, 20, 1, 0], "yellow": [57, 57, 57, 54]},
        players=4,
        turn="yellow",
    )
    assert state.scores is not None and state.scores["red"] == 271
    state, _ = run(state, "r3", "m3")
    assert state.phase == "over"
    assert state.scores == {"red": 271, "green": 0, "yellow": 1000, "blue": 0}


def test_classic_13_winner_always_has_1000() -> None:
    # Classic 13: the winner's score is 1000.
    state = game("classic", {"red": [57, 57, 57, 54], "yellow": [57, 57, 57, 10]})
    state, _ = run(state, "r3", "m3")
    assert state.scores == {"red": 1000, "yellow": 760}


def test_classic_13_column_pieces_score_their_progress() -> None:
    # Classic 13: a piece not home scores its progress, up to 56 on the last
    # column square: 56 + 52 + 1 + 0 = 109.
    state = game("classic", {"red": [56, 52, 1, 0]})
    assert state.scores is not None and state.scores["red"] == 109


def test_classic_13_others_ranked_by_score() -> None:
    # Classic 13: yellow wins; the others by score, highest first:
    # green 300 (250 + 50), red 100, blue 20.
    state = game(
        "classic",
        {
            "red": [50, 50, 0, 0],
            "green": [57, 50, 0, 0],
            "yellow": [57, 57, 57, 54],
            "blue": [20, 0, 0, 0],
        },
        turn="yellow",
    )
    state, _ = run(state, "r3", "m3")
    assert state.scores == {"red": 100, "green": 300, "yellow": 1000, "blue": 20}
    assert state.ranking == ["yellow", "green", "red", "blue"]


def tied_scores() -> engine.GameState:
    """Green about to win; blue 40; red and yellow tied on 30."""
    return game(
        "classic",
        {
            "red": [30, 0, 0, 0],
            "green": [57, 57, 57, 54],
            "yellow": [10, 20, 0, 0],
            "blue": [40, 0, 0, 0],
        },
        turn="green",
    )


def test_classic_13_ties_keep_seating_order_from_red() -> None:
    # Classic 13 + RULES.md 7: equal scores share a rank; in the ranking list
    # tied players keep seating order from red (not from the winner): green
    # wins, blue 40, then red and yellow tied on 30 in the order red, yellow.
    state = tied_scores()
    state, _ = run(state, "r3", "m3")
    assert state.scores == {"red": 30, "green": 1000, "yellow": 30, "blue": 40}
    assert state.ranking == ["green", "blue", "red", "yellow"]


def test_classic_13_equal_scores_share_a_rank() -> None:
    # Classic 13: equal scores share a rank: green wins (1st), blue 40 (2nd),
    # red and yellow tied on 30 share 3rd place.
    state = tied_scores()
    assert state.places is None
    state, _ = run(state, "r3", "m3")
    assert state.places == {"green": 1, "blue": 2, "red": 3, "yellow": 3}


def test_classic_13_all_tied_losers_in_seating_order_from_red() -> None:
    # RULES.md 7: blue wins, red/green/yellow all score 0: red, green, yellow.
    state = game("classic", {"blue": [57, 57, 57, 54]}, players=4, turn="blue")
    state, _ = run(state, "r3", "m3")
    assert state.ranking == ["blue", "red", "green", "yellow"]


# --------------------------------------------------------------------------
# RULES.md section 7: the game record


def _seed_002_record() -> dict[str, Any]:
    return {
        "rules": "classic",
        "options": {},
        "players": ["red", "green", "yellow", "blue"],
        "position": {
            "red": [10, 51, 0, 0],
            "green": [0, 0, 0, 0],
            "yellow": [on("yellow", 24), 0, 0, 0],
            "blue": [0, 0, 0, 0],
        },
        "turn": "red",
        "actions": [
            {"roll": 6},
            {"move": 0},
            {"roll": 6},
            {"move": 0},
            {"roll": 3},
            {"move": 0},
            {"roll": 6},
            {"move": 1},
            {"roll": 2},
            {"move": 0},
            {"roll": 4},
            {"move": 0},
        ],
    }


def test_record_7_replay_plays_the_seed_002_chain() -> None:
    # RULES.md 7: replaying the record gives the game the actions describe:
    # the seed 002 chain ends with green to roll.
    state = engine.replay(_seed_002_record())
    assert state.pieces["red"] == (31, 57, 0, 0)
    assert (state.turn, state.phase) == ("green", "roll")
    assert state.winner is None and state.ranking is None


def test_record_7_replay_equals_step_by_step_play() -> None:
    # RULES.md 7: a record replays the same game: same final state as apply().
    record = _seed_002_record()
    state = engine.new_game(
        "classic",
        record["players"],
        position=record["position"],
        turn="red",
    )
    for action in record["actions"]:
        state, _ = engine.apply(state, action)
    assert engine.replay(record) == state


def test_record_7_illegal_action_names_its_index() -> None:
    # RULES.md 7: an illegal action stops the replay with a message naming the
    # action's index and why it is illegal.
    record = {
        "rules": "classic",
        "players": ["red", "yellow"],
        "position": {"red": [54, 10, 0, 0], "yellow": [0, 0, 0, 0]},
        "turn": "red",
        "actions": [{"roll": 4}, {"move": 0}],
    }
    with pytest.raises(IllegalAction) as err:
        engine.replay(record)
    assert str(err.value) == "action 1: piece 0 cannot move 4: it would overshoot home"
