"""Texts in words: :func:`say` turns a :class:`~bot.present.text.Text` into a sentence.

The English wording is in :mod:`bot.present.wording`; other languages come from
the catalogs (:mod:`bot.present.catalog`).  A parameter may itself be a
:class:`Text` (a square, "Computer (red)") or a tuple of them (a list, said with
commas), said in the same language.  Names inside parameters are the players'
own text: an adapter escapes them for its platform (``escape``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .catalog import SOURCE, language_name, translations
from .text import Text
from .wording import MESSAGES


def _rolled_bounce(p: dict[str, Any]) -> str:
    return (".rolled" if p.get("die") else "") + (".bounce" if p.get("bounce") else "")


def _rolled(p: dict[str, Any]) -> str:
    return ".rolled" if p.get("die") else ""


def _why(p: dict[str, Any]) -> str:
    why = p.get("why")
    return f".{why}" if why in ("six", "capture", "home") else ""


#: ids whose wording depends on a parameter: the suffix of the variant to use
VARIANTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "ev.enter": _rolled,
    "ev.home": _rolled,
    "ev.move": _rolled_bounce,
    "ev.extra": _why,
    "ev.bonus": _why,
    "you.enter": _rolled,
    "you.home": _rolled,
    "you.move": _rolled_bounce,
    "you.extra": _why,
    "you.bonus": _why,
    "btn.enter": lambda p: ".captures" if p.get("captures") else "",
    "illegal.in_base": lambda p: ".bonus" if p.get("bonus") else "",
    "rematch.opened": lambda p: "" if p.get("players") else ".alone",
}

#: parameters that hold a word of the game (a colour, a rule set's name), said in the
#: reader's language: parameter -> the catalog context of its words
WORDS = {"colour": "colour", "victim_colour": "colour", "rules": "rules"}

#: the words of the game, as message ids of their own (context, English)
GAME_WORDS = [
    *(("colour", c) for c in ("red", "green", "yellow", "blue")),
    *(("rules", r) for r in ("classic", "tower", "italian", "super")),
]


def message_id(text: Text) -> str:
    """The id of the wording of ``text``: its key, or the key of its variant."""
    variant = VARIANTS.get(text.key)
    return text.key + (variant(dict(text.params)) if variant else "")


def say(text: Text, escape: Callable[[str], str] | None = None, lang: str | None = None) -> str:
    """The sentence for ``text`` in ``lang`` (English if None or unknown); ``escape`` is
    applied to every text parameter (the players' names)."""
    msgid = message_id(text)
    source = MESSAGES.get(msgid)
    if source is None:
        return text.key
    tr = translations(lang)
    params: dict[str, Any] = {}
    for name, value in text.params.items():
        if isinstance(value, str):
            if name in WORDS:
                value = tr.pgettext(WORDS[name], value)
            elif name == "language":
                value = language_name(value, lang or SOURCE)
            params[name] = escape(value) if escape is not None else value
        else:
            params[name] = _said(value, escape, lang)
    if isinstance(source, tuple):
        count = params.get("count", 1)
        template = tr.npgettext(msgid, source[0], source[1], count if isinstance(count, int) else 1)
    else:
        template = tr.pgettext(msgid, source)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template


def _said(value: Any, escape: Callable[[str], str] | None, lang: str | None) -> Any:
    """A parameter as it goes into a sentence: a Text said, a list said with commas."""
    if isinstance(value, Text):
        return say(value, escape, lang)
    if isinstance(value, tuple) and value and all(isinstance(v, Text | str) for v in value):
        return ", ".join(
            say(v, escape, lang) if isinstance(v, Text) else escape(v) if escape else v
            for v in value
        )
    return value


def say_all(
    lines: Iterable[Text], escape: Callable[[str], str] | None = None, lang: str | None = None
) -> str:
    return "\n".join(say(t, escape, lang) for t in lines)
