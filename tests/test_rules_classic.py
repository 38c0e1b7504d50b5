"""Rule set ``classic`` (RULES.md sections 1, 2, 3 and 7; seeds 000 and 002).

Every test names the numbered rule it checks; the comment in it says why the
expected result holds.  Positions are built with progress values (RULES.md 1):
``on(colour, square)`` is the progress of a ``colour`` piece standing on the
absolute track square ``square``.  Safe squares: starts 0, 13, 26, 39; stars
8, 21, 34, 47.
"""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import IllegalAction, RecordError
from tests.util import game, kinds, on, reasons, run, targets

START_SQUARES = (0, 13, 26, 39)
STAR_SQUARES = (8, 21, 34, 47)


def test_on_helper_matches_rules_md_coordinates() -> None:
    # RULES.md 1: p = 1 is the own start square 13*c; p is at (13*c + p - 1) mod 52.
    assert on("red", 0) == 1
    assert on("yellow", 26) == 1
    assert on("yellow", 12) == 39
    assert on("blue", 37) == 51


# --------------------------------------------------------------------------
# rule 1 (and RULES.md section 1): players, colours, who starts


@pytest.mark.parametrize(
    ("n", "colours"),
    [
        (2, ("red", "yellow")),
        (3, ("red", "green", "yellow")),
        (4, ("red", "green", "yellow", "blue")),
    ],
)
def test_classic_1_two_to_four_players_play(n: int, colours: tuple[str, ...]) -> None:
    # Classic 1: 2 to 4 players; RULES.md 1 fixes the colours for each count.
    # Each player, all in base, rolls a 1 and passes (classic 2, 11): play goes
    # round the colours in the game, clockwise, and back to red.
    state = engine.new_game("classic", n)
    assert state.players == colours
    assert state.pieces == {c: (0, 0, 0, 0) for c in colours}
    seen = []
    for _ in range(n + 1):
        seen.append(state.turn)
        state, _ev = run(state, "r1")
    assert seen == [*colours, "red"]


@pytest.mark.parametrize("players", [1, 5, ["red"], ["red", "green", "yellow", "blue", "red"]])
def test_classic_1_one_or_five_players_refused(players: object) -> None:
    # Classic 1: a game has 2 to 4 players; 1 or 5 is not a game.
    with pytest.raises(RecordError):
        engine.new_game("classic", players)  # type: ignore[arg-type]


def test_classic_1_two_players_are_red_and_yellow() -> None:
    # RULES.md 1: with 2 players the colours are red and yellow (opposite corners).
    assert engine.new_game("classic", 2).players == ("red", "yellow")
    assert engine.new_game("classic", ["yellow", "red"]).players == ("red", "yellow")
    with pytest.raises(RecordError):
        engine.new_game("classic", ["red", "green"])


def test_classic_1_three_players_are_red_green_yellow() -> None:
    # RULES.md 1: with 3 players the colours are red, green, yellow.
    assert engine.new_game("classic", 3).players == ("red", "green", "yellow")
    with pytest.raises(RecordError):
        engine.new_game("classic", ["red", "green", "blue"])


def test_classic_1_turn_is_respected() -> None:
    # Classic 1: the first player is drawn by the service; the engine takes it
    # as `turn`.  Yellow starts, then play passes clockwise: blue, then red.
    state = engine.new_game("classic", 4, turn="yellow")
    assert state.turn == "yellow"
    state, events = run(state, "r2")
    assert [e.colour for e in events if e.kind == "roll"] == ["yellow"]
    assert state.turn == "blue"
    state, _ = run(state, "r2")
    assert state.turn == "red"


def test_classic_1_turn_must_be_a_colour_in_the_game() -> None:
    # RULES.md 1/7: `turn` names one of the players; green does not play with 2.
    with pytest.raises(RecordError):
        engine.new_game("classic", 2, turn="green")


# --------------------------------------------------------------------------
# RULES.md section 1 (board) and section 2 (turn structure)


