"""Pictures as palette ("P" mode) PNGs, on a fixed palette per theme.

A picture is drawn in RGB (smooth edges, anti-aliased text), then every pixel
is mapped to the nearest colour of its theme's palette, and that is encoded:
a palette PNG is under a third of the bytes of an RGB one, a tenth of the time
to encode, and looks the same (tests/test_render_palette.py compares them pixel
by pixel).  The palette is fixed per theme, made once: the theme's own colours,
exactly, and between each two of them that meet in a picture (a piece's rim and
the square it stands on, a name and its yard, ...) shades at most ``step``
apart, the smallest step from :data:`STEPS` that keeps the palette within 256
colours (32 for the themes there are).  A smooth edge's pixel is a mix of the
two colours it divides, so it maps to a shade of the same mix; a flat area keeps
its colour (Pillow's lookup works in steps of 4 levels per channel, so of two
theme colours a few levels apart, such as the dark theme's white and its
near-white, the one may come out as the other).
"""

from __future__ import annotations

import io
import math
from functools import lru_cache

from PIL import Image

from .theme import RGB, Theme, theme_for

#: PNG settings of the RGB encode (the benchmark's floor: see bench/render.py)
PNG_OPTIONS = {"format": "PNG", "compress_level": 6}
#: PNG settings of the palette images: indices compress well at a low level (level 3
#: takes half the time of 6 for a fifth more bytes, about 19 KB for a 600 px board)
INDEXED_PNG_OPTIONS = {"format": "PNG", "compress_level": 3}
MAX_COLOURS = 256
#: the spacings tried for the shades between two colours, finest first
STEPS = (12, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128)

Pair = tuple[RGB, RGB]


def to_png(img: Image.Image, theme: str) -> bytes:
    """``img`` (RGB, drawn in ``theme``) as a palette PNG on the theme's palette."""
    out = io.BytesIO()
    to_indexed(img, theme).save(out, **INDEXED_PNG_OPTIONS)  # type: ignore[arg-type]
    return out.getvalue()


def to_indexed(img: Image.Image, theme: str) -> Image.Image:
    """``img`` (RGB) as a "P" image: each pixel the nearest colour of the theme's palette."""
    return img.quantize(palette=palette_image(theme), dither=Image.Dither.NONE)


@lru_cache(maxsize=16)
def palette_image(theme: str) -> Image.Image:
    """A 1 x 1 "P" image carrying the palette of ``theme`` (for ``Image.quantize``)."""
    img = Image.new("P", (1, 1))
    img.putpalette([v for colour in palette(theme) for v in colour])
    return img


def palette(theme: str) -> tuple[RGB, ...]:
    """The fixed palette of ``theme``: its colours first, then the shades between them."""
    return _palette(theme)[1]


def palette_step(theme: str) -> int | None:
    """The spacing of the shades in the palette of ``theme`` (None: no shades fit)."""
    return _palette(theme)[0]


@lru_cache(maxsize=16)
def _palette(theme: str) -> tuple[int | None, tuple[RGB, ...]]:
    t = theme_for(theme)
    base = tuple(dict.fromkeys(theme_colours(t)))
    pairs = meetings(t)
    for step in STEPS:
        colours = _with_shades(base, pairs, step)
        if colours is not None:
            return step, colours
    return None, base[:MAX_COLOURS]


def theme_colours(t: Theme) -> list[RGB]:
    """Every colour a theme paints with."""
    plain = [t.background, t.square, t.grid, t.text, t.star, t.shelter, t.inactive]
    marks = [t.movable, t.last, t.captured, t.die, t.pip, t.edge]
    return plain + marks + [c for p in t.colours for c in (p.main, p.light, p.dark, p.ink)]


def meetings(t: Theme) -> list[Pair]:
    """The pairs of colours that meet in a picture, so that an edge mixes them."""
    mains = [p.main for p in t.colours]
    darks = [p.dark for p in t.colours]
    grounds = [t.background, t.square, t.star, t.shelter]
    pairs: list[Pair] = []
    # the static board: lines round every square and yard, stars, arrows, panels
    pairs += [(t.grid, g) for g in (t.background, t.square, t.shelter, t.inactive, *mains)]
    pairs += [(t.square, t.star), (t.square, t.shelter), (t.background, t.inactive)]
    pairs += [(t.square, t.background), *((t.square, m) for m in mains)]
    pairs += [(t.background, m) for m in mains]
    for p in t.colours:
        # a piece's rim on whatever it stands on (another piece in a stack, a mark),
        # its body and its number; a name on its yard; a count at home; the cross
        pairs += [(p.dark, g) for g in (*grounds, *mains, *darks, p.light, t.last)]
        pairs += [(p.main, p.dark), (p.ink, p.main), (p.ink, p.dark), (p.ink, t.movable)]
        pairs += [(t.captured, c) for c in (p.main, p.dark, p.ink)]
        # words over a piece ("+2"), a standings row, the die's frame
        pairs += [(t.text, c) for c in (p.main, p.dark, p.light)]
        pairs += [(p.main, t.die), (p.main, p.light)]
    # the ring round a movable piece, the cross, the status bar and the die
    pairs += [(t.edge, g) for g in (*grounds, *mains, *darks, t.movable, t.last)]
    pairs += [(t.captured, t.square), *((t.text, g) for g in grounds)]
    pairs += [(t.pip, t.die), (t.pip, t.background), (t.die, t.background)]
    unique = {(min(a, b), max(a, b)) for a, b in pairs if a != b}
    return sorted(unique)


def _with_shades(base: tuple[RGB, ...], pairs: list[Pair], step: int) -> tuple[RGB, ...] | None:
    """``base`` and the shades between each pair, ``step`` apart: a shade within half a
    step of a colour already there is left out.  None if that is over MAX_COLOURS."""
    gap = step / 2
    colours = list(base)
    cells: dict[tuple[int, ...], list[RGB]] = {}

    def cell(c: RGB) -> tuple[int, ...]:
        return tuple(int(v // gap) for v in c)

    def crowded(c: RGB) -> bool:
        r, g, b = cell(c)
        return any(
            math.dist(c, other) < gap
            for dr in (-1, 0, 1)
            for dg in (-1, 0, 1)
            for db in (-1, 0, 1)
            for other in cells.get((r + dr, g + dg, b + db), ())
        )

    for c in colours:
        cells.setdefault(cell(c), []).append(c)
    for a, b in pairs:
        n = math.ceil(math.dist(a, b) / step) - 1
        for k in range(1, n + 1):
            f = k / (n + 1)
            shade = (
                round(a[0] + (b[0] - a[0]) * f),
                round(a[1] + (b[1] - a[1]) * f),
                round(a[2] + (b[2] - a[2]) * f),
            )
            if crowded(shade):
                continue
            colours.append(shade)
            cells.setdefault(cell(shade), []).append(shade)
            if len(colours) > MAX_COLOURS:
                return None
    return tuple(colours)
