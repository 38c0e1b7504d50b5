"""The board of the terminal game, drawn in colour with `rich`.

`rich <https://github.com/Textualize/rich>`_ is a well-kept library made for
exactly this (colours, widths and terminals that cannot show colour), so this
module only says what goes where.  The board is the 15 x 15 cross of the board
image (:mod:`renderer.geometry`: the same track, home columns, yards, start and
star squares), each cell four characters wide: the yards with the pieces in
their base, the pieces on their squares, the pieces home counted in their
triangle, and beside the board the last roll and the players.

A piece is its colour's initial and its number, in its colour (``R1``, ``G2``,
``Y3``, ``B4``: the English initials in every language, as the languages' own
clash: *verde* and *vermelho*, *azul* and *amarelo*), so the board reads in
a terminal without colour (``NO_COLOR``) and in a plain copy too.  Two pieces on
a square show both (``R1G2``); more show the first and how many more
(``R1+2``), and a line under the board lists them all (``R1+2: R1 G3 Y2``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from engine import COLOUR_INDEX, COLOURS, FIRST_COLUMN, HOME, STAR_SQUARES, TRACK_SQUARES, GameState
from renderer import THEMES
from renderer.geometry import (
    GRID,
    arrow_direction,
    base_slot,
    column_cell,
    piece_cell,
    start_cell,
    track_cell,
    triangle_centre,
    yard_cells,
)
from renderer.static import star_style
from renderer.theme import RGB, Palette

#: characters per cell: room for two pieces (``R1G2``)
WIDE = 4
#: the board's width in characters
BOARD_WIDTH = GRID * WIDE
#: the width the panel beside the board needs (die, players)
PANEL_WIDTH = 18

THEME = THEMES["classic"]
#: the way pieces go on each start square, as an arrow
ARROWS = {(0.0, 1.0): "→", (0.0, -1.0): "←", (1.0, 0.0): "↓", (-1.0, 0.0): "↑"}
#: the pips of each face of the die on a 3 x 3 grid (row, column)
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (0, 2), (2, 0), (2, 2)),
    5: ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
    6: ((0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2)),
}

Piece = tuple[int, int]  # (colour index, piece index)
#: each colour's initial on its pieces
INITIALS = {colour: colour[0].upper() for colour in COLOURS}


def label(piece: Piece) -> str:
    """A piece as the board writes it: ``R1``."""
    c, i = piece
    return f"{INITIALS[COLOURS[c]]}{i + 1}"


def rgb(colour: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*colour)


def palette(c: int) -> Palette:
    return THEME.colours[c]


def piece_style(c: int) -> Style:
    """A piece: its number in the ink of its colour, on its colour."""
    p = palette(c)
    return Style(color=rgb(p.ink), bgcolor=rgb(p.main), bold=True)


def word_style(colour: str) -> Style:
    """A colour's name, written in that colour."""
    return Style(color=rgb(palette(COLOUR_INDEX[colour]).main), bold=True)


class Canvas:
    """The board as rows of characters, each with its own style."""

    def __init__(self) -> None:
        blank = Style(bgcolor=rgb(THEME.background))
        self.cells: list[list[tuple[str, Style]]] = [
            [(" ", blank)] * BOARD_WIDTH for _ in range(GRID)
        ]

    def put(self, row: int, col: int, text: str, style: Style) -> None:
        """Write ``text`` from character ``col`` of ``row`` (clipped to the board)."""
        for k, ch in enumerate(text):
            if 0 <= col + k < BOARD_WIDTH:
                self.cells[row][col + k] = (ch, style)

    def fill(self, cell: tuple[int, int], style: Style, mark: str = " ") -> None:
        """A whole cell in one style, ``mark`` in its middle."""
        r, c = cell
        self.put(r, c * WIDE, f" {mark}".ljust(WIDE), style)

    def lines(self) -> list[Text]:
        """The rows, each run of characters in one style written once."""
        out = []
        for row in self.cells:
            line = Text(no_wrap=True, overflow="crop")
            run, last = "", row[0][1]
            for ch, style in row:
                if style != last:
                    line.append(run, last)
                    run, last = "", style
                run += ch
            line.append(run, last)
            out.append(line)
        return out


