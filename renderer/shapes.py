"""The outlines of the pieces (theme.SHAPES): a disc, a square, a triangle, a diamond.

Each shape fills a square box of half-size ``h`` about its centre (the triangle
as wide as the box), and can be drawn inset: the same shape, ``inset`` pixels
inside its edge all round, so a fill drawn over the full shape leaves a rim.
"""

from __future__ import annotations

import math

from PIL import ImageDraw

#: the square's half-side and corner radius, as fractions of the box's half-size
SQUARE_SIDE, SQUARE_CORNER = 0.88, 0.16
#: the triangle's centre (of its inscribed circle) below the box's centre, in half-sizes
TRIANGLE_DROP = math.sqrt(3) / 2 - 1 / math.sqrt(3)

Fill = tuple[int, ...]


def draw_shape(
    d: ImageDraw.ImageDraw,
    shape: str,
    centre: tuple[float, float],
    h: float,
    fill: Fill,
    inset: float = 0,
) -> None:
    """``shape`` filled with ``fill``, in the box of half-size ``h`` about ``centre``."""
    cx, cy = centre
    if shape == "square":
        s = h * SQUARE_SIDE - inset
        r = max(0.0, h * SQUARE_CORNER - inset)
        d.rounded_rectangle((cx - s, cy - s, cx + s, cy + s), radius=r, fill=fill)
    elif shape in ("triangle", "diamond"):
        d.polygon(shape_points(shape, centre, h, inset), fill=fill)
    else:
        r = h - inset
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)


def shape_points(
    shape: str, centre: tuple[float, float], h: float, inset: float = 0
) -> list[tuple[float, float]]:
    """The corners of a triangle (pointing up) or a diamond, ``inset`` inside its edge."""
    cx, cy = centre
    if shape == "diamond":
        k = h - inset * math.sqrt(2)  # the inscribed circle shrinks by ``inset``
        return [(cx, cy - k), (cx + k, cy), (cx, cy + k), (cx - k, cy)]
    # an equilateral triangle as wide as the box, turned about its inscribed circle
    top, base = cy - h * math.sqrt(3) / 2, cy + h * math.sqrt(3) / 2
    incentre = (cx, cy + h * TRIANGLE_DROP)
    inradius = h / math.sqrt(3)
    k = max(0.0, (inradius - inset) / inradius)
    corners = [(cx, top), (cx + h, base), (cx - h, base)]
    return [
        (incentre[0] + (x - incentre[0]) * k, incentre[1] + (y - incentre[1]) * k)
        for x, y in corners
    ]


def label_place(shape: str) -> tuple[float, float]:
    """Where a piece's number sits in its shape: (font size, drop below the box's
    centre), both as fractions of the box's width."""
    if shape == "triangle":
        return 0.42, TRIANGLE_DROP / 2 + 0.01
    if shape == "diamond":
        return 0.5, 0.02
    return 0.62, 0.02