def test_board_1_track_runs_into_home_column_automatically() -> None:
    # RULES.md 1: passing from p = 51 into the home column is automatic.
    state = game("classic", {"red": [50, 0, 0, 0]})
    state, _ = run(state, "r3", "m0")
    assert state.pieces["red"] == (53, 0, 0, 0)


def test_board_1_piece_never_goes_round_again() -> None:
    # RULES.md 1: no piece passes its own column entry.  Red at p = 50 rolling
    # 2 enters its column (p = 52); it never reaches absolute square 51, so the
    # lone yellow piece there is untouched.
    state = game("classic", {"red": [50, 0, 0, 0], "yellow": [on("yellow", 51), 0, 0, 0]})
    state, events = run(state, "r2", "m0")
    assert state.pieces["red"] == (52, 0, 0, 0)
    assert state.pieces["yellow"] == (on("yellow", 51), 0, 0, 0)
    assert "capture" not in kinds(events)


def test_turn_2_player_with_a_legal_move_must_move() -> None:
    # RULES.md 2: a player with a legal move must make one: rolling again
    # instead is refused; moving before rolling is refused too.
    state = game("classic", {"red": [10, 0, 0, 0]})
    with pytest.raises(IllegalAction) as err:
        run(state, "m0")
    assert err.value.reason == "roll_due"
    state, _ = run(state, "r3")
    with pytest.raises(IllegalAction) as err:
        run(state, "r3")
    assert err.value.reason == "move_due"


def test_turn_2_illegal_action_changes_nothing() -> None:
    # RULES.md 2 / section 7: the die is an input; a refused action leaves the
    # state as it was, so a game can be replayed.
    state = game("classic", {"red": [54, 10, 0, 0]})
    state, _ = run(state, "r4")
    before = state.to_dict()
    with pytest.raises(IllegalAction):
        run(state, "m0")
    assert state.to_dict() == before


# --------------------------------------------------------------------------
# rule 2: leaving the base


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5])
def test_classic_2_piece_leaves_base_only_on_six(die: int) -> None:
    # Classic 2: only a 6 brings a piece out; all pieces in base and another
    # roll means no legal move, so red passes (classic 11).
    state = engine.new_game("classic", 2)
    state, events = run(state, f"r{die}")
    assert reasons(events, "pass") == ["no_move"]
    assert state.pieces["red"] == (0, 0, 0, 0)
    assert state.turn == "yellow"