def draw_squares(canvas: Canvas, state: GameState) -> None:
    """What does not move: the yards, the track, the columns and the centre."""
    square = Style(color=rgb(THEME.grid), bgcolor=rgb(THEME.square))
    stars = star_style(state)
    for sq in range(TRACK_SQUARES):
        mark, style = "·", square
        if sq in STAR_SQUARES and stars == "shelter":
            mark, style = "★", Style(color=rgb(THEME.square), bgcolor=rgb(THEME.shelter))
        elif sq in STAR_SQUARES and stars == "star":
            mark, style = "★", Style(color=rgb(THEME.star), bgcolor=rgb(THEME.square))
        canvas.fill(track_cell(sq), style, mark)
    for c in range(len(COLOURS)):
        lane = Style(bgcolor=rgb(palette(c).light))
        for p in range(FIRST_COLUMN, HOME):
            canvas.fill(column_cell(c, p), lane)
        arrow = ARROWS.get(arrow_direction(c), " ")
        ink = Style(color=rgb(palette(c).ink), bgcolor=rgb(palette(c).main), bold=True)
        canvas.fill(start_cell(c), ink, arrow)
    # the centre: each character in the colour of the nearest home triangle
    for row in range(6, 9):
        for col in range(6 * WIDE, 9 * WIDE):
            c = centre_colour(row, col)
            canvas.put(row, col, " ", Style(bgcolor=rgb(palette(c).main)))


def centre_colour(row: int, col: int) -> int:
    """The colour whose home triangle character ``col`` of ``row`` is in."""
    y, x = row + 0.5, (col + 0.5) / WIDE
    return min(range(len(COLOURS)), key=lambda c: math.dist((y, x), triangle_centre(c)))


def draw_home(canvas: Canvas, c: int, home: int) -> None:
    """The pieces home: the colour's initial and a dot each in its triangle (a number
    if too many)."""
    y, _ = triangle_centre(c)
    row = int(y)
    cols = [k for k in range(6 * WIDE, 9 * WIDE) if centre_colour(row, k) == c]
    initial = INITIALS[COLOURS[c]]
    mark = initial + ("●" * home if home <= len(cols) - 2 else str(home))
    at = cols[0] + (len(cols) - len(mark)) // 2
    ink = Style(color=rgb(palette(c).ink), bgcolor=rgb(palette(c).main), bold=True)
    canvas.put(row, at, mark, ink)


def draw_yard(canvas: Canvas, state: GameState, c: int, name: str) -> None:
    """A yard: the colour's name on top, its pieces in the base on a lighter panel."""
    (top, left), (bottom, _) = yard_cells(c)
    colour = COLOURS[c]
    seated = colour in state.players
    main = rgb(palette(c).main) if seated else rgb(THEME.inactive)
    light = rgb(palette(c).light) if seated else rgb(THEME.background)
    for row in range(top, bottom + 1):
        canvas.put(row, left * WIDE, " " * 6 * WIDE, Style(bgcolor=main))
        if row > top:
            canvas.put(row, left * WIDE + 1, " " * (6 * WIDE - 2), Style(bgcolor=light))
    if not seated:
        return
    band = Style(color=rgb(palette(c).ink), bgcolor=main, bold=True)
    canvas.put(top, left * WIDE, name[: 6 * WIDE].center(6 * WIDE), band)
    pieces = state.pieces[colour]
    empty = Style(color=main, bgcolor=light)
    for i, p in enumerate(pieces):
        y, x = base_slot(c, i, len(pieces))
        at = math.floor(x * WIDE - 2)
        if p == 0:
            canvas.put(int(y), at, f" {label((c, i))} ", piece_style(c))
        else:  # the empty place, so the yard reads like a rack
            canvas.put(int(y), at, "  ○ ", empty)


