"""Palette PNGs look like the RGB drawing; the colour-blind-safe theme.

``render_board`` and ``render_standings`` draw in RGB (``board_image``,
``standings_image``), map every pixel to the nearest colour of the theme's fixed
palette (``renderer.indexed``) and encode a palette PNG.  The boards below (every
rule set, every theme, names in Cyrillic, Greek, Arabic and Hebrew, a marked last
move, a capture, the die, rings) are compared pixel by pixel with their RGB
drawing.  The thresholds, in levels of 0..255 per channel:

* ``FLAT_LEVELS`` = 6: a pixel inside a flat area (its 3 x 3 neighbourhood one
  colour in the drawing: the squares, yards, pieces' bodies, text strokes) keeps
  its colour.  It is a theme colour, so it is in the palette; the only slack is
  Pillow's colour lookup, which works on 4-level steps per channel and may pick a
  theme colour within about 5 levels of it (the dark theme's white digits and its
  near-white outline).  Six levels on a flat patch is about one CIELAB unit: the
  threshold of seeing two patches side by side as different.
* ``NEAR_LEVELS`` = 16 for ``NEAR_SHARE`` = 99 % of the pixels, and
  ``FAR_LEVELS`` = 24 for ``FAR_SHARE`` = 99.95 %: the pixels that change more
  than a few levels are edge pixels (an anti-aliased rim, a letter's edge, the
  faint ringing beside a line of the board shrunk from twice its size), a pixel
  wide, mixing two colours; the palette holds shades between every two colours
  that meet, 32 levels apart at most, so such a pixel moves to a shade of the
  same mix.  An isolated edge pixel 16 levels off is not seen at 1:1, and only
  a few in ten thousand are more than 24 off.
* ``MAX_LEVELS`` = 48 for every pixel: no pixel turns into another colour (48 is
  a step and a half of the shades, a fifth of the range), only into a nearby shade.
* ``MEAN_LEVELS`` = 1.2: the mean difference over the picture and its channels;
  the picture as a whole does not shift in tone (1 level is 0.4 % of the range).

The measured figures are inside: a flat pixel at most 5 levels off, at least
99.6 % of the pixels within 16 levels and 99.98 % within 24, the worst 33, the
mean at most 1.0 (a small board with a capture; a large one, 0.6 to 0.8).
"""

from __future__ import annotations

import io
import itertools
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFilter

import engine
from engine import COLOURS, GameState, Move
from renderer import THEMES, board_image, render_board, render_standings, standings_image
from renderer import geometry as geo
from renderer.indexed import MAX_COLOURS, palette, theme_colours, to_indexed
from renderer.sprites import token
from renderer.theme import RGB, SHAPES, theme_for

FLAT_LEVELS = 6
NEAR_LEVELS, NEAR_SHARE = 16, 0.99
FAR_LEVELS, FAR_SHARE = 24, 0.9995
MAX_LEVELS = 48
MEAN_LEVELS = 1.2
#: the biggest board at the default size, in bytes
MAX_PNG_BYTES = 30 * 1024

NAMES = {
    "red": "Жанна Константиновна",
    "green": "Δημήτρης",
    "yellow": "محمد عبد الرحمن",
    "blue": "שלום Zoë",
}


