"""Telling an English text that slipped into a table in another language."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from bot.present import Text, say
from bot.present.wording import MESSAGES

#: words of the bot's English texts; a text in another language has none of them,
#: unless that language uses the word itself ("Computer" in Italian)
ENGLISH = re.compile(
    r"\b(rolled|moved|piece|brought|captured|Roll|Join|Leave|Start|Computer|square|column|"
    r"turn|Game over|won|wins?|choose|and|rolls again|out|home|begins|Waiting|seated)\b"
)


@cache
def own_words(lang: str) -> frozenset[str]:
    """Every word of every message of ``lang``."""
    return frozenset(w for m in MESSAGES for w in re.findall(r"\w+", say(Text(m), lang=lang)))


def english_in(texts: Iterable[str], lang: str) -> list[str]:
    """The texts of ``texts`` with an English word ``lang`` does not use."""
    own = own_words(lang)
    return sorted({t for t in texts if any(w not in own for w in ENGLISH.findall(t))})
