"""``ludo-bot verify RECORD``: check that every roll of a finished game came from its
revealed seed, and that the seed is the one promised when the game started."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from engine import LudoError, replay

from ..hosting.dice import check
from .inputs import TOO_DEEP, WRONG_RECORD, read_record, say_wrong

#: what a record without dice is told
NO_DICE = (
    "the record has no dice to check: only a game played with dice anyone can verify "
    "has them (a chat game's /ludo record, or ludo-bot play/simulate --record)"
)


def cmd_verify(args: argparse.Namespace) -> int:
    """0: every roll came from the seed and the game replays; 1: something does not
    match (said line by line); 2: the file cannot be read."""
    record = read_record(args.file)
    if isinstance(record, int):
        return record
    # the rolls first: a changed roll is named even when the game no longer replays
    if "dice" not in record:
        print(NO_DICE, file=sys.stderr)
        return WRONG_RECORD
    rolls, problems = check(record)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return WRONG_RECORD
    try:
        replay(record)  # a real game: every action legal where it stands
    except LudoError as e:
        say_wrong(e)  # as replay and render say it
        return WRONG_RECORD
    except RecursionError:
        print(TOO_DEEP, file=sys.stderr)
        return WRONG_RECORD
    print(f"all {rolls} rolls came from the seed, and the seed is the one promised at the start")
    return 0


def add_verify(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "verify", help="check that every roll of a finished game came from its revealed seed"
    )
    p.add_argument("file", help="the game record (JSON), or - for standard input")
    p.set_defaults(func=cmd_verify)
