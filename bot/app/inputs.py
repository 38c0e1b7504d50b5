"""Reading what a command is given: a file, or standard input for ``-``."""

from __future__ import annotations

import sys


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