def test_classic_2_base_piece_cannot_use_another_roll() -> None:
    # Classic 2: with a 5 only the piece on the track may move; the base
    # piece is refused.
    state = game("classic", {"red": [10, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert targets(state) == {0: 15}
    with pytest.raises(IllegalAction) as err:
        run(state, "m1")
    assert err.value.reason == "in_base"


def test_classic_2_six_places_piece_on_start_square() -> None:
    # Classic 2: on a 6 the piece is placed on its own start square (p = 1);
    # that is the whole move (it does not walk on 6 squares).
    state = engine.new_game("classic", 2)
    state, _ = run(state, "r6")
    [move] = engine.legal_moves(state)
    assert (move.frm, move.to, move.enter) == (0, 1, True)
    state, events = run(state, "m0")
    assert state.pieces["red"] == (1, 0, 0, 0)
    assert [(e.frm, e.to) for e in events if e.kind == "move"] == [(0, 1)]


def test_classic_2_any_base_piece_may_come_out() -> None:
    # Classic 2 / RULES.md 7: "move i" on a piece in the base brings it out.
    state = engine.new_game("classic", 2)
    state, _ = run(state, "r6", "m2")
    assert state.pieces["red"] == (0, 0, 1, 0)


# --------------------------------------------------------------------------
# rule 3: a 6 gives an extra turn


def test_classic_3_six_gives_extra_turn() -> None:
    # Classic 3: after moving with a 6 red rolls again.
    state = game("classic", {"red": [10, 0, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert reasons(events, "extra_turn") == ["six"]
    assert (state.turn, state.phase) == ("red", "roll")
    assert "turn" not in kinds(events)


def test_classic_3_six_that_brings_a_piece_out_gives_extra_turn() -> None:
    # Classic 3 (seed 000: placing a piece on the entry square lets the player
    # play one more turn): 6 brings the piece out, the next roll moves it, and
    # only then (a 3, no extra) the turn passes.
    state = engine.new_game("classic", 2)
    state, _ = run(state, "r6", "m0")
    assert (state.turn, state.phase) == ("red", "roll")
    state, _ = run(state, "r3", "m0")
    assert state.pieces["red"] == (4, 0, 0, 0)
    assert state.turn == "yellow"


def test_classic_3_six_does_not_force_piece_out() -> None:
    # Classic 3: a 6 may move a piece on the track instead of bringing one out.
    state = game("classic", {"red": [10, 0, 0, 0]})
    state, _ = run(state, "r6")
    assert targets(state) == {0: 16, 1: 1}
    state, _ = run(state, "m0")
    assert state.pieces["red"] == (16, 0, 0, 0)


def test_classic_3_other_roll_ends_turn() -> None:
    # Classic 3 / RULES.md 2: only the 6 gives an extra turn; after a plain 5
    # the turn passes to the next player.
    state = game("classic", {"red": [10, 0, 0, 0]})
    state, events = run(state, "r5", "m0")
    assert "extra_turn" not in kinds(events)
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 4: the third consecutive 6


def test_classic_4_third_six_ends_turn() -> None:
    # Classic 4: the third 6 in a row ends the turn at once: no move with it.
    state = game("classic", {"red": [10, 20, 0, 0]})
    state, _ = run(state, "r6", "m0", "r6", "m0")
    state, events = run(state, "r6")
    assert reasons(events, "pass") == ["three_sixes"]
    assert engine.legal_moves(state) == []
    assert state.pieces["red"] == (22, 20, 0, 0)
    assert (state.turn, state.phase) == ("yellow", "roll")


def test_classic_4_third_six_loses_pending_extra_turns() -> None:
    # Classic 4: 6 + capture owes two extra rolls (classic 10); the second 6
    # adds one more, so one is still pending when the third 6 comes: it is lost.
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 15), 5, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert sorted(reasons(events, "extra_turn")) == ["capture", "six"]
    state, _ = run(state, "r6", "m0")
    assert state.turn == "red"
    state, events = run(state, "r6")
    assert reasons(events, "pass") == ["three_sixes"]
    assert state.turn == "yellow"
    # the lost turn is played by nobody: yellow's plain move passes to red,
    # red's plain move passes back to yellow
    state, _ = run(state, "r1", "m1")
    assert state.turn == "red"
    state, _ = run(state, "r1", "m0")
    assert state.turn == "yellow"


def test_classic_4_non_six_resets_the_count() -> None:
    # Classic 4: 6, 6, then a 3 that captures (extra turn, classic 6): the 3
    # resets the count, so the next 6 is a first six and is played normally.
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 24), 0, 0, 0]})
    state, _ = run(state, "r6", "m0", "r6", "m0", "r3", "m0")
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    state, events = run(state, "r6")
    assert "pass" not in kinds(events)
    assert state.phase == "move"
    state, events = run(state, "m0")
    assert state.pieces["red"] == (31, 0, 0, 0)
    assert reasons(events, "extra_turn") == ["six"]
    assert state.turn == "red"


def test_classic_4_new_players_turn_starts_count_at_zero() -> None:
    # Classic 4: red rolls 6 (moves), then 6 with no legal move (overshoot)
    # and passes after two sixes.  Yellow's first 6 then counts as one six,
    # not a third: yellow brings a piece out and rolls again.
    state = game("classic", {"red": [46, 57, 57, 57]})
    state, _ = run(state, "r6", "m0")
    state, events = run(state, "r6")
    assert reasons(events, "pass") == ["no_move"]
    assert state.turn == "yellow"
    state, events = run(state, "r6")
    assert "pass" not in kinds(events)
    state, events = run(state, "m0")
    assert state.pieces["yellow"] == (1, 0, 0, 0)
    assert (state.turn, state.phase) == ("yellow", "roll")


# --------------------------------------------------------------------------
# rule 5: moving exactly d squares, no blocks


def test_classic_5_piece_moves_exactly_die_squares() -> None:
    # Classic 5: a piece moves exactly d squares: 10 + 4 = 14.
    state = game("classic", {"red": [10, 0, 0, 0]})
    state, _ = run(state, "r4")
    assert targets(state) == {0: 14}
    state, _ = run(state, "m0")
    assert state.pieces["red"] == (14, 0, 0, 0)


def test_classic_5_passes_freely_over_pieces() -> None:
    # Classic 5: no blocks.  Red passes two yellow pieces on one square and a
    # lone yellow piece, and neither is touched (only the end square counts).
    yellow = [on("yellow", 11), on("yellow", 11), on("yellow", 12), 0]
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": yellow})
    state, events = run(state, "r4", "m0")
    assert state.pieces["red"] == (14, 0, 0, 0)
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


def test_classic_5_any_number_of_pieces_share_a_square() -> None:
    # Classic 5: any number of pieces may share a square: red lands where two
    # red and two yellow pieces stand; five pieces now share square 15.
    yellow = [on("yellow", 15), on("yellow", 15), 0, 0]
    state = game("classic", {"red": [12, 16, 16, 0], "yellow": yellow})
    state, events = run(state, "r4", "m0")
    assert state.pieces["red"] == (16, 16, 16, 0)
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


# --------------------------------------------------------------------------
# rule 6: capture


def test_classic_6_lone_opponent_is_captured() -> None:
    # Classic 6: red ends on square 12 (not safe) holding exactly one yellow
    # piece: that piece goes back to its base.
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": [0, on("yellow", 12), 0, 0]})
    state, _ = run(state, "r3")
    [move] = engine.legal_moves(state)
    assert move.captures == ("yellow", 1)
    state, events = run(state, "m0")
    assert state.pieces["red"] == (13, 0, 0, 0)
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert [e.target for e in events if e.kind == "capture"] == [("yellow", 1)]


def test_classic_6_capture_gives_extra_turn() -> None:
    # Classic 6: the capturing player gets one extra turn (a 3, so no six).
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 12), 0, 0, 0]})
    state, events = run(state, "r3", "m0")
    assert reasons(events, "extra_turn") == ["capture"]
    assert (state.turn, state.phase) == ("red", "roll")
    # one extra turn only: the next plain roll ends the turn
    state, _ = run(state, "r1", "m0")
    assert state.turn == "yellow"


