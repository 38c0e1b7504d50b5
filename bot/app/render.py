"""``ludo-bot render``: the final board of a game record as a PNG, or the whole game
as a GIF (``--animate``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine import (
    COLOURS,
    GameState,
    IllegalAction,
    LudoError,
    Move,
    apply,
    load_record,
    move_for,
    start_of,
)
from renderer import DEFAULT_SIZE, THEMES, animate, render_board, render_standings
from renderer.animate import ANIMATION_SIZE

from ..present.pictures import picture_words
from .arguments import language_arg
from .inputs import TOO_DEEP, WRONG_ARGUMENTS, WRONG_RECORD, CommandError, read_record, say_wrong

#: the kind of file each drawing is written as, by its name's ending
EXTENSIONS = {False: ".png", True: ".gif"}


def cmd_render(args: argparse.Namespace) -> int:
    lang = language_arg(args.lang)
    if lang is None:
        return WRONG_ARGUMENTS
    words = picture_words(lang)
    names: dict[str, str] = {}
    for item in args.name or []:
        colour, sep, name = item.partition("=")
        if not sep or colour not in COLOURS:
            raise CommandError(f"--name takes COLOUR=NAME, not {item!r}")
        names[colour] = name
    size = args.size if args.size is not None else ANIMATION_SIZE if args.animate else DEFAULT_SIZE
    output = args.output if args.output is not None else "game.gif" if args.animate else "board.png"
    for target in (output, args.standings):
        writable(target)
    kind(output, animated=args.animate, what="-o")
    if args.standings is not None:
        kind(args.standings, animated=False, what="--standings")
    record = read_record(args.record)
    if isinstance(record, int):
        return record
    try:
        state, last, rolled = replay_to_end(record)
        if args.animate:
            computers = args.computer or ()
            image = animate(
                record,
                names=names,
                computers=computers,
                size=size,
                theme=args.theme,
                words=words,
            )
        else:
            image = render_board(
                state,
                names=names,
                last_move=last,
                rolled=rolled,
                size=size,
                theme=args.theme,
                words=words,
            )
    except LudoError as e:
        say_wrong(e)
        return WRONG_RECORD
    except RecursionError:
        print(TOO_DEEP, file=sys.stderr)
        return WRONG_RECORD
    except ValueError as e:  # a bad size or theme
        raise CommandError(str(e)) from None
    try:
        _write(output, image)
        if args.standings:
            _write(
                args.standings,
                render_standings(state, names=names, size=size, theme=args.theme, words=words),
            )
    except BrokenPipeError:
        raise
    except OSError as e:
        raise CommandError(f"cannot write: {e}") from None
    return 0


def kind(path: str, *, animated: bool, what: str) -> None:
    """Refuse a file name whose ending says another kind of image than the one drawn
    (standard output, ``-``, takes any)."""
    if path == "-":
        return
    want = EXTENSIONS[animated]
    got = Path(path).suffix.lower()
    if got != want:
        drawn = "an animated GIF (--animate)" if animated else "a PNG image"
        other = " (a .gif needs --animate)" if got == ".gif" and not animated else ""
        raise CommandError(f"{what} {path}: this draws {drawn}, so name it *{want}{other}")


def writable(path: str | None) -> None:
    """Refuse a file that cannot be written (a folder, or in a folder not there),
    before anything is written."""
    if path is None or path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise CommandError(f"cannot write {path}: it is a folder")
    if not target.parent.is_dir():
        folder = str(target.parent)
        raise CommandError(f"cannot write {path}: the folder {folder!r} does not exist")


def _write(path: str, data: bytes) -> None:
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        Path(path).write_bytes(data)


def replay_to_end(record: Any) -> tuple[GameState, Move | None, tuple[str, int] | None]:
    """Replay a record (its text, or itself); also return the last move made and the
    last roll (colour, die)."""
    record = load_record(record)
    state = start_of(record)
    last: Move | None = None
    rolled: tuple[str, int] | None = None
    for k, action in enumerate(record.get("actions", [])):
        try:
            if isinstance(action, dict) and "move" in action and len(action) == 1:
                last = move_for(state, action["move"])
            turn = state.turn
            state, _ = apply(state, action)
            if "roll" in action:
                rolled = (turn, action["roll"])
        except IllegalAction as e:
            raise IllegalAction(f"action {k}: {e}", e.reason, e.piece) from None
    return state, last, rolled


def add_render(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "render", help="draw the final board of a game record as a PNG (--animate: a GIF)"
    )
    p.add_argument("record", help="the record (JSON), or - for standard input")
    p.add_argument(
        "-o",
        "--output",
        help="the image to write (- for stdout): a .png, or a .gif with --animate; "
        "default board.png, or game.gif with --animate",
    )
    p.add_argument("--animate", action="store_true", help="draw the whole game as a GIF")
    p.add_argument(
        "--computer",
        action="append",
        choices=COLOURS,
        metavar="COLOUR",
        help="a colour played by the computer: its moves go faster in --animate (repeatable)",
    )
    p.add_argument("--standings", metavar="FILE", help="also write the standings image here")
    p.add_argument("--name", action="append", metavar="COLOUR=NAME", help="a player's name")
    p.add_argument(
        "--size",
        type=int,
        help=f"image width in pixels (default {DEFAULT_SIZE}; {ANIMATION_SIZE} with --animate)",
    )
    p.add_argument("--theme", choices=sorted(THEMES), default="classic")
    p.add_argument("--lang", metavar="LANG", help="the language of the words in the images")
    p.set_defaults(func=cmd_render)
