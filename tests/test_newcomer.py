"""A newcomer's first hour without the chat bot: ``ludo-bot play --record`` and
``simulate --record`` write records that ``replay``, ``render`` and ``verify`` take;
RULES.md's example passes ``verify``; ``verify`` names a changed roll first; one exit
status for the same bad input in every command; ``render`` writes only the kind of
image its file's name says; ``--images`` makes only the last folder."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.app.cli import main
from bot.hosting.dice import check
from tests.helpers.cli import RECORD, ludo_bot

ROOT = Path(__file__).resolve().parent.parent


def status(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def played(tmp_path: Path, *more: str) -> dict[str, Any]:
    path = tmp_path / "game.json"
    done = ludo_bot(
        "play", "--rules", "tower", "--players", "2", "--seed", "4", *more, "--record", str(path)
    )
    assert done.returncode == 0, done.stderr
    record: dict[str, Any] = json.loads(path.read_text())
    return record


# -- play --record, simulate --record ------------------------------------------


def test_a_played_game_is_recorded_for_replay_render_and_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = played(tmp_path)
    path = tmp_path / "game.json"
    state = engine.replay(record)
    assert state.is_over and record["dice"]["seed"]
    rolls = sum(1 for a in record["actions"] if "roll" in a)
    code, out, err = status(["verify", str(path)], capsys)
    assert code == 0, err
    assert out.startswith(f"all {rolls} rolls came from the seed")
    code, out, _ = status(["replay", str(path)], capsys)
    assert code == 0 and json.loads(out) == state.summary()
    board = tmp_path / "board.png"
    code, _, err = status(["render", str(path), "-o", str(board)], capsys)
    assert code == 0, err
    assert board.read_bytes().startswith(b"\x89PNG\r\n")
    # --seed: the same game, the same record, dice and all
    assert played(tmp_path) == record


def test_the_record_is_written_when_the_player_leaves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "left.json"
    # red is a person reading piece numbers from standard input, which ends at once
    done = ludo_bot(
        "play", "--rules", "classic", "--players", "2", "--seed", "1", "--human", "red",
        "--record", str(path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = json.loads(path.read_text())
    assert not engine.replay(record).is_over and record["actions"]
    assert check(record) == (sum(1 for a in record["actions"] if "roll" in a), [])
    assert status(["verify", str(path)], capsys)[0] == 0


def test_play_refuses_a_record_it_cannot_write_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for target, words in [
        (tmp_path / "none" / "g.json", "does not exist"),
        (tmp_path, "it is a folder"),
    ]:
        code, out, err = status(["play", "--record", str(target)], capsys)
        assert code == 2 and out == ""
        assert words in one_line(err) and one_line(err).startswith("ludo-bot: --record")
    assert not (tmp_path / "none").exists()


def test_simulate_writes_one_verifiable_record_per_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "games"
    argv = ["simulate", "--rules", "super", "--games", "3", "--seed", "2", "--record", str(folder)]
    code, out, err = status(argv, capsys)
    assert code == 0, err
    figures = json.loads(out)
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json", "game-0003.json"]
    rolls = 0
    for f in files:
        record = json.loads(f.read_text())
        assert engine.replay(record).is_over
        assert status(["verify", str(f)], capsys)[0] == 0
        assert status(["replay", str(f)], capsys)[0] == 0
        rolls += sum(1 for a in record["actions"] if "roll" in a)
    assert rolls == figures["rolls"]
    # the same seed, the same games
    again = tmp_path / "again"
    assert status([*argv[:-1], str(again)], capsys)[0] == 0
    assert [f.read_text() for f in files] == [f.read_text() for f in sorted(again.iterdir())]


# -- verify ------------------------------------------------------------------


def rules_md_example() -> dict[str, Any]:
    text = (ROOT / "docs" / "RULES.md").read_text()
    section = text[text.index("## 7. The game record") :]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None
    example: dict[str, Any] = json.loads(block.group(1))
    return example


def test_the_example_record_of_rules_md_passes_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "example.json"
    path.write_text(json.dumps(rules_md_example()))
    code, out, err = status(["verify", str(path)], capsys)
    assert code == 0, err
    assert out.startswith("all 2 rolls came from the seed")
    assert status(["replay", str(path)], capsys)[0] == 0


def breaking_roll(record: dict[str, Any]) -> tuple[int, int, int, dict[str, Any]]:
    """The last roll that, changed, stops the game replaying: its number (from 1), the
    die it was, the die it is changed to, and the record so changed."""
    rolls = [i for i, a in enumerate(record["actions"]) if "roll" in a]
    for n in range(len(rolls), 0, -1):
        k = rolls[n - 1]
        for die in range(1, 7):
            changed = json.loads(json.dumps(record))
            changed["actions"][k]["roll"] = die
            try:
                engine.replay(changed)
            except engine.IllegalAction:
                return n, record["actions"][k]["roll"], die, changed
    raise AssertionError("every roll replays, whatever its die")


def test_verify_names_a_changed_roll_even_when_the_game_no_longer_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = played(tmp_path)
    n, was, die, changed = breaking_roll(record)
    assert n > sum(1 for a in record["actions"] if "roll" in a) - 20
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed))
    code, out, err = status(["verify", str(path)], capsys)
    assert code == 1 and out == ""
    assert one_line(err) == f"roll {n} is {die}, but the seed gives {was}"


def test_verify_says_when_a_record_has_no_dice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(RECORD))
    code, _, err = status(["verify", str(path)], capsys)
    assert code == 1
    assert "no dice" in one_line(err) and "--record" in one_line(err)


# -- one exit status for the same bad input ------------------------------------

BAD = [
    ("missing", None, 2),
    ("not json", "{", 1),
    ("a list", "[]", 1),
    ("too deep", "[" * 100_000 + "]" * 100_000, 1),
    ("unknown rules", '{"rules": "chess", "players": ["red", "yellow"], "dice": DICE}', 1),
]


@pytest.mark.parametrize(("what", "text", "code"), BAD, ids=[b[0] for b in BAD])
def test_replay_verify_and_render_exit_alike_for_the_same_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, text: str | None, code: int
) -> None:
    path = tmp_path / "x.json"
    if text is not None:
        path.write_text(text.replace("DICE", json.dumps(rules_md_example()["dice"])))
    out_png = str(tmp_path / "b.png")
    said = {}
    for argv in (
        ["replay", str(path)],
        ["verify", str(path)],
        ["render", str(path), "-o", out_png],
    ):
        got, out, err = status(argv, capsys)
        assert got == code, (argv[0], err)
        assert out == ""
        said[argv[0]] = one_line(err)
    assert said["replay"] == said["verify"] == said["render"]
    assert not Path(out_png).exists()


def test_an_illegal_action_exits_1_in_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = rules_md_example()
    record["actions"][-1] = {"move": 2}  # piece 2 is in the base: a 3 cannot bring it out
    path = tmp_path / "x.json"
    path.write_text(json.dumps(record))
    out_png = str(tmp_path / "b.png")
    for argv in (
        ["replay", str(path)],
        ["verify", str(path)],
        ["render", str(path), "-o", out_png],
    ):
        code, _, err = status(argv, capsys)
        assert code == 1 and one_line(err).startswith("action 3: piece 2 is in the base")


# -- render: the kind of image its name says -----------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-o", "{d}/x.gif"], "-o {d}/x.gif: this draws a PNG image, so name it *.png"),
        (["-o", "{d}/x.jpg"], "-o {d}/x.jpg: this draws a PNG image, so name it *.png"),
        (["-o", "{d}/x"], "-o {d}/x: this draws a PNG image"),
        (
            ["--animate", "-o", "{d}/x.png"],
            "this draws an animated GIF (--animate), so name it *.gif",
        ),
        (
            ["-o", "{d}/x.png", "--standings", "{d}/s.gif"],
            "--standings {d}/s.gif: this draws a PNG",
        ),
    ],
)
def test_render_refuses_a_file_name_of_another_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))
    args = [a.replace("{d}", str(tmp_path)) for a in args]
    code, out, err = status(["render", str(path), *args], capsys)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("ludo-bot: ") and words.replace("{d}", str(tmp_path)) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # nothing written


def test_render_writes_what_its_file_name_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))
    png, gif = tmp_path / "Board.PNG", tmp_path / "game.gif"
    assert status(["render", str(path), "-o", str(png)], capsys)[0] == 0
    assert (
        status(["render", str(path), "--animate", "-o", str(gif), "--size", "300"], capsys)[0] == 0
    )
    assert png.read_bytes().startswith(b"\x89PNG") and gif.read_bytes().startswith(b"GIF8")


# -- --images: only the last folder ---------------------------------------------


def test_images_makes_only_the_last_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = tmp_path / "some" / "new" / "path"
    code, out, err = status(["play", "--images", str(deep)], capsys)
    assert code == 2 and out == ""
    line = one_line(err)
    assert f"--images {deep}: the folder {str(deep.parent)!r} does not exist" in line
    assert not (tmp_path / "some").exists()
    # in a folder that is there, the last one is made
    folder = tmp_path / "boards"
    argv = ["play", "--rules", "italian", "--players", "2", "--seed", "3", "--images", str(folder)]
    argv += ["--size", "300", "--options", '{"pieces_to_win": 2, "exit_rolls": [1, 2, 3, 4, 5, 6]}']
    code, _, err = status(argv, capsys)
    assert code == 0, err
    assert (folder / "standings.png").exists()
