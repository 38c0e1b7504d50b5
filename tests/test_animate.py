"""The animated replay of a whole game: ``renderer.animate``, the hosted game's
``game_animation`` and ``ludo-bot render --animate``."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageSequence

from bot.app.cli import main
from bot.hosting import OVER, Game, Seat, User
from bot.hosting.game import encode_action
from bot.players import HeuristicPlayer
from bot.present import game_animation
from bot.present.pictures import picture_names, picture_words
from engine import COLOURS, IllegalAction, RecordError, apply, legal_moves, make_record, new_game
from engine import start_of as engine_start_of
from renderer import animate, board_image
from renderer.animate import (
    ANIMATION_LIMIT,
    MIN_DELAY,
    frame_delays,
    game_frames,
    select,
    timing,
)

COMPUTERS = ("green", "yellow", "blue")


@cache
def full_game(rules: str = "classic", seed: int = 3) -> dict[str, Any]:
    """The record of a whole 4-player game: a seeded die, heuristic choices."""
    rng = random.Random(seed)
    player = HeuristicPlayer(rng)
    start = state = new_game(rules, 4)
    actions = []
    while not state.is_over:
        if state.phase == "roll":
            action = {"roll": rng.randint(1, 6)}
        else:
            action = {"move": player.choose(state, legal_moves(state)).piece}
        actions.append(action)
        state, _ = apply(state, action)
    return make_record(start, actions)


def part_of(record: dict[str, Any], actions: int) -> dict[str, Any]:
    """The record of the same game's first ``actions`` actions."""
    return dict(record, actions=record["actions"][:actions])


@cache
def full_gif() -> bytes:
    """A whole game, one person (red) against three computer players."""
    return animate(full_game(), computers=COMPUTERS)


def durations(gif: bytes) -> list[int]:
    with Image.open(io.BytesIO(gif)) as img:
        return [frame.info["duration"] for frame in ImageSequence.Iterator(img)]


def frame(gif: bytes, k: int) -> Image.Image:
    with Image.open(io.BytesIO(gif)) as img:
        img.seek(k)
        return img.convert("RGB")


def test_a_whole_game_is_an_animated_gif_of_about_thirty_seconds() -> None:
    gif = full_gif()
    assert len(gif) <= ANIMATION_LIMIT
    with Image.open(io.BytesIO(gif)) as img:
        assert img.format == "GIF"
        assert img.is_animated and img.n_frames > 100
        assert img.width == 480
        assert img.info.get("loop") == 0
    times = durations(gif)
    assert 20_000 <= sum(times) <= 40_000
    assert min(times) >= MIN_DELAY * 1000
    # the final standings hold longest, the start holds longer than a move
    assert times[-1] == max(times) >= 2500
    assert times[0] >= 500


def test_the_first_frame_is_the_start_position() -> None:
    gif = full_gif()
    start = board_image(engine_start_of(full_game()), size=480)
    # the same picture, but for the GIF's 255 colours
    assert ImageChops.difference(frame(gif, 0), start).convert("L").getextrema()[1] < 48
    assert ImageChops.difference(frame(gif, 1), start).convert("L").getextrema()[1] > 100


def test_computer_moves_are_shown_shorter_than_peoples() -> None:
    record = full_game()
    _, moves, final = game_frames(record, COMPUTERS)
    assert final.is_over
    assert {f.computer for f in moves} == {True, False}
    chosen = select(moves, 25.0)
    delays = frame_delays(chosen, 25.0)
    people = {d for f, d in zip(chosen, delays, strict=True) if not f.computer}
    computers = {d for f, d in zip(chosen, delays, strict=True) if f.computer}
    assert max(computers) * 2 <= min(people)
    assert min(computers) >= MIN_DELAY
    # in the GIF too: the middle frames have two lengths, a short and a long one
    middle = sorted(set(durations(full_gif())[1:-2]))
    assert middle[0] * 2 <= middle[-1]


def test_people_only_moves_all_last_alike() -> None:
    _, moves, _ = game_frames(full_game(), ())
    delays = set(frame_delays(select(moves, 25.0), 25.0))
    assert len(delays) == 1 and delays.pop() >= MIN_DELAY


def test_too_many_frames_drop_computer_moves_first_and_keep_captures_and_homes() -> None:
    _, moves, _ = game_frames(full_game(), COMPUTERS)
    chosen = select(moves, 25.0)
    assert timing(*count(chosen), 25.0) is not None
    kept = {id(f) for f in chosen}
    assert all(id(f) in kept for f in moves if f.key)  # every capture, every piece home
    dropped = [f for f in moves if id(f) not in kept]
    assert dropped and all(f.computer and not f.key for f in dropped)
    # less time: no computer move is left but captures and homes, then people's go too
    chosen = select(moves, 10.0)
    assert timing(*count(chosen), 10.0) is not None
    assert all(f.key for f in chosen if f.computer)
    assert {id(f) for f in moves if f.key} <= {id(f) for f in chosen}
    assert 0 < sum(not f.computer for f in chosen) < sum(not f.computer for f in moves)


def count(frames: list[Any]) -> tuple[int, int]:
    computers = sum(f.computer for f in frames)
    return len(frames) - computers, computers


