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

from engine import COLOURS, RULE_SETS, LudoError, replay
from renderer import DEFAULT_SIZE

from ..players import LEVELS, HeuristicPlayer, Policy, RandomPlayer
from .arguments import rule_options
from .inputs import (
    TOO_DEEP,
    WRONG_RECORD,
    CommandError,
    read_record,
    say_wrong,
)
from .purge import add_forget
from .ratings import add_ratings
from .records import record_folder, write_records
from .render import add_render, replay_to_end, writable
from .run_command import add_run
from .seats import SEAT_LEVELS, seat_levels, simulate_seats
from .simulate import simulate
from .terminal import cmd_play
from .verify import add_verify

if TYPE_CHECKING:
    from .config import Settings

__all__ = ["build_parser", "cmd_play", "main", "replay_to_end"]


def cmd_replay(args: argparse.Namespace) -> int:
    record = read_record(args.file)
    if isinstance(record, int):
        return record
    try:
        state = replay(record)
    except LudoError as e:
        say_wrong(e)
        return WRONG_RECORD
    except RecursionError:
        print(TOO_DEEP, file=sys.stderr)
        return WRONG_RECORD
    json.dump(state.summary(), sys.stdout)
    sys.stdout.write("\n")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    if args.seats is not None:
        return simulate_levels(args)
    try:
        rng = random.Random(args.seed)
        policy: Policy = RandomPlayer(rng) if args.policy == "random" else HeuristicPlayer(rng)
        options = rule_options(args.options)
        folder = None if args.record is None else record_folder(args.record)
        result = simulate(
            args.rules,
            args.games,
            seed=args.seed,
            players=args.players,
            options=options,
            policy=policy,
            keep=None if folder is None else write_records(folder, args.games),
        )
    except LudoError as e:
        raise CommandError(str(e)) from None
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def simulate_levels(args: argparse.Namespace) -> int:
    """``simulate --seats``: the computer levels against each other (:mod:`.seats`)."""
    if args.policy is not None or args.record is not None:
        raise CommandError("--seats chooses every seat's player: no --policy or --record with it")
    try:
        result = simulate_seats(
            args.rules,
            args.games,
            args.seats,
            seed=args.seed,
            players=args.players,
            options=rule_options(args.options),
        )
    except (LudoError, ValueError) as e:
        raise CommandError(str(e)) from None
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def levels_arg(text: str) -> list[str]:
    try:
        return seat_levels(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
    parser = Parser(
        prog="ludo-bot",
        description="Ludo in chats, and on the command line: play in the terminal, replay, "
        "check, simulate and draw games, and run the Telegram and Discord bot (see "
        "ludo-bot run --help).",
    )
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
        default=None,
        help="how the computer players choose (default: heuristic)",
    )
    p.add_argument(
        "--seats",
        type=levels_arg,
        metavar="LEVELS",
        help="a computer level per seat, as many as --players, from "
        f"{', '.join(SEAT_LEVELS)} (e.g. expert,normal,normal,normal): rotated over the "
        "games, it prints each level's win rate and time per move; with teams, partners "
        "(seats 1 and 3, 2 and 4) are named with one level",
    )
    p.add_argument(
        "--record",
        metavar="DIR",
        help="also write each game's record here (game-0001.json, ...), "
        "its dice verifiable (made if need be: only the last folder)",
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
    p.add_argument(
        "--record",
        metavar="FILE",
        help="write the game's record here when it ends or you leave "
        "(for ludo-bot replay, render and verify; its dice verifiable)",
    )
    p.add_argument("--images", metavar="DIR", help="also draw a board image after every move here")
    p.add_argument("--no-images", action="store_true", help="no board images (the default)")
    p.add_argument("--size", type=int, default=DEFAULT_SIZE, help="image width in pixels")
    p.add_argument("--lang", metavar="LANG", help=LANG_HELP)
    p.add_argument(
        "--level",
        choices=LEVELS,
        default="normal",
        help="how well the computer players play (default: normal)",
    )
    p.set_defaults(func=cmd_play)

    add_render(sub)

    add_run(sub, configured)

    p = sub.add_parser("backup", help="copy the SQLite database (LUDO_DATABASE) while it runs")
    p.add_argument("file", help="the copy to write")
    p.set_defaults(func=cmd_backup)
    add_forget(sub, configured)
    add_ratings(sub, configured)
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
        return e.status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
