"""Rule set ``classic``, rules 1 to 7 (RULES.md sections 1, 2 and 3): players and who
starts, the board and the turn, leaving the base, the extra turn of a 6, the third 6,
moving, capturing, safe squares.

Every test names the numbered rule it checks; the comment in it says why the
expected result holds.  Positions are built with progress values (RULES.md 1):
``on(colour, square)`` is the progress of a ``colour`` piece standing on the
absolute track square ``square``.  Safe squares: starts 0, 13, 26, 39; stars
8, 21, 34, 47."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction, RecordError
from tests.helpers.rules import game, kinds, on, onto_start, reasons, run, targets, turns_of

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
    assert turns_of(state, "r1", n + 1) == [*colours, "red"]


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
    attacker, victim, state, events = onto_start("classic", square)
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
