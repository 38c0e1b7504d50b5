"""Rule set ``super`` (RULES.md section 6, seed 004 "Super Ludo").

Every test is named after the numbered rule it checks and says why the
expected result holds.  Progress ``p`` is relative to the piece's owner
(RULES.md section 1): 0 base, 1..51 track, 52..56 home column, 57 home.
Absolute track squares: start squares 0, 13, 26, 39; shelters (stars) 8, 21,
34, 47.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import COLOURS, GameState, IllegalAction, RecordError
from tests.helpers.rules import game, kinds, reasons, refused, run, targets
from tests.helpers.rules import on as sq

HOME = 57
BASE = [0, 0, 0, 0]


def sgame(turn: str = "red", **position: list[int]) -> GameState:
    """A 4-player super game; colours not named have every piece in the base
    (replacing rule 2's start position, so scenarios stay uncluttered)."""
    full = {c: list(position.get(c, BASE)) for c in COLOURS}
    return game("super", full, turn=turn)


# --------------------------------------------------------------------------
# rule 1: exactly 4 players


@pytest.mark.parametrize("players", [2, 3])
def test_super_1_fewer_than_four_players_is_refused(players: int) -> None:
    # Rule 1: super is played by exactly 4 players.
    with pytest.raises(RecordError):
        engine.new_game("super", players)


def test_super_1_four_players_play() -> None:
    # Rule 1: 4 players, all colours.
    assert engine.new_game("super", 4).players == ("red", "green", "yellow", "blue")


# --------------------------------------------------------------------------
# rule 2: start position


def test_super_2_each_player_starts_with_one_piece_on_start_square() -> None:
    # Rule 2: one piece on the start square (p = 1), three in the base.
    state = engine.new_game("super", 4)
    assert state.pieces == {c: (1, 0, 0, 0) for c in COLOURS}


def test_super_2_record_without_position_uses_the_start_position() -> None:
    # Rule 2 + section 7: without "position" the rule set's own start position
    # is used, so red's first roll can move the piece already out.
    final = engine.replay(
        {
            "rules": "super",
            "players": list(COLOURS),
            "turn": "red",
            "actions": [{"roll": 3}, {"move": 0}],
        }
    )
    assert final.pieces["red"] == (4, 0, 0, 0)
    assert final.turn == "green"


# --------------------------------------------------------------------------
# rule 3: a 5 must bring a piece out


def test_super_3_five_must_bring_a_piece_out() -> None:
    # Rule 3: on a 5 the player must bring a piece out; moving another piece 5
    # is not allowed.
    state = sgame(red=[10, 0, 0, 0])
    state, _ = run(state, "r5")
    assert [(m.piece, m.to, m.enter) for m in engine.legal_moves(state)] == [(1, 1, True)]
    assert refused(state, "m0").reason == "must_enter"


def test_super_3_exit_is_a_whole_move_with_no_follow_up() -> None:
    # Rule 3: the piece is placed on the start square; that is the move, and
    # (a 5 giving nothing more) the turn passes.
    state = sgame(red=[10, 0, 0, 0])
    state, ev = run(state, "r5", "m3")
    assert state.pieces["red"] == (10, 0, 0, 1)
    assert state.turn == "green"
    assert "extra_turn" not in kinds(ev)


def test_super_3_own_piece_on_start_square_then_move_five_with_another() -> None:
    # Rule 3 exception: an own piece already on the start square; the 5 moves
    # any piece 5 instead (including the one on the start square).
    state = sgame(red=[1, 10, 0, 0])
    state, _ = run(state, "r5")
    assert targets(state) == {0: 6, 1: 15}
    assert refused(state, "m2").reason == "own_on_start"


def test_super_3_base_empty_then_move_five_with_another() -> None:
    # Rule 3 exception: nothing left in the base; the 5 moves any piece.
    state = sgame(red=[10, 20, 30, 40])
    state, _ = run(state, "r5")
    assert targets(state) == {0: 15, 1: 25, 2: 35, 3: 45}


@pytest.mark.parametrize("die", [1, 2, 3, 4, 6])
def test_super_3_only_a_five_brings_a_piece_out(die: int) -> None:
    # Rule 3: a piece leaves the base only on a 5.
    state = sgame(red=[10, 0, 0, 0])
    state, _ = run(state, f"r{die}")
    assert targets(state) == {0: 10 + die}
    assert refused(state, "m1").reason == "in_base"


# --------------------------------------------------------------------------
# rule 4: square capacity, barriers, shelters, start squares


def test_super_4_two_own_pieces_form_a_barrier() -> None:
    # Rule 4: two pieces of one colour on a square form a barrier.
    state = sgame(red=[10, 13, 0, 0])
    state, ev = run(state, "r3", "m0")
    assert state.pieces["red"] == (13, 13, 0, 0)
    assert reasons(ev, "stack") == ["barrier"]


def test_super_4_barrier_blocks_opponent_passing() -> None:
    # Rule 4: red (square 11) may not walk 4 over green's barrier on square 14.
    g = sq("green", 14)
    state = sgame(red=[12, 30, 0, 0], green=[g, g, 0, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {1: 34}
    assert refused(state, "m0").reason == "blocked"


def test_super_4_barrier_blocks_opponent_landing() -> None:
    # Rule 4: nor land on it with a 3 (no capture of a barrier).
    g = sq("green", 14)
    state = sgame(red=[12, 30, 0, 0], green=[g, g, 0, 0])
    state, _ = run(state, "r3")
    assert targets(state) == {1: 33}
    assert refused(state, "m0").reason == "blocked"


def test_super_4_barrier_blocks_its_owner_passing() -> None:
    # Rule 4: the owner's own pieces may not pass the barrier either.
    state = sgame(red=[15, 15, 12, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {0: 19, 1: 19}
    assert refused(state, "m2").reason == "blocked"


def test_super_4_barrier_blocks_its_owner_landing() -> None:
    # Rule 4: at most 2 pieces per square: a third own piece may not land.
    state = sgame(red=[15, 15, 12, 0])
    state, _ = run(state, "r3")
    assert targets(state) == {0: 18, 1: 18}
    assert refused(state, "m2").reason == "blocked"


def test_super_4_barrier_on_a_shelter_blocks_passing() -> None:
    # Rule 4: a shelter may hold a barrier, and it blocks like any barrier.
    r = sq("red", 21)
    state = sgame(turn="green", red=[r, r, 0, 0], green=[sq("green", 19), 30, 0, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {1: 34}
    assert refused(state, "m0").reason == "blocked"


def test_super_4_cannot_come_out_onto_own_piece_on_start_square() -> None:
    # Rule 4: no barrier on a start square, so no piece comes out while an own
    # piece stands there (the 5 moves the other piece, rule 3).
    state = sgame(red=[1, 0, 0, 0])
    state, _ = run(state, "r5")
    assert targets(state) == {0: 6}
    assert refused(state, "m1").reason == "own_on_start"


def test_super_4_no_barrier_on_another_colours_start_square() -> None:
    # Rule 4: barriers cannot form on start squares: red may not join its own
    # piece standing on green's start square (13).
    state = sgame(red=[sq("red", 13), 10, 0, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {0: 18}
    assert refused(state, "m1").reason == "no_barrier_on_start"


def test_super_4_shelter_holds_two_colours() -> None:
    # Rule 4: a shelter (star 21) holds two pieces of different colours.
    g = sq("green", 21)
    state = sgame(red=[18, 0, 0, 0], green=[g, 0, 0, 0])
    state, _ = run(state, "r4", "m0")
    assert state.pieces["red"] == (sq("red", 21), 0, 0, 0)
    assert state.pieces["green"] == (g, 0, 0, 0)


def test_super_4_full_shelter_cannot_be_landed_on() -> None:
    # Rule 4: at most 2 pieces per square: a shelter holding green and yellow is
    # full.
    state = sgame(
        red=[18, 30, 0, 0], green=[sq("green", 21), 0, 0, 0], yellow=[sq("yellow", 21), 0, 0, 0]
    )
    state, _ = run(state, "r4")
    assert targets(state) == {1: 34}
    assert refused(state, "m0").reason == "full"


def test_super_4_barrier_may_form_on_a_shelter() -> None:
    # Rule 4: a shelter may hold a barrier (only start squares refuse one).
    state = sgame(red=[18, sq("red", 21), 0, 0])
    state, ev = run(state, "r4", "m0")
    assert state.pieces["red"] == (22, 22, 0, 0)
    assert reasons(ev, "stack") == ["barrier"]


def test_super_4_shelter_with_two_colours_can_be_passed() -> None:
    # Rule 4: only a barrier (two of one colour) blocks passing; a shelter
    # holding two colours does not.
    state = sgame(
        red=[18, 0, 0, 0], green=[sq("green", 21), 0, 0, 0], yellow=[sq("yellow", 21), 0, 0, 0]
    )
    state, _ = run(state, "r6")
    assert targets(state) == {0: 24}


def test_super_4_start_square_takes_a_second_colour_with_its_own() -> None:
    # Rule 4: green's start square (13) holding a green piece may take a red one.
    state = sgame(red=[10, 0, 0, 0], green=[1, 0, 0, 0])
    state, _ = run(state, "r4", "m0")
    assert state.pieces["red"] == (14, 0, 0, 0)
    assert state.pieces["green"] == (1, 0, 0, 0)


def test_super_4_start_square_refuses_two_foreign_colours() -> None:
    # Rule 4: green's start square holding a yellow piece may not take a red one
    # (neither is green).
    state = sgame(red=[10, 30, 0, 0], yellow=[sq("yellow", 13), 0, 0, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {1: 34}
    assert refused(state, "m0").reason == "foreign_start"


def test_super_4_start_square_holding_two_pieces_is_full() -> None:
    # Rule 4: at most 2 pieces: green's start square with green and yellow on it
    # takes no third.
    state = sgame(red=[10, 30, 0, 0], green=[1, 0, 0, 0], yellow=[sq("yellow", 13), 0, 0, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {1: 34}
    assert refused(state, "m0").reason == "full"


def test_super_4_pieces_form_a_barrier_in_the_home_column() -> None:
    # Rule 4: the home column follows the same capacity: two own pieces there
    # form a barrier.
    state = sgame(red=[53, 50, 0, 0])
    state, ev = run(state, "r3", "m1")
    assert state.pieces["red"] == (53, 53, 0, 0)
    assert reasons(ev, "stack") == ["barrier"]


def test_super_4_home_column_barrier_blocks_owner_passing() -> None:
    # Rule 4: a barrier in the home column may not be passed by the owner's
    # other pieces (its own pieces go home with the exact 4).
    state = sgame(red=[53, 53, 50, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {0: HOME, 1: HOME}
    assert refused(state, "m2").reason == "blocked"


def test_super_4_home_column_barrier_blocks_owner_landing() -> None:
    # Rule 4: nor landed on by a third own piece.
    state = sgame(red=[53, 53, 50, 0])
    state, _ = run(state, "r3")
    assert targets(state) == {0: 56, 1: 56}
    assert refused(state, "m2").reason == "blocked"


def test_super_4_home_holds_any_number_of_pieces() -> None:
    # Rule 4: base and home hold any number: a third piece joins two at home.
    state = sgame(red=[HOME, HOME, 54, 10])
    state, _ = run(state, "r3", "m2")
    assert state.pieces["red"] == (HOME, HOME, HOME, 10)


# --------------------------------------------------------------------------
# rule 5: capture and the bonus move of 6


def test_super_5_capture_on_common_square_and_bonus_of_six() -> None:
    # Rule 5: ending on a common square (11) holding a lone opponent captures it;
    # the player then owes a bonus move of 6.
    state = sgame(red=[10, 30, 0, 0], green=[sq("green", 11), 0, 0, 0])
    state, ev = run(state, "r2", "m0")
    assert state.pieces["red"] == (12, 30, 0, 0)
    assert state.pieces["green"] == (0, 0, 0, 0)
    assert [e.target for e in ev if e.kind == "capture"] == [("green", 0)]
    assert [(e.die, e.reason) for e in ev if e.kind == "bonus"] == [(6, "capture")]
    assert state.phase == "bonus"
    assert state.turn == "red"
    assert {m.steps for m in engine.legal_moves(state)} == {6}


def test_super_5_bonus_move_with_any_piece() -> None:
    # Rule 5: the bonus move is made with any one piece, not only the capturer;
    # it is a move without a roll, and (the roll was no 6) the turn then passes.
    state = sgame(red=[10, 30, 0, 0], green=[sq("green", 11), 0, 0, 0])
    state, _ = run(state, "r2", "m0")
    assert targets(state) == {0: 18, 1: 36}
    state, _ = run(state, "m1")
    assert state.pieces["red"] == (12, 36, 0, 0)
    assert state.turn == "green"
    assert state.phase == "roll"


def test_super_5_bonus_move_cannot_bring_a_piece_out() -> None:
    # Rules 5 and 3: a piece leaves the base only on a rolled 5, so the bonus
    # moves a piece already out.
    state = sgame(red=[10, 30, 0, 0], green=[sq("green", 11), 0, 0, 0])
    state, _ = run(state, "r2", "m0")
    assert refused(state, "m2").reason == "in_base"
    with pytest.raises(IllegalAction):
        run(state, "r3")  # and no roll while the bonus is due


def test_super_5_coming_out_captures_opponent_on_own_start_square() -> None:
    # Rule 5: a piece coming out onto its start square captures the opponent
    # standing there, and earns the bonus.
    state = sgame(red=[10, 0, 0, 0], green=[sq("green", 0), 0, 0, 0])
    state, _ = run(state, "r5")
    (move,) = engine.legal_moves(state)
    assert move.enter and move.captures == ("green", 0)
    state, ev = run(state, "m1")
    assert state.pieces["red"] == (10, 1, 0, 0)
    assert state.pieces["green"] == (0, 0, 0, 0)
    assert reasons(ev, "bonus") == ["capture"]
    assert state.phase == "bonus"


def test_super_5_no_capture_on_a_shelter() -> None:
    # Rule 5: a shelter (star 21) is not captured from; no bonus either.
    g = sq("green", 21)
    state = sgame(red=[18, 0, 0, 0], green=[g, 0, 0, 0])
    state, ev = run(state, "r4", "m0")
    assert state.pieces["green"] == (g, 0, 0, 0)
    assert "capture" not in kinds(ev)
    assert "bonus" not in kinds(ev)
    assert state.turn == "green"


def test_super_5_no_capture_on_a_start_square() -> None:
    # Rule 5: nor is a start square (green's own, 13).
    state = sgame(red=[10, 0, 0, 0], green=[1, 0, 0, 0])
    state, ev = run(state, "r4", "m0")
    assert state.pieces["green"] == (1, 0, 0, 0)
    assert "capture" not in kinds(ev)
    assert "bonus" not in kinds(ev)
    assert state.turn == "green"


def test_super_5_bonus_lost_when_no_piece_can_move_six() -> None:
    # Rule 5: the bonus is lost if no piece can move 6: the capturer (square 11)
    # faces yellow's barrier on square 14, the other piece (54) would overshoot
    # home, the rest are in the base.
    y = sq("yellow", 14)
    state = sgame(red=[10, 54, 0, 0], green=[sq("green", 11), 0, 0, 0], yellow=[y, y, 0, 0])
    state, ev = run(state, "r2", "m0")
    assert kinds(ev)[-3:] == ["bonus", "bonus_lost", "turn"]
    assert state.turn == "green"
    assert state.phase == "roll"


def test_super_5_lost_bonus_keeps_the_extra_roll_of_a_six() -> None:
    # Rules 5 and 6: only the bonus is lost; the 6 that captured still gives
    # its extra roll (capturer blocked by yellow's barrier on 14, piece on 54
    # would overshoot).
    y = sq("yellow", 14)
    state = sgame(red=[6, 54, 0, 0], green=[sq("green", 11), 0, 0, 0], yellow=[y, y, 0, 0])
    state, ev = run(state, "r6", "m0")
    assert "bonus_lost" in kinds(ev)
    assert state.turn == "red"
    assert state.phase == "roll"


def test_super_5_bonus_move_that_captures_earns_another_bonus() -> None:
    # Rule 5: the capturer's bonus 12 -> 18 lands on a lone yellow on square 17:
    # a second capture, a second bonus.
    state = sgame(
        red=[10, 30, 0, 0], green=[sq("green", 11), 0, 0, 0], yellow=[sq("yellow", 17), 0, 0, 0]
    )
    state, _ = run(state, "r2", "m0")
    state, ev = run(state, "m0")
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert reasons(ev, "bonus") == ["capture"]
    assert state.phase == "bonus"
    state, _ = run(state, "m1")
    assert state.pieces["red"] == (18, 36, 0, 0)
    assert state.turn == "green"


def test_super_5_bonus_move_that_reaches_home_earns_another_bonus() -> None:
    # Rules 5 and 8: the bonus takes the piece on 51 home exactly: another bonus.
    state = sgame(red=[10, 51, 0, 0], green=[sq("green", 11), 0, 0, 0])
    state, _ = run(state, "r2", "m0")
    state, ev = run(state, "m1")
    assert state.pieces["red"] == (12, HOME, 0, 0)
    assert reasons(ev, "bonus") == ["home"]
    assert state.phase == "bonus"
    state, _ = run(state, "m0")
    assert state.pieces["red"] == (18, HOME, 0, 0)
    assert state.turn == "green"


def test_super_5_bonus_moves_come_before_the_extra_roll_of_a_six() -> None:
    # Rules 5 and 6: a 6 that captures owes a bonus move and an extra roll; the
    # bonus is played first, then the player rolls again.
    state = sgame(red=[6, 30, 0, 0], green=[sq("green", 11), 0, 0, 0])
    state, ev = run(state, "r6", "m0")
    assert "capture" in kinds(ev)
    assert state.phase == "bonus"
    with pytest.raises(IllegalAction):
        run(state, "r1")
    state, _ = run(state, "m1")
    assert state.pieces["red"] == (12, 36, 0, 0)
    assert state.phase == "roll"
    assert state.turn == "red"


# --------------------------------------------------------------------------
# rule 6: sixes


def test_super_6_six_gives_another_roll() -> None:
    # Rule 6: after moving with a 6 the player rolls again.
    state = sgame(red=[10, 0, 0, 0])
    state, ev = run(state, "r6", "m0")
    assert reasons(ev, "extra_turn") == ["six"]
    assert state.turn == "red"
    assert state.phase == "roll"


def test_super_6_third_six_sends_last_piece_back() -> None:
    # Rule 6: on a third consecutive 6 the piece moved last (piece 1, on 26)
    # goes back to the base and the turn passes with no move.
    state = sgame(red=[10, 20, 0, 0])
    state, ev = run(state, "r6", "m0", "r6", "m1", "r6")
    assert state.pieces["red"] == (16, 0, 0, 0)
    pen = [e for e in ev if e.kind == "penalty"]
    assert [(p.piece, p.frm, p.to) for p in pen] == [(1, 26, 0)]
    assert state.turn == "green"
    assert state.phase == "roll"
    assert engine.legal_moves(state) == []


def test_super_6_third_six_spares_last_piece_in_home_column() -> None:
    # Rule 6: unless that piece is in the home column (54): it stays; the turn
    # still passes with no move.
    state = sgame(red=[10, 48, 0, 0])
    state, ev = run(state, "r6", "m0", "r6", "m1", "r6")
    assert state.pieces["red"] == (16, 54, 0, 0)
    assert "penalty" not in kinds(ev)
    assert state.turn == "green"


def test_super_6_third_six_spares_last_piece_that_reached_home() -> None:
    # Rule 6: nor if it is home: piece 0 went home with the second 6 (its home
    # bonus was lost: 54 + 6 overshoots, rule 8); the third 6 leaves it there.
    state = sgame(red=[51, 48, 0, 0])
    state, ev = run(state, "r6", "m1", "r6", "m0")
    assert "bonus_lost" in kinds(ev)
    state, ev = run(state, "r6")
    assert state.pieces["red"] == (HOME, 54, 0, 0)
    assert "penalty" not in kinds(ev)
    assert state.turn == "green"


def test_super_6_third_six_sends_back_piece_moved_by_bonus() -> None:
    # Rule 6: "the piece moved last (by a roll or a bonus move)": the second 6
    # captures and the bonus moves piece 2, so the third 6 sends piece 2 back.
    state = sgame(red=[20, 5, 30, 0], green=[sq("green", 10), 0, 0, 0])
    state, _ = run(state, "r6", "m0", "r6", "m1", "m2", "r6")
    assert state.pieces["red"] == (26, 11, 0, 0)
    assert state.turn == "green"


def test_super_6_count_starts_again_each_turn() -> None:
    # Rule 6: the 6s must be consecutive in one player's run; red's turn ends on
    # a third 6, and red's next turn starts counting from zero, so its first 6
    # is moved normally (and gives its extra roll).
    state = sgame(red=[10, 20, 0, 0])
    state, _ = run(state, "r6", "m0", "r6", "m0", "r6")  # piece 0 sent back
    assert state.pieces["red"] == (0, 20, 0, 0)
    state, _ = run(state, "r1", "r1", "r1")  # green, yellow, blue have nothing out
    assert state.turn == "red"
    state, ev = run(state, "r6", "m1")
    assert state.pieces["red"] == (0, 26, 0, 0)
    assert "penalty" not in kinds(ev)
    assert state.turn == "red"
    assert state.phase == "roll"


# --------------------------------------------------------------------------
# rule 7: opening barriers


def test_super_7_rolled_six_must_open_a_barrier() -> None:
    # Rule 7: a player owning a barrier who rolls a 6 must move a piece of it.
    state = sgame(red=[10, 10, 30, 0])
    state, _ = run(state, "r6")
    assert targets(state) == {0: 16, 1: 16}
    assert refused(state, "m2").reason == "must_open_barrier"
    state, _ = run(state, "m1")
    assert state.pieces["red"] == (10, 16, 30, 0)
    assert state.phase == "roll"  # and the 6 still gives its extra roll


def test_super_7_only_a_rolled_six_forces_opening() -> None:
    # Rule 7: any other number leaves the choice free.
    state = sgame(red=[10, 10, 30, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {0: 14, 1: 14, 2: 34}
    state, _ = run(state, "m2")
    assert state.pieces["red"] == (10, 10, 34, 0)


def test_super_7_exception_opponent_barrier_in_the_way() -> None:
    # Rule 7 exception 1: green's barrier on square 11 is in the barrier
    # pieces' way (10 -> 16 walks squares 10..15), so another piece moves.
    g = sq("green", 11)
    state = sgame(red=[10, 10, 30, 0], green=[g, g, 0, 0])
    state, _ = run(state, "r6")
    assert targets(state) == {2: 36}
    state, _ = run(state, "m2")
    assert state.pieces["red"] == (10, 10, 36, 0)


def test_super_7_exception_end_square_holds_own_barrier() -> None:
    # Rule 7 exception 2: the pieces on 45 would end on red's barrier on 51, so
    # they cannot open; the barrier on 51 can (51 + 6 = home) and must.
    state = sgame(red=[45, 45, 51, 51])
    state, _ = run(state, "r6")
    assert targets(state) == {2: HOME, 3: HOME}
    assert refused(state, "m0").reason == "blocked"


def test_super_7_exception_end_square_full_shelter() -> None:
    # Rule 7 exception 3: 16 + 6 ends on star 21, already holding green and
    # yellow, so another piece moves.
    state = sgame(
        red=[16, 16, 30, 0], green=[sq("green", 21), 0, 0, 0], yellow=[sq("yellow", 21), 0, 0, 0]
    )
    state, _ = run(state, "r6")
    assert targets(state) == {2: 36}


def test_super_7_exception_end_square_full_start_square() -> None:
    # Rule 7 exception 4: 8 + 6 ends on green's start square 13, already
    # holding green and yellow, so another piece moves.
    state = sgame(red=[8, 8, 30, 0], green=[1, 0, 0, 0], yellow=[sq("yellow", 13), 0, 0, 0])
    state, _ = run(state, "r6")
    assert targets(state) == {2: 36}


def test_super_7_bonus_move_need_not_open_a_barrier() -> None:
    # Rule 7: "rolls a 6 (not a bonus move)": a bonus of 6 may move any piece.
    state = sgame(red=[10, 30, 30, 0], green=[sq("green", 11), 0, 0, 0])
    state, _ = run(state, "r2", "m0")
    assert targets(state) == {0: 18, 1: 36, 2: 36}
    state, _ = run(state, "m0")
    assert state.pieces["red"] == (18, 30, 30, 0)
    assert state.turn == "green"


# --------------------------------------------------------------------------
# rule 8: home


def test_super_8_exact_number_takes_piece_home_with_bonus() -> None:
    # Rule 8: the exact number (54 + 3) takes the piece home and earns a bonus
    # move of 6.
    state = sgame(red=[54, 10, 0, 0])
    state, ev = run(state, "r3", "m0")
    assert state.pieces["red"] == (HOME, 10, 0, 0)
    assert "home" in kinds(ev)
    assert [(e.die, e.reason) for e in ev if e.kind == "bonus"] == [(6, "home")]
    assert state.phase == "bonus"


def test_super_8_home_bonus_moves_another_piece() -> None:
    # Rule 8: the bonus is for another piece (the one home no longer moves).
    state = sgame(red=[54, 10, 0, 0])
    state, _ = run(state, "r3", "m0")
    assert targets(state) == {1: 16}
    state, _ = run(state, "m1")
    assert state.pieces["red"] == (HOME, 16, 0, 0)
    assert state.turn == "green"


def test_super_8_larger_number_cannot_move_the_piece() -> None:
    # Rule 8: exact number only: 54 + 4 overshoots, that piece cannot move.
    state = sgame(red=[54, 10, 0, 0])
    state, _ = run(state, "r4")
    assert targets(state) == {1: 14}
    assert refused(state, "m0").reason == "overshoot"


def test_super_8_larger_number_and_nothing_else_passes() -> None:
    # Rule 8 + section 2: with no other move the player passes; no bounce.
    state = sgame(red=[54, 0, 0, 0])
    state, ev = run(state, "r4")
    assert reasons(ev, "pass") == ["no_move"]
    assert state.pieces["red"] == (54, 0, 0, 0)


def test_super_8_bonus_move_must_also_be_exact() -> None:
    # Rule 8: "by the die or by a bonus move": a bonus of 6 from 53 would
    # overshoot, so only the capturer may make it.
    state = sgame(red=[10, 53, 0, 0], green=[sq("green", 11), 0, 0, 0])
    state, _ = run(state, "r2", "m0")
    assert targets(state) == {0: 18}
    assert refused(state, "m1").reason == "overshoot"


def test_super_8_home_with_a_six_bonus_before_extra_roll() -> None:
    # Rules 8, 5 and 6: home with a rolled 6 owes a bonus and an extra roll;
    # the bonus comes first.
    state = sgame(red=[51, 10, 0, 0])
    state, _ = run(state, "r6", "m0")
    assert state.phase == "bonus"
    state, _ = run(state, "m1")
    assert state.pieces["red"] == (HOME, 16, 0, 0)
    assert state.phase == "roll"
    assert state.turn == "red"


# --------------------------------------------------------------------------
# rule 9: end of the game and ranking


def test_super_9_game_ends_at_once_when_all_four_pieces_are_home() -> None:
    # Rule 9: the fourth piece home wins and the game ends at once: the home
    # bonus of rule 8 is not played.
    state = sgame(red=[HOME, HOME, HOME, 54], green=[30, 0, 0, 0])
    state, ev = run(state, "r3", "m3")
    assert state.phase == "over"
    assert state.winner == ["red"]
    assert kinds(ev) == ["roll", "move", "home", "game_over"]
    assert engine.legal_moves(state) == []
    assert refused(state, "r1").reason == "game_over"


def test_super_9_game_ends_at_once_even_on_a_six() -> None:
    # Rule 9: no extra roll for the 6 either.
    state = sgame(red=[HOME, HOME, HOME, 51], green=[30, 0, 0, 0])
    state, ev = run(state, "r6", "m3")
    assert state.phase == "over"
    assert state.winner == ["red"]
    assert "extra_turn" not in kinds(ev)


def test_super_9_winning_bonus_move_ends_game_at_once() -> None:
    # Rule 9: the last piece captures on 51 (bonus), the bonus takes it home:
    # the game is over, the bonus for reaching home is not played.
    state = sgame(red=[HOME, HOME, HOME, 47], green=[sq("green", 50), 0, 0, 0])
    state, _ = run(state, "r4", "m3")
    assert state.phase == "bonus"
    state, ev = run(state, "m3")
    assert state.phase == "over"
    assert state.winner == ["red"]
    assert "bonus" not in kinds(ev)


def test_super_9_others_ranked_by_distance_to_home() -> None:
    # Rule 9: sums of 57 - p, smallest first: blue 7 + 7 + 6 + 8 = 28, yellow
    # 0*3 + 56 = 56, green 0 + 57*3 = 171.  (By classic points the order would
    # be yellow, green, blue.)
    state = sgame(
        red=[HOME, HOME, HOME, 54],
        green=[HOME, 0, 0, 0],
        yellow=[HOME, HOME, HOME, 1],
        blue=[50, 50, 51, 49],
    )
    state, _ = run(state, "r3", "m3")
    assert state.ranking == ["red", "blue", "yellow", "green"]
    assert [state.distance(c) for c in ("blue", "yellow", "green")] == [28, 56, 171]
    assert state.scores is None


def test_super_9_ranking_ties_keep_seating_order() -> None:
    # Rule 9 + section 7: green and blue both end with 27 + 3*57 = 198 left,
    # yellow 228: the tie keeps seating order from red (green before blue).
    state = sgame(
        turn="yellow",
        red=[HOME, HOME, HOME, 54],
        green=[30, 0, 0, 0],
        yellow=[0, 0, 0, 0],
        blue=[29, 0, 0, 0],
    )
    state, _ = run(state, "r1")  # yellow passes
    state, _ = run(state, "r1", "m0")  # blue 29 -> 30
    state, _ = run(state, "r3", "m3")  # red's last piece home
    assert state.pieces["blue"] == (30, 0, 0, 0)
    assert state.ranking == ["red", "green", "blue", "yellow"]


# --------------------------------------------------------------------------
# section 7: the game record


def capture_record(*actions: dict[str, int]) -> dict[str, Any]:
    """A record of red's turn with a piece 2 short of green's lone piece: ``actions``."""
    return {
        "rules": "super",
        "players": list(COLOURS),
        "position": {
            "red": [10, 30, 0, 0],
            "green": [sq("green", 11), 0, 0, 0],
            "yellow": BASE,
            "blue": BASE,
        },
        "turn": "red",
        "actions": list(actions),
    }


def test_super_record_bonus_move_is_a_move_without_roll() -> None:
    # Section 7: a bonus move is {"move": i} with no roll before it.
    record = capture_record({"roll": 2}, {"move": 0}, {"move": 1})
    final = engine.replay(record)
    assert final.pieces["red"] == (12, 36, 0, 0)
    assert final.pieces["green"] == (0, 0, 0, 0)
    assert final.turn == "green"
    assert final.phase == "roll"


def test_super_record_roll_while_bonus_due_is_illegal() -> None:
    # Section 7: rolling while a bonus move is due is not legal; the replay
    # stops naming the action's index.
    record = capture_record({"roll": 2}, {"move": 0}, {"roll": 4})
    with pytest.raises(IllegalAction) as info:
        engine.replay(record)
    assert str(info.value).startswith("action 2:")
