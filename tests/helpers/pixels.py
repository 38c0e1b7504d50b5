"""Pixel probes on the renderer's real images: where a cell, a yard, a base slot or a
triangle is in pixels (``renderer.geometry``'s layout at the default size), colours
matched within a tolerance, what changed between two images; and positions to draw
(a busy one, a game just won)."""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Iterable
from typing import Any

from PIL import Image, ImageChops, ImageDraw

import engine
from engine import COLOURS, GameState
from renderer import DEFAULT_SIZE, board_image
from renderer import geometry as geo
from renderer.theme import theme_for
from tests.helpers.rules import game, run

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

T = theme_for("classic")
LAY = geo.Layout(DEFAULT_SIZE)
CELL = LAY.cell
#: PNG budget per board at the default size (chat uploads stay small: palette PNGs)
MAX_PNG_BYTES = 30_000
#: a free square for stacks: absolute 19 is neither a start square nor a star
STACK_SQUARE = 19


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(png)).convert("RGB")


def image(state: GameState, **kw: Any) -> Image.Image:
    return board_image(state, **kw).convert("RGB")


def near(a: Iterable[int], b: Iterable[int], tol: float) -> bool:
    return math.dist(tuple(a), tuple(b)) <= tol


def pixels(img: Image.Image, box: Box) -> list[tuple[int, int, tuple[int, int, int]]]:
    """(x, y, rgb) of every pixel of ``box`` (clipped to the image)."""
    w, h = img.size
    x0, y0, x1, y1 = max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])
    if x0 >= x1 or y0 >= y1:
        return []
    raw = img.crop((x0, y0, x1, y1)).tobytes()
    width = x1 - x0
    return [
        (x0 + k % width, y0 + k // width, (raw[3 * k], raw[3 * k + 1], raw[3 * k + 2]))
        for k in range(len(raw) // 3)
    ]


def matches(img: Image.Image, box: Box, colour: RGB, tol: float = 30) -> list[tuple[int, int]]:
    """Pixels of ``box`` within ``tol`` of ``colour``."""
    return [(x, y) for x, y, p in pixels(img, box) if near(p, colour, tol)]


def count(img: Image.Image, box: Box, colour: RGB, tol: float = 30) -> int:
    return len(matches(img, box, colour, tol))


def centroid(points: list[tuple[int, int]]) -> tuple[float, float]:
    assert points
    return (
        sum(x for x, _ in points) / len(points) + 0.5,
        sum(y for _, y in points) / len(points) + 0.5,
    )


def around(xy: tuple[float, float], half: float) -> Box:
    x, y = xy
    return round(x - half), round(y - half), round(x + half), round(y + half)


def inside(inner: Box, outer: Box) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def yard_px(c: int, lay: geo.Layout = LAY) -> Box:
    top, left, bottom, right = geo.yard_box(c)
    return (*lay.point(top, left), *lay.point(bottom, right))


def slot_px(c: int, i: int, n: int = 4, lay: geo.Layout = LAY) -> tuple[int, int]:
    y, x = geo.base_slot(c, i, n)
    return lay.point(y, x)


def inset(box: Box, k: int) -> Box:
    """``box`` shrunk by ``k`` pixels on every side."""
    return box[0] + k, box[1] + k, box[2] - k, box[3] - k


def corners(box: Box, size: int = 3) -> list[Box]:
    """The four small squares in the corners of a cell box."""
    x0, y0, x1, y1 = box
    return [
        (x0, y0, x0 + size, y0 + size),
        (x1 - size, y0, x1, y0 + size),
        (x0, y1 - size, x0 + size, y1),
        (x1 - size, y1 - size, x1, y1),
    ]


def changed(a: Image.Image, b: Image.Image, blank: Iterable[Box] = ()) -> Box | None:
    """Bounding box of the pixels that differ, ignoring the ``blank`` boxes."""
    diff = ImageChops.difference(a, b)
    d = ImageDraw.Draw(diff)
    for box in blank:
        d.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=(0, 0, 0))
    return diff.getbbox()


def sq(colour: str, square: int) -> int:
    """The progress at which a ``colour`` piece stands on absolute track ``square``."""
    return (square - 13 * COLOURS.index(colour)) % 52 + 1


def ringed(img: Image.Image, xy: tuple[float, float]) -> int:
    """Gold ring pixels round a piece centred at ``xy``."""
    return count(img, around(xy, 0.6 * CELL), T.movable, 40)


def play(state: GameState, rolls: Iterable[int]) -> GameState:
    """Roll each value and take the first legal move (bonus moves too): a busy position."""
    for d in rolls:
        if state.phase == "over":
            break
        state, _ = engine.apply(state, {"roll": d})
        while state.phase in ("move", "bonus"):
            state, _ = engine.apply(state, {"move": engine.legal_moves(state)[0].piece})
    return state


ROLLS = [6, 3, 6, 5, 4, 6, 2, 5, 1, 6, 6, 3, 5, 5, 2, 4, 6, 1, 3, 5] * 4


def finished(rules: str, **options: Any) -> GameState:
    """A game red (with yellow, in teams) has just won by bringing its last piece home."""
    position: dict[str, list[int]] = {"red": [57, 57, 57, 56], "green": [30, 12, 0, 0]}
    if options.get("teams"):
        position["yellow"] = [57, 57, 57, 57]
    s = game(rules, position, players=4, **options)
    s, _ = run(s, "r1", "m3")
    assert s.phase == "over"
    return s


@functools.cache
def baseline() -> Image.Image:
    """Four players, every piece in its base: the board before any piece moves."""
    return image(game("classic", players=4))
