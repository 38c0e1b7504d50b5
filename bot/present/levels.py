"""The computer levels in words: their names, the lobby's "Computer (expert)", the
level button's cycle, and a level as someone typed it (``level=difícil``)."""

from __future__ import annotations

import unicodedata

from ..players import LEVELS
from .catalog import languages, translations
from .text import Text


def level_name(level: str) -> Text:
    """ "expert", in the reader's language."""
    return Text(f"level.{level}")


def computer_name(level: str) -> Text:
    """ "Computer (expert)": a computer player of ``level`` in the lobby."""
    return Text("who.a_computer_level", {"level": level_name(level)})


def next_level(level: str) -> str:
    """The level after ``level``, round again after the last (the level button's)."""
    return LEVELS[(LEVELS.index(level) + 1) % len(LEVELS)] if level in LEVELS else LEVELS[0]


def level_choices() -> Text:
    """ "easy, normal, hard or expert", in the reader's language."""
    names = [level_name(level) for level in LEVELS]
    return Text("words.or", {"some": tuple(names[:-1]), "last": names[-1]})


def find_level(typed: str) -> str | None:
    """The level ``typed`` names: its English name or its name in any language the bot
    speaks (``difficile``, ``Difícil``, ``experto``), case and accents aside; None if
    none."""
    wanted = _folded(typed.strip())
    if not wanted or len(wanted) > 32:
        return None
    for level in LEVELS:
        names = {level, *(_name(level, lang) for lang in languages())}
        if wanted in {_folded(n) for n in names}:
            return level
    return None


def _name(level: str, lang: str) -> str:
    return translations(lang).pgettext(f"level.{level}", level)


def _folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))
