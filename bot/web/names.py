"""Players' names as the page shows them.  A name is its player's to choose, so it may
carry Unicode's bidi controls (a right-to-left override, an isolate left open) that would
reach past it and turn the words after it round: "Ana rolled 5" read backwards.

A name shown on its own (a seat, a yard, a row of the standings, which the page isolates
itself) is :func:`plain`: its bidi controls dropped.  A name inside a sentence (the story,
whose turn it is, what the live region says) is :func:`isolated`: plain, and between
FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, as Unicode advises for text of
unknown direction put into a message, so an Arabic or Hebrew name keeps its own order
and the sentence around it keeps its own.
"""

from __future__ import annotations

#: the explicit embeddings, overrides and isolates (LRE RLE PDF LRO RLO, LRI RLI FSI PDI)
CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
FSI, PDI = "\u2068", "\u2069"


def plain(name: str) -> str:
    """``name`` without bidi controls of its own."""
    return name.translate(CONTROLS)


def isolated(name: str) -> str:
    """``name`` plain, isolated from the words around it."""
    return FSI + plain(name) + PDI
