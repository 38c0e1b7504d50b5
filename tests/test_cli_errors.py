"""Every input error of the ``ludo-bot`` command is one line on standard error and a
non-zero status, never a traceback; ``ludo-bot --version``."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.cli import main
from tests.helpers.cli import ludo_bot

GOOD = {
    "rules": "classic",
    "players": ["red", "yellow"],
    "turn": "red",
    "actions": [{"roll": 6}, {"move": 0}],
}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``ludo-bot ARGV`` in this process: its status, standard output and error."""
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own exit, after its one line
        code = e.code if isinstance(e.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "good.json").write_text(json.dumps(GOOD))
    (tmp_path / "binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "plain").write_text("a file")
    return {
        "good": str(tmp_path / "good.json"),
        "binary": str(tmp_path / "binary.json"),
        "deep": str(tmp_path / "deep.json"),
        "plain": str(tmp_path / "plain"),
        "folder": str(tmp_path),
        "missing": str(tmp_path / "missing.json"),
        "new": str(tmp_path / "new"),
        "out": str(tmp_path / "out.png"),
    }


CASES = [
    # play
    (["play", "--size", "10"], "--size must be from 300 to 2400 pixels, not 10"),
    (["play", "--size", "10", "--no-images"], "--size must be from 300 to 2400 pixels"),
    (["play", "--size", "ten"], "argument --size: invalid int value: 'ten'"),
    (["play", "--images", "/proc/nope"], "--images /proc/nope: cannot make the folder"),
    (["play", "--images", "{plain}"], "there is a file of that name"),
    (["play", "--images", "{new}/boards"], "does not exist (only the last folder is made)"),
    (["play", "--record", "{new}/game.json"], "--record"),
    (["play", "--options", "{"], "--options is not valid JSON"),
    (["play", "--options", "[1]"], "--options must be a JSON object"),
    (["play", "--options", "[" * 100_000], "--options is nested too deeply"),
    (["play", "--options", '{"foo": 1}'], "unknown option 'foo'"),
    (["play", "--players", "2", "--options", '{"teams": true}'], "they need 4 players"),
    (["play", "--human", "purple"], "argument --human: invalid choice: 'purple'"),
    (["play", "--players", "2", "--human", "green"], "green is not playing"),
    (["play", "--players", "5"], "argument --players: invalid choice: 5"),
    (["play", "--rules", "chess"], "argument --rules: invalid choice: 'chess'"),
    (["play", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    (["play", "--lang", "xx"], "--lang 'xx' is not a language I speak"),
    # simulate
    (["simulate"], "the following arguments are required: --rules"),
    (["simulate", "--rules", "classic", "--games", "-1"], "--games cannot be negative"),
    (["simulate", "--rules", "super", "--options", "{"], "--options is not valid JSON"),
    (["simulate", "--rules", "tower", "--policy", "clever"], "invalid choice: 'clever'"),
    (["simulate", "--rules", "tower", "--record", "{new}/games"], "does not exist"),
    # replay
    (["replay", "{missing}"], "cannot read"),
    (["replay", "{folder}"], "Is a directory"),
    (["replay", "{binary}"], "it is not UTF-8 text"),
    (["replay", "{deep}"], "record: the record is nested too deeply"),
    (["replay", "{plain}"], "record: "),
    # render
    (["render", "{missing}", "-o", "{out}"], "cannot read"),
    (["render", "{folder}", "-o", "{out}"], "Is a directory"),
    (["render", "{binary}", "-o", "{out}"], "cannot read"),
    (["render", "{deep}", "-o", "{out}"], "record: the record is nested too deeply"),
    (["render", "{plain}", "-o", "{out}"], "record: "),
    (["render", "{good}", "-o", "{new}/board.png"], "cannot write"),
    (["render", "{good}", "-o", "{folder}"], "cannot write"),
    (["render", "{good}", "-o", "{folder}/x.gif"], "this draws a PNG image, so name it *.png"),
    (["render", "{good}", "--animate", "-o", "{out}"], "so name it *.gif"),
    (["render", "{good}", "-o", "{out}", "--standings", "/proc/nope/s.png"], "cannot write"),
    (["render", "{good}", "-o", "{out}", "--size", "50"], "size must be"),
    (["render", "{good}", "-o", "{out}", "--name", "purple=x"], "--name takes COLOUR=NAME"),
    (["render", "{good}", "-o", "{out}", "--theme", "neon"], "invalid choice: 'neon'"),
    (["render", "{good}", "-o", "{out}", "--lang", "xx"], "is not a language I speak"),
    # the command itself
    ([], "the following arguments are required: command"),
    (["dance"], "argument command: invalid choice: 'dance'"),
    (["backup"], "the following arguments are required: file"),
    (["play", "--bogus"], "unrecognized arguments: --bogus"),
]


@pytest.mark.parametrize(("argv", "words"), CASES, ids=[" ".join(c[0])[:50] for c in CASES])
def test_an_input_error_is_one_line_and_a_non_zero_status(
    argv: list[str], words: str, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for name, path in files.items():
        argv = [a.replace("{" + name + "}", path) for a in argv]
    code, out, err = run(argv, capsys)
    assert code != 0
    line = one_line(err)
    assert words in line
    assert line.startswith(("ludo-bot", "record: "))
    assert out == ""
    assert not Path(files["new"]).exists() and not Path(files["out"]).exists()


def test_nothing_is_made_before_the_arguments_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "boards"
    code, _, err = run(["play", "--size", "10", "--images", str(folder)], capsys)
    assert code == 2 and "--size" in one_line(err)
    assert not folder.exists()


def test_the_version_is_the_installed_one() -> None:
    done = ludo_bot("--version", timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"ludo-bot {importlib.metadata.version('ludo-bot')}\n"


def test_an_input_error_in_a_real_process_is_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.app.cli", "play", "--images", "/proc/nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert one_line(done.stderr).startswith("ludo-bot: --images /proc/nope: cannot make")


def test_a_reader_that_goes_away_ends_the_game_quietly(tmp_path: Path) -> None:
    # `ludo-bot play | head -1`: no traceback and no word about the images either
    argv = [sys.executable, "-m", "bot.app.cli", "play", "--seed", "1"]
    argv += ["--images", str(tmp_path), "--size", "300"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 141
    assert proc.stderr.read() == b""
    proc.stderr.close()


def test_the_help_shows_no_markup_and_run_says_what_it_needs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``ludo-bot --help`` reads as plain text; ``ludo-bot run --help`` names the tokens,
    the .env file (and LUDO_ENV_FILE) and every exit status."""
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "``" not in out and ":mod:" not in out and "run --help" in out
    code, out, _ = run(["run", "--help"], capsys)
    assert code == 0 and "``" not in out
    for words in ("TELEGRAM_TOKEN", "DISCORD_TOKEN", ".env", "LUDO_ENV_FILE", "Exit status"):
        assert words in out, words
    statuses = {line.split()[0] for line in out.splitlines() if line[:2] == "  " and line.split()}
    assert {"0", "2", "75"} <= statuses, out
