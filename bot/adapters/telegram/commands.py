"""Telegram's words and commands: the command list, help, and ``/ludo`` arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import RULE_SETS

#: the buttons of the rule chooser (/ludo without arguments)
CHOOSER = [
    ("classic", False, "Classic"),
    ("tower", False, "Tower"),
    ("italian", False, "Italian"),
    ("italian", True, "Italian teams"),
    ("super", False, "Super"),
]

COMMANDS = [
    ("ludo", "Start a game: /ludo [classic|tower|italian|super] [teams] [timer=60]"),
    ("join", "Join the game in this chat"),
    ("leave", "Leave the game"),
    ("roll", "Roll the die"),
    ("move", "Move a piece: /move 2"),
    ("board", "Show the board"),
    ("rules", "Show the rules"),
    ("end", "End the game (its creator or an admin)"),
    ("help", "How to play"),
]

HELP = (
    "<b>Ludo</b>: type /ludo to open a game here (or <code>/ludo italian teams timer=60</code>), "
    "press <b>Join</b>, add computer players if you like, and the host presses <b>Start</b>. "
    "On your turn press <b>Roll</b>, then the button of the piece to move. "
    "/board shows the board, /rules the rules, /end ends the game."
)
GREETING = (
    "Hi! I host games of Ludo. Add me to a group and type /ludo there, or play right here "
    "against computer players: /ludo, then <b>Add computer</b> and <b>Start</b>."
)


def parse_ludo_args(args: Sequence[str]) -> tuple[str, dict[str, Any], int | None, str | None]:
    """``/ludo italian teams pieces=5 timer=60`` -> (rules, options, timer, error)."""
    rules = "classic"
    options: dict[str, Any] = {}
    timer: int | None = None
    for k, raw in enumerate(args):
        word = raw.strip().lower()
        if k == 0 and word in RULE_SETS:
            rules = word
            continue
        key, eq, value = word.partition("=")
        if not eq:
            options[key] = True  # "teams" means teams=true
            continue
        if key == "timer":
            if value in ("off", "0", "none"):
                timer = 0
            elif value.isdigit():
                timer = int(value)
            else:
                error = f"timer must be a number of seconds or off, not {value!r}"
                return rules, options, None, error
            continue
        if value in ("true", "yes", "on"):
            options[key] = True
        elif value in ("false", "no", "off"):
            options[key] = False
        elif value.lstrip("-").isdigit():
            options[key] = int(value)
        else:
            options[key] = value
    return rules, options, timer, None