def test_classic_6_two_pieces_of_one_opponent_never_captured() -> None:
    # Classic 6: a square holding two or more pieces is never captured from.
    yellow = [on("yellow", 12), on("yellow", 12), 0, 0]
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": yellow})
    state, events = run(state, "r3", "m0")
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)
    assert state.turn == "yellow"  # no capture, no extra turn


def test_classic_6_two_pieces_of_different_opponents_never_captured() -> None:
    # Classic 6: a green and a yellow piece on square 20: two pieces, no capture.
    green = [on("green", 20), 0, 0, 0]
    yellow = [on("yellow", 20), 0, 0, 0]
    state = game("classic", {"red": [17, 0, 0, 0], "green": green, "yellow": yellow})
    state, events = run(state, "r4", "m0")
    assert state.pieces["red"] == (21, 0, 0, 0)
    assert state.pieces["green"] == tuple(green)
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


def test_classic_6_opponent_sharing_with_own_piece_not_captured() -> None:
    # Classic 6: the square holds a red and a yellow piece, not exactly one
    # piece, so the red piece landing there captures nothing.
    yellow = [on("yellow", 20), 0, 0, 0]
    state = game("classic", {"red": [17, 21, 0, 0], "yellow": yellow})
    state, events = run(state, "r4", "m0")
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


