"""Fonts, text drawn from cached masks, and player names made safe to draw
(any Unicode, any length)."""

from __future__ import annotations

import io
import math
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from .theme import RGB

FONT_FILE = Path(__file__).resolve().parent / "fonts" / "DejaVuSans-Bold.ttf"
#: a name longer than this is cut before it is measured at all
MAX_NAME_CHARS = 64
ELLIPSIS = "…"
#: combining marks kept on one letter
MAX_MARKS = 2

Font = ImageFont.FreeTypeFont
#: colour -> player name, as given to the render functions (any text)
Names = Mapping[str, str]


# read once at import, so drawing never touches a file
_FONT_BYTES = FONT_FILE.read_bytes()


@lru_cache(maxsize=64)
def font(size: int) -> Font:
    """The board's font (DejaVu Sans Bold) at ``size`` pixels."""
    return ImageFont.truetype(io.BytesIO(_FONT_BYTES), max(6, size))


@lru_cache(maxsize=1)
def _probe() -> Font:
    # basic layout: a lone mark is drawn as itself, not on a shaper's dotted circle
    return ImageFont.truetype(io.BytesIO(_FONT_BYTES), 32, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1)
def _missing_glyph() -> bytes:
    # any code point the font lacks draws its .notdef box; U+FFFF is never a glyph
    return bytes(_probe().getmask("\uffff"))


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """Can the font draw ``ch`` (rather than an empty box)?"""
    return bytes(_probe().getmask(ch)) != _missing_glyph()


def clean_name(name: object, fallback: str) -> str:
    """A display name reduced to what can be drawn on one line.

    Control and format characters, lone surrogates and characters the font
    has no glyph for are dropped; runs of white space become one space.  A
    name with nothing left becomes ``fallback`` (the colour's name).
    """
    text = name if isinstance(name, str) else ""
    out: list[str] = []
    marks = 0
    for ch in text[: MAX_NAME_CHARS * 2]:
        cat = unicodedata.category(ch)
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            marks = 0
        elif cat in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue
        elif cat in ("Mn", "Me"):
            # a mark needs a letter to sit on, and a few per letter are plenty:
            # a pile of them ("Zalgo" text) would climb out of the name's band
            if out and out[-1] != " " and marks < MAX_MARKS and has_glyph(ch):
                out.append(ch)
                marks += 1
        elif has_glyph(ch):
            out.append(ch)
            marks = 0
    cleaned = "".join(out).strip()[:MAX_NAME_CHARS]
    return cleaned or fallback


@lru_cache(maxsize=4096)
def length(text: str, f: Font) -> float:
    """The width of ``text`` in font ``f``, in pixels (measured once)."""
    return f.getlength(text)


@lru_cache(maxsize=2048)
def fit(text: str, f: Font, width: float) -> str:
    """``text`` cut (with an ellipsis) to at most ``width`` pixels in font ``f``."""
    if length(text, f) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if f.getlength(text[:mid].rstrip() + ELLIPSIS) <= width:
            lo = mid
        else:
            hi = mid - 1
    if lo:
        return text[:lo].rstrip() + ELLIPSIS
    return ELLIPSIS if f.getlength(ELLIPSIS) <= width else ""


def draw_text(
    img: Image.Image,
    xy: tuple[float, float],
    text: str,
    f: Font,
    fill: RGB,
    anchor: str = "la",
    stroke_width: int = 0,
    stroke_fill: RGB | None = None,
) -> None:
    """``text`` drawn as ``ImageDraw.text`` draws it (anchored at ``xy``, an optional
    stroke round it in ``stroke_fill``), through masks drawn once per text, font
    and sub-pixel position: a board draws the same names and words over and over."""
    x, y = xy
    ix, iy = math.floor(x), math.floor(y)
    where = (ix, iy, x - ix, y - iy)
    if stroke_width:
        _paste_mask(
            img,
            _mask(text, f, anchor, where[2], where[3], stroke_width),
            where,
            stroke_fill or fill,
        )
    _paste_mask(img, _mask(text, f, anchor, where[2], where[3], 0), where, fill)


def _paste_mask(
    img: Image.Image,
    mask: tuple[Image.Image, int, int],
    where: tuple[int, int, float, float],
    colour: RGB,
) -> None:
    m, ox, oy = mask
    x0, y0 = where[0] - ox, where[1] - oy
    img.paste(colour, (x0, y0, x0 + m.width, y0 + m.height), m)


@lru_cache(maxsize=1024)
def _mask(
    text: str, f: Font, anchor: str, fx: float, fy: float, stroke: int
) -> tuple[Image.Image, int, int]:
    """The coverage of ``text`` anchored at (ox + fx, oy + fy) of the mask: (mask, ox, oy)."""
    probe = ImageDraw.Draw(Image.new("L", (1, 1)))
    left, top, right, bottom = probe.textbbox(
        (fx, fy), text, font=f, anchor=anchor, stroke_width=stroke
    )
    ox, oy = 2 - math.floor(left), 2 - math.floor(top)
    m = Image.new("L", (ox + math.ceil(right) + 2, oy + math.ceil(bottom) + 2))
    ImageDraw.Draw(m).text(
        (ox + fx, oy + fy), text, font=f, fill=255, anchor=anchor, stroke_width=stroke
    )
    return m, ox, oy
