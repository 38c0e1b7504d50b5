"""The board in words: the description every board image carries (Discord's
attachment ``description``, read by screen readers) and the text board of
``/ludo board text``.

One line for whose turn it is (or who won), the die shown on the board, then, when
the player on turn must choose, where the marks on the board show each piece would
land (as the buttons name them: ``②``, the piece's number in a ring), then one line
per colour: its player, and where each piece is (home, in the yard, on a square of
its way round, counted from its start, or in its home column).
"""

from __future__ import annotations

import engine
from engine import HOME, GameState

from ..hosting import Game
from .messages import say
from .narrate import mark, name_of, where
from .text import Text
from .view import prompt

#: Discord's longest attachment description
DESCRIPTION_LIMIT = 1024


def alt_lines(game: Game) -> list[Text]:
    """The board of a started game, in lines of words (nothing before it starts)."""
    state = game.state
    if state is None:
        return []
    lines = [Text("alt.board", {"rules": game.rules}), prompt(game)]
    roll = game.last.get("roll")
    if roll and game.status == "playing" and state.phase != "move":  # else the prompt says it
        lines.append(Text("alt.die", {"who": name_of(game, roll[0]), "die": roll[1]}))
    if game.status == "playing" and state.phase in ("move", "bonus"):
        marks = marks_said(state)
        if marks:
            lines.append(Text("alt.marks", {"marks": marks}))
    for colour, pieces in state.pieces.items():
        parts: list[Text] = []
        home = sum(p == HOME for p in pieces)
        yard = sum(p == 0 for p in pieces)
        track = sorted(p for p in pieces if 0 < p <= 51)
        column = sorted(p - 51 for p in pieces if 51 < p < HOME)
        if home:
            parts.append(Text("alt.home", {"count": home}))
        if yard:
            parts.append(Text("alt.yard", {"count": yard}))
        if track:
            parts.append(
                Text("alt.track", {"count": len(track), "squares": tuple(map(str, track))})
            )
        if column:
            parts.append(
                Text("alt.column", {"count": len(column), "squares": tuple(map(str, column))})
            )
        seat = game.seat_for(colour)
        who = name_of(game, colour) if seat is not None and seat.user else Text("who.a_computer")
        lines.append(Text("alt.colour", {"who": who, "colour": colour, "pieces": tuple(parts)}))
    return lines


def marks_said(state: GameState) -> tuple[Text, ...]:
    """The landing marks on the board, in words: "② on square 23", "③ on square 30
    captures a green piece", "④ at home", "① on the start square"."""
    said = []
    for m in engine.legal_moves(state):
        p = {"mark": mark(m.piece + 1), "to": where(m.to)}
        if m.captures is not None:
            p["victim_colour"] = m.captures[0]
        if m.to == HOME:
            key = "alt.mark_home"
        else:
            key = "alt.mark_out" if m.enter else "alt.mark"
            key += "_capture" if m.captures is not None else ""
        said.append(Text(key, p))
    return tuple(said)


def alt_text(game: Game, lang: str | None = None, limit: int = DESCRIPTION_LIMIT) -> str:
    """The description of the board of ``game`` in ``lang`` (default: the game's), at
    most ``limit`` characters."""
    lang = lang or game.lang
    text = "\n".join(say(t, lang=lang) for t in alt_lines(game))
    return text if len(text) <= limit else text[: limit - 1] + "…"
