"""Rule set ``tower`` (RULES.md section 4, seed 001 "Regras do Ludo").

Every test is named after the numbered rule it checks and says why the
expected result holds.  Progress ``p`` is relative to the piece's owner
(RULES.md section 1): 0 base, 1..51 track, 52..56 home column, 57 home.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction, RecordError
from tests.helpers.rules import game, kinds, refused, run, targets
from tests.helpers.rules import on as sq

HOME = 57


# --------------------------------------------------------------------------
# rule 1: 2 to 4 players, order drawn at random and kept all game


def test_tower_1_two_three_and_four_players_may_play() -> None:
    # Rule 1: 2 to 4 players, seated as section 1 says.
    assert engine.new_game("tower", 2).players == ("red", "yellow")
    assert engine.new_game("tower", 3).players == ("red", "green", "yellow")
    assert engine.new_game("tower", 4).players == ("red", "green", "yellow", "blue")


def test_tower_1_one_player_is_refused() -> None:
    # Rule 1: fewer than 2 players is not a tower game.
    with pytest.raises(RecordError):
        engine.new_game("tower", ["red"])


def test_tower_1_drawn_first_player_and_order_kept_all_game() -> None:
    # Rule 1 + section 2: the drawn first player (an input) starts, and play then
    # passes clockwise in the same order every round.  Nobody can move a 1 with
    # every piece in the base, so each roll is a pass.
    state = game("tower", players=4, turn="yellow")
    seen = [state.turn]
    for _ in range(8):
        state, _ = run(state, "r1")
        seen.append(state.turn)
    assert seen == ["yellow", "blue", "red", "green"] * 2 + ["yellow"]


def test_tower_1_three_players_pass_clockwise_over_the_empty_seat() -> None:
    # Rule 1 + section 1: with 3 players (red, green, yellow) play passes
    # clockwise to the next colour in the game: yellow is followed by red.
    state = game("tower", players=3, turn="green")
    seen = [state.turn]
    for _ in range(4):
        state, _ = run(state, "r2")
        seen.append(state.turn)
    assert seen == ["green", "yellow", "red", "green", "yellow"]


# --------------------------------------------------------------------------
# rule 2: no safe squares, no extra turns, no three-sixes penalty


def test_tower_2_no_extra_turn_for_a_six() -> None:
    # Rule 2: a 6 gives no extra turn; after the move the turn passes.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r6", "m0")
    assert state.pieces["red"] == (16, 0, 0, 0)
    assert "extra_turn" not in kinds(ev)
    assert state.turn == "yellow"
    assert state.phase == "roll"


def test_tower_2_no_extra_turn_for_a_capture() -> None:
    # Rule 2 (and 5): the capture happens, but gives no extra turn.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [sq("yellow", 12), 0, 0, 0]})
    state, ev = run(state, "r3", "m0")
    assert "capture" in kinds(ev)
    assert "extra_turn" not in kinds(ev)
    assert state.turn == "yellow"


def test_tower_2_no_extra_turn_for_reaching_home() -> None:
    # Rule 2 (and 7): reaching home gives no extra turn.
    state = game("tower", {"red": [54, 10, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r3", "m0")
    assert state.pieces["red"][0] == HOME
    assert "home" in kinds(ev)
    assert "extra_turn" not in kinds(ev)
    assert state.turn == "yellow"


def test_tower_2_six_on_the_exit_follow_up_gives_no_extra_turn() -> None:
    # Rule 2: even the follow-up roll of rule 4 gives no extra turn for a 6.
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r5", "m0", "r6", "m0")
    assert state.pieces["red"] == (7, 0, 0, 0)
    assert "extra_turn" not in kinds(ev)
    assert state.turn == "yellow"


def test_tower_2_no_penalty_for_consecutive_sixes() -> None:
    # Rule 2: no penalty for consecutive 6s: red's third 6 in a row (one per turn,
    # since a 6 gives no extra turn) is moved like any other roll.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r6", "m0", "r1", "r6", "m0", "r2", "r6", "m0")
    assert state.pieces["red"] == (28, 0, 0, 0)
    assert "penalty" not in kinds(ev)
    assert [e.reason for e in ev if e.kind == "pass"] == ["no_move", "no_move"]  # yellow's


def test_tower_2_no_safe_star_square() -> None:
    # Rule 2: star squares are not safe: landing on a lone opponent on star 21
    # captures it (rule 5).
    state = game("tower", {"red": [19, 0, 0, 0], "green": [sq("green", 21), 0, 0, 0]})
    state, ev = run(state, "r3", "m0")
    assert state.pieces["red"][0] == sq("red", 21)
    assert state.pieces["green"] == (0, 0, 0, 0)
    assert "capture" in kinds(ev)


def test_tower_2_no_safe_start_square() -> None:
    # Rule 2: start squares are not safe, not even for their own colour: a green
    # piece on its own start square (13) is captured.
    state = game("tower", {"red": [10, 0, 0, 0], "green": [1, 0, 0, 0]})
    state, ev = run(state, "r4", "m0")
    assert state.pieces["red"][0] == sq("red", 13) == 14
    assert state.pieces["green"] == (0, 0, 0, 0)
    assert "capture" in kinds(ev)


# --------------------------------------------------------------------------
# rule 3: a 5 brings a piece out, or moves another piece 5


def test_tower_3_five_offers_exit_or_moving_another_piece() -> None:
    # Rule 3: on a 5 the player may bring a piece out (to p = 1) or move 5.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    moves = engine.legal_moves(state)
    assert {(m.frm, m.to, m.enter) for m in moves} == {(10, 15, False), (0, 1, True)}


def test_tower_3_five_may_move_another_piece_instead() -> None:
    # Rule 3: choosing to move 5 with a piece already out is a normal move: no
    # follow-up roll (that belongs to bringing a piece out, rule 4).
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5", "m0")
    assert state.pieces["red"] == (15, 0, 0, 0)
    assert state.turn == "yellow"


def test_tower_3_five_brings_a_piece_out_onto_start_square() -> None:
    # Rule 3: the piece comes out onto its own start square, p = 1.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r5", "m2")
    assert state.pieces["red"] == (10, 0, 1, 0)
    assert [e.reason for e in ev if e.kind == "move"] == ["enter"]


@pytest.mark.parametrize("die", [1, 2, 3, 4, 6])
def test_tower_3_only_a_five_brings_a_piece_out(die: int) -> None:
    # Rule 3: the exit roll is 5; any other roll with every piece in the base
    # leaves no legal move, so the player passes (section 2).
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, f"r{die}")
    assert kinds(ev) == ["roll", "pass", "turn"]
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 4: after bringing a piece out, roll again at once and move that piece


def test_tower_4_after_exit_the_player_rolls_again_at_once() -> None:
    # Rule 4: bringing a piece out is followed at once by another roll of the
    # same player.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r5", "m1")
    assert state.turn == "red"
    assert state.phase == "roll"
    assert "turn" not in kinds(ev)


def test_tower_4_follow_up_roll_must_move_the_new_piece() -> None:
    # Rule 4: the follow-up roll moves the piece that just came out; the other
    # piece (which could move 3) may not.
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5", "m1", "r3")
    assert targets(state) == {1: 4}
    assert refused(state, "m0").reason == "follow_up"


def test_tower_4_turn_passes_after_the_follow_up_move() -> None:
    # Rule 4: the follow-up is the end of the turn (rule 2: no extra turns).
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5", "m1", "r3", "m1")
    assert state.pieces["red"] == (10, 4, 0, 0)
    assert state.turn == "yellow"
    assert state.phase == "roll"


def test_tower_4_new_piece_blocked_so_another_piece_moves() -> None:
    # Rule 4 Decision: if the piece that came out cannot move with the roll (a
    # yellow tower on red p = 3 is in the way of a 4), any other piece may.
    yt = sq("yellow", 2)  # red p = 3
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [yt, yt, 0, 0]})
    state, _ = run(state, "r5", "m1", "r4")
    assert targets(state) == {0: 14}
    state, _ = run(state, "m0")
    assert state.pieces["red"] == (14, 1, 0, 0)
    assert state.turn == "yellow"


def test_tower_4_new_piece_blocked_and_nothing_else_moves_passes() -> None:
    # Rule 4 Decision: if neither the new piece nor any other can move, the
    # player passes.
    yt = sq("yellow", 2)
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [yt, yt, 0, 0]})
    state, ev = run(state, "r5", "m0", "r4")
    assert [e.reason for e in ev if e.kind == "pass"] == ["no_move"]
    assert state.pieces["red"] == (1, 0, 0, 0)
    assert state.turn == "yellow"


def test_tower_4_five_on_follow_up_moves_new_piece_not_another_exit() -> None:
    # Rule 4: a 5 on the follow-up roll cannot bring out another piece; it moves
    # the new piece 5.
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5", "m0", "r5")
    moves = engine.legal_moves(state)
    assert [(m.piece, m.frm, m.to, m.enter) for m in moves] == [(0, 1, 6, False)]
    assert refused(state, "m1").reason == "follow_up"


def test_tower_4_five_on_follow_up_with_new_piece_blocked_cannot_exit() -> None:
    # Rule 4: the new piece is blocked (yellow tower at red p = 3) and the other
    # pieces are in the base: a 5 still cannot bring one out, so red passes.
    yt = sq("yellow", 2)
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [yt, yt, 0, 0]})
    state, ev = run(state, "r5", "m0", "r5")
    assert [e.reason for e in ev if e.kind == "pass"] == ["no_move"]
    assert state.pieces["red"] == (1, 0, 0, 0)
    assert state.turn == "yellow"


def test_tower_4_exit_onto_own_piece_then_new_piece_must_move() -> None:
    # Rules 4 and 6: coming out onto an own piece forms a tower on the start
    # square; the follow-up roll still moves the new piece (dissolving it).
    state = game("tower", {"red": [1, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r5", "m1")
    assert [e.reason for e in ev if e.kind == "stack"] == ["tower"]
    state, _ = run(state, "r2")
    assert targets(state) == {1: 3}


# --------------------------------------------------------------------------
# rule 5: capture


def test_tower_5_capture_sends_lone_opponent_piece_to_base() -> None:
    # Rule 5: ending on a square holding a single opponent piece captures it.
    y = sq("yellow", 12)  # red p = 13
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [y, 20, 0, 0]})
    state, ev = run(state, "r3", "m0")
    assert state.pieces["red"] == (13, 0, 0, 0)
    assert state.pieces["yellow"] == (0, 20, 0, 0)
    cap = [e for e in ev if e.kind == "capture"]
    assert len(cap) == 1
    assert cap[0].target == ("yellow", 0)


def test_tower_5_move_reports_the_capture() -> None:
    # Rule 5: the legal move says which piece it captures.
    y = sq("yellow", 12)
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [y, 0, 0, 0]})
    state, _ = run(state, "r3")
    (move,) = engine.legal_moves(state)
    assert move.captures == ("yellow", 0)


def test_tower_5_coming_out_captures_opponent_on_start_square() -> None:
    # Rules 5 and 2: coming out onto the start square ends the move there, and a
    # lone opponent piece on it (no safe squares) is captured.
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [sq("yellow", 0), 0, 0, 0]})
    state, ev = run(state, "r5", "m0")
    assert state.pieces["red"] == (1, 0, 0, 0)
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert "capture" in kinds(ev)


def test_tower_5_passing_a_lone_opponent_does_not_capture() -> None:
    # Rule 5: only the square the move ends on captures.
    y = sq("yellow", 11)  # red p = 12
    state = game("tower", {"red": [10, 0, 0, 0], "yellow": [y, 0, 0, 0]})
    state, ev = run(state, "r4", "m0")
    assert state.pieces["red"] == (14, 0, 0, 0)
    assert state.pieces["yellow"] == (y, 0, 0, 0)
    assert "capture" not in kinds(ev)


# --------------------------------------------------------------------------
# rule 6: towers


def test_tower_6_landing_on_own_piece_forms_a_tower() -> None:
    # Rule 6: ending on a square holding one own piece forms a tower.
    state = game("tower", {"red": [10, 13, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r3")
    assert [m.forms for m in engine.legal_moves(state) if m.piece == 0] == ["tower"]
    state, ev = run(state, "m0")
    assert state.pieces["red"] == (13, 13, 0, 0)
    assert [e.reason for e in ev if e.kind == "stack"] == ["tower"]


def test_tower_6_tower_cannot_be_captured() -> None:
    # Rule 6: a tower cannot be captured; yellow may not land on it (and so may
    # only move its other piece).
    y = sq("yellow", 9)  # 3 short of red's tower on square 12
    state = game("tower", {"red": [13, 13, 0, 0], "yellow": [y, 5, 0, 0]}, turn="yellow")
    state, _ = run(state, "r3")
    assert targets(state) == {1: 8}
    assert refused(state, "m0").reason == "blocked"


def test_tower_6_opponent_cannot_pass_a_tower() -> None:
    # Rule 6: no piece passes over a tower.
    y = sq("yellow", 9)
    state = game("tower", {"red": [13, 13, 0, 0], "yellow": [y, 5, 0, 0]}, turn="yellow")
    state, _ = run(state, "r6")
    assert targets(state) == {1: 11}
    assert refused(state, "m0").reason == "blocked"


def test_tower_6_owner_cannot_pass_own_tower() -> None:
    # Rule 6: the owner's own pieces may not pass over the tower either.
    state = game("tower", {"red": [13, 13, 10, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r4")
    assert targets(state) == {0: 17, 1: 17}
    assert refused(state, "m2").reason == "blocked"


def test_tower_6_owner_cannot_land_on_own_tower() -> None:
    # Rule 6: a tower holds two pieces, never more: a third own piece may not
    # land on it.
    state = game("tower", {"red": [13, 13, 10, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r3")
    assert 2 not in targets(state)
    assert refused(state, "m2").reason == "blocked"


def test_tower_6_opponent_cannot_land_on_a_tower_even_without_other_move() -> None:
    # Rule 6: with its only piece facing the tower, yellow has no legal move and
    # passes (section 2).
    y = sq("yellow", 9)
    state = game("tower", {"red": [13, 13, 0, 0], "yellow": [y, 0, 0, 0]}, turn="yellow")
    state, ev = run(state, "r3")
    assert [e.reason for e in ev if e.kind == "pass"] == ["no_move"]
    assert state.pieces["yellow"] == (y, 0, 0, 0)


def test_tower_6_tower_does_not_move_as_one() -> None:
    # Rule 6: moving a piece of a tower moves that piece only.
    state = game("tower", {"red": [13, 13, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r2", "m0")
    assert state.pieces["red"] == (15, 13, 0, 0)


def test_tower_6_moving_one_piece_away_dissolves_the_tower() -> None:
    # Rule 6: once one piece has left, the square holds a single piece: yellow
    # may now pass it and land on it (capturing it, rule 5).
    y = sq("yellow", 9)  # red's tower stands on square 12 (red p = 13)
    state = game("tower", {"red": [13, 13, 0, 0], "yellow": [y, 0, 0, 0]})
    state, _ = run(state, "r2", "m0")  # red 13 -> 15; piece 1 stays on 13
    state, _ = run(state, "r3")
    assert targets(state) == {0: y + 3}
    state, ev = run(state, "m0")
    assert state.pieces["red"] == (15, 0, 0, 0)
    assert "capture" in kinds(ev)


def test_tower_6_towers_form_in_own_home_column() -> None:
    # Rule 6: towers can form on any square but base and home, the owner's home
    # column included.
    state = game("tower", {"red": [53, 50, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r3", "m1")
    assert state.pieces["red"] == (53, 53, 0, 0)
    assert [e.reason for e in ev if e.kind == "stack"] == ["tower"]


def test_tower_6_tower_in_home_column_blocks_its_owner() -> None:
    # Rule 6: a tower in the home column may not be passed by the owner's
    # other pieces (the pieces of the tower can go home with the exact 4).
    state = game("tower", {"red": [53, 53, 50, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r4")
    assert targets(state) == {0: HOME, 1: HOME}
    assert refused(state, "m2").reason == "blocked"


def test_tower_6_tower_in_home_column_cannot_be_landed_on_by_owner() -> None:
    # Rule 6: nor landed on (50 + 3 = 53, the tower's square).
    state = game("tower", {"red": [53, 53, 50, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r3")
    assert 2 not in targets(state)
    assert refused(state, "m2").reason == "blocked"


def test_tower_6_tower_forms_on_a_start_square() -> None:
    # Rule 6: towers form on any track square, including a start square (here
    # green's, square 13, in a red/yellow game).
    state = game("tower", {"red": [14, 10, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r4", "m1")
    assert state.pieces["red"] == (14, 14, 0, 0)
    assert "stack" in kinds(ev)


def test_tower_6_cannot_come_out_onto_own_tower_on_start_square() -> None:
    # Rule 6: a piece cannot come out onto a start square that holds a tower;
    # the 5 must move a piece of the tower instead.
    state = game("tower", {"red": [1, 1, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert not any(m.enter for m in engine.legal_moves(state))
    assert targets(state) == {0: 6, 1: 6}
    assert refused(state, "m2").reason == "tower_on_start"


def test_tower_6_cannot_come_out_onto_opponent_tower_on_start_square() -> None:
    # Rule 6: the same for an opponent's tower on the start square; with nothing
    # else to move, red passes.
    y = sq("yellow", 0)
    state = game("tower", {"red": [0, 0, 0, 0], "yellow": [y, y, 0, 0]})
    state, ev = run(state, "r5")
    assert [e.reason for e in ev if e.kind == "pass"] == ["no_move"]
    assert state.pieces["red"] == (0, 0, 0, 0)
    assert state.pieces["yellow"] == (y, y, 0, 0)


# --------------------------------------------------------------------------
# rule 7: home column, exact number home, bounce


def test_tower_7_seed_example_12_minus_5_plus_5_is_2() -> None:
    # Rule 7 / seed 001: a piece on column square 5 (p = 56) rolls 5 and ends on
    # column square 2 (p = 53): 12 - (5 + 5) = 2, i.e. 114 - (56 + 5) = 53.
    state = game("tower", {"red": [56, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    (move,) = [m for m in engine.legal_moves(state) if m.piece == 0]
    assert (move.frm, move.to, move.bounce, move.home) == (56, 53, True, False)
    state, ev = run(state, "m0")
    assert state.pieces["red"] == (53, 0, 0, 0)
    assert [e.reason for e in ev if e.kind == "move"] == ["bounce"]


@pytest.mark.parametrize(
    ("p", "die"),
    [(p, d) for p in range(52, 57) for d in range(1, 7) if p + d > HOME],
)
def test_tower_7_bounce_follows_the_seed_formula(p: int, die: int) -> None:
    # Rule 7: a number larger than needed ends at 114 - (p + d), which is the
    # seed's 12 - (d + position) with column positions 1..6 (position = p - 51).
    state = game("tower", {"red": [p, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, f"r{die}", "m0")
    seed_position = 12 - (die + (p - 51))
    assert state.pieces["red"][0] == 114 - (p + die) == 51 + seed_position


def test_tower_7_exact_number_goes_home() -> None:
    # Rule 7: the exact number takes the piece home (p = 57).
    state = game("tower", {"red": [52, 10, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert [m.home for m in engine.legal_moves(state) if m.piece == 0] == [True]
    state, ev = run(state, "m0")
    assert state.pieces["red"] == (HOME, 10, 0, 0)
    assert "home" in kinds(ev)


def test_tower_7_piece_home_never_moves_again() -> None:
    # Rule 7 / seed: once home a piece does not move any more.
    state = game("tower", {"red": [HOME, 10, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r3")
    assert targets(state) == {1: 13}
    assert refused(state, "m0").reason == "home"


def test_tower_7_smaller_number_moves_normally_in_column() -> None:
    # Rule 7 / seed: a smaller number moves the piece up the column as usual.
    state = game("tower", {"red": [53, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r2", "m0")
    assert state.pieces["red"] == (55, 0, 0, 0)


def test_tower_7_track_piece_enters_home_column_automatically() -> None:
    # Section 1: from p = 51 the piece walks on into its home column.
    state = game("tower", {"red": [49, 0, 0, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r4", "m0")
    assert state.pieces["red"] == (53, 0, 0, 0)


def test_tower_7_bounce_blocked_by_tower_on_the_way_back() -> None:
    # Rule 7: the bounce obeys the tower rule on the way back: 56 + 5 walks
    # 57, 56, 55, 54 and a red tower stands on 54, so it cannot move.
    state = game("tower", {"red": [56, 54, 54, 10], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert 0 not in targets(state)
    assert refused(state, "m0").reason == "blocked"


def test_tower_7_bounce_blocked_by_tower_on_the_way_forward() -> None:
    # Rule 7: and on the way forward: 54 + 5 would walk over the tower on 56.
    state = game("tower", {"red": [54, 56, 56, 10], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert 0 not in targets(state)
    assert refused(state, "m0").reason == "blocked"


def test_tower_7_bounce_cannot_end_on_a_tower() -> None:
    # Rules 7 and 6: 56 + 5 ends on 53, where a red tower stands.
    state = game("tower", {"red": [56, 53, 53, 10], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert 0 not in targets(state)
    assert refused(state, "m0").reason == "blocked"


def test_tower_7_bounce_ending_on_own_piece_forms_a_tower() -> None:
    # Rules 7 and 6: 56 + 5 ends on 53 where one red piece stands: a tower.
    state = game("tower", {"red": [56, 53, 0, 0], "yellow": [0, 0, 0, 0]})
    state, ev = run(state, "r5", "m0")
    assert state.pieces["red"] == (53, 53, 0, 0)
    assert [e.reason for e in ev if e.kind == "stack"] == ["tower"]


def test_tower_7_bounce_turns_at_home_even_with_pieces_there() -> None:
    # Rule 7: home holds no tower, so two pieces already home do not stop the
    # bounce turning there: 55 + 3 walks 56, 57 and ends on 56.
    state = game("tower", {"red": [55, HOME, HOME, 0], "yellow": [0, 0, 0, 0]})
    state, _ = run(state, "r3", "m0")
    assert state.pieces["red"] == (56, HOME, HOME, 0)


# --------------------------------------------------------------------------
# rule 8: winner and ranking


def test_tower_8_first_player_with_all_pieces_home_wins() -> None:
    # Rule 8: the last red piece going home wins the game.
    state = game("tower", {"red": [HOME, HOME, HOME, 55], "yellow": [30, 0, 0, 0]})
    state, ev = run(state, "r2", "m3")
    assert state.phase == "over"
    assert state.winner == ["red"]
    assert "game_over" in kinds(ev)
    assert refused(state, "r1").reason == "game_over"


def test_tower_8_others_ranked_by_remaining_distance() -> None:
    # Rule 8: the others are ranked by the sum of 57 - p, smallest first:
    # yellow 7 + 7 + 6 + 8 = 28, green 0 + 57*3 = 171, blue 57*4 = 228.  (A
    # piece home counts 0, not a classic score: by classic points green's 250
    # would beat yellow's 200.)
    state = game(
        "tower",
        {
            "red": [HOME, HOME, HOME, 55],
            "green": [HOME, 0, 0, 0],
            "yellow": [50, 50, 51, 49],
            "blue": [0, 0, 0, 0],
        },
    )
    state, _ = run(state, "r2", "m3")
    assert state.ranking == ["red", "yellow", "green", "blue"]
    assert [state.distance(c) for c in ("yellow", "green", "blue")] == [28, 171, 228]
    assert state.scores is None  # no classic scores in tower


def test_tower_8_ranking_ties_keep_seating_order() -> None:
    # Rule 8 + section 7: equal distances keep seating order from red.
    # green: 57 - 30 + 57*3 = 198 = blue: 57 - 30 + 57*3; yellow: 57*4 = 228.
    state = game(
        "tower",
        {
            "red": [HOME, HOME, HOME, 55],
            "green": [30, 0, 0, 0],
            "yellow": [0, 0, 0, 0],
            "blue": [30, 0, 0, 0],
        },
    )
    state, _ = run(state, "r2", "m3")
    assert state.ranking == ["red", "green", "blue", "yellow"]


# --------------------------------------------------------------------------
# section 7: the game record


def test_tower_record_replays_exit_follow_up_and_capture() -> None:
    # Section 7: a record replays the same game: red brings a piece out (rule 3),
    # moves it with the follow-up roll (rule 4) and captures yellow (rule 5).
    record = {
        "rules": "tower",
        "players": ["red", "yellow"],
        "position": {"red": [0, 0, 0, 0], "yellow": [sq("yellow", 3), 0, 0, 0]},
        "turn": "red",
        "actions": [{"roll": 5}, {"move": 0}, {"roll": 3}, {"move": 0}],
    }
    final = engine.replay(record)
    assert final.pieces == {"red": (4, 0, 0, 0), "yellow": (0, 0, 0, 0)}
    assert final.turn == "yellow"
    assert final.phase == "roll"


def test_tower_record_illegal_action_names_its_index() -> None:
    # Section 7: an illegal action stops the replay with its index and reason.
    record = {
        "rules": "tower",
        "players": ["red", "yellow"],
        "position": {"red": [0, 0, 0, 0], "yellow": [0, 0, 0, 0]},
        "turn": "red",
        "actions": [{"roll": 5}, {"move": 0}, {"roll": 4}, {"move": 1}],
    }
    with pytest.raises(IllegalAction) as info:
        engine.replay(record)
    assert str(info.value).startswith("action 3: piece 1 cannot move 4")