def token(here: list[Piece]) -> list[tuple[str, Style]]:
    """The four characters of a square with pieces on it: ``R1``, ``R1G2``, ``R1+2``."""
    first, n = here[0], len(here)
    if n == 1:
        return [(f" {label(first)} ", piece_style(first[0]))]
    if n == 2:
        return [(label(piece), piece_style(piece[0])) for piece in here]
    more = Style(color=rgb(THEME.text), bgcolor=rgb(THEME.square), bold=True)
    return [(label(first), piece_style(first[0])), (f"+{min(n - 1, 9)}", more)]


def stacks(state: GameState) -> list[Text]:
    """The squares with more than two pieces, each listed: ``R1+2: R1 G3 Y2``."""
    out = []
    for here in squares(state).values():
        if len(here) > 2:
            line = Text.assemble(*((text, style) for text, style in token(here)), ":")
            for piece in here:
                line.append(" ")
                line.append(label(piece), piece_style(piece[0]))
            out.append(line)
    return out


def squares(state: GameState) -> dict[tuple[int, int], list[Piece]]:
    """The pieces on each cell of the track and the columns."""
    cells: dict[tuple[int, int], list[Piece]] = {}
    for colour, pieces in state.pieces.items():
        c = COLOUR_INDEX[colour]
        for i, p in enumerate(pieces):
            cell = piece_cell(c, p)
            if cell is not None:
                cells.setdefault(cell, []).append((c, i))
    return cells


def draw_pieces(canvas: Canvas, state: GameState) -> None:
    """The pieces on the track and in the columns, and the count of those home."""
    for colour, pieces in state.pieces.items():
        home = sum(1 for p in pieces if p == HOME)
        if home:
            draw_home(canvas, COLOUR_INDEX[colour], home)
    for (r, col), here in squares(state).items():
        at = col * WIDE
        for text, style in token(here):
            canvas.put(r, at, text, style)
            at += len(text)


def die_face(die: int, c: int) -> list[Text]:
    """The die as three rows of pips, on white, in the roller's colour."""
    face = Style(color=rgb(palette(c).dark), bgcolor=rgb(THEME.die), bold=True)
    rows = []
    for r in range(3):
        line = Text(no_wrap=True)
        for k in range(3):
            line.append(" ●" if (r, k) in PIPS.get(die, ()) else "  ", face)
        line.append(" ", face)
        rows.append(line)
    return rows


def panel(
    state: GameState, rolled: tuple[str, int] | None, name: Callable[[str], str]
) -> list[Text]:
    """Beside the board: the last roll (die and who), then the players, the one on
    turn marked, each with a dot per piece home."""
    out: list[Text] = [Text()]
    if rolled is not None:
        colour, die = rolled
        out += die_face(die, COLOUR_INDEX[colour])
        out.append(Text.assemble((name(colour), word_style(colour)), f" {die}"))
    out.append(Text())
    for colour in state.players:
        on_turn = colour == state.turn and state.phase != "over"
        pieces = state.pieces[colour]
        home = sum(1 for p in pieces if p == HOME)
        dots = "●" * home + "○" * (len(pieces) - home)
        out.append(
            Text.assemble("▶ " if on_turn else "  ", (name(colour), word_style(colour)), " ", dots)
        )
    return out


def draw_board(
    state: GameState,
    rolled: tuple[str, int] | None,
    name: Callable[[str], str],
    width: int = BOARD_WIDTH + 2 + PANEL_WIDTH,
) -> list[Text]:
    """The board's lines: ``rolled`` is the last roll (colour, die), ``name`` says a
    colour's name.  The panel goes beside the board if ``width`` has room, else below."""
    canvas = Canvas()
    draw_squares(canvas, state)
    for c in range(len(COLOURS)):
        draw_yard(canvas, state, c, name(COLOURS[c]))
    draw_pieces(canvas, state)
    lines = canvas.lines()
    side = panel(state, rolled, name)
    if width < BOARD_WIDTH + 2 + PANEL_WIDTH:
        return lines + stacks(state) + side
    for k, extra in enumerate(side[: len(lines)]):
        lines[k].append("  ")
        lines[k].append_text(extra)
    return lines + stacks(state)
