"""``ludo-bot play`` for a person at a terminal, and in a pipe.

The terminal tests run the real command in a pseudo-terminal (``pty.fork``): what a
person sees (the board in colour, the questions) and what they type (Enter to
roll, a piece's number, Ctrl-D, Ctrl-C).  In a pipe every seat is a computer, the
story is short and no image is drawn unless ``--images`` says where.
"""

from __future__ import annotations

import io
import os
import pty
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.app.cli import build_parser, main
from bot.app.terminal import cmd_play
from bot.present import Text, say
from bot.present.narrate import one_of
from tests.helpers.cli import ludo_bot_command

ROOT = Path(__file__).resolve().parent.parent
#: a small game: two players, two pieces home win, a piece comes out on any roll
SMALL = ["--rules", "italian", "--players", "2"]
QUICK = [*SMALL, "--options", '{"pieces_to_win": 2, "exit_rolls": [1, 2, 3, 4, 5, 6]}']
#: italian, two players, seed 5: the person has a choice of pieces at their third roll
CHOICE = [*SMALL, "--seed", "5", "--fast"]
ROLL = r"red, your turn: press Enter to roll\. $"
ASK = r"Piece number\? $"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def environment(**more: str) -> dict[str, str]:
    """The environment of a colour terminal 100 columns wide."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "LINES")}
    return env | {"TERM": "xterm-256color", "COLUMNS": "100"} | more


class Terminal:
    """``ludo-bot play ARGS`` in a pseudo-terminal: read what it shows, type to it."""

    def __init__(self, *args: str, **env_more: str) -> None:
        argv = [*ludo_bot_command(), "play", *args]
        env = environment(**env_more)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the command, with the terminal as its own
            try:
                os.chdir(ROOT)
                # Ctrl-C as a person's terminal has it (a test run from a
                # background job would hand on its Ctrl-C ignored)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.raw = ""
        #: where the next expect starts looking
        self.at = 0
        self.status: int | None = None

    def read(self, timeout: float) -> bool:
        """Read what there is within ``timeout`` seconds (False: the command ended)."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            return False
        self.raw += data.decode("utf-8", "replace")
        return bool(data)

    def expect(self, pattern: str, timeout: float = 60) -> tuple[re.Match[str], str]:
        """Wait for ``pattern`` in the text shown (colours left out) after the last
        match; return the match and the raw output up to it (colours kept)."""
        end = time.monotonic() + timeout
        while True:
            text = self.plain()
            found = re.compile(pattern, re.M).search(text, self.at)
            if found:
                raw = self.raw
                self.at = found.end()
                return found, raw
            if time.monotonic() > end or not self.read(0.2):
                if found := re.compile(pattern, re.M).search(self.plain(), self.at):
                    self.at = found.end()
                    return found, self.raw
                raise AssertionError(f"no {pattern!r} in:\n{self.plain()[-3000:]}")

    def plain(self) -> str:
        return ANSI.sub("", self.raw).replace("\r", "")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait(self, timeout: float = 60) -> int:
        """The exit status, reading on (a full terminal would stop the command)."""
        end = time.monotonic() + timeout
        while self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > end:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(f"still running:\n{self.plain()[-3000:]}")
            self.read(0.1)
        while self.read(0.05) and select.select([self.fd], [], [], 0)[0]:
            pass
        os.close(self.fd)
        return self.status


Start = Callable[..., Terminal]


@pytest.fixture
def term() -> Iterator[Start]:
    made: list[Terminal] = []

    def start(*args: str, **env: str) -> Terminal:
        made.append(Terminal(*args, **env))
        return made[-1]

    yield start
    for t in made:  # never leave a command running
        if t.status is None:
            os.kill(t.pid, signal.SIGKILL)
            os.waitpid(t.pid, 0)
            os.close(t.fd)


