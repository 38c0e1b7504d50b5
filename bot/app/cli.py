"""The ``ludo-bot`` command: replay, simulate, play, render (a board, or a whole game
as a GIF), and run and backup, for the chat bots."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from engine import (
    COLOURS,
    RULE_SETS,
    GameState,
    IllegalAction,
    LudoError,
    Move,
    apply,
    load_record,
    move_for,
    replay,
    start_of,
)
from renderer import DEFAULT_SIZE, THEMES, animate, render_board, render_standings
from renderer.animate import ANIMATION_SIZE

from ..players import HeuristicPlayer, Policy, RandomPlayer
from ..present.pictures import picture_words
from .inputs import read_input
from .purge import add_forget
from .simulate import simulate
from .terminal import CommandError, cmd_play, language_arg, rule_options
from .verify import add_verify

if TYPE_CHECKING:
    from .config import Settings

#: what a record nested too deeply for the JSON reader gets
TOO_DEEP = "record: the record is nested too deeply to be a game record"


def cmd_replay(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    if text is None:
        return 2
    try:
        state = replay(text)
    except LudoError as e:
        print(str(e) if isinstance(e, IllegalAction) else f"record: {e}", file=sys.stderr)
        return 1
    except RecursionError:
        print(TOO_DEEP, file=sys.stderr)
        return 1
    json.dump(state.summary(), sys.stdout)
    sys.stdout.write("\n")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    try:
        rng = random.Random(args.seed)
        policy: Policy = HeuristicPlayer(rng) if args.policy == "heuristic" else RandomPlayer(rng)
        result = simulate(
            args.rules,
            args.games,
            seed=args.seed,
            players=args.players,
            options=rule_options(args.options),
            policy=policy,
        )
    except LudoError as e:
        print(f"ludo-bot: {e}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    lang = language_arg(args.lang)
    if lang is None:
        return 2
    words = picture_words(lang)
    text = read_input(args.record)
    if text is None:
        return 2
    names: dict[str, str] = {}
    for item in args.name or []:
        colour, sep, name = item.partition("=")
        if not sep or colour not in COLOURS:
            print(f"ludo-bot: --name takes COLOUR=NAME, not {item!r}", file=sys.stderr)
            return 2
        names[colour] = name
    size = args.size if args.size is not None else ANIMATION_SIZE if args.animate else DEFAULT_SIZE
    output = args.output if args.output is not None else "game.gif" if args.animate else "board.png"
    for target in (output, args.standings):
        writable(target)
    try:
        state, last, rolled = replay_to_end(text)
        if args.animate:
            computers = args.computer or ()
            image = animate(
                text, names=names, computers=computers, size=size, theme=args.theme, words=words
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
        print(str(e) if isinstance(e, IllegalAction) else f"record: {e}", file=sys.stderr)
        return 1
    except RecursionError:
        print(TOO_DEEP, file=sys.stderr)
        return 1
    except ValueError as e:  # a bad size or theme
        print(f"ludo-bot: {e}", file=sys.stderr)
        return 2
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
        print(f"ludo-bot: cannot write: {e}", file=sys.stderr)
        return 2
    return 0


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


def replay_to_end(text: str) -> tuple[GameState, Move | None, tuple[str, int] | None]:
    """Replay a record; also return the last move made and the last roll (colour, die)."""
    record = load_record(text)
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


def cmd_run(args: argparse.Namespace) -> int:
    from .logs import setup_logging

    settings = configured()
    setup_logging(settings.log_level, settings.log_format)  # first: before any import logs

    import asyncio

    from ..adapters.discord import AdapterError as DiscordError
    from ..adapters.telegram import AdapterError
    from ..store import StoreError
    from .config import open_configured_store
    from .runner import NoPlatform, check_start, serve
    from .web import WebError

    if not (settings.telegram_token or settings.discord_token):  # before the store is made
        raise CommandError("no chat platform is configured: set TELEGRAM_TOKEN or DISCORD_TOKEN")
    store = None
    try:
        if settings.uses_redis:  # Redis creates nothing here: it is checked first
            store = open_configured_store(settings)
        asyncio.run(check_start(settings))  # the platforms and the port, before any file
        if store is None:
            store = open_configured_store(settings)
    except (AdapterError, DiscordError, StoreError, WebError) as e:
        if store is not None:
            store.close()
        raise CommandError(str(e)) from None
    try:
        asyncio.run(serve(settings, store))
    except (NoPlatform, AdapterError, DiscordError, StoreError, WebError) as e:
        raise CommandError(str(e)) from None
    finally:
        store.close()
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    from ..store import SqliteStore, StoreError

    settings = configured()
    if settings.uses_redis:
        raise CommandError(
            "the games are in Redis, which backs itself up: use its snapshots (BGSAVE, "
            "dump.rdb) or its append-only file (appendonly yes)"
        )
    source = settings.database
    if source == ":memory:" or not os.path.isfile(source):
        raise CommandError(f"there is no database at {source!r} (LUDO_DATABASE) to back up")
    writable(args.file)
    if Path(args.file).exists() and Path(args.file).resolve() == Path(source).resolve():
        raise CommandError(f"{args.file} is the database itself: back it up somewhere else")
    try:
        with SqliteStore(source, ttl=settings.game_ttl) as store:
            store.backup(args.file)
    except StoreError as e:
        raise CommandError(str(e)) from None
    print(f"backed up {source} to {args.file}")
    return 0


def configured() -> Settings:
    """The settings of ``run`` and ``backup``: ``.env`` read, every value checked."""
    from .config import ConfigError, load_env_file, load_settings

    try:
        load_env_file()
        return load_settings()
    except ConfigError as e:
        raise CommandError(str(e)) from None


def version() -> str:
    """The installed version of ludo-bot."""
    try:
        return importlib.metadata.version("ludo-bot")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed)"


class Parser(argparse.ArgumentParser):
    """argparse, saying a wrong argument in one line (not the usage, then the error)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


