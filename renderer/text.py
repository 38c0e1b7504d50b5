"""Fonts, and player names made safe to draw (any Unicode, any length)."""

from __future__ import annotations

import io
import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_FILE = Path(__file__).resolve().parent / "fonts" / "DejaVuSans-Bold.ttf"
#: a name longer than this is cut before it is measured at all
MAX_NAME_CHARS = 64
ELLIPSIS = "…"

Font = ImageFont.FreeTypeFont


# read once at import, so drawing never touches a file
_FONT_BYTES = FONT_FILE.read_bytes()


@lru_cache(maxsize=64)
def font(size: int) -> Font:
    """The board's font (DejaVu Sans Bold) at ``size`` pixels."""
    return ImageFont.truetype(io.BytesIO(_FONT_BYTES), max(6, size))


@lru_cache(maxsize=1)
def _missing_glyph() -> bytes:
    # any code point the font lacks draws its .notdef box; U+FFFF is never a glyph
    return bytes(font(32).getmask("\uffff"))


@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    """Can the font draw ``ch`` (rather than an empty box)?"""
    if unicodedata.category(ch) in ("Mn", "Me", "Zs"):
        return True
    return bytes(font(32).getmask(ch)) != _missing_glyph()


def clean_name(name: object, fallback: str) -> str:
    """A display name reduced to what can be drawn on one line.

    Control and format characters, lone surrogates and characters the font
    has no glyph for are dropped; runs of white space become one space.  A
    name with nothing left becomes ``fallback`` (the colour's name).
    """
    text = name if isinstance(name, str) else ""
    out: list[str] = []
    for ch in text[: MAX_NAME_CHARS * 2]:
        cat = unicodedata.category(ch)
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
        elif cat in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue
        elif has_glyph(ch):
            out.append(ch)
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
    return text[:lo].rstrip() + ELLIPSIS if lo else ELLIPSIS
