"""The landing marks: where each piece the player on turn may move would land.

After a roll, every legal move's landing square carries a small badge with the
moving piece's number: a white disc ringed in the mover's colour (a hollow ②,
where a piece is a filled disc), or, when the move captures, an eight-pointed
burst in the theme's capture colour over the piece it captures (the same shape
in every theme, so it never counts on colour alone).  A piece coming out marks
its start square; a piece going home marks its home triangle (beside the count
of pieces home, if any).  On a square with the mover's own pieces on it (a tower,
a barrier, a stack) the badge is smaller and sits over the square's top-right
corner, so both read; pieces landing on one square together share it in a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from engine import COLOUR_INDEX, HOME, GameState, legal_moves

from . import geometry as geo
from .sprites import SUPER, paste
from .text import font
from .theme import RGB, theme_for

#: a badge's diameter in cells: on an empty square, on one with the mover's own
#: pieces on it, and a capture's burst (over the piece it captures)
ALONE, BESIDE, CAPTURE = 0.7, 0.56, 0.92
#: a badge beside pieces: its centre's distance from the square's, across and up,
#: in cells (it reaches a little over the square's edges)
CORNER = 0.36
#: the home triangle's mark: how far from the triangle's centre towards the board's
HOME_SHIFT = 0.55


@dataclass(frozen=True)
class Landing:
    """Where a move would land: the mover's colour index, its piece (from 0), the
    cell (None: home), and whether it captures."""

    colour: int
    piece: int
    cell: geo.Cell | None
    capture: bool


def landings(state: GameState) -> list[Landing]:
    """The landing of every move the player on turn may choose now (none between rolls)."""
    if state.phase not in ("move", "bonus"):
        return []
    out = []
    for m in legal_moves(state):
        c = COLOUR_INDEX[m.colour]
        cell = None if m.to == HOME else geo.piece_cell(c, m.to)
        out.append(Landing(c, m.piece, cell, m.captures is not None))
    return out


def draw_marks(img: Image.Image, lay: geo.Layout, state: GameState, theme: str) -> None:
    """Every landing of ``state`` marked on ``img`` (drawn over the pieces)."""
    marks = landings(state)
    if not marks:
        return
    taken = {
        geo.piece_cell(COLOUR_INDEX[colour], p)
        for colour, ps in state.pieces.items()
        for p in ps
        if 0 < p < HOME
    }
    groups: dict[tuple[geo.Cell | None, int], list[Landing]] = {}
    for mark in marks:
        groups.setdefault((mark.cell, mark.colour), []).append(mark)
    home = {COLOUR_INDEX[colour] for colour, ps in state.pieces.items() if HOME in ps}
    for here in groups.values():
        first = here[0]
        occupied = first.cell in taken if first.cell is not None else first.colour in home
        centres, diameter = places(lay, first, len(here), occupied)
        for mark, centre in zip(here, centres, strict=True):
            paste(img, badge(mark.colour, mark.piece + 1, diameter, theme, mark.capture), centre)


def places(
    lay: geo.Layout, mark: Landing, n: int = 1, occupied: bool = False
) -> tuple[list[tuple[int, int]], int]:
    """The centres of the ``n`` marks landing where ``mark`` does, and their diameter:
    on the square's centre (a capture's burst over the piece it captures), in the
    top-right corner of a square with pieces on it (``occupied``), or on the home
    triangle (beside the count of pieces home, if any: ``occupied``)."""
    k = lay.cell
    if mark.cell is None and not occupied:
        x, y = lay.point(*geo.triangle_centre(mark.colour))
        diameter = min(ALONE * k, 0.95 * k / n)
        return _row(x, y, n, diameter), round(diameter)
    if mark.cell is None:
        ty, tx = geo.triangle_centre(mark.colour)
        mid = geo.GRID / 2
        dy, dx = mid - ty, mid - tx
        norm = math.hypot(dy, dx) or 1.0
        x, y = lay.point(ty + HOME_SHIFT * dy / norm, tx + HOME_SHIFT * dx / norm)
        diameter = BESIDE * k / max(1, (n + 1) // 2)
        return _row(x, y, n, diameter), round(diameter)
    cx, cy = lay.centre(mark.cell)
    if occupied and not mark.capture:
        # over the square's top-right corner, clear of the number on the piece
        diameter = BESIDE * k / max(1, (n + 1) // 2)
        right, top = cx + CORNER * k, cy - CORNER * k
        return _row(right - (n - 1) * diameter / 2, top, n, diameter), round(diameter)
    diameter = min((CAPTURE if mark.capture else ALONE) * k, 0.95 * k / n)
    return _row(cx, cy, n, diameter), round(diameter)


def _row(x: float, y: float, n: int, diameter: float) -> list[tuple[int, int]]:
    """``n`` centres in a row about (x, y), one ``diameter`` apart."""
    return [(round(x + (i - (n - 1) / 2) * diameter), round(y)) for i in range(n)]


def _burst(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """An eight-pointed burst of outer radius ``r``."""
    pts = []
    for j in range(16):
        rad = r if j % 2 == 0 else r * 0.72
        a = -math.pi / 2 + j * math.pi / 8
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    return pts


def _contrast(a: RGB, b: RGB) -> float:
    def lum(rgb: RGB) -> float:
        lin = [(v / 255) / 12.92 if v <= 10 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@lru_cache(maxsize=256)
def badge(colour: int, number: int, diameter: int, theme: str, capture: bool) -> Image.Image:
    """A landing mark: ``number`` in a white disc ringed in the colour, or (``capture``)
    in a burst of the theme's capture colour rimmed in it."""
    t = theme_for(theme)
    pal = t.colours[colour]
    big = diameter * SUPER
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    c = (big - 1) / 2
    edge = max(SUPER, round(big * 0.05))
    rim = max(SUPER, round(big * 0.1))
    if capture:
        d.polygon(_burst(c, c, c), fill=(*pal.dark, 255))
        d.polygon(_burst(c, c, c - edge), fill=(*pal.main, 255))
        d.polygon(_burst(c, c, c - edge - rim), fill=(*t.captured, 255))
        white, black = (255, 255, 255), t.edge
        ink = max((white, black), key=lambda v: _contrast(v, t.captured))
        size = 0.5
    else:
        d.ellipse((0, 0, big - 1, big - 1), fill=(*pal.dark, 255))
        d.ellipse((edge, edge, big - 1 - edge, big - 1 - edge), fill=(*pal.main, 255))
        inner = edge + rim
        d.ellipse((inner, inner, big - 1 - inner, big - 1 - inner), fill=(*t.square, 255))
        ink = pal.dark
        size = 0.6
    d.text(
        (big / 2, big / 2 + big * 0.03),
        str(number),
        font=font(round(big * size)),
        fill=(*ink, 255),
        anchor="mm",
    )
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)