LANG_HELP = "the language to play in: a code or a name (pt-BR, es, italiano); default English"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="ludo-bot", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay a game record and print the final state as JSON")
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.set_defaults(func=cmd_replay)
    add_verify(sub)

    def common(p: argparse.ArgumentParser, default_rules: str | None) -> None:
        p.add_argument(
            "--rules", choices=RULE_SETS, default=default_rules, required=default_rules is None
        )
        p.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
        p.add_argument("--seed", type=int, default=None, help="seed for the die and the choices")
        p.add_argument("--options", help="rule options as JSON, e.g. '{\"teams\": true}'")

    p = sub.add_parser("simulate", help="play many computer games and print figures as JSON")
    common(p, None)
    p.add_argument("--games", type=int, default=100)
    p.add_argument(
        "--policy",
        choices=("heuristic", "random"),
        default="heuristic",
        help="how the computer players choose (default: heuristic)",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser(
        "play",
        help="play a game in the terminal",
        description="Play Ludo in the terminal. In a terminal you play red against the "
        "computer (roll with Enter, type a piece's number to move it; Ctrl-D leaves); "
        "in a pipe every seat is a computer and the story is short.",
    )
    common(p, "classic")
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--human",
        action="append",
        choices=COLOURS,
        metavar="COLOUR",
        help="a colour you play yourself (repeatable; default in a terminal: red); "
        "the others are computer players",
    )
    who.add_argument(
        "--watch", action="store_true", help="every seat a computer, also in a terminal"
    )
    p.add_argument(
        "--fast",
        "--no-pause",
        dest="fast",
        action="store_true",
        help="no pause between the computer moves in a terminal",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="tell every roll and move (in a pipe only the moves that change the game are told)",
    )
    p.add_argument("--images", metavar="DIR", help="also draw a board image after every move here")
    p.add_argument("--no-images", action="store_true", help="no board images (the default)")
    p.add_argument("--size", type=int, default=DEFAULT_SIZE, help="image width in pixels")
    p.add_argument("--lang", metavar="LANG", help=LANG_HELP)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "render", help="draw the final board of a game record as a PNG (--animate: a GIF)"
    )
    p.add_argument("record", help="the record (JSON), or - for standard input")
    p.add_argument(
        "-o",
        "--output",
        help="the image to write (- for stdout); default board.png, or game.gif with --animate",
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

    p = sub.add_parser("run", help="run the chat bot (settings: the environment and .env)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("backup", help="copy the SQLite database (LUDO_DATABASE) while it runs")
    p.add_argument("file", help="the copy to write")
    p.set_defaults(func=cmd_backup)
    add_forget(sub, configured)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "games", 1) < 0:
        print("ludo-bot: --games cannot be negative", file=sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except CommandError as e:
        print(f"ludo-bot: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