def test_at_a_terminal_the_person_plays_red_on_a_board_in_colour(term: Start) -> None:
    t = term(*CHOICE)
    t.expect(r"^italian Ludo: red, yellow; \w+ starts\.$")
    t.expect(r"^You play red: press Enter to roll")
    # the board: colours (256 of them here), the yards' names, the pieces numbered in the
    # yards, the start squares' arrows and the star squares; then the question
    _, raw = t.expect(ROLL)
    board = ANSI.sub("", raw)
    assert "\x1b[" in raw and "48;5;" in raw  # coloured backgrounds
    assert "red".center(24) in board and "yellow".center(24) in board  # the yards
    assert all(arrow in board for arrow in "→↓←↑") and "★" in board
    assert re.search(r" R1 +R2 ", board) and re.search(r" Y3 +Y4 ", board)  # the pieces in yard
    assert "▶ " in board and "yellow" in board  # the players beside the board
    # Enter rolls; the person answers when there is a choice, the computer plays yellow
    found = None
    for _ in range(10):
        t.send("\n")
        found, _ = t.expect(f"{ROLL}|{ASK}")
        if found.group(0).startswith("Piece"):
            break
    assert found is not None and found.group(0).startswith("Piece"), "no choice in 10 rolls"
    offered = re.findall(r"^  (\d+): ", t.plain()[t.plain().rindex("you rolled") :], re.M)
    assert len(offered) > 1
    assert re.search(r"^yellow rolled \d", t.plain(), re.M)  # a computer's move, one line
    # nonsense is asked again, naming the choices
    choose = say(Text("term.choose", {"choices": one_of(sorted(int(n) for n in offered))}))
    for nonsense in ("x", "9", ""):
        t.send(f"{nonsense}\n")
        t.expect(re.escape(f"{nonsense}\n{choose}\n") + ASK)
    t.send(f"{offered[0]}\n")
    # the move is made and told, then the board is drawn again
    t.expect(rf"^red (moved|brought) piece {offered[0]} .*[.!]$")
    _, raw = t.expect("^" + "red".center(24))
    assert "48;5;" in raw[raw.rindex("piece") :]
    # Ctrl-D at a question ends the game politely
    t.expect(f"{ROLL}|{ASK}")
    t.send("\x04")
    t.expect(r"^Bye!$")
    assert t.wait() == 0
    assert "Traceback" not in t.plain()


def test_ctrl_c_at_the_terminal_says_goodbye_without_a_traceback(term: Start) -> None:
    t = term(*CHOICE)
    t.expect(ROLL)
    t.send("\x03")
    t.expect(r"^Bye!$")
    assert t.wait() == 130
    assert "Traceback" not in t.plain() and "KeyboardInterrupt" not in t.plain()


def test_watching_at_a_terminal_every_seat_is_a_computer(term: Start) -> None:
    t = term(*QUICK, "--seed", "3", "--watch", "--fast")
    t.expect(r"^Final ranking:$")
    t.expect(r"^  2\. (red|yellow)$")
    assert t.wait() == 0
    text = t.plain()
    assert "press Enter" not in text and "Piece number" not in text and "You play" not in text
    assert "48;5;" in t.raw and text.count("▶ ") > 1  # boards, once a round
    assert re.search(r"^red rolled \d", text, re.M) and re.search(r"^yellow rolled \d", text, re.M)


def test_human_and_watch_do_not_go_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["play", "--watch", "--human", "red"])
    assert done.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not allowed with argument" in err


