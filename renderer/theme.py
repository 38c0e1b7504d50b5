"""Colours of the board, by theme name.

Each colour's pieces are discs in the classic themes.  The ``colourblind`` theme
does not count on colour alone: its four colours are the Okabe–Ito palette's
vermillion, yellow and sky blue, and a darker bluish green (they stay apart under
protanopia, deuteranopia and tritanopia), each colour's pieces have their own
shape (disc, square, triangle, diamond), and each yard shows its colour's shape.
"""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]
#: the outlines a colour's pieces can have
SHAPES = ("disc", "square", "triangle", "diamond")


@dataclass(frozen=True)
class Palette:
    main: RGB
    light: RGB
    dark: RGB
    #: the number written on a token of this colour
    ink: RGB
    #: the outline of this colour's pieces: one of SHAPES
    shape: str = "disc"


@dataclass(frozen=True)
class Theme:
    name: str
    background: RGB
    square: RGB
    grid: RGB
    text: RGB
    star: RGB
    shelter: RGB
    inactive: RGB
    #: ring round the pieces that can move, and the yard of the player on turn
    movable: RGB
    #: where the last move went
    last: RGB
    captured: RGB
    die: RGB
    pip: RGB
    colours: tuple[Palette, Palette, Palette, Palette]
    #: the dark edge of the ring round a movable piece
    edge: RGB = (20, 20, 20)
    #: each yard shows its colour's piece shape (a hollow mark between the base slots)
    marks: bool = False


THEMES: dict[str, Theme] = {
    "classic": Theme(
        name="classic",
        background=(246, 241, 231),
        square=(255, 255, 255),
        grid=(120, 116, 110),
        text=(34, 34, 34),
        star=(150, 146, 140),
        shelter=(52, 52, 56),
        inactive=(205, 201, 195),
        movable=(255, 196, 0),
        last=(20, 20, 20),
        captured=(200, 0, 40),
        die=(255, 255, 255),
        pip=(25, 25, 25),
        colours=(
            Palette((214, 45, 45), (246, 196, 196), (128, 18, 18), (255, 255, 255)),
            Palette((34, 150, 64), (190, 230, 198), (14, 86, 32), (255, 255, 255)),
            Palette((240, 186, 20), (252, 236, 180), (150, 104, 0), (56, 38, 0)),
            Palette((36, 104, 214), (192, 214, 248), (16, 54, 130), (255, 255, 255)),
        ),
    ),
    "dark": Theme(
        name="dark",
        background=(30, 32, 38),
        square=(58, 61, 70),
        grid=(20, 20, 24),
        text=(236, 236, 236),
        star=(130, 134, 146),
        shelter=(12, 12, 14),
        inactive=(70, 72, 80),
        movable=(255, 210, 40),
        last=(250, 250, 250),
        captured=(255, 70, 90),
        die=(245, 245, 245),
        pip=(25, 25, 25),
        colours=(
            Palette((226, 70, 70), (110, 46, 50), (255, 170, 170), (255, 255, 255)),
            Palette((56, 176, 90), (40, 90, 56), (170, 240, 190), (255, 255, 255)),
            Palette((242, 196, 40), (104, 90, 36), (255, 234, 150), (56, 38, 0)),
            Palette((70, 130, 236), (40, 62, 110), (170, 200, 255), (255, 255, 255)),
        ),
    ),
    "colourblind": Theme(
        name="colourblind",
        background=(243, 243, 241),
        square=(255, 255, 255),
        grid=(110, 110, 110),
        text=(20, 20, 20),
        star=(150, 150, 150),
        shelter=(60, 60, 60),
        inactive=(205, 205, 205),
        movable=(204, 121, 167),
        last=(20, 20, 20),
        captured=(0, 0, 0),
        die=(255, 255, 255),
        pip=(20, 20, 20),
        colours=(
            Palette((213, 94, 0), (247, 214, 190), (122, 50, 0), (20, 20, 20), "disc"),
            Palette((0, 110, 80), (178, 216, 204), (0, 56, 40), (255, 255, 255), "square"),
            Palette((240, 228, 66), (250, 245, 196), (130, 120, 0), (20, 20, 20), "triangle"),
            Palette((86, 180, 233), (206, 233, 249), (0, 84, 130), (20, 20, 20), "diamond"),
        ),
        marks=True,
    ),
}


def theme_for(name: str) -> Theme:
    try:
        return THEMES[name]
    except KeyError:
        raise ValueError(f"unknown theme {name!r}: choose one of {', '.join(THEMES)}") from None
