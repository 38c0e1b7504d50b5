"""Rule set ``italian`` (RULES.md sections 1, 2, 5 and 7; seed 003).

Every test names the numbered rule it checks; the comment in it says why the
expected result holds.  ``on(colour, square)`` is the progress of a ``colour``
piece standing on absolute track square ``square`` (RULES.md 1).  Safe squares:
starts 0, 13, 26, 39; stars 8, 21, 34, 47.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction, LudoError, RecordError
from tests.helpers.rules import game, kinds, on, onto_start, reasons, run, targets, turns_of

START_SQUARES = (0, 13, 26, 39)
STAR_SQUARES = (8, 21, 34, 47)


# --------------------------------------------------------------------------
# rule 1: players and who starts


@pytest.mark.parametrize(
    ("n", "colours"),
    [
        (2, ("red", "yellow")),
        (3, ("red", "green", "yellow")),
        (4, ("red", "green", "yellow", "blue")),
    ],
)
def test_italian_1_two_to_four_players_play(n: int, colours: tuple[str, ...]) -> None:
    # Italian 1: 2 to 4 players, colours as in RULES.md 1.  Everyone in base
    # rolls a 1 and passes: play goes round the players clockwise.
    state = engine.new_game("italian", n)
    assert state.players == colours
    assert state.pieces == {c: (0, 0, 0, 0) for c in colours}
    assert turns_of(state, "r1", n + 1) == [*colours, "red"]


@pytest.mark.parametrize("players", [1, 5, ["yellow"]])
def test_italian_1_one_or_five_players_refused(players: object) -> None:
    # Italian 1: 2 to 4 players.
    with pytest.raises(RecordError):
        engine.new_game("italian", players)  # type: ignore[arg-type]


def test_italian_1_two_players_are_red_and_yellow() -> None:
    # RULES.md 1: two players sit opposite, red and yellow.
    assert engine.new_game("italian", 2).players == ("red", "yellow")
    with pytest.raises(RecordError):
        engine.new_game("italian", ["green", "blue"])


def test_italian_1_highest_roller_given_as_turn_starts() -> None:
    # Italian 1: the highest roll starts; the service decides it and passes it
    # as `turn`.  Green starts, then clockwise: yellow, then red.
    state = engine.new_game("italian", 3, turn="green")
    assert state.turn == "green"
    state, events = run(state, "r4")
    assert [e.colour for e in events if e.kind == "roll"] == ["green"]
    assert state.turn == "yellow"
    state, _ = run(state, "r4")
    assert state.turn == "red"


# --------------------------------------------------------------------------
# rule 2: leaving the base on a 6


@pytest.mark.parametrize("die", [1, 2, 3, 4, 5])
def test_italian_2_piece_leaves_base_only_on_six(die: int) -> None:
    # Italian 2 (Decision: 6, not the 5 the text says once): any other roll
    # with every piece in base is no move, so red passes.
    state = engine.new_game("italian", 2)
    state, events = run(state, f"r{die}")
    assert reasons(events, "pass") == ["no_move"]
    assert state.pieces["red"] == (0, 0, 0, 0)
    assert state.turn == "yellow"


def test_italian_2_six_brings_piece_onto_start_square() -> None:
    # Italian 2: a 6 places a piece on its start square (p = 1).
    state = engine.new_game("italian", 2)
    state, _ = run(state, "r6")
    [move] = engine.legal_moves(state)
    assert (move.frm, move.to, move.enter) == (0, 1, True)
    state, _ = run(state, "m0")
    assert state.pieces["red"] == (1, 0, 0, 0)


def test_italian_2_five_does_not_bring_piece_out_beside_a_track_piece() -> None:
    # Italian 2: a 5 moves the track piece only; the base piece is refused.
    state = game("italian", {"red": [10, 0, 0, 0]})
    state, _ = run(state, "r5")
    assert targets(state) == {0: 15}
    with pytest.raises(IllegalAction) as err:
        run(state, "m1")
    assert err.value.reason == "in_base"


# --------------------------------------------------------------------------
# rule 3: a 6 gives an extra turn, no penalty for three 6s


def test_italian_3_six_gives_extra_turn() -> None:
    # Italian 3: after moving with a 6, red rolls again.
    state = game("italian", {"red": [10, 0, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert reasons(events, "extra_turn") == ["six"]
    assert (state.turn, state.phase) == ("red", "roll")


def test_italian_3_other_roll_ends_turn() -> None:
    # Italian 3: only a 6 gives an extra turn: after a 4 the turn passes.
    state = game("italian", {"red": [10, 0, 0, 0]})
    state, events = run(state, "r4", "m0")
    assert "extra_turn" not in kinds(events)
    assert state.turn == "yellow"


def test_italian_3_no_penalty_for_three_sixes() -> None:
    # Italian 3: three (even four) 6s in a row are played normally, each with
    # its extra turn; the turn passes only after the plain 1.
    state = game("italian", {"red": [10, 0, 0, 0]})
    state, _ = run(state, "r6", "m0", "r6", "m0")
    state, events = run(state, "r6")
    assert "pass" not in kinds(events)
    assert state.phase == "move"
    state, events = run(state, "m0", "r6", "m0")
    assert reasons(events, "extra_turn") == ["six", "six"]
    assert state.pieces["red"] == (34, 0, 0, 0)
    assert state.turn == "red"
    state, _ = run(state, "r1", "m0")
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 4: capture without an extra turn; safe squares


def test_italian_4_lone_opponent_is_captured() -> None:
    # Italian 4 (as classic 6): red ends on square 12 (not safe) on a lone
    # yellow piece, which goes back to its base.
    state = game("italian", {"red": [10, 0, 0, 0], "yellow": [0, 0, on("yellow", 12), 0]})
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"] == (13, 0, 0, 0)
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert [e.target for e in events if e.kind == "capture"] == [("yellow", 2)]


def test_italian_4_capture_gives_no_extra_turn() -> None:
    # Italian 4: unlike classic, a capture gives no extra turn: after the
    # capturing 3 the turn passes.
    state = game("italian", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 12), 0, 0, 0]})
    state, events = run(state, "r3", "m0")
    assert "capture" in kinds(events)
    assert "extra_turn" not in kinds(events)
    assert state.turn == "yellow"


def test_italian_4_six_that_captures_gives_only_one_extra_turn() -> None:
    # Italian 3 + 4: a 6 that captures gives the 6's extra turn only; the next
    # plain roll ends the turn.
    state = game("italian", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 15), 0, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert state.pieces["yellow"] == (0, 0, 0, 0)
    assert reasons(events, "extra_turn") == ["six"]
    state, _ = run(state, "r1", "m0")
    assert state.turn == "yellow"


def test_italian_4_two_pieces_on_a_square_never_captured() -> None:
    # Italian 4 (as classic 6): a square holding two pieces is never captured from.
    yellow = [on("yellow", 12), on("yellow", 12), 0, 0]
    state = game("italian", {"red": [10, 0, 0, 0], "yellow": yellow})
    state, events = run(state, "r3", "m0")
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


def test_italian_4_passing_over_does_not_capture() -> None:
    # Italian 4 (seed 003: a piece overtaken stays alive): only the end
    # square captures.
    yellow = [on("yellow", 12), 0, 0, 0]
    state = game("italian", {"red": [10, 0, 0, 0], "yellow": yellow})
    state, events = run(state, "r5", "m0")
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


@pytest.mark.parametrize("square", STAR_SQUARES)
def test_italian_4_star_squares_are_safe(square: int) -> None:
    # Italian 4: the stars are safe: the lone yellow piece there stays.
    victim = [on("yellow", square), 0, 0, 0]
    state = game("italian", {"red": [on("red", square) - 3, 0, 0, 0], "yellow": victim})
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"][0] == on("red", square)
    assert state.pieces["yellow"] == tuple(victim)
    assert "capture" not in kinds(events)


@pytest.mark.parametrize("square", START_SQUARES)
def test_italian_4_all_start_squares_are_safe(square: int) -> None:
    # Italian 4: all four start squares are safe (for every colour).  Red never
    # walks onto its own start square 0, so green attacks there.
    attacker, victim, state, events = onto_start("italian", square)
    assert state.pieces[attacker][0] == on(attacker, square)
    assert state.pieces["yellow"] == tuple(victim)
    assert "capture" not in kinds(events)


def test_italian_4_coming_out_does_not_capture_on_start_square() -> None:
    # Italian 4: red's start square is safe, so coming out leaves the lone
    # yellow piece standing there.
    victim = [on("yellow", 0), 0, 0, 0]
    state = game("italian", {"yellow": victim})
    state, events = run(state, "r6", "m0")
    assert state.pieces["red"] == (1, 0, 0, 0)
    assert state.pieces["yellow"] == tuple(victim)
    assert "capture" not in kinds(events)


# --------------------------------------------------------------------------
# rule 5: exact number home, no extra turn for home


def test_italian_5_exact_number_reaches_home() -> None:
    # Italian 5: from p = 55 a 2 is exactly home.
    state = game("italian", {"red": [55, 0, 0, 0]})
    state, events = run(state, "r2", "m0")
    assert state.pieces["red"] == (57, 0, 0, 0)
    assert "home" in kinds(events)


def test_italian_5_larger_die_cannot_move_that_piece() -> None:
    # Italian 5 (as classic 8; seed 003's example: 2 from home, a larger roll
    # cannot be used by that piece): piece 0 is refused, piece 1 may move.
    state = game("italian", {"red": [55, 10, 0, 0]})
    state, _ = run(state, "r3")
    assert targets(state) == {1: 13}
    with pytest.raises(IllegalAction) as err:
        run(state, "m0")
    assert err.value.reason == "overshoot"


def test_italian_5_overshoot_with_no_other_move_passes() -> None:
    # Italian 5 (seed 003): three pieces home, the last 2 away, a 3 is rolled:
    # the turn passes to the next player.
    state = game("italian", {"red": [57, 57, 57, 55]})
    state, events = run(state, "r3")
    assert reasons(events, "pass") == ["no_move"]
    assert state.pieces["red"] == (57, 57, 57, 55)
    assert state.turn == "yellow"


def test_italian_5_no_extra_turn_for_home() -> None:
    # Italian 5: reaching home with a 3 gives no extra turn.
    state = game("italian", {"red": [54, 10, 0, 0]})
    state, events = run(state, "r3", "m0")
    assert state.pieces["red"] == (57, 10, 0, 0)
    assert "extra_turn" not in kinds(events)
    assert state.turn == "yellow"


def test_italian_5_six_reaching_home_gives_only_the_six_extra_turn() -> None:
    # Italian 3 + 5: a 6 that reaches home gives one extra turn (for the 6),
    # not two: the plain 1 after it ends the turn.
    state = game("italian", {"red": [51, 10, 0, 0]})
    state, events = run(state, "r6", "m0")
    assert reasons(events, "extra_turn") == ["six"]
    state, _ = run(state, "r1", "m1")
    assert state.turn == "yellow"


# --------------------------------------------------------------------------
# rule 6: options (teams, pieces_to_win, pieces), each off by default


def test_italian_6_options_off_by_default() -> None:
    # Italian 6: by default no teams (red captures a lone yellow piece, red's
    # opposite), 4 pieces each, and all 4 home to win.
    state = game(
        "italian", {"red": [10, 0, 0, 0], "yellow": [on("yellow", 12), 0, 0, 0]}, players=4
    )
    assert all(len(v) == 4 for v in state.pieces.values())
    state, events = run(state, "r3", "m0")
    assert "capture" in kinds(events)
    state = game("italian", {"red": [57, 57, 54, 0]})
    state, _ = run(state, "r3", "m2")
    assert state.winner is None and state.phase == "roll"


def test_italian_6_teams_partners_never_capture() -> None:
    # Italian 6 teams: red and yellow are partners; red ends on the lone
    # yellow piece and they share the square.
    yellow = [on("yellow", 12), 0, 0, 0]
    state = game("italian", {"red": [10, 0, 0, 0], "yellow": yellow}, players=4, teams=True)
    state, events = run(state, "r3")
    assert [m.captures for m in engine.legal_moves(state)] == [None]
    state, events = run(state, "m0")
    assert state.pieces["red"] == (13, 0, 0, 0)
    assert state.pieces["yellow"] == tuple(yellow)
    assert "capture" not in kinds(events)


def test_italian_6_teams_green_and_blue_are_partners() -> None:
    # Italian 6 teams: red+yellow against green+blue: green ends on a lone blue
    # piece (square 20, not safe) and does not capture it.
    blue = [on("blue", 20), 0, 0, 0]
    state = game(
        "italian",
        {"green": [on("green", 20) - 3, 0, 0, 0], "blue": blue},
        players=4,
        turn="green",
        teams=True,
    )
    state, events = run(state, "r3", "m0")
    assert state.pieces["blue"] == tuple(blue)
    assert "capture" not in kinds(events)


def test_italian_6_teams_opponents_are_still_captured() -> None:
    # Italian 6 teams + 4: green is red's opponent: the lone green piece on
    # square 20 is captured (with no extra turn).
    state = game(
        "italian",
        {"red": [17, 0, 0, 0], "green": [on("green", 20), 0, 0, 0]},
        players=4,
        teams=True,
    )
    state, events = run(state, "r4", "m0")
    assert state.pieces["green"] == (0, 0, 0, 0)
    assert "capture" in kinds(events)
    assert state.turn == "green"


def test_italian_6_teams_each_player_moves_only_own_pieces() -> None:
    # Italian 6 teams: red cannot move partner yellow's pieces: with red all in
    # base a 3 is no move, even though yellow's piece could walk 3.
    state = game("italian", {"yellow": [10, 0, 0, 0]}, players=4, teams=True)
    state, events = run(state, "r3")
    assert reasons(events, "pass") == ["no_move"]
    assert state.pieces["yellow"] == (10, 0, 0, 0)
    assert state.turn == "green"


def test_italian_6_teams_legal_moves_are_own_pieces_only() -> None:
    # Italian 6 teams: red's choice lists red's pieces only.
    state = game("italian", {"red": [20, 0, 0, 0], "yellow": [10, 0, 0, 0]}, players=4, teams=True)
    state, _ = run(state, "r3")
    assert [(m.colour, m.piece) for m in engine.legal_moves(state)] == [("red", 0)]


def test_italian_6_teams_one_partner_home_is_not_a_win() -> None:
    # Italian 6 teams: a team wins only when both partners are home; red alone
    # finishing leaves the game running.
    state = game("italian", {"red": [57, 57, 57, 54]}, players=4, teams=True)
    state, events = run(state, "r3", "m3")
    assert state.pieces["red"] == (57, 57, 57, 57)
    assert state.phase == "roll"
    assert state.winner is None
    assert "game_over" not in kinds(events)


def test_italian_6_teams_finished_player_is_skipped() -> None:
    # Italian 6 teams: a player whose pieces are all home is skipped: after
    # red finishes, play goes green, yellow, blue, green (not red).
    state = game("italian", {"red": [57, 57, 57, 54]}, players=4, teams=True)
    state, _ = run(state, "r3", "m3")
    seen = []
    for _ in range(4):
        seen.append(state.turn)
        state, _ev = run(state, "r1")
    assert seen == ["green", "yellow", "blue", "green"]


def test_italian_6_teams_team_wins_when_both_partners_home() -> None:
    # Italian 6 teams: red is home already; yellow brings its last piece home:
    # the red+yellow team wins.  Italian 7: the others follow by distance
    # (blue 7 + 3*57 = 178 before green 47 + 3*57 = 218).
    state = game(
        "italian",
        {
            "red": [57, 57, 57, 57],
            "green": [10, 0, 0, 0],
            "yellow": [57, 57, 57, 54],
            "blue": [50, 0, 0, 0],
        },
        turn="yellow",
        teams=True,
    )
    state, events = run(state, "r3", "m3")
    assert state.phase == "over"
    assert sorted(state.winner or []) == ["red", "yellow"]
    assert "game_over" in kinds(events)
    assert state.ranking is not None
    assert sorted(state.ranking[:2]) == ["red", "yellow"]
    assert state.ranking[2:] == ["blue", "green"]


def test_italian_6_teams_with_pieces_to_win() -> None:
    # Italian 6 teams + pieces_to_win 2: a team wins when both partners have
    # 2 pieces home each.
    state = game(
        "italian",
        {"red": [57, 57, 0, 0], "yellow": [57, 54, 0, 0]},
        players=4,
        turn="yellow",
        teams=True,
        pieces_to_win=2,
    )
    state, _ = run(state, "r3", "m1")
    assert state.phase == "over"
    assert sorted(state.winner or []) == ["red", "yellow"]


def test_italian_6_teams_need_four_players() -> None:
    # Italian 6 teams: "2 against 2, partners opposite": a teams game has
    # four players; with two there is no team to play against.
    with pytest.raises(LudoError):
        engine.new_game("italian", 2, options={"teams": True})


def test_italian_6_pieces_to_win_2() -> None:
    # Italian 6 pieces_to_win 2: the second piece home wins at once.
    state = game("italian", {"red": [57, 54, 0, 0]}, pieces_to_win=2)
    state, events = run(state, "r3", "m1")
    assert state.phase == "over"
    assert state.winner == ["red"]
    assert "game_over" in kinds(events)


def test_italian_6_pieces_to_win_3() -> None:
    # Italian 6 pieces_to_win 3: the second piece home is not enough...
    state = game("italian", {"red": [57, 54, 10, 0]}, pieces_to_win=3)
    state, _ = run(state, "r3", "m1")
    assert state.winner is None
    # ...the third wins.
    state = game("italian", {"red": [57, 57, 54, 0]}, pieces_to_win=3)
    state, _ = run(state, "r3", "m2")
    assert state.phase == "over"
    assert state.winner == ["red"]


@pytest.mark.parametrize("value", [1, 4])
def test_italian_6_pieces_to_win_is_2_or_3(value: int) -> None:
    # Italian 6: pieces_to_win takes 2 or 3.
    with pytest.raises(LudoError):
        engine.new_game("italian", 2, options={"pieces_to_win": value})


@pytest.mark.parametrize("n", [5, 6])
def test_italian_6_pieces_number_gives_every_player_n_pieces(n: int) -> None:
    # Italian 6 pieces as a number: every player starts with n pieces in base.
    state = engine.new_game("italian", 4, options={"pieces": n})
    assert state.pieces == {c: (0,) * n for c in ("red", "green", "yellow", "blue")}


def test_italian_6_pieces_number_all_needed_to_win() -> None:
    # Italian 6 pieces 5: four pieces home is not a win, all five are.
    state = game("italian", {"red": [57, 57, 57, 54, 10]}, pieces=5)
    state, _ = run(state, "r3", "m3")
    assert state.winner is None
    state = game("italian", {"red": [57, 57, 57, 57, 54]}, pieces=5)
    state, _ = run(state, "r3", "m4")
    assert state.winner == ["red"]


def test_italian_6_pieces_number_six_extra_piece_moves() -> None:
    # Italian 6 pieces 6: piece 5 exists and comes out on a 6 like any other.
    state = game("italian", {"red": [57, 57, 57, 57, 57, 0]}, pieces=6)
    state, _ = run(state, "r6", "m5")
    assert state.pieces["red"] == (57, 57, 57, 57, 57, 1)


@pytest.mark.parametrize("n", [3, 7])
def test_italian_6_pieces_number_is_4_5_or_6(n: int) -> None:
    # Italian 6: `pieces` is 4, 5 or 6 per player.
    with pytest.raises(LudoError):
        engine.new_game("italian", 2, options={"pieces": n})


def test_italian_6_pieces_mapping_per_colour() -> None:
    # Italian 6 pieces as a mapping colour -> number (handicap): each player
    # gets their own count.
    pieces = {"red": 4, "green": 5, "yellow": 6, "blue": 4}
    state = engine.new_game("italian", 4, options={"pieces": pieces})
    assert {c: len(v) for c, v in state.pieces.items()} == pieces


def test_italian_6_pieces_mapping_stronger_player_needs_all_six() -> None:
    # Italian 6 handicap: red plays 6 pieces and needs all 6 home; 5 is not a win.
    handicap = {"red": 6, "yellow": 4}
    state = game("italian", {"red": [57, 57, 57, 57, 54, 10]}, pieces=handicap)
    state, _ = run(state, "r3", "m4")
    assert state.winner is None
    state = game("italian", {"red": [57, 57, 57, 57, 57, 54]}, pieces=handicap)
    state, _ = run(state, "r3", "m5")
    assert state.winner == ["red"]


def test_italian_6_pieces_mapping_weaker_player_wins_with_own_four() -> None:
    # Italian 6 handicap: yellow plays 4 pieces and wins with those 4 home,
    # while red (6 pieces) has 5 home.
    state = game(
        "italian",
        {"red": [57, 57, 57, 57, 57, 10], "yellow": [57, 57, 57, 54]},
        turn="yellow",
        pieces={"red": 6, "yellow": 4},
    )
    state, _ = run(state, "r3", "m3")
    assert state.phase == "over"
    assert state.winner == ["yellow"]


def test_italian_6_pieces_mapping_values_are_4_5_or_6() -> None:
    # Italian 6: a handicap gives 4, 5 or 6 pieces to each colour; 3 is refused.
    with pytest.raises(LudoError):
        engine.new_game("italian", 2, options={"pieces": {"red": 6, "yellow": 3}})


# --------------------------------------------------------------------------
# rule 7: ranking by remaining distance


def test_italian_7_others_ranked_by_remaining_distance() -> None:
    # Italian 7 (tower 8): red wins; the others by the sum of 57 - p, smallest
    # first: blue 3*7 + 57 = 78, yellow 0 + 3*57 = 171, green 17 + 3*57 = 188.
    # (Classic scores would put yellow, with a piece home, before blue.)
    state = game(
        "italian",
        {
            "red": [57, 57, 57, 54],
            "green": [40, 0, 0, 0],
            "yellow": [57, 0, 0, 0],
            "blue": [50, 50, 50, 0],
        },
    )
    assert state.ranking is None
    state, _ = run(state, "r3", "m3")
    assert state.phase == "over"
    assert state.ranking == ["red", "blue", "yellow", "green"]
    assert state.scores is None  # scores are for classic (RULES.md 7)


def test_italian_7_ties_keep_seating_order_from_red() -> None:
    # Italian 7 + RULES.md 7: yellow wins; blue 27 + 3*57 = 198; red
    # 37 + 3*57 = 208 and green 2*47 + 2*57 = 208 tie and keep seating order
    # from red: red before green.
    state = game(
        "italian",
        {
            "red": [20, 0, 0, 0],
            "green": [10, 10, 0, 0],
            "yellow": [57, 57, 57, 54],
            "blue": [30, 0, 0, 0],
        },
        turn="yellow",
    )
    state, _ = run(state, "r3", "m3")
    assert state.ranking == ["yellow", "blue", "red", "green"]


def test_italian_7_replay_gives_the_ranking() -> None:
    # RULES.md 7: the replayed final state carries winner and ranking.
    record = {
        "rules": "italian",
        "players": ["red", "yellow"],
        "position": {"red": [57, 57, 57, 54], "yellow": [10, 0, 0, 0]},
        "turn": "red",
        "actions": [{"roll": 3}, {"move": 3}],
    }
    state = engine.replay(record)
    assert state.winner == ["red"]
    assert state.ranking == ["red", "yellow"]
