"""Fonts, and player names made safe to draw (any Unicode, any length)."""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

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


def fit(text: str, f: Font, width: float) -> str:
    """``text`` cut (with an ellipsis) to at most ``width`` pixels in font ``f``."""
    if f.getlength(text) <= width:
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
