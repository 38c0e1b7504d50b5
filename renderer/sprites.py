"""Small pictures drawn once and pasted many times: tokens, rings, dice."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .shapes import draw_shape, label_place
from .text import font
from .theme import RGB, theme_for

#: sprites are drawn this many times larger, then shrunk: smooth edges
SUPER = 4


def _shrink(img: Image.Image, size: int) -> Image.Image:
    return img.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=512)
def token(colour: int, number: int | None, diameter: int, theme: str) -> Image.Image:
    """A piece: its colour's shape (a disc, unless the theme says otherwise) in its
    colour, with a dark rim and its number (from 1) on it."""
    pal = theme_for(theme).colours[colour]
    big = diameter * SUPER
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    edge = max(SUPER, round(big * 0.07))
    centre, h = ((big - 1) / 2, (big - 1) / 2), (big - 1) / 2
    draw_shape(d, pal.shape, centre, h, (*pal.dark, 255))
    draw_shape(d, pal.shape, centre, h, (*pal.main, 255), inset=edge)
    if number is not None:
        scale, drop = label_place(pal.shape)
        f = font(round(big * scale))
        d.text(
            (big / 2, big / 2 + big * drop), str(number), font=f, fill=(*pal.ink, 255), anchor="mm"
        )
    return _shrink(img, diameter)


@lru_cache(maxsize=64)
def ring(diameter: int, colour: RGB, width: int) -> Image.Image:
    """A circle outline, to mark a piece (movable, captured)."""
    big = diameter * SUPER
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    ImageDraw.Draw(img).ellipse(
        (0, 0, big - 1, big - 1), outline=(*colour, 255), width=width * SUPER
    )
    return _shrink(img, diameter)


@lru_cache(maxsize=64)
def cross(size: int, colour: RGB) -> Image.Image:
    """An X, to mark a piece that was just captured."""
    big = size * SUPER
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    w = max(SUPER, big // 7)
    d.line((w, w, big - w, big - w), fill=(*colour, 255), width=w)
    d.line((w, big - w, big - w, w), fill=(*colour, 255), width=w)
    return _shrink(img, size)


_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)],
}


@lru_cache(maxsize=64)
def die(value: int, size: int, theme: str, frame: RGB | None = None) -> Image.Image:
    """A die face showing ``value`` (1..6), framed in the roller's colour."""
    t = theme_for(theme)
    big = size * SUPER
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(
        (0, 0, big - 1, big - 1),
        radius=big // 6,
        fill=(*t.die, 255),
        outline=(*(frame or t.pip), 255),
        width=max(SUPER, big // (9 if frame else 22)),
    )
    r = big * 0.09
    for px, py in _PIPS[value]:
        cx, cy = px * big, py * big
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*t.pip, 255))
    return _shrink(img, size)


def paste(img: Image.Image, sprite: Image.Image, centre: tuple[int, int]) -> None:
    """Paste ``sprite`` onto ``img`` centred on pixel ``centre``, through its alpha."""
    w, h = sprite.size
    img.paste(sprite, (centre[0] - w // 2, centre[1] - h // 2), sprite)