def decode(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as img:
        assert img.format == "PNG" and img.mode == "P"
        return img.convert("RGB")


@dataclass(frozen=True)
class Difference:
    """How far a picture is from its RGB drawing, in levels per channel."""

    #: the largest difference of a pixel whose 3 x 3 neighbourhood is one colour
    flat: int
    #: the share of pixels within NEAR_LEVELS in every channel
    near: float
    #: the share of pixels within FAR_LEVELS in every channel
    far: float
    #: the largest difference of any pixel, in any channel
    most: int
    #: the mean difference over every pixel and channel
    mean: float


def difference(drawn: Image.Image, shown: Image.Image) -> Difference:
    assert drawn.mode == shown.mode == "RGB" and drawn.size == shown.size
    n = drawn.width * drawn.height
    bands = ImageChops.difference(drawn, shown).split()
    worst = ImageChops.lighter(ImageChops.lighter(bands[0], bands[1]), bands[2])
    hist = worst.histogram()
    mean = sum(i * v for band in bands for i, v in enumerate(band.histogram())) / (3 * n)
    # flat: the 3 x 3 maximum and minimum of every channel are equal
    spread = [
        ImageChops.subtract(b.filter(ImageFilter.MaxFilter(3)), b.filter(ImageFilter.MinFilter(3)))
        for b in drawn.split()
    ]
    edges = ImageChops.lighter(ImageChops.lighter(spread[0], spread[1]), spread[2])
    flat_mask = edges.point(lambda v: 255 if v == 0 else 0)
    flat = ImageChops.darker(worst, flat_mask).getextrema()[1]  # worst where flat, else 0
    assert isinstance(flat, int)
    return Difference(
        flat=flat,
        near=sum(hist[: NEAR_LEVELS + 1]) / n,
        far=sum(hist[: FAR_LEVELS + 1]) / n,
        most=max(i for i, v in enumerate(hist) if v),
        mean=mean,
    )


def looks_the_same(drawn: Image.Image, shown: Image.Image) -> Difference:
    d = difference(drawn, shown)
    assert d.flat <= FLAT_LEVELS, d
    assert d.near >= NEAR_SHARE, d
    assert d.far >= FAR_SHARE, d
    assert d.most <= MAX_LEVELS, d
    assert d.mean <= MEAN_LEVELS, d
    return d


def played(rules: str, seed: int, actions: int, **options: Any) -> tuple[GameState, Move | None]:
    """A seeded random game after about ``actions`` actions, stopped where the player on
    turn must choose a piece (the die is shown, the movable pieces ringed) if it can."""
    rng = random.Random(seed)
    state = engine.new_game(rules, 4, options=options or None)
    last = None
    for k in range(10_000):
        if state.phase == "over" or (k >= actions and state.phase == "move"):
            break
        if state.phase == "roll":
            state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
        else:
            last = rng.choice(engine.legal_moves(state))
            state, _ = engine.apply(state, {"move": last.piece})
    return state, last


def captured(rules: str) -> tuple[GameState, Move]:
    """A board just after a capture, the capturing move marked (the cross shows)."""
    rng = random.Random(11)
    state = engine.new_game(rules, 4)
    while True:
        assert state.phase != "over"
        if state.phase == "roll":
            state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
            continue
        moves = engine.legal_moves(state)
        hits = [m for m in moves if m.captures is not None]
        m = hits[0] if hits else rng.choice(moves)
        state, _ = engine.apply(state, {"move": m.piece})
        if m.captures is not None and state.pieces[m.captures[0]][m.captures[1]] == 0:
            return state, m


BOARDS = [
    ("classic", "classic", 160, {}),
    ("tower", "dark", 120, {}),
    ("italian", "colourblind", 200, {"pieces": 6, "teams": True}),
    ("super", "classic", 90, {}),
    ("classic", "colourblind", 400, {}),
    ("italian", "dark", 5_000, {}),  # to the end: the winner in the status bar
]


@pytest.mark.parametrize(("rules", "theme", "actions", "options"), BOARDS)
def test_palette_board_looks_like_the_rgb_drawing(
    rules: str, theme: str, actions: int, options: dict[str, Any]
) -> None:
    # Non-Latin names, the last move marked, the die and rings (or the winner): the
    # palette PNG is within the thresholds of the module's docstring of the RGB drawing.
    state, last = played(rules, 7, actions, **options)
    kw: dict[str, Any] = {"names": NAMES, "last_move": last, "theme": theme}
    looks_the_same(board_image(state, **kw), decode(render_board(state, **kw)))


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_palette_board_with_a_capture_looks_like_the_rgb_drawing(theme: str) -> None:
    # The capture's cross over the captured piece, a bonus or the next roll.
    for rules in ("classic", "super"):
        state, m = captured(rules)
        kw: dict[str, Any] = {"names": NAMES, "last_move": m, "theme": theme, "size": 450}
        looks_the_same(board_image(state, **kw), decode(render_board(state, **kw)))


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("size", [300, 600, 1200])
def test_palette_standings_look_like_the_rgb_drawing(theme: str, size: int) -> None:
    # The standings: rows in the winners' light colours, names, places, scores.
    state, _ = played("classic", 3, 5_000)
    assert state.phase == "over"
    kw: dict[str, Any] = {"names": NAMES, "theme": theme, "size": size}
    looks_the_same(standings_image(state, **kw), decode(render_standings(state, **kw)))


def test_the_comparison_sees_a_real_difference() -> None:
    # The thresholds are not loose: another theme's palette, or a picture one pixel
    # off, fails them.
    state, last = played("classic", 7, 160)
    drawn = board_image(state, names=NAMES, last_move=last)
    wrong = to_indexed(drawn, "colourblind").convert("RGB")
    assert difference(drawn, wrong).near < NEAR_SHARE
    moved = ImageChops.offset(drawn, 1, 0)
    d = difference(drawn, moved)
    assert d.flat > FLAT_LEVELS or d.near < NEAR_SHARE or d.mean > MEAN_LEVELS


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_palette_holds_every_theme_colour(theme: str) -> None:
    # The theme's own colours are palette colours, and a flat patch of each comes back
    # as itself (or, for two theme colours closer than Pillow's lookup tells apart, as
    # the other: at most 5 levels away).
    colours = palette(theme)
    assert len(colours) <= MAX_COLOURS and len(set(colours)) == len(colours)
    mine = list(dict.fromkeys(theme_colours(theme_for(theme))))
    assert set(mine) <= set(colours)
    patches = Image.new("RGB", (len(mine), 1))
    patches.putdata(mine)
    back = to_indexed(patches, theme).convert("RGB")
    for k, colour in enumerate(mine):
        got = back.getpixel((k, 0))
        assert isinstance(got, tuple)
        assert max(abs(a - b) for a, b in zip(got, colour, strict=True)) <= 5, (colour, got)
        if got != colour:  # only ever another theme colour, that near
            assert got in mine


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_busy_boards_are_small_palette_pngs(theme: str) -> None:
    # At the default size a board is at most 30 KB, whatever is on it.
    for rules in engine.RULE_SETS:
        for actions in (0, 80, 200):
            state, last = played(rules, 5, actions)
            png = render_board(state, names=NAMES, last_move=last, theme=theme)
            assert len(png) <= MAX_PNG_BYTES, (rules, actions, len(png))
            decode(png)


# --------------------------------------------------------------------------
# the colour-blind-safe theme

# Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation
# of color vision deficiency", severity 1.0: linear RGB -> linear RGB as seen.
MACHADO = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
    "normal vision": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
}
#: the least CIELAB (CIE76) distance between two players' colours, as each sees them
MIN_DELTA_E = 25.0

