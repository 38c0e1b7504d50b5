"""The moving parts: pieces, the rings on movable ones, and the last move's marks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PIL import Image, ImageDraw

from engine import COLOUR_INDEX, COLOURS, HOME, GameState, Move, legal_moves

from . import geometry as geo
from .sprites import cross, paste, ring, token
from .text import draw_text, font
from .theme import Theme


def rings_for(state: GameState, highlight: Iterable[tuple[str, int]]) -> set[tuple[int, int]]:
    """The pieces to ring, as (colour index, piece): those the player on turn
    may move now, and ``highlight``'s (colour, piece) pairs."""
    rings: set[tuple[int, int]] = set()
    if state.phase in ("move", "bonus"):
        pieces = state.pieces
        for m in legal_moves(state):
            c = COLOUR_INDEX[m.colour]
            if m.enter:  # any piece in the base may be the one to come out
                rings.update((c, i) for i, p in enumerate(pieces[m.colour]) if p == 0)
            else:
                rings.add((c, m.piece))
    for colour, piece in highlight:
        if colour in COLOURS:
            rings.add((COLOURS.index(colour), piece))
    return rings


def mark_last_move(
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    m: Move,
    pieces: Mapping[str, tuple[int, ...]],
    t: Theme,
) -> None:
    """Where the last move ``m`` came from (a thin outline) and went (a thick one)."""
    if m.colour not in COLOURS:
        return
    c = COLOURS.index(m.colour)
    n = len(pieces.get(m.colour, ()))
    w = max(2, lay.cell // 12)
    # where it came from: a thin outline; where it went: a thick one
    if m.frm == 0:
        y, x = geo.base_slot(c, m.piece, max(n, 4))
        r = lay.cell * 0.55
        cx, cy = lay.point(y, x)
        d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=t.last, width=max(1, w // 2))
    elif 1 <= m.frm < HOME:
        cell = geo.piece_cell(c, m.frm)
        if cell is not None:
            x0, y0, x1, y1 = lay.box(cell)
            d.rectangle(
                (x0 + w, y0 + w, x1 - 1 - w, y1 - 1 - w), outline=t.last, width=max(1, w // 2)
            )
    if 1 <= m.to < HOME:
        cell = geo.piece_cell(c, m.to)
        if cell is not None:
            x0, y0, x1, y1 = lay.box(cell)
            d.rectangle((x0, y0, x1 - 1, y1 - 1), outline=t.last, width=w)
    elif m.to == HOME:
        d.polygon([lay.point(y, x) for y, x in geo.triangle(c)], outline=t.last, width=w)


def mark_captured(
    img: Image.Image,
    lay: geo.Layout,
    m: Move,
    pieces: Mapping[str, tuple[int, ...]],
    t: Theme,
) -> None:
    """A cross on the base slot of the piece ``m`` captured, if it is still there."""
    if m.captures is None:
        return
    colour, vi = m.captures
    vc = COLOURS.index(colour)
    ps = pieces.get(colour)
    if ps is not None and vi < len(ps) and ps[vi] == 0:
        y, x = geo.base_slot(vc, vi, len(ps))
        s = round(lay.cell * 0.7)
        paste(img, cross(s, t.captured), lay.point(y, x))


_STACK_OFFSETS = {
    1: [(0.0, 0.0)],
    2: [(-0.19, -0.19), (0.19, 0.19)],
    3: [(-0.23, -0.23), (-0.23, 0.23), (0.23, -0.23)],
    4: [(-0.23, -0.23), (-0.23, 0.23), (0.23, -0.23), (0.23, 0.23)],
}
_STACK_SIZE = {1: 0.8, 2: 0.6, 3: 0.5, 4: 0.5}


def draw_pieces(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    state: GameState,
    rings: set[tuple[int, int]],
    t: Theme,
) -> None:
    """Every piece: in its base slot, on its square (stacked), or counted at home."""
    cells: dict[geo.Cell, list[tuple[int, int]]] = {}
    home: dict[int, int] = {}
    slot = lay.cell * 0.47
    for colour, ps in state.pieces.items():
        c = COLOUR_INDEX[colour]
        for i, p in enumerate(ps):
            if p != 0:  # the empty place in the base, so the yard reads like a rack
                y, x = geo.base_slot(c, i, len(ps))
                px, py = lay.point(y, x)
                d.ellipse(
                    (px - slot, py - slot, px + slot, py + slot),
                    outline=t.colours[c].light,
                    width=max(2, lay.cell // 14),
                )
            if p == 0:
                y, x = geo.base_slot(c, i, len(ps))
                _token(img, lay, c, i, lay.point(y, x), round(lay.cell * 0.95), (c, i) in rings, t)
            elif p == HOME:
                home[c] = home.get(c, 0) + 1
            else:
                cell = geo.piece_cell(c, p)
                assert cell is not None
                cells.setdefault(cell, []).append((c, i))
    stacking = state.options.stacking
    for cell, here in cells.items():
        n = len(here)
        cx, cy = lay.centre(cell)
        if stacking != "free" and n == 2 and here[0][0] == here[1][0]:
            # a tower (tower 6) or a barrier (super 4): a thick frame in the owner's colour
            x0, y0, x1, y1 = lay.box(cell)
            d.rectangle(
                (x0, y0, x1 - 1, y1 - 1),
                outline=t.colours[here[0][0]].dark,
                width=max(3, lay.cell // 8),
            )
        shown = here if n <= 4 else here[:3]
        k = min(n, 4)
        diameter = round(lay.cell * _STACK_SIZE[k])
        for (c, i), (oy, ox) in zip(shown, _STACK_OFFSETS[k], strict=False):
            centre = (round(cx + ox * lay.cell), round(cy + oy * lay.cell))
            _token(img, lay, c, i, centre, diameter, (c, i) in rings, t)
        if n > 4:
            oy, ox = _STACK_OFFSETS[4][3]
            f = font(round(lay.cell * 0.3))
            draw_text(img, (cx + ox * lay.cell, cy + oy * lay.cell), f"+{n - 3}", f, t.text, "mm")
    f = font(round(lay.cell * 0.75))
    for c, count in home.items():
        y, x = geo.triangle_centre(c)
        px, py = lay.point(y, x)
        pal = t.colours[c]
        draw_text(img, (px, py), str(count), f, pal.ink, "mm", max(1, lay.cell // 20), pal.dark)


def _token(
    img: Image.Image,
    lay: geo.Layout,
    c: int,
    i: int,
    centre: tuple[int, int],
    diameter: int,
    ringed: bool,
    t: Theme,
) -> None:
    paste(img, token(c, i + 1, diameter, t.name), centre)
    if ringed:
        w = max(2, diameter // 9)
        paste(img, ring(diameter + 2 * w, t.edge, w + 2), centre)
        paste(img, ring(diameter + 2 * w - 2, t.movable, w), centre)
