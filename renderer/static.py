"""The static board: yards, track, start and star squares, home columns, centre.

Drawn once per size, theme, star style and seating (cached), then copied
under the pieces of every image.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from engine import FIRST_COLUMN, HOME, TRACK_SQUARES, GameState, is_star, start_colour

from . import geometry as geo
from .shapes import draw_shape
from .theme import RGB, Theme, theme_for


def star_style(state: GameState) -> str:
    """How the star squares are drawn: stars, shelters (super), or not at all (tower)."""
    o = state.options
    if not o.safe_stars:
        return "none"
    return "shelter" if o.stacking == "barrier" else "star"


@lru_cache(maxsize=32)
def static_board(size: int, theme: str, stars: str, seats: tuple[int, ...]) -> Image.Image:
    """Everything that does not move, drawn at twice the size and shrunk (smooth edges)."""
    t = theme_for(theme)
    lay = geo.Layout(size)
    scale = 2
    big = geo.Layout(size, scale)
    img = Image.new("RGB", (big.board, big.height), t.background)
    d = ImageDraw.Draw(img)
    line = max(1, big.cell // 28)

    for c in range(4):
        _draw_yard(d, big, t, c, c in seats, line)
    # the track, the start squares, the stars and the home columns
    for sq in range(TRACK_SQUARES):
        cell = geo.track_cell(sq)
        fill = t.square
        owner = start_colour(sq)
        star = is_star(sq)
        if owner >= 0:
            fill = t.colours[owner].main
        elif star and stars == "shelter":
            fill = t.shelter
        d.rectangle(_shrink_box(big.box(cell)), fill=fill, outline=t.grid, width=line)
        if star and stars != "none":
            _draw_star(d, big, cell, t.square if stars == "shelter" else t.star)
    for c in range(4):
        for p in range(FIRST_COLUMN, HOME):
            d.rectangle(
                _shrink_box(big.box(geo.column_cell(c, p))),
                fill=t.colours[c].main,
                outline=t.grid,
                width=line,
            )
        _draw_arrow(d, big, c, t)
    # the centre: one triangle per colour, pointing at the middle
    for c in range(4):
        d.polygon(
            [big.point(y, x) for y, x in geo.triangle(c)], fill=t.colours[c].main, outline=t.grid
        )
    return img.resize((size, lay.height), Image.Resampling.LANCZOS)


def _shrink_box(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return x0, y0, x1 - 1, y1 - 1


def _draw_yard(
    d: ImageDraw.ImageDraw, lay: geo.Layout, t: Theme, c: int, seated: bool, line: int
) -> None:
    top, left, bottom, right = geo.yard_box(c)
    pal = t.colours[c]
    fill = pal.main if seated else t.inactive
    d.rectangle(
        (*lay.point(top, left), *lay.point(bottom, right)), fill=fill, outline=t.grid, width=line
    )
    pt, pl, pb, pr = geo.YARD_PANEL
    panel = t.square if seated else t.background
    d.rounded_rectangle(
        (*lay.point(top + pt, left + pl), *lay.point(top + pb, left + pr)),
        radius=lay.cell // 3,
        fill=panel,
    )
    if t.marks:  # the colour's piece shape, hollow, between the base slots
        my, mx = geo.YARD_MARK
        centre = lay.point(top + my, left + mx)
        h = geo.YARD_MARK_SIZE * lay.cell
        draw_shape(d, pal.shape, centre, h, pal.dark if seated else t.inactive)
        draw_shape(d, pal.shape, centre, h, panel, inset=max(2, lay.cell * 0.09))


def _draw_star(d: ImageDraw.ImageDraw, lay: geo.Layout, cell: geo.Cell, colour: RGB) -> None:
    cx, cy = lay.centre(cell)
    outer = lay.cell * 0.38
    inner = outer * 0.45
    pts = []
    for k in range(10):
        r = outer if k % 2 == 0 else inner
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    d.polygon(pts, fill=colour)


def _draw_arrow(d: ImageDraw.ImageDraw, lay: geo.Layout, c: int, t: Theme) -> None:
    """A white arrow on the start square, pointing the way pieces go."""
    cx, cy = lay.centre(geo.start_cell(c))
    dy, dx = geo.arrow_direction(c)
    s = lay.cell * 0.3
    # arrow in local coordinates (along, across), turned to (dx, dy)
    shape = [
        (-0.9, -0.22),
        (0.1, -0.22),
        (0.1, -0.55),
        (0.9, 0.0),
        (0.1, 0.55),
        (0.1, 0.22),
        (-0.9, 0.22),
    ]
    pts = [(cx + s * (a * dx - b * dy), cy + s * (a * dy + b * dx)) for a, b in shape]
    d.polygon(pts, fill=t.square)