Linear = tuple[float, float, float]


def linear(c: RGB) -> Linear:
    def one(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4

    return one(c[0]), one(c[1]), one(c[2])


def seen(c: RGB, vision: str) -> Linear:
    m = MACHADO[vision]
    rgb = linear(c)
    out = [min(1.0, max(0.0, sum(m[i][j] * rgb[j] for j in range(3)))) for i in range(3)]
    return out[0], out[1], out[2]


def lab(rgb: Linear) -> tuple[float, float, float]:
    """CIELAB (D65) of a linear sRGB colour."""
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: RGB, b: RGB, vision: str) -> float:
    return math.dist(lab(seen(a, vision)), lab(seen(b, vision)))


def test_colour_blindness_simulation_is_sane() -> None:
    # The matrices keep grey grey, and classic red and green do collapse for a
    # deuteranope (the reason for the colour-blind theme).
    for vision in MACHADO:
        assert delta_e((128, 128, 128), (128, 128, 128), vision) == 0
        grey = lab(seen((128, 128, 128), vision))
        assert abs(grey[1]) < 1 and abs(grey[2]) < 1, vision
    classic = theme_for("classic").colours
    assert delta_e(classic[0].main, classic[1].main, "deuteranopia") < MIN_DELTA_E


@pytest.mark.parametrize("vision", sorted(MACHADO))
def test_colourblind_colours_stay_apart(vision: str) -> None:
    # The four players' colours (Okabe–Ito vermillion, yellow and sky blue, a darker
    # bluish green), as a protanope, deuteranope or tritanope sees them: every two at
    # least MIN_DELTA_E apart; so are the pieces' rims from their bodies.
    t = theme_for("colourblind")
    mains = [p.main for p in t.colours]
    for (i, a), (j, b) in itertools.combinations(enumerate(mains), 2):
        assert delta_e(a, b, vision) >= MIN_DELTA_E, (COLOURS[i], COLOURS[j], vision)
    for p in t.colours:
        assert delta_e(p.main, p.dark, vision) >= MIN_DELTA_E / 2, (p, vision)
        assert delta_e(p.main, p.ink, vision) >= MIN_DELTA_E, (p, vision)


def footprint(img: Image.Image, ground: RGB) -> Image.Image:
    """The outline of what is drawn on ``ground`` in ``img`` (RGB), seen in greyscale:
    a 1-bit mask of the pixels not of the ground's grey, with the holes in it (a white
    number on a piece) filled, so that only the outline counts."""
    grey = img.convert("L")
    level = Image.new("RGB", (1, 1), ground).convert("L").getpixel((0, 0))
    assert isinstance(level, int)
    mask = grey.point(lambda v: 255 if abs(v - level) > 24 else 0)
    assert mask.getpixel((0, 0)) == 0  # a corner is the ground: fill what is outside
    ImageDraw.floodfill(mask, (0, 0), 128)
    return mask.point(lambda v: 0 if v == 128 else 255).convert("1")


