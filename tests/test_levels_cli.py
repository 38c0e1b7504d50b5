"""The computer levels at the command line: ``ludo-bot play --level`` and
``ludo-bot simulate --seats`` (small games: normal and random movers, a few
decisions of the search levels at most)."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from bot.app import seats, terminal
from bot.app.cli import build_parser, cmd_play, main
from bot.app.seats import simulate_seats, wilson
from bot.players import RandomPlayer
from engine import GameState, Move


class Recording:
    """``player_for`` as the code under test asks it: the levels asked for, and who
    each decision was for (random legal moves, so the test stays fast)."""

    def __init__(self) -> None:
        self.levels: list[str] = []
        self.turns: dict[str, set[str]] = {}

    def __call__(self, level: str, rng: random.Random, **_: Any) -> Any:
        self.levels.append(level)
        turns = self.turns.setdefault(level, set())
        player = RandomPlayer(rng)

        class Player:
            def choose(self, state: GameState, moves: list[Move]) -> Move:
                turns.add(state.turn)
                return player.choose(state, moves)

        return Player()


def test_play_level_chooses_the_computers_level(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = Recording()
    monkeypatch.setattr(terminal, "player_for", asked)
    args = build_parser().parse_args(["play", "--seed", "4", "--players", "2", "--level", "hard"])
    out = io.StringIO()
    assert cmd_play(args, io.StringIO(), out) == 0
    assert "Final ranking:" in out.getvalue()
    assert asked.levels[-1] == "hard" and asked.turns["hard"] == {"red", "yellow"}
    # without --level: normal
    args = build_parser().parse_args(["play", "--seed", "4", "--players", "2"])
    assert cmd_play(args, io.StringIO(), io.StringIO()) == 0
    assert asked.levels[-1] == "normal"


def test_play_at_the_easy_level_plays_to_the_end() -> None:
    args = build_parser().parse_args(["play", "--seed", "7", "--players", "2", "--level", "easy"])
    out = io.StringIO()
    assert cmd_play(args, io.StringIO(), out) == 0
    assert "Final ranking:" in out.getvalue()


def test_play_refuses_a_level_that_is_none(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "--level", "godlike"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--level" in err and "'easy', 'normal', 'hard', 'expert'" in err


def test_simulate_seats_prints_each_levels_figures(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "classic", "--games", "8", "--seed", "3"]
    assert main([*argv, "--seats", "normal,random,normal,random"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["rules"], out["games"]) == ("classic", 8)
    assert out["seats"] == ["normal", "random", "normal", "random"]
    assert set(out["levels"]) == {"normal", "random"}
    total = 0
    for figures in out["levels"].values():
        assert (figures["games"], figures["seats"]) == (16, 2)
        assert figures["win_rate"] == round(figures["wins"] / 16, 4)
        low, high = figures["ci95"]
        assert 0 <= low <= figures["win_rate"] <= high <= 1
        assert figures["ms_median"] is not None and figures["ms_p99"] >= figures["ms_median"]
        total += figures["wins"]
    assert total == 8  # one winner a game
    # the same seed, the same games
    assert main([*argv, "--seats", "normal,random,normal,random"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert {k: v["wins"] for k, v in again["levels"].items()} == {
        k: v["wins"] for k, v in out["levels"].items()
    }


def test_each_level_plays_each_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = Recording()
    monkeypatch.setattr(seats, "player_for", asked)
    result = simulate_seats("classic", 8, ["hard", "normal", "normal", "normal"], seed=1)
    assert sorted(set(asked.levels)) == ["hard", "normal"]
    assert asked.turns["hard"] == {"red", "green", "yellow", "blue"}
    assert result["levels"]["hard"]["games"] == 8 and result["levels"]["normal"]["games"] == 24


def test_teams_share_a_level_per_team(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "italian", "--options", '{"teams": true}', "--games", "8"]
    assert main([*argv, "--seats", "normal,random,normal,random"]) == 0
    out = json.loads(capsys.readouterr().out)
    # a team's win is a win of both its seats
    assert sum(f["wins"] for f in out["levels"].values()) == 16
    assert main([*argv, "--seats", "normal,random,random,normal"]) == 2
    assert "partners share a level" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("seats_arg", "said"),
    [
        ("normal,godlike,normal,normal", "'godlike' is no level"),
        ("normal,normal", "names 2 levels for 4 players"),
        ("normal,,normal,normal", "'(nothing)' is no level"),
    ],
)
def test_simulate_refuses_bad_seats(
    seats_arg: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "--rules", "classic", "--games", "2", "--seats", seats_arg]
    try:
        code = main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    assert code == 2
    assert said in capsys.readouterr().err


def test_the_wilson_interval() -> None:
    assert wilson(0, 0) == [0.0, 1.0]
    assert wilson(5, 10) == [0.2366, 0.7634]
    assert wilson(10, 10)[1] == 1.0 and wilson(0, 10)[0] == 0.0