def test_classic_6_own_lone_piece_not_captured() -> None:
    # Classic 6: only an opponent's piece is captured; red joins its own piece.
    state = game("classic", {"red": [10, 13, 0, 0]})
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"] == (13, 13, 0, 0)
    assert "capture" not in kinds(events)
    assert state.turn == "yellow"


def test_classic_6_passing_over_does_not_capture() -> None:
    # Classic 6 (seed 000): the captured piece must be on the end square, not
    # on the way; red passes the lone yellow piece on square 12.
    yellow = [on("yellow", 12), 0, 0, 0]
    state = game("classic", {"red": [10, 0, 0, 0], "yellow": yellow})
    state, events = run(state, "r5", "m0")
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


def test_classic_6_lone_opponent_on_safe_square_not_captured() -> None:
    # Classic 6/7: red ends on star square 8 holding one yellow piece; the
    # square is safe, so nothing is captured and no extra turn is given.
    yellow = [on("yellow", 8), 0, 0, 0]
    state = game("classic", {"red": [6, 0, 0, 0], "yellow": yellow})
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"] == (9, 0, 0, 0)
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 7: safe squares


@pytest.mark.parametrize("square", START_SQUARES)
def test_classic_7_every_start_square_is_safe(square: int) -> None:
    # Classic 7: all four start squares are safe for every colour.  A lone
    # yellow piece there is not captured by a piece ending its move on it
    # (red, or green for red's own start square 0, which red never walks onto).
    attacker = "green" if square == 0 else "red"
    victim = [on("yellow", square), 0, 0, 0]
    state = game(
        "classic",
        {attacker: [on(attacker, square) - 3, 0, 0, 0], "yellow": victim},
        players=4,
        turn=attacker,
    )
    state, events = run(state, "r3", "m0")
    assert state.pieces[attacker][0] == on(attacker, square)
    assert state.pieces["yellow"] == tuple(victim)
    assert "capture" not in kinds(events)


@pytest.mark.parametrize("square", STAR_SQUARES)
def test_classic_7_every_star_square_is_safe(square: int) -> None:
    # Classic 7 / RULES.md 1: the stars (absolute 8, 21, 34, 47) are safe.
    victim = [on("yellow", square), 0, 0, 0]
    state = game("classic", {"red": [on("red", square) - 3, 0, 0, 0], "yellow": victim})
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"][0] == on("red", square)
    assert state.pieces["yellow"] == tuple(victim)
    assert "capture" not in kinds(events)


def test_classic_7_coming_out_does_not_capture_on_start_square() -> None:
    # Classic 7: red's start square (0) is safe for every colour, so red coming
    # out onto it leaves the lone yellow piece there; only the 6's extra turn.
    victim = [on("yellow", 0), 0, 0, 0]
    state = game("classic", {"yellow": victim})
    state, events = run(state, "r6", "m0")
    assert state.pieces["red"] == (1, 0, 0, 0)
    assert state.pieces["yellow"] == tuple(victim)
    assert reasons(events, "extra_turn") == ["six"]


def test_classic_7_square_beside_a_star_is_not_safe() -> None:
    # Classic 7: only starts and stars are safe; square 9 (star 8 + 1) is not.
    state = game("classic", {"red": [7, 0, 0, 0], "yellow": [on("yellow", 9), 0, 0, 0]})
    state, events = run(state, "r3", "m0")
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert "capture" in kinds(events)


def test_classic_7_home_column_squares_belong_to_their_colour() -> None:
    # Classic 7 / RULES.md 1: home columns are entered only by their owner.
    # Yellow walking into its column square 2 does not meet red's piece on
    # red's column square 2 (p = 53 for both).
    state = game("classic", {"red": [53, 0, 0, 0], "yellow": [50, 0, 0, 0]}, turn="yellow")
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"] == (53, 0, 0, 0)
    assert state.pieces["yellow"] == (53, 0, 0, 0)
    assert "capture" not in kinds(events)


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
