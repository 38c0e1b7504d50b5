"""The heuristic computer player (bot/ai.py) and per-seat policies in simulations.

Positions are built by hand with :func:`engine.new_game`; progress ``p`` is
relative to the piece's owner (0 base, 1..51 track, 52..56 column, 57 home).
``sq(colour, square)`` gives the progress at which a piece stands on an
absolute track square, so the geometry of each test reads plainly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from bot.app.simulate import simulate
from bot.players import RandomPlayer
from bot.players.heuristic import HeuristicPlayer, danger, score_moves
from engine import COLOURS, GameState, Move
from tests.helpers.ai import CONFIGS, play_on, position
from tests.helpers.rules import on as sq


def rolled(
    rules: str,
    die: int,
    *,
    options: Mapping[str, Any] | None = None,
    turn: str = "red",
    **pieces: list[int],
) -> GameState:
    """A 4-player game at the given position, ``turn`` to move after rolling ``die``."""
    state = engine.new_game(rules, 4, options=options, position=position(**pieces), turn=turn)
    state, _ = engine.apply(state, {"roll": die})
    assert state.phase == "move", "the roll must leave a choice to make"
    return state


def pick(state: GameState, rng: random.Random | None = None) -> Move:
    moves = engine.legal_moves(state)
    assert len(moves) >= 2, "a test position must offer a real choice"
    return HeuristicPlayer(rng).choose(state, moves)


# --------------------------------------------------------------------------
# behaviour in hand-built positions


def test_it_captures_when_it_can() -> None:
    # Red piece 0 on square 11 rolls 3 onto a lone green piece on square 14
    # (neither a start nor a star square); piece 1 could just walk on.
    state = rolled("classic", 3, red=[sq("red", 11), 30, 0, 0], green=[sq("green", 14), 0, 0, 0])
    m = pick(state)
    assert m.piece == 0
    assert m.captures == ("green", 0)


def test_it_prefers_the_victim_that_has_walked_further() -> None:
    # Two captures on offer: the rear red piece can hit a green piece about to
    # reach its home column, the front one a yellow piece that has just come
    # out.  Take the one whose victim loses most.
    state = rolled(
        "classic",
        2,
        red=[sq("red", 7), sq("red", 30), 0, 0],
        green=[sq("green", 9), 0, 0, 0],
        yellow=[sq("yellow", 32), 0, 0, 0],
    )
    moves = engine.legal_moves(state)
    assert [m.captures for m in moves] == [("green", 0), ("yellow", 0)]
    assert state.pieces["green"][0] == 49
    assert pick(state).captures == ("green", 0)


def test_it_reaches_home() -> None:
    state = rolled("classic", 3, red=[54, 20, 0, 0])
    m = pick(state)
    assert m.piece == 0
    assert m.home


def test_it_leaves_the_base_on_a_six_when_nothing_better() -> None:
    state = rolled("classic", 6, red=[0, 0, 0, 20])
    m = pick(state)
    assert m.enter


def test_it_moves_a_piece_out_of_danger() -> None:
    # Red piece 0 stands 3 squares ahead of a green piece; a 2 takes it onto
    # the star on square 21.  Without the green piece it would rather move
    # piece 1, which is further along.
    red = [sq("red", 19), sq("red", 29), 0, 0]
    threatened = rolled("classic", 2, red=red, green=[sq("green", 16), 0, 0, 0])
    assert danger(threatened, "red", red[0]) > 0
    assert pick(threatened).piece == 0
    calm = rolled("classic", 2, red=red)
    assert danger(calm, "red", red[0]) == 0
    assert pick(calm).piece == 1


def test_it_avoids_a_square_in_danger_when_a_safe_one_exists() -> None:
    # Piece 0 would land 2 squares ahead of a green piece; piece 1 lands where
    # nobody can reach.  Without the green piece, piece 0 (further along) goes.
    red = [sq("red", 29), sq("red", 4), 0, 0]
    risky = rolled("classic", 3, red=red, green=[sq("green", 30), 0, 0, 0])
    assert pick(risky).piece == 1
    calm = rolled("classic", 3, red=red)
    assert pick(calm).piece == 0


def test_it_forms_a_tower_to_protect_a_threatened_piece() -> None:
    # Tower rules have no safe squares.  Red piece 0 stands 2 squares ahead of
    # a green piece; piece 1 can land on it (a tower nobody captures) or piece
    # 0 can run 3 squares, still within the green piece's reach.
    state = rolled(
        "tower",
        3,
        red=[sq("red", 19), sq("red", 16), 0, 0],
        green=[sq("green", 17), 0, 0, 0],
    )
    m = pick(state)
    assert m.piece == 1
    assert m.forms == "tower"


def test_it_counts_an_exit_capture_as_danger() -> None:
    # Tower rules: a green piece coming out on a 5 captures a lone piece on
    # green's start square (13), but only while green has a piece in its base.
    at_start = sq("red", 13)
    state = rolled("tower", 1, red=[at_start, 30, 0, 0], green=[0, 0, 0, 0])
    assert danger(state, "red", at_start) == pytest.approx(1 / 6)
    out = rolled("tower", 1, red=[at_start, 30, 0, 0], green=[20, 20, 30, 40])
    assert danger(out, "red", at_start) == 0
    # classic start squares are safe: no danger there at all
    classic = rolled("classic", 1, red=[at_start, 30, 0, 0], green=[0, 0, 0, 0])
    assert danger(classic, "red", at_start) == 0


def test_danger_ignores_pieces_that_turn_into_their_column_first() -> None:
    # A green piece at progress 46 stands on square 6.  Square 11 (5 ahead) is
    # green's last track square; square 12 (6 ahead) it never reaches: a 6
    # takes it into its home column.
    state = rolled("classic", 1, red=[sq("red", 12), 30, 0, 0], green=[46, 0, 0, 0])
    assert danger(state, "red", sq("red", 11)) == pytest.approx(1 / 6)
    assert danger(state, "red", sq("red", 12)) == 0


def test_danger_is_zero_off_the_track_and_on_safe_squares() -> None:
    state = rolled("classic", 1, red=[20, 53, 0, 0], green=[sq("green", 15), 0, 0, 0])
    assert danger(state, "red", 53) == 0  # home column
    assert danger(state, "red", 0) == 0  # base
    assert danger(state, "red", sq("red", 21)) == 0  # a star
    assert danger(state, "red", sq("red", 17)) > 0


def test_nobody_passes_a_tower_to_hit_a_piece_behind_it() -> None:
    # Tower rules: a red tower on square 22 stands between a green piece on
    # square 20 and square 24.
    tower = sq("red", 22)
    state = rolled("tower", 1, red=[tower, tower, 30, 0], green=[sq("green", 20), 0, 0, 0])
    assert danger(state, "red", sq("red", 24)) == 0
    assert danger(state, "red", sq("red", 21)) > 0


def test_it_uses_super_bonus_moves() -> None:
    # Super: red piece 0 rolls 3 onto a lone blue piece (capture, bonus move
    # of 6); the bonus can capture a green piece with piece 1, which earns
    # another bonus.
    state = rolled(
        "super",
        3,
        red=[sq("red", 9), sq("red", 19), 0, 0],
        green=[sq("green", 25), 0, 0, 0],
        blue=[sq("blue", 12), 0, 0, 0],
    )
    first = pick(state)
    assert first.captures == ("blue", 0)
    state, _ = engine.apply(state, {"move": first.piece})
    assert state.phase == "bonus"
    bonus = pick(state)
    assert bonus.steps == 6
    assert bonus.piece == 1
    assert bonus.captures == ("green", 0)
    state, _ = engine.apply(state, {"move": bonus.piece})
    assert state.phase == "bonus"  # a bonus move that captures earns another


def test_partners_are_neither_danger_nor_targets() -> None:
    # Italian: piece 0 would land 2 squares ahead of a yellow piece.  Yellow is
    # an opponent in a free-for-all, so piece 1 moves instead; with teams,
    # yellow is red's partner and piece 0 (further along) goes.
    red = [sq("red", 29), sq("red", 4), 0, 0]
    yellow = [sq("yellow", 30), 0, 0, 0]
    alone = rolled("italian", 3, red=red, yellow=yellow)
    assert danger(alone, "red", sq("red", 32)) > 0
    assert pick(alone).piece == 1
    teams = rolled("italian", 3, options={"teams": True}, red=red, yellow=yellow)
    assert danger(teams, "red", sq("red", 32)) == 0
    assert pick(teams).piece == 0


def test_teams_never_capture_a_partner() -> None:
    # A lone yellow piece 4 squares ahead: with teams red shares the square.
    red = [sq("red", 10), sq("red", 40), 0, 0]
    yellow = [sq("yellow", 14), 0, 0, 0]
    state = rolled("italian", 4, options={"teams": True}, red=red, yellow=yellow)
    assert all(m.captures is None for m in engine.legal_moves(state))
    assert pick(state).captures is None


def test_ties_go_to_the_lowest_piece_or_the_rng() -> None:
    # Two pieces side by side in the home column: both moves are worth the same.
    state = rolled("classic", 2, red=[52, 52, 0, 0])
    scores = score_moves(state, engine.legal_moves(state))
    assert scores[0] == scores[1]
    assert pick(state).piece == 0
    chosen = {pick(state, random.Random(seed)).piece for seed in range(20)}
    assert chosen == {0, 1}


def test_choosing_leaves_the_state_unchanged() -> None:
    state = rolled("classic", 3, red=[sq("red", 11), 30, 0, 0], green=[sq("green", 14), 0, 0, 0])
    before = state.to_dict()
    occ = {k: v[:] for k, v in state.occ.items()}
    pick(state, random.Random(1))
    assert state.to_dict() == before
    assert state.occ == occ


# --------------------------------------------------------------------------
# every state of random games: the choice is always a legal move


def play_checked(rules: str, players: int, options: Mapping[str, Any], seed: int) -> GameState:
    """Play one game, heuristic players against random ones, checking each choice."""
    rng = random.Random(seed)
    state = engine.new_game(rules, players, options=dict(options) or None)
    seats = state.players
    heuristic = {c for c in seats if rng.random() < 0.75} or {seats[0]}
    smart = HeuristicPlayer(random.Random(seed))
    dumb = RandomPlayer(rng)

    def choose(state: GameState, moves: list[Move]) -> int:
        if state.turn not in heuristic:
            return dumb.choose(state, moves).piece
        before = state.to_dict()
        m = smart.choose(state, moves)
        assert m in moves
        assert state.to_dict() == before
        if m.captures is not None and state.options.teams:
            victim = COLOURS.index(m.captures[0])
            assert (victim - COLOURS.index(state.turn)) % 4 != 2
        for c in seats:
            for p in set(state.pieces[c]):
                assert 0.0 <= danger(state, c, p) <= 1.0
        return m.piece

    state = play_on(state, rng, 20_000, choose)
    assert state.phase == "over"
    return state


@settings(max_examples=40, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1))
def test_it_always_returns_a_legal_move(config: tuple[str, int, dict[str, Any]], seed: int) -> None:
    play_checked(*config, seed)


@pytest.mark.parametrize(("rules", "players", "options"), CONFIGS)
def test_every_rule_set_and_option_plays_to_the_end(
    rules: str, players: int, options: dict[str, Any]
) -> None:
    play_checked(rules, players, options, seed=7)


# --------------------------------------------------------------------------
# simulations: a policy per seat, and the strength of the heuristic


class Recorder:
    """A policy that remembers which colours it was asked to move."""

    def __init__(self) -> None:
        self.colours: set[str] = set()

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        self.colours.add(state.turn)
        return moves[0]


def test_simulate_takes_a_policy_per_seat() -> None:
    green = Recorder()
    others = Recorder()
    result = simulate("classic", 5, seed=3, policy=others, policies={"green": green})
    assert green.colours == {"green"}
    assert others.colours == {"red", "yellow", "blue"}
    assert sum(result["wins"].values()) == 5


def test_simulate_without_policies_is_unchanged() -> None:
    assert (
        simulate("tower", 20, seed=9)["wins"] == simulate("tower", 20, seed=9, policies={})["wins"]
    )


def test_simulate_refuses_an_unknown_colour() -> None:
    with pytest.raises(ValueError, match="purple"):
        simulate("classic", 1, seed=1, policies={"purple": Recorder()})


def test_one_heuristic_seat_beats_three_random_movers() -> None:
    # 400 games of 4-player classic, the heuristic seat and the first player
    # rotating; the fair share is 25%, the heuristic wins far more.
    games = wins = 0
    for k, colour in enumerate(COLOURS):
        result = simulate(
            "classic",
            100,
            seed=2024 + k,
            policies={colour: HeuristicPlayer(random.Random(k))},
        )
        games += result["games"]
        wins += result["wins"].get(colour, 0)
    assert games == 400
    assert wins / games >= 0.35
