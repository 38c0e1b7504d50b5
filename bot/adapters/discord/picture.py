"""A table's picture on Discord besides the image: its words for screen readers (the
attachment's description) and the embed's colour (the colour on turn)."""

from __future__ import annotations

from ...present import TableView, Text, say
from ...present.alt import alt_text

#: Discord allows 1024 characters in an attachment's description (its alt text)
DESCRIPTION_LIMIT = 1024
COLOURS = {"red": 0xD62D2D, "green": 0x229640, "yellow": 0xF0BA14, "blue": 0x2468D6}


def alt_of(view: TableView) -> str:
    """The picture of ``view`` in words, for screen readers (the attachment's description):
    the board as it stands, or for the standings, that they are the final ones and how
    the game ended."""
    limit = DESCRIPTION_LIMIT
    if view.picture != "standings":
        return alt_text(view.game, view.lang, limit)
    title = say(Text("pic.final"), lang=view.lang)
    return f"{title}.\n{alt_text(view.game, view.lang, limit - len(title) - 2)}"


def colour(view: TableView) -> int | None:
    """The embed's colour: that of the colour on turn, as the caption last says it."""
    for t in reversed(view.lines):
        if t.key.startswith("turn.") and t.params.get("colour") in COLOURS:
            return COLOURS[t.params["colour"]]
    return None
