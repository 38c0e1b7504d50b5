"""The four computer levels (bot/players/levels.py) and the dice search behind hard and expert."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import pytest

import engine
from bot.players import LEVELS, HeuristicPlayer, Policy, player_for
from bot.players.levels import SearchPlayer
from bot.players.search import WIN, DiceSearch, evaluate
from engine import COLOURS, GameState, Move
from tests.helpers.ai import CONFIGS, play_on, position
from tests.helpers.rules import on as sq

#: a small budget keeps the expert quick in tests (the search is the same)
TEST_NODES = 150


def level(name: str, seed: int) -> Policy:
    return player_for(name, random.Random(seed), nodes=TEST_NODES, seconds=None)


def play(
    rules: str,
    players: int,
    options: Mapping[str, Any],
    seed: int,
    chosen: list[int] | None = None,
) -> GameState:
    """One game with every level seated in turn, each choice checked legal and harmless."""
    rng = random.Random(seed)
    state = engine.new_game(rules, players, options=dict(options) or None)
    seats = {c: level(LEVELS[(k + seed) % len(LEVELS)], seed + k) for k, c in enumerate(COLOURS)}

    def choose(state: GameState, moves: list[Move]) -> int:
        before = state.to_dict()
        occ = {k: v[:] for k, v in state.occ.items()}
        m = seats[state.turn].choose(state, moves)
        assert m in moves
        assert state.to_dict() == before
        assert state.occ == occ
        if chosen is not None:
            chosen.append(m.piece)
        return m.piece

    state = play_on(state, rng, 20_000, choose)
    assert state.phase == "over"
    return state


@pytest.mark.parametrize(("rules", "players", "options"), CONFIGS)
def test_every_level_plays_legal_moves_to_the_end(
    rules: str, players: int, options: dict[str, Any]
) -> None:
    play(rules, players, options, seed=len(rules) * players)


def test_levels_repeat_with_a_seed() -> None:
    first: list[int] = []
    second: list[int] = []
    a = play("classic", 4, {}, seed=7, chosen=first)
    b = play("classic", 4, {}, seed=7, chosen=second)
    assert first == second
    assert a == b


def test_an_unknown_level_is_refused() -> None:
    assert LEVELS == ("easy", "normal", "hard", "expert")
    with pytest.raises(ValueError, match="unknown level"):
        player_for("grandmaster", random.Random(1))


def test_normal_is_the_heuristic() -> None:
    assert isinstance(player_for("normal", random.Random(1)), HeuristicPlayer)


def midgame(seed: int, rules: str = "classic") -> GameState:
    """A position with a choice of at least three moves, reached by random play."""
    rng = random.Random(seed)
    found: list[GameState] = []

    def choose(state: GameState, moves: list[Move]) -> int | None:
        if len(moves) >= 3 and rng.random() < 0.2:
            found.append(state)
            return None
        return rng.choice(moves).piece

    while not found:
        play_on(engine.new_game(rules, 4), rng, 2000, choose)
    return found[0]


def test_easy_makes_mistakes_but_not_always() -> None:
    differ = 0
    for seed in range(60):
        state = midgame(seed)
        moves = engine.legal_moves(state)
        easy = player_for("easy", random.Random(seed)).choose(state, moves)
        normal = HeuristicPlayer().choose(state, moves)
        differ += easy != normal
    assert 5 <= differ <= 45


def test_the_expert_keeps_to_its_node_budget() -> None:
    for seed in range(10):
        state = midgame(seed)
        moves = engine.legal_moves(state)
        one = DiceSearch(10**9)
        one.values(state, moves, 1)  # depth 1 always finishes, whatever the budget
        for nodes in (50, 400, 2000):
            search = DiceSearch(nodes)
            search.best(state, moves, 3)
            assert search.depth_done >= 1
            assert search.used <= max(nodes + 1, one.used + nodes + 1)
        deep = DiceSearch(10**9)
        deep.best(state, moves, 3)
        assert deep.depth_done == 3


def test_the_wall_clock_only_caps_the_search() -> None:
    state = midgame(3)
    moves = engine.legal_moves(state)
    capped = DiceSearch(10**9, seconds=0.0)
    capped.best(state, moves, 3)
    assert capped.depth_done == 1  # no time at all: depth 1, still an answer
    free = DiceSearch(10**9, seconds=None)
    free.best(state, moves, 2)
    assert free.depth_done == 2


def test_the_expert_is_deterministic_with_a_node_budget() -> None:
    for seed in range(5):
        state = midgame(seed)
        moves = engine.legal_moves(state)
        picks = {
            player_for("expert", random.Random(seed), nodes=600, seconds=None)
            .choose(state, moves)
            .piece
            for _ in range(3)
        }
        assert len(picks) == 1


def test_a_won_game_is_worth_the_most() -> None:
    state = engine.new_game(
        "classic", 4, position=position(red=[57, 57, 57, 56], green=[10, 0, 0, 0]), turn="red"
    )
    before = evaluate(state, 0)
    state, _ = engine.apply(state, {"roll": 1})
    state, _ = engine.apply(state, {"move": 3})
    assert state.winner == ["red"]
    assert evaluate(state, 0) == WIN > before
    assert evaluate(state, 1) == -WIN


def partner_scene(teams: bool) -> GameState:
    """Red rolls 3: piece 0 can capture the green piece one square behind a yellow
    piece about to reach its column, piece 1 a blue piece as far along as that green one."""
    pieces = {c: [0, 0, 0, 0] for c in COLOURS}
    pieces["red"] = [sq("red", 19), sq("red", 45), 0, 0]
    pieces["yellow"] = [50, 0, 0, 0]  # absolute square 23
    pieces["green"] = [sq("green", 22), 0, 0, 0]
    pieces["blue"] = [sq("blue", 48), 0, 0, 0]
    options = {"teams": True} if teams else None
    state = engine.new_game("italian", 4, options=options, position=pieces, turn="red")
    state, _ = engine.apply(state, {"roll": 3})
    return state


def choice(name: str, state: GameState) -> Move:
    return player_for(name, random.Random(1), seconds=None).choose(state, engine.legal_moves(state))


@pytest.mark.parametrize("name", ["hard", "expert"])
def test_hard_and_expert_play_for_the_team(name: str) -> None:
    teams = partner_scene(teams=True)
    alone = partner_scene(teams=False)
    assert [m.captures for m in engine.legal_moves(teams)] == [("green", 0), ("blue", 0)]
    # with teams the capture that saves the partner's piece; alone, yellow is a rival
    assert choice(name, teams).piece == 0
    assert choice(name, alone).piece == 1
    # the partner's progress counts as red's own, a rival's against it
    ahead = engine.new_game(
        "italian", 4, options={"teams": True}, position=position(yellow=[40, 0, 0, 0]), turn="red"
    )
    behind = engine.new_game("italian", 4, options={"teams": True}, position=position(), turn="red")
    assert evaluate(ahead, 0) > evaluate(behind, 0)
    assert evaluate(ahead, 1) < evaluate(behind, 1)


def test_search_player_ties_go_to_the_rng() -> None:
    # two pieces side by side in the home column: both moves are worth the same
    state = engine.new_game("classic", 4, position=position(red=[52, 52, 0, 0]), turn="red")
    state, _ = engine.apply(state, {"roll": 2})
    moves = engine.legal_moves(state)
    assert SearchPlayer().choose(state, moves).piece == 0
    chosen = {SearchPlayer(random.Random(s)).choose(state, moves).piece for s in range(20)}
    assert chosen == {0, 1}


def test_the_rollout_bench_brings_a_piece_home_and_counts_its_games() -> None:
    from bench.rollout import RolloutPlayer, run_chunk

    # red rolls 1: one piece a square short of home (safe for ever once in), one on the track
    state = engine.new_game(
        "classic", 4, position=position(red=[57, 57, 56, 20], green=[10, 12, 0, 0]), turn="red"
    )
    state, _ = engine.apply(state, {"roll": 1})
    assert [m.piece for m in engine.legal_moves(state)] == [2, 3]
    player = RolloutPlayer(random.Random(3), rollouts=4, rolls=4)
    assert player.choose(state, engine.legal_moves(state)).piece == 2
    played, won, times = run_chunk("tower", side=1, games=2, seed=5, rollouts=2, rolls=2)
    assert played == 2 and 0 <= won <= 2 and times


def tower_exit_scene() -> GameState:
    """Tower, red rolled 5: piece 0 may come out (and roll again), piece 1 walk 5."""
    state = engine.new_game(
        "tower", 4, position=position(red=[0, 20, 0, 0], green=[10, 57, 57, 57]), turn="red"
    )
    state, _ = engine.apply(state, {"roll": 5})
    assert [m.piece for m in engine.legal_moves(state)] == [0, 1]
    return state


@pytest.mark.parametrize(
    ("free_own", "seen", "count"), [(0, {"green", "yellow"}, 12), (1, {"yellow"}, 42)]
)
def test_own_follow_up_rolls_can_be_looked_through_without_counting(
    free_own: int, seen: set[str], count: int
) -> None:
    # one roll deep: counting red's follow-up roll as the depth values coming out
    # before green answers (6 positions); looked through, coming out is valued
    # after red's 6 follow-ups and green's 6 answers to each (36)
    state = tower_exit_scene()
    evaluated: list[str] = []

    def record(s: GameState, c: int) -> float:
        evaluated.append(s.turn)
        return evaluate(s, c)

    search = DiceSearch(10**9, evaluate=record, free_own=free_own)
    search.values(state, engine.legal_moves(state), 1)
    assert set(evaluated) == seen
    assert len(evaluated) == count
    assert evaluated[-6:] == ["yellow"] * 6  # piece 1's: after green's answer either way


def test_the_tower_expert_searches_with_the_hand_made_worth() -> None:
    differ = 0
    for seed in range(12):
        state = midgame(seed, "tower")
        moves = engine.legal_moves(state)
        expert = player_for("expert", random.Random(seed), seconds=None).choose(state, moves)
        hand_made = SearchPlayer(random.Random(seed), depth=1, free_own=1).choose(state, moves)
        learned = SearchPlayer(random.Random(seed), depth=2, learned=True).choose(state, moves)
        assert expert == hand_made
        differ += expert != learned
    assert differ  # so the test can tell the two apart
    # everywhere else the expert keeps the learned chance, two rolls deep
    for seed in range(3):
        state = midgame(seed)
        moves = engine.legal_moves(state)
        expert = player_for("expert", random.Random(seed), seconds=None).choose(state, moves)
        learned = SearchPlayer(random.Random(seed), depth=2, learned=True).choose(state, moves)
        assert expert == learned