def run_in_a_pipe(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``ludo-bot play ARGS`` with pipes, in an empty folder, its own empty TMPDIR."""
    (tmp_path / "tmp").mkdir()
    (tmp_path / "cwd").mkdir()
    return subprocess.run(
        [*ludo_bot_command(), "play", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path / "cwd",
        env=environment(TMPDIR=str(tmp_path / "tmp")),
    )


def test_in_a_pipe_every_seat_is_a_computer_and_the_story_is_short(tmp_path: Path) -> None:
    done = run_in_a_pipe(tmp_path, "--seed", "1")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "classic Ludo: red, green, yellow, blue; green starts."
    # no person, no board, no colour: a short story of the moves that change the game
    assert "press Enter" not in done.stdout and "Piece number" not in done.stdout
    assert "\x1b[" not in done.stdout and "★" not in done.stdout
    assert len(lines) < 120  # a whole game: the old story told every roll (800 lines)
    story = lines[1:-5]
    assert all(re.fullmatch(r"Round \d+: .+[.!]", line) for line in story)
    assert any(" brought piece 1 out." in line for line in story)
    assert any(" captured " in line for line in story)
    assert story[-1].endswith("Game over: red won!")
    # it ends with the standings
    assert lines[-5] == "Final ranking:"
    assert re.fullmatch(r"  1\. red \(1000 points\)", lines[-4])
    assert all(re.fullmatch(rf"  {k}\. \w+ \(\d+ points\)", lines[-5 + k]) for k in (2, 3, 4))
    # and no image anywhere: no temporary folder, nothing where it ran
    assert list((tmp_path / "tmp").iterdir()) == [] and list((tmp_path / "cwd").iterdir()) == []


def test_images_are_drawn_only_where_asked(tmp_path: Path) -> None:
    boards = tmp_path / "boards"
    done = run_in_a_pipe(
        tmp_path, *QUICK, "--seed", "2", "--images", str(boards), "--size", "300", "-v"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    moves = sum(1 for line in lines if " moved piece " in line or " brought piece " in line)
    shots = sorted(boards.glob("[0-9]*.png"))
    # one image per move, named in order, and the standings
    assert len(shots) == moves > 0 and shots[0].name == "0001.png"
    assert (boards / "standings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"in {boards}/" in done.stdout.splitlines()[-1]
    assert list((tmp_path / "tmp").iterdir()) == [] and list((tmp_path / "cwd").iterdir()) == []


class Tty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def play_at_a_tty(argv: list[str], typed: str = "") -> str:
    out = Tty()
    assert cmd_play(build_parser().parse_args(["play", *argv]), Tty(typed), out) == 0
    return out.getvalue()


def test_a_pause_between_computer_moves_at_a_terminal_unless_fast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    naps: list[float] = []
    monkeypatch.setattr(time, "sleep", naps.append)  # the pauses, counted
    text = play_at_a_tty([*QUICK, "--seed", "4", "--watch"])
    told = [line for line in text.splitlines() if re.match(r"(red|yellow) (rolled|moved)", line)]
    assert naps == [0.4] * len(told) and told
    naps.clear()
    assert play_at_a_tty([*QUICK, "--seed", "4", "--watch", "--fast"]).count("Final ranking") == 1
    assert naps == []
    # a person's own moves are not waited for; the computer's are
    play_at_a_tty([*QUICK, "--seed", "4"], "\n" * 5)
    assert naps and set(naps) == {0.4}


def test_at_a_terminal_a_person_ends_the_input_and_is_told_goodbye() -> None:
    text = play_at_a_tty([*CHOICE], "\n")
    assert "You play red" in text and text.count("your turn: press Enter to roll") == 2
    assert text.endswith("red, your turn: press Enter to roll. \nBye!\n")
    # at the question of a piece too, on a line of its own
    text = play_at_a_tty([*CHOICE], "\n\n")
    assert text.endswith(f"{say(Text('term.ask'))}\n{say(Text('term.bye'))}\n")


def test_the_board_has_the_pieces_where_the_image_has_them() -> None:
    from rich.console import Console

    from bot.app.tboard import BOARD_WIDTH, WIDE, draw_board
    from engine import new_game, track_square
    from renderer import THEMES
    from renderer.geometry import base_slot, start_cell, track_cell

    position = {"red": [0, 5, 5, 57], "yellow": [14, 0, 0, 0]}
    state = new_game("tower", ["red", "yellow"], position=position)
    lines = draw_board(state, ("red", 6), str.upper, width=80)
    board = [line.plain[:BOARD_WIDTH] for line in lines]
    assert len(lines) == 15 and all(len(row) == BOARD_WIDTH for row in board)

    def at(cell: tuple[int, int]) -> str:
        return board[cell[0]][cell[1] * WIDE : cell[1] * WIDE + WIDE]

    assert at(track_cell(track_square(0, 5))) == "R2R3"  # red's tower of pieces 2 and 3
    assert at(start_cell(3)) == " Y1 "  # yellow's piece 1 on blue's start square
    assert at(start_cell(0)) == " →  " and at(start_cell(2)) == " ←  "
    y, _ = base_slot(0, 0)
    assert " R1 " in board[int(y)][: 6 * WIDE] and board[int(y)].count("○") == 1  # red 2 is out
    assert "R●" in board[7][6 * WIDE : 9 * WIDE] and board[0].startswith("RED".center(24))
    assert "GREEN" not in "".join(board)  # no green in this game: a grey yard, no name
    panel = [line.plain[BOARD_WIDTH:].strip() for line in lines]
    assert "RED 6" in panel and "▶ RED ●○○○" in panel and "YELLOW ○○○○" in panel
    # in colour: yellow's piece on yellow, the die in red's colour
    console = Console()

    def colours(row: int, col: int) -> tuple[object, object]:
        style = lines[row].get_style_at_offset(console, col)
        fg, bg = style.color, style.bgcolor
        return fg and tuple(fg.get_truecolor()), bg and tuple(bg.get_truecolor())

    red, yellow = THEMES["classic"].colours[0], THEMES["classic"].colours[2]
    r, c = start_cell(3)
    assert colours(r, c * WIDE + 1) == (yellow.ink, yellow.main)
    assert lines[1].plain[BOARD_WIDTH + 3] == "●"
    assert colours(1, BOARD_WIDTH + 3)[0] == red.dark
    # a narrow terminal: the panel under the board
    narrow = draw_board(state, ("red", 6), str, width=50)
    assert len(narrow) > 15 and len(narrow[0].plain) == BOARD_WIDTH


def test_without_colour_every_piece_is_its_colour_initial_and_number(term: Start) -> None:
    # NO_COLOR: no colour at all, and still every piece told apart (R1, Y2...)
    t = term(*CHOICE, NO_COLOR="1")
    _, raw = t.expect(ROLL)
    assert "48;5;" not in raw and "38;5;" not in raw and "38;2;" not in raw
    board = ANSI.sub("", raw)
    for piece in ("R1", "R2", "R3", "R4", "Y1", "Y2", "Y3", "Y4"):
        assert re.search(rf"(^| ){piece} ", board, re.M), piece
    t.send("\x04")
    assert t.wait() == 0


def test_stacks_are_legible_in_a_plain_copy() -> None:
    from rich.console import Console

    from bot.app.tboard import BOARD_WIDTH, WIDE, draw_board
    from engine import new_game, track_square
    from renderer.geometry import track_cell

    # classic: any number of pieces on a square. Five on red's square 13 (green's
    # start), a red and a green piece on square 20, a red piece alone on 2
    position = {
        "red": [14, 14, 21, 3],
        "green": [1, 8, 0, 0],
        "yellow": [40, 0, 0, 0],
        "blue": [27, 0, 0, 0],
    }
    state = new_game("classic", 4, position=position)
    for width in (100, 60):  # the panel beside the board, and under it
        lines = draw_board(state, None, str.upper, width=width)
        board = [line.plain[:BOARD_WIDTH] for line in lines[:15]]

        def at(square: int, board: list[str] = board) -> str:
            r, c = track_cell(square)
            return board[r][c * WIDE : c * WIDE + WIDE]

        assert track_square(0, 14) == track_square(1, 1) == 13
        assert at(13) == "R1+4"  # the first piece and how many more
        assert at(track_square(0, 21)) == "R3G2"  # two pieces: both
        assert at(track_square(0, 3)) == " R4 "
        listed = [line.plain for line in lines[15:]]
        assert "R1+4: R1 R2 G1 Y1 B1" in listed  # and the stack listed under the board
    # the same through a console without colour (what a plain capture keeps)
    console = Console(no_color=True, width=100, record=True, file=io.StringIO())
    for line in draw_board(state, ("red", 6), str.upper, width=100):
        console.print(line)
    text = console.export_text()
    assert "R1+4: R1 R2 G1 Y1 B1" in text and "R3G2" in text and " R4 " in text


def test_ctrl_c_at_the_terminal_still_writes_the_record(term: Start, tmp_path: Path) -> None:
    import json

    import engine
    from bot.hosting.dice import check

    path = tmp_path / "left.json"
    t = term(*CHOICE, "--record", str(path))
    t.expect(ROLL)
    t.send("\n")  # one roll of the person's
    t.expect(f"{ROLL}|{ASK}")
    t.send("\x03")
    t.expect(r"^Bye!$")
    assert t.wait() == 130
    record = json.loads(path.read_text())
    rolls = sum(1 for a in record["actions"] if "roll" in a)
    assert rolls >= 1 and check(record) == (rolls, [])
    assert not engine.replay(record).is_over
