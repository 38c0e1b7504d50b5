"""``ludo-bot verify RECORD``: check that every roll of a finished game came from its
revealed seed, and that the seed is the one promised when the game started."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import LudoError, replay

from ..hosting.dice import check
from .inputs import read_input


def cmd_verify(args: argparse.Namespace) -> int:
    """0: every roll came from the seed; 1: something does not match (said line by
    line); 2: the record cannot be read."""
    text = read_input(args.file)
    if text is None:
        return 2
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        print(f"ludo-bot: {args.file} is not a game record (JSON)", file=sys.stderr)
        return 2
    if not isinstance(record, dict):
        print(f"ludo-bot: {args.file} is not a game record (JSON)", file=sys.stderr)
        return 2
    try:
        replay(record)  # a real game: every action legal where it stands
    except LudoError as e:
        print(f"not a valid game: {e}", file=sys.stderr)
        return 1
    except RecursionError:
        print(f"ludo-bot: {args.file} is nested too deeply", file=sys.stderr)
        return 2
    rolls, problems = check(record)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"all {rolls} rolls came from the seed, and the seed is the one promised at the start")
    return 0


def add_verify(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "verify", help="check that every roll of a finished game came from its revealed seed"
    )
    p.add_argument("file", help="the game record (JSON), or - for standard input")
    p.set_defaults(func=cmd_verify)
