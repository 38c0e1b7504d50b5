"""The ludo-bot command line: replay, simulate, play."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.app import terminal
from bot.app.cli import build_parser, cmd_play, main, replay_to_end
from bot.present import Text, languages, say
from bot.present.catalog import translations
from bot.present.narrate import describe_move, where
from engine import Move
from tests.helpers.cli import RECORD, ludo_bot


def test_replay_a_file_prints_the_final_state(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(RECORD))
    done = ludo_bot("replay", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["pieces"] == {"red": [4, 0, 0, 0], "yellow": [0, 0, 0, 0]}
    assert out["turn"] == "yellow" and out["phase"] == "roll"
    assert out["winner"] is None and out["ranking"] is None
    assert out["scores"] == {"red": 4, "yellow": 0}


def test_replay_reads_standard_input() -> None:
    done = ludo_bot("replay", "-", stdin=json.dumps(RECORD))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["pieces"]["red"] == [4, 0, 0, 0]


def test_replay_illegal_action_exits_1_naming_the_action() -> None:
    bad = dict(RECORD, actions=[{"roll": 6}, {"move": 0}, {"roll": 3}, {"move": 1}])
    done = ludo_bot("replay", "-", stdin=json.dumps(bad))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip() == "action 3: piece 1 is in the base: it needs a 6 to come out"


@pytest.mark.parametrize("text", ["{not json", '{"rules": "nope", "players": ["red", "yellow"]}'])
def test_replay_bad_record_is_one_clear_line(text: str) -> None:
    done = ludo_bot("replay", "-", stdin=text)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith("record: ")


def test_replay_missing_file(tmp_path: Path) -> None:
    done = ludo_bot("replay", str(tmp_path / "missing.json"))
    assert done.returncode == 2
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr


def test_simulate_prints_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["simulate", "--rules", "tower", "--games", "20", "--seed", "5", "--players", "3"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 20
    assert out["rolls"] >= out["moves"] > 0
    assert sum(out["wins"].values()) == 20
    assert set(out["wins"]) <= {"red", "green", "yellow"}
    assert out["seconds"] > 0
    assert out["mean_game_length"]["moves"] == round(out["moves"] / 20, 1)


def test_simulate_is_repeatable_with_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    runs = []
    for _ in range(2):
        main(["simulate", "--rules", "super", "--games", "5", "--seed", "11"])
        out = json.loads(capsys.readouterr().out)
        runs.append((out["rolls"], out["moves"], out["wins"]))
    assert runs[0] == runs[1]


def test_simulate_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "simulate",
                "--rules",
                "italian",
                "--games",
                "10",
                "--seed",
                "1",
                "--options",
                '{"teams": true}',
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out["wins"]) <= {"red + yellow", "green + blue"}
    assert main(["simulate", "--rules", "italian", "--options", '{"teams": 1}']) == 2
    assert "must be true or false" in capsys.readouterr().err


def test_play_runs_unattended_to_a_ranking() -> None:
    args = build_parser().parse_args(
        ["play", "--rules", "classic", "--seed", "4", "--players", "3", "--no-images"]
    )
    out = io.StringIO()
    assert cmd_play(args, io.StringIO(), out) == 0
    text = out.getvalue()
    assert " rolled " in text and "Final ranking:" in text
    assert "1000 points" in text  # the classic winner always has 1000


def test_play_with_a_human_asks_for_pieces() -> None:
    args = build_parser().parse_args(
        ["play", "--rules", "italian", "--seed", "2", "--players", "2", "--human", "red"]
    )
    out = io.StringIO()
    # a person who answers nonsense is asked again; the end of input ends the game politely
    answers = io.StringIO("x\n9\n" + "1\n2\n3\n4\n" * 400)
    assert cmd_play(args, answers, out) == 0
    text = out.getvalue()
    assert say(Text("term.ask")) in text  # "Piece number? "
    assert say(Text("term.ask")) + "Choose " in text  # asked again after "x" and "9"


def test_play_refuses_a_colour_not_in_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--players", "2", "--human", "green"]) == 2
    assert "green is not playing" in capsys.readouterr().err


def test_play_writes_a_board_image_after_every_move(tmp_path: Path) -> None:
    from PIL import Image

    folder = tmp_path / "boards"
    argv = ["play", "--rules", "super", "--seed", "8", "--images", str(folder), "--size", "300"]
    args = build_parser().parse_args([*argv, "--verbose"])  # every move told
    out = io.StringIO()
    assert cmd_play(args, io.StringIO(), out) == 0
    moves = sum(
        1
        for line in out.getvalue().splitlines()
        if " moved piece " in line or " brought piece " in line
    )
    shots = sorted(folder.glob("[0-9]*.png"))
    # one image per move, named in order, plus the standings at the end
    assert len(shots) == moves > 0
    assert shots[0].name == "0001.png"
    assert (folder / "standings.png").exists()
    assert str(folder) in out.getvalue()
    with Image.open(shots[-1]) as img:
        assert img.format == "PNG" and img.size[0] == 300


def said_lines(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], stdin: str = ""
) -> tuple[str, list[tuple[Text, str | None]]]:
    """What ``ludo-bot play ARGV`` printed, and every text it said (and in which language)."""
    texts: list[tuple[Text, str | None]] = []

    def say_and_note(text: Text, escape: Any = None, lang: str | None = None) -> str:
        texts.append((text, lang))
        return say(text, escape, lang)

    monkeypatch.setattr(terminal, "say", say_and_note)
    out = io.StringIO()
    assert cmd_play(build_parser().parse_args(["play", *argv]), io.StringIO(stdin), out) == 0
    monkeypatch.undo()
    return out.getvalue(), texts


def test_play_in_italian_says_everything_from_the_catalog(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A whole computer game in Italian: every line printed is a catalog text said in
    # Italian (the events, the ranking), the same game as in English (same seed).
    argv = ["--rules", "classic", "--seed", "4", "--players", "3", "--size", "300"]
    it_text, it_said = said_lines(monkeypatch, [*argv, "--lang", "it", "--images", str(tmp_path)])
    en_text, en_said = said_lines(monkeypatch, [*argv, "--images", str(tmp_path / "en")])
    assert {lang for _, lang in it_said} == {"it"} and {lang for _, lang in en_said} == {"en"}
    assert [t.key for t, _ in it_said] == [t.key for t, _ in en_said]  # the same game
    lines = it_text.splitlines()
    # every line is said from the catalog: a text, or the texts of a roll and its move
    # (the short story: "Round 12: ... moved ... captured ..."), nothing else, in order
    said = iter([say(t, lang="it") for t, _ in it_said])
    for line in lines:
        parts = [next(said)]
        while " ".join(parts) != line.strip():
            assert line.strip().startswith(" ".join(parts) + " "), line
            parts.append(next(said))
    assert next(said, None) is None
    keys = [t.key for t, _ in it_said]
    assert keys[:2] == ["term.begins", "term.images"]
    assert "term.round" in keys and "ev.enter" in keys and "ev.game_over" in keys
    assert any(t.params.get("die") for t, _ in it_said)  # the rolls are told with the moves
    assert keys[-5:] == ["term.ranking", *["term.place_points"] * 3, "term.images_done"]
    # the words are Italian ones: the colours and the catalog's sentences
    red = translations("it").pgettext("colour", "red")
    assert red != "red" and f"{red}," in lines[0]
    assert say(Text("term.ranking"), lang="it") != say(Text("term.ranking"))
    assert say(Text("term.ranking"), lang="it") in lines
    assert it_text != en_text and len(lines) == len(en_text.splitlines())
    # the images speak Italian too: the same game's standings, other words
    italian = (tmp_path / "standings.png").read_bytes()
    assert italian != (tmp_path / "en" / "standings.png").read_bytes()


def test_play_asks_a_person_in_their_language(monkeypatch: pytest.MonkeyPatch) -> None:
    # The questions to a person at the terminal come from the catalog too.
    argv = ["--rules", "italian", "--seed", "2", "--players", "2", "--human", "red", "--no-images"]
    # nonsense twice, then the end of the input: asked again, then a polite goodbye
    text, texts = said_lines(monkeypatch, [*argv, "--lang", "italiano"], "x\n9\n")
    assert {lang for _, lang in texts} == {"it"}
    keys = {t.key for t, _ in texts}
    assert {"term.your_turn", "term.ask", "term.choose", "term.move"} <= keys
    assert say(Text("term.ask"), lang="it") in text
    choose = next(t for t, _ in texts if t.key == "term.choose")
    assert say(Text("term.ask"), lang="it") + say(choose, lang="it") + "\n" in text
    assert text.endswith(say(Text("term.ask"), lang="it") + say(Text("term.bye"), lang="it") + "\n")


def test_the_moves_offered_are_said_in_words_of_the_catalog() -> None:
    # A move offered at the terminal: where from and to, what it captures, what it forms.
    plain = describe_move(Move("red", 1, 14, 18, 4))
    assert [say(t) for t in plain] == ["2: square 14 → square 18"]
    entering = describe_move(Move("red", 0, 0, 1, 6, True, ("green", 2), "tower"))
    assert [t.key for t in entering] == ["term.move.captures", "term.forms.tower"]
    assert say(entering[0]) == "1: base → square 1, captures green 3"
    green = translations("it").pgettext("colour", "green")
    assert green != "green" and green in say(entering[0], lang="it")
    bouncing = describe_move(Move("blue", 3, 55, 53, 6, bounce=True))
    assert [say(t) for t in bouncing] == ["4: column 4 → column 2", "bounces off home"]
    assert [say(where(p)) for p in (0, 7, 52, 57)] == ["base", "square 7", "column 1", "home"]
    assert [say(where(p), lang="it") for p in (0, 7)] == [
        say(Text("sq.base"), lang="it"),
        say(Text("sq.track", {"n": 7}), lang="it"),
    ]


@pytest.mark.parametrize(("code", "lang"), [("pt", "pt_BR"), ("pt-BR", "pt_BR"), ("es", "es")])
def test_play_takes_a_language_code(monkeypatch: pytest.MonkeyPatch, code: str, lang: str) -> None:
    # --lang takes a code or a name of a language the bot speaks.
    argv = ["--rules", "tower", "--seed", "1", "--players", "2", "--no-images", "--lang", code]
    text, texts = said_lines(monkeypatch, argv)
    assert {said_in for _, said_in in texts} == {lang}
    assert text.splitlines()[0] == say(texts[0][0], lang=lang)


@pytest.mark.parametrize("command", ["play", "render"])
def test_an_unknown_language_is_refused(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # One clear line naming the languages there are; nothing played, nothing drawn.
    args = ["play", "--no-images"] if command == "play" else ["render", "missing.json", "-o", "-"]
    assert main([*args, "--lang", "xx"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "'xx'" in err and all(lang in err for lang in languages())


def test_render_draws_the_final_board(tmp_path: Path) -> None:
    from PIL import Image

    record = tmp_path / "game.json"
    record.write_text(json.dumps(RECORD))
    board, standings = tmp_path / "board.png", tmp_path / "standings.png"
    done = ludo_bot(
        "render", str(record), "-o", str(board), "--standings", str(standings), "--name", "red=Ana"
    )
    assert done.returncode == 0, done.stderr
    with Image.open(board) as img:
        assert img.format == "PNG" and img.size == (600, 664)
    with Image.open(standings) as img:
        assert img.format == "PNG"


def test_render_draws_in_the_language_asked(tmp_path: Path) -> None:
    # --lang: the words in the images are the catalog's (the bot's pictures in Italian).
    from bot.present.pictures import picture_words
    from renderer import render_board, render_standings

    record = tmp_path / "game.json"
    record.write_text(json.dumps(RECORD))
    files = {}
    for lang in ("en", "it"):
        board, standings = tmp_path / f"board-{lang}.png", tmp_path / f"standings-{lang}.png"
        argv = ["render", str(record), "-o", str(board), "--standings", str(standings)]
        assert main([*argv, "--lang", lang]) == 0
        files[lang] = board.read_bytes(), standings.read_bytes()
    state, last, rolled = replay_to_end(json.dumps(RECORD))
    words = picture_words("it")
    assert files["it"][0] == render_board(state, last_move=last, rolled=rolled, words=words)
    assert files["it"][1] == render_standings(state, words=words)
    assert files["en"][0] == render_board(state, last_move=last, rolled=rolled)
    assert files["it"][0] != files["en"][0] and files["it"][1] != files["en"][1]


def test_render_reads_standard_input_and_writes_standard_output() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.app.cli", "render", "-", "-o", "-"],
        input=json.dumps(RECORD).encode(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"\x89PNG\r\n")


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--name", "purple=x"], 2, "--name takes COLOUR=NAME"),
        (["--size", "50"], 2, "size must be"),
    ],
)
def test_render_refuses_bad_arguments(
    tmp_path: Path, args: list[str], code: int, words: str
) -> None:
    record = tmp_path / "game.json"
    record.write_text(json.dumps(RECORD))
    done = ludo_bot("render", str(record), "-o", str(tmp_path / "b.png"), *args)
    assert done.returncode == code
    assert words in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "b.png").exists()


def test_render_illegal_record_names_the_action(tmp_path: Path) -> None:
    bad = dict(RECORD, actions=[{"roll": 6}, {"move": 0}, {"roll": 3}, {"move": 2}])
    done = ludo_bot("render", "-", "-o", str(tmp_path / "b.png"), stdin=json.dumps(bad))
    assert done.returncode == 1
    assert done.stderr.strip() == "action 3: piece 2 is in the base: it needs a 6 to come out"


def test_run_reports_a_broken_setting_in_one_line(tmp_path: Path) -> None:
    import os

    env = dict(os.environ, LUDO_TURN_SECONDS="soon", LUDO_DATABASE=str(tmp_path / "x.db"))
    done = ludo_bot("run", env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == "ludo-bot: LUDO_TURN_SECONDS must be a whole number, not 'soon'"


def test_run_reports_an_unusable_database_in_one_line(tmp_path: Path) -> None:
    import os

    env = dict(os.environ, LUDO_DATABASE=str(tmp_path / "missing" / "x.db"))
    env.pop("REDIS_URL", None)
    done = ludo_bot("run", env=env, timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "missing" in done.stderr
