"""The English wording of the live board for screen readers: the names the page gives
the board, its pieces, the moves a piece can make and the landing marks
(:mod:`bot.web.speech`).  A piece is named by its colour and number ("red 2"); the
sentences are said with a capital first letter."""

from __future__ import annotations

ACCESS: dict[str, str | tuple[str, str]] = {
    # the board drawn on the page (a group of pieces)
    "a11y.board": "{rules} Ludo board",
    # the link that opens the game for spectators
    "a11y.watch": "Spectator link",
    # a piece: its colour and number, as the board draws it ("red 2")
    "a11y.name": "{colour} {piece}",
    # a piece and where it stands: "Red 2, square 23"
    "a11y.piece": "{name}, {where}",
    "a11y.yard": "in the yard",
    "a11y.home": "at home",
    "a11y.column": "square {n} of the home column",
    # a piece that can move, and what pressing it does
    "a11y.move": "{piece}: moves to {to}",
    "a11y.move_capture": "{piece}: moves to {to} and captures a {victim_colour} piece",
    "a11y.move_out": "{piece}: comes out onto the start square",
    "a11y.move_out_capture": "{piece}: comes out onto the start square and captures a "
    "{victim_colour} piece",
    "a11y.move_home": "{piece}: moves home",
    # (what else a move does follows after a comma: "…: moves to square 28, forms a tower")
    # the landing mark drawn where a piece would land
    "a11y.mark": "{name} lands here: {to}",
    "a11y.mark_capture": "{name} lands here: {to}, capturing a {victim_colour} piece",
    "a11y.mark_home": "{name} reaches home here",
    "a11y.mark_out": "A {colour} piece comes out here, on the start square",
    "a11y.mark_out_capture": "A {colour} piece comes out here, on the start square, "
    "capturing a {victim_colour} piece",
}