def apart(a: Image.Image, b: Image.Image) -> float:
    """The share of the two masks' union where they differ."""
    union = ImageChops.logical_or(a, b).histogram()[255]
    differ = ImageChops.logical_xor(a, b).histogram()[255]
    return differ / union


def test_colourblind_pieces_have_a_shape_per_colour() -> None:
    # Tokens are told apart by shape too: a disc, a square, a triangle and a diamond;
    # their outlines (from the sprite's alpha) differ pairwise by a good part.
    t = theme_for("colourblind")
    assert sorted(p.shape for p in t.colours) == sorted(SHAPES)
    for number in (None, 3):
        masks = [
            token(c, number, 48, t.name)
            .getchannel("A")
            .point(lambda v: 255 if v > 127 else 0)
            .convert("1")
            for c in range(4)
        ]
        for a, b in itertools.combinations(range(4), 2):
            assert apart(masks[a], masks[b]) >= 0.12, (COLOURS[a], COLOURS[b])
    # the classic theme's pieces are all discs
    classic = [
        token(c, None, 48, "classic")
        .getchannel("A")
        .point(lambda v: 255 if v > 127 else 0)
        .convert("1")
        for c in range(4)
    ]
    assert all(apart(classic[0], m) == 0 for m in classic)


def yard_crop(img: Image.Image, c: int, centre: tuple[float, float], half: float) -> Image.Image:
    lay = geo.Layout(img.width)
    top, left, _, _ = geo.yard_box(c)
    x, y = lay.point(top + centre[0], left + centre[1])
    h = round(half * lay.cell)
    return img.crop((x - h, y - h, x + h, y + h))


def test_colourblind_board_tells_colours_apart_in_greyscale() -> None:
    # On the board, in greyscale: each colour's piece in its base and its yard's mark
    # have a shape of their own (their footprints on the white panel differ pairwise);
    # the classic theme has no marks, and its pieces' footprints are alike.
    state = engine.new_game("classic", 4)
    for theme in ("colourblind", "classic"):
        t = theme_for(theme)
        img = board_image(state, theme=theme)
        pieces, marks = [], []
        for c in range(4):
            slot = geo.base_slot(c, 0)
            top, left, _, _ = geo.yard_box(c)
            pieces.append(
                footprint(yard_crop(img, c, (slot[0] - top, slot[1] - left), 0.55), t.square)
            )
            marks.append(
                footprint(yard_crop(img, c, geo.YARD_MARK, geo.YARD_MARK_SIZE + 0.1), t.square)
            )
        if theme == "colourblind":
            for a, b in itertools.combinations(range(4), 2):
                assert apart(pieces[a], pieces[b]) >= 0.12, (COLOURS[a], COLOURS[b])
                assert apart(marks[a], marks[b]) >= 0.12, (COLOURS[a], COLOURS[b])
        else:
            assert all(m.getbbox() is None for m in marks)
            for a, b in itertools.combinations(range(4), 2):
                assert apart(pieces[a], pieces[b]) < 0.05, (COLOURS[a], COLOURS[b])


def test_colourblind_theme_is_offered(tmp_path: Path) -> None:
    # A theme like the others: render_board, render_standings, the animation and
    # ``ludo-bot render --theme colourblind`` take it.
    from bot.app.cli import main, replay_to_end

    assert list(THEMES)[-1] == "colourblind" and THEMES["colourblind"].name == "colourblind"
    rng = random.Random(4)
    start = state = engine.new_game("classic", 4)
    actions: list[dict[str, int]] = []
    for _ in range(60):
        if state.phase == "roll":
            action = {"roll": rng.randint(1, 6)}
        else:
            action = {"move": engine.legal_moves(state)[0].piece}
        actions.append(action)
        state, _ = engine.apply(state, action)
    record = engine.make_record(start, actions)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "board.png"
    assert main(["render", str(path), "-o", str(out), "--theme", "colourblind"]) == 0
    final, last, rolled = replay_to_end(json.dumps(record))
    assert out.read_bytes() == render_board(
        final, last_move=last, rolled=rolled, theme="colourblind"
    )
    assert out.read_bytes() != render_board(final, last_move=last, rolled=rolled)
