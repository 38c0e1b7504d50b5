"""Reading what a command is given: a file, or standard input for ``-``.

Every command that reads a record keeps one convention for its exit status:
0 all is well; 1 the record is wrong (not a record, an illegal action, a roll
the seed does not give); 2 the command line is (a bad argument, a file that
cannot be read or written).
"""

from __future__ import annotations

import sys
from typing import Any

from engine import IllegalAction, LudoError, load_record

#: the exit status of a record that is wrong, and of a command line that is
WRONG_RECORD, WRONG_ARGUMENTS = 1, 2
#: the exit status of what may well work if tried again later (EX_TEMPFAIL): a store
#: or a platform that cannot be reached, a disk with no room; systemd starts it again
TRY_LATER = 75


class CommandError(Exception):
    """An argument or a file that cannot work; ``ludo-bot`` says the message in one
    line and exits with ``status`` (2; :data:`TRY_LATER` for what may work later)."""

    def __init__(self, message: str, *, status: int = WRONG_ARGUMENTS) -> None:
        super().__init__(message)
        self.status = status


#: what a record nested too deeply for the JSON reader gets
TOO_DEEP = "record: the record is nested too deeply to be a game record"


def read_input(name: str) -> str | None:
    """The text of file ``name`` (standard input for ``-``); None, after saying why
    on standard error in one line, if it cannot be read as UTF-8 text."""
    try:
        if name == "-":
            return sys.stdin.read()
        with open(name, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        print(f"ludo-bot: cannot read {name}: {e.strerror}", file=sys.stderr)
    except UnicodeDecodeError:
        print(f"ludo-bot: cannot read {name}: it is not UTF-8 text", file=sys.stderr)
    return None


def read_record(name: str) -> dict[str, Any] | int:
    """The record in file ``name`` (its shape checked), or the exit status after
    saying in one line why it cannot be one."""
    text = read_input(name)
    if text is None:
        return WRONG_ARGUMENTS
    try:
        return load_record(text)
    except RecursionError:
        print(TOO_DEEP, file=sys.stderr)
    except LudoError as e:
        say_wrong(e)
    return WRONG_RECORD


def say_wrong(e: LudoError) -> None:
    """A record's fault in one line: the action and why, or what is wrong with it."""
    print(str(e) if isinstance(e, IllegalAction) else f"record: {e}", file=sys.stderr)