def test_a_short_game_is_a_short_animation() -> None:
    gif = animate(part_of(full_game(), 12))
    with Image.open(io.BytesIO(gif)) as img:
        assert img.n_frames >= 3
    assert sum(durations(gif)) < 20_000


def test_a_small_limit_shrinks_the_animation_to_fit() -> None:
    record = part_of(full_game(), 300)
    limit = len(animate(record)) // 4
    gif = animate(record, limit=limit)
    assert len(gif) <= limit
    with Image.open(io.BytesIO(gif)) as img:
        assert img.format == "GIF" and img.n_frames > 1
        assert img.width < 480
        img.seek(img.n_frames - 1)
        img.load()


def test_a_limit_too_small_for_any_animation_is_refused() -> None:
    with pytest.raises(ValueError, match="fits in 100 bytes"):
        animate(part_of(full_game(), 8), limit=100)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"size": 50}, "size must be"),
        ({"theme": "neon"}, "unknown theme"),
        ({"seconds": 0}, "seconds must be"),
        ({"limit": 0}, "limit must be"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        animate(part_of(full_game(), 8), **kwargs)


def test_a_bad_record_is_refused() -> None:
    bad = dict(full_game(), actions=[{"roll": 6}, {"move": 0}, {"roll": 3}, {"move": 2}])
    with pytest.raises(IllegalAction, match=r"^action 3: "):
        animate(bad)
    with pytest.raises(RecordError):
        animate("{not json")
    with pytest.raises(RecordError):
        animate({"rules": "chess", "players": ["red", "yellow"]})


def test_the_record_may_carry_its_dice() -> None:
    record = dict(part_of(full_game(), 20), dice={"commitment": "x", "seed": None})
    assert animate(record) == animate(part_of(full_game(), 20))


def hosted(record: dict[str, Any]) -> Game:
    ana, ben = User("local", "1", "Ana"), User("local", "2", "Ben")
    return Game(
        id="0123abcd",
        channel="chan",
        rules=record["rules"],
        options={},
        creator=ana,
        timer=0,
        status=OVER,
        seats=[
            Seat(ana, "red"),
            Seat(None, "green"),
            Seat(ben, "yellow", took_over=True),
            Seat(None, "blue"),
        ],
        start={"players": record["players"], "position": None, "turn": record["turn"]},
        actions="".join(encode_action(a) for a in record["actions"]),
        lang="it",
    )


def test_a_hosted_game_is_animated_with_its_names_and_language() -> None:
    record = part_of(full_game(), 120)
    game = hosted(record)
    gif = game_animation(game)
    expected = animate(
        record,
        names=picture_names(game, "it"),
        computers=COMPUTERS,
        words=picture_words("it"),
    )
    assert gif == expected
    assert game_animation(game, "en") != gif
    with Image.open(io.BytesIO(game_animation(game, size=300))) as img:
        assert img.width == 300


def test_a_game_not_started_has_no_animation() -> None:
    game = hosted(part_of(full_game(), 0))
    game.start = None
    with pytest.raises(ValueError, match="not started"):
        game_animation(game)


# -- the command line ------------------------------------------------------------


def test_render_animate_writes_a_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(part_of(full_game(), 200)))
    out = tmp_path / "game.gif"
    argv = ["render", str(path), "--animate", "-o", str(out), "--name", "red=Ana"]
    assert main([*argv, "--computer", "green", "--size", "320", "--theme", "dark"]) == 0
    assert capsys.readouterr().err == ""
    with Image.open(out) as img:
        assert img.format == "GIF" and img.n_frames > 1 and img.width == 320


def test_render_animate_writes_game_gif_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(part_of(full_game(), 30)))
    monkeypatch.chdir(tmp_path)
    assert main(["render", str(path), "--animate"]) == 0
    with Image.open(tmp_path / "game.gif") as img:
        assert img.format == "GIF" and img.width == 480
    assert not (tmp_path / "board.png").exists()


@pytest.mark.parametrize(
    ("stdin", "code", "error"),
    [
        ("{not json", 1, "record: the record is not valid JSON"),
        (json.dumps({"rules": "chess", "players": ["red"]}), 1, "record: "),
        (
            json.dumps(dict(full_game(), actions=[{"roll": 6}, {"move": 0}, {"move": 2}])),
            1,
            "action 2: ",
        ),
        ("[" * 100_000 + "]" * 100_000, 1, "record: the record is nested too deeply"),
    ],
)
def test_render_animate_bad_record_is_one_clear_line(
    tmp_path: Path, stdin: str, code: int, error: str
) -> None:
    out = tmp_path / "game.gif"
    done = subprocess.run(
        [sys.executable, "-m", "bot.app.cli", "render", "-", "--animate", "-o", str(out)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == code
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(error), done.stderr
    assert not out.exists()


def test_render_animate_refuses_a_bad_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(part_of(full_game(), 10)))
    out = tmp_path / "game.gif"
    assert main(["render", str(path), "--animate", "-o", str(out), "--size", "50"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "size must be" in err
    assert not out.exists()


def test_render_computer_takes_colours_only() -> None:
    with pytest.raises(SystemExit):
        main(["render", "x.json", "--animate", "--computer", "purple"])
    assert set(COMPUTERS) < set(COLOURS)
