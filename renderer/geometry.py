"""Board geometry: progress + colour -> grid cell -> pixel.

The board is the classic cross of 15 x 15 cells.  Cell ``(row, col)`` counts
from the top-left corner.  Red's yard is the top-left corner, and the other
colours follow clockwise (green top-right, yellow bottom-right, blue
bottom-left), as they are seated (RULES.md section 1).  Every colour's part of
the board is red's part turned by a quarter turn clockwise per seat, so only
red's is written down here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine import (
    FIRST_COLUMN,
    HOME,
    LAST_TRACK,
    STAR_SQUARES,
    START,
    START_SQUARES,
    TRACK_SQUARES,
    quarter_of,
    track_square,
)

GRID = 15
Cell = tuple[int, int]
Point = tuple[float, float]

# red's quarter: the 13 track squares from red's start square (absolute 0)
# round to the square before green's start square (absolute 12)
_RED_TRACK: tuple[Cell, ...] = (
    (6, 1), (6, 2), (6, 3), (6, 4), (6, 5),
    (5, 6), (4, 6), (3, 6), (2, 6), (1, 6), (0, 6),
    (0, 7), (0, 8),
)  # fmt: skip
# red's home column, progress 52..56, walking towards the centre
_RED_COLUMN: tuple[Cell, ...] = ((7, 1), (7, 2), (7, 3), (7, 4), (7, 5))
# red's yard: rows 0..5, cols 0..5
_RED_YARD: Cell = (0, 0)
# red's home triangle in the centre, in cell units (y, x)
_RED_TRIANGLE: tuple[Point, ...] = ((6.0, 6.0), (9.0, 6.0), (7.5, 7.5))


def rotate(cell: Cell, quarters: int) -> Cell:
    """Turn a cell about the board centre by ``quarters`` quarter turns clockwise."""
    r, c = cell
    for _ in range(quarters % 4):
        r, c = c, GRID - 1 - r
    return r, c


def rotate_point(point: Point, quarters: int) -> Point:
    """Turn a point in cell units (y, x) about the board centre, clockwise."""
    y, x = point
    for _ in range(quarters % 4):
        y, x = x, GRID - y
    return y, x


@cache
def track_cell(square: int) -> Cell:
    """The cell of absolute track square ``square`` (0..51)."""
    if not 0 <= square < TRACK_SQUARES:
        raise ValueError(f"track squares are 0..{TRACK_SQUARES - 1}, not {square}")
    quarter, step = quarter_of(square)
    return rotate(_RED_TRACK[step], quarter)


def column_cell(colour: int, progress: int) -> Cell:
    """The cell of colour's home column square at ``progress`` 52..56."""
    if not FIRST_COLUMN <= progress < HOME:
        raise ValueError(f"home column progress is {FIRST_COLUMN}..{HOME - 1}, not {progress}")
    return rotate(_RED_COLUMN[progress - FIRST_COLUMN], colour)


def piece_cell(colour: int, progress: int) -> Cell | None:
    """The cell a piece stands on, or None in the base or home."""
    if START <= progress <= LAST_TRACK:
        return track_cell(track_square(colour, progress))
    if FIRST_COLUMN <= progress < HOME:
        return column_cell(colour, progress)
    return None


def start_cell(colour: int) -> Cell:
    return track_cell(START_SQUARES[colour])


def star_cells() -> list[Cell]:
    return [track_cell(sq) for sq in STAR_SQUARES]


def yard_cells(colour: int) -> tuple[Cell, Cell]:
    """Top-left and bottom-right cells of the colour's 6 x 6 yard."""
    a = rotate(_RED_YARD, colour)
    b = rotate((5, 5), colour)
    return (min(a[0], b[0]), min(a[1], b[1])), (max(a[0], b[0]), max(a[1], b[1]))


def yard_box(colour: int) -> tuple[float, float, float, float]:
    """The yard as (top, left, bottom, right) in cell units."""
    (r0, c0), (r1, c1) = yard_cells(colour)
    return float(r0), float(c0), float(r1 + 1), float(c1 + 1)


def base_slot(colour: int, piece: int, pieces: int = 4) -> Point:
    """Centre (y, x, in cell units) of the place of ``piece`` in the base.

    The slots sit on the yard's white panel (below the name band): 2 x 2 for
    four pieces, 3 + 2 or 3 x 2 for five or six, so a piece keeps its place
    and its number reads the same in every game.  The yards are not turned
    with the board, so names and numbers stay upright.
    """
    top, left, _, _ = yard_box(colour)
    if pieces <= 4:
        row, col = divmod(piece, 2)
        return top + 2.3 + 2.0 * row, left + 2.0 + 2.0 * col
    row, col = divmod(piece, 3)
    return top + 2.3 + 2.0 * row, left + 1.5 + 1.5 * col


#: the yard's white panel, relative to the yard's corner (top, left, bottom, right)
YARD_PANEL = (1.1, 0.5, 5.5, 5.5)
#: the name band's vertical centre, relative to the yard's top
NAME_LINE = 0.56
#: the centre of the yard's mark (the piece shape of a theme with marks), relative to
#: the yard's corner: between the base slots, clear of the pieces and their rings...
YARD_MARK = (3.3, 3.0)
#: ...and its half-size, in cells
YARD_MARK_SIZE = 0.3


def triangle(colour: int) -> tuple[Point, ...]:
    """The colour's home triangle in the centre (y, x points in cell units)."""
    return tuple(rotate_point(p, colour) for p in _RED_TRIANGLE)


def triangle_centre(colour: int) -> Point:
    pts = triangle(colour)
    return sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3


def arrow_direction(colour: int) -> Point:
    """Unit direction (dy, dx) of play on the colour's start square."""
    a = start_cell(colour)
    b = track_cell(track_square(colour, START + 1))
    return float(b[0] - a[0]), float(b[1] - a[1])


@dataclass(frozen=True)
class Layout:
    """Pixel placement of the board in an image ``size`` pixels wide.

    ``scale`` draws the same layout that many times larger (the static board
    is drawn at twice the size and shrunk): every length is the 1x length
    times ``scale``, so the shrunk board lines up with what is drawn at 1x.
    """

    size: int
    scale: int = 1

    @property
    def cell(self) -> int:
        return (self.size // GRID) * self.scale

    @property
    def margin(self) -> int:
        """Left/top offset that centres the grid in the image width."""
        return ((self.size - (self.size // GRID) * GRID) // 2) * self.scale

    @property
    def board(self) -> int:
        """Height of the board part (a square), status bar below it."""
        return self.size * self.scale

    @property
    def status(self) -> int:
        return max(40, round((self.size // GRID) * 1.6)) * self.scale

    @property
    def height(self) -> int:
        return self.board + self.status

    def point(self, y: float, x: float) -> tuple[int, int]:
        """Pixel (x, y) of a point in cell units (y, x)."""
        return round(self.margin + x * self.cell), round(self.margin + y * self.cell)

    def centre(self, cell: Cell) -> tuple[int, int]:
        """Pixel (x, y) of a cell's centre."""
        return self.point(cell[0] + 0.5, cell[1] + 0.5)

    def box(self, cell: Cell) -> tuple[int, int, int, int]:
        """Pixel box (x0, y0, x1, y1) of a cell, x1/y1 exclusive."""
        x0, y0 = self.point(cell[0], cell[1])
        return x0, y0, x0 + self.cell, y0 + self.cell
