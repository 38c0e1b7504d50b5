"""The English wording of every text a person reads, one table per part of the bot.

Each table maps a message id to its English wording (a pair, singular and plural,
where a number is said); the catalogs of other languages are made from them
(``python -m bot.present.po``).  An id is in exactly one table.
"""

from __future__ import annotations

from collections.abc import Mapping

from .access import ACCESS
from .after import AFTER
from .corner import CORNER
from .discord import DISCORD
from .game import GAME, RULES_TEXT
from .limits import LIMITS
from .pictures import PICTURES
from .refusals import REFUSALS
from .telegram import TELEGRAM
from .terminal import TERMINAL
from .tour import TOUR

Wording = Mapping[str, str | tuple[str, str]]

#: every table, in the order of the catalogs
TABLES: tuple[Wording, ...] = (
    GAME,
    REFUSALS,
    AFTER,
    PICTURES,
    TERMINAL,
    TELEGRAM,
    DISCORD,
    LIMITS,
    TOUR,
    ACCESS,
    CORNER,
)


def merged(tables: tuple[Wording, ...]) -> dict[str, str | tuple[str, str]]:
    out: dict[str, str | tuple[str, str]] = {}
    for table in tables:
        twice = out.keys() & table.keys()
        if twice:
            raise ValueError(f"message ids in two tables: {sorted(twice)}")
        out.update(table)
    return out


MESSAGES = merged(TABLES)

__all__ = ["MESSAGES", "RULES_TEXT", "TABLES", "merged"]
