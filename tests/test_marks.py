"""The landing marks: after a roll, each movable piece's number on the square it
would land on (renderer/marks.py), in every theme and rule set."""

from __future__ import annotations

import math

import pytest
from PIL import Image, ImageChops

import engine
from engine import COLOURS, GameState
from renderer import THEMES, board_image, render_board
from renderer import geometry as geo
from renderer.marks import badge, landings, places
from tests.helpers.landing_shot import SHOT, choice, shot
from tests.helpers.rules import choices, game, run

SIZE = 600
LAY = geo.Layout(SIZE)
Box = tuple[int, int, int, int]


def diff(a: Image.Image, b: Image.Image) -> Image.Image:
    return ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 8 else 0)


def changed_in(mask: Image.Image, box: Box) -> int:
    """How many pixels of ``box`` changed."""
    return sum(1 for v in mask.crop(box).get_flattened_data() if v)


def target_box(cell: geo.Cell | None, colour: int) -> Box:
    """The pixels a mark may cover: its square (a badge beside pieces reaches a little
    over its edges), or its home triangle."""
    if cell is not None:
        x0, y0, x1, y1 = LAY.box(cell)
        over = round(0.2 * LAY.cell)
        return x0 - over, y0 - over, x1 + over, y1 + over
    pts = [LAY.point(y, x) for y, x in geo.triangle(colour)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def outside(mask: Image.Image, boxes: list[Box]) -> int:
    """Changed pixels outside every one of ``boxes``."""
    clear = mask.copy()
    for box in boxes:
        clear.paste(0, box)
    return changed_in(clear, (0, 0, *clear.size))


def marked(state: GameState, theme: str = "classic") -> Image.Image:
    """Where the marks of ``state`` change its board: 255 where they drew."""
    with_marks = board_image(state, size=SIZE, theme=theme)
    without = board_image(state, size=SIZE, theme=theme, marks=False)
    return diff(with_marks, without)


def test_no_marks_between_rolls() -> None:
    state = game("classic", {"red": [0, 10, 14, 51]}, players=4)
    assert state.phase == "roll" and landings(state) == []
    assert not marked(state).getbbox()


@pytest.mark.parametrize("theme", list(THEMES))
def test_each_landing_square_carries_a_mark_and_nothing_else_does(theme: str) -> None:
    state = choice()
    mask = marked(state, theme)
    boxes = []
    for mark in landings(state):
        box = target_box(mark.cell, mark.colour)
        (centre,), diameter = places(LAY, mark)
        # the mark draws its ring (or burst) and number about its centre
        half = diameter // 2
        assert (
            changed_in(
                mask, (centre[0] - half, centre[1] - half, centre[0] + half, centre[1] + half)
            )
            > 3 * diameter
        )
        boxes.append(box)
    assert {m.piece for m in landings(state)} == {0, 1, 2, 3}
    assert outside(mask, boxes) == 0, "a mark drawn off its landing square"


def test_the_mark_carries_the_pieces_number_in_the_movers_colour() -> None:
    for theme in THEMES:
        two, three = badge(0, 2, 28, theme, False), badge(0, 3, 28, theme, False)
        assert ImageChops.difference(two.convert("RGB"), three.convert("RGB")).getbbox(), "a number"
        t = THEMES[theme]
        colours = {
            px[:3] for px in badge(1, 2, 28, theme, False).get_flattened_data() if px[3] == 255
        }
        assert any(math.dist(c, t.colours[1].main) < 12 for c in colours)
        assert any(math.dist(c, t.colours[1].dark) < 12 for c in colours)
    # on the board: piece 2 of red lands on square 16, its mark in red's ink
    state = choice()
    img = board_image(state, size=SIZE)
    (mark,) = [m for m in landings(state) if m.piece == 1]
    (centre,), diameter = places(LAY, mark)
    half = diameter // 2
    ink = THEMES["classic"].colours[0].dark
    near = [
        px
        for px in img.crop(
            (centre[0] - half, centre[1] - half, centre[0] + half, centre[1] + half)
        ).get_flattened_data()
        if math.dist(px, ink) < 20
    ]
    assert len(near) > 20


def burst_gap(diameter: int) -> tuple[int, int]:
    """A point between two of a burst's spikes, well inside a disc of that diameter."""
    a = -math.pi / 2 + math.pi / 8
    r = 0.44 * diameter
    return round(diameter / 2 + r * math.cos(a)), round(diameter / 2 + r * math.sin(a))


@pytest.mark.parametrize("theme", list(THEMES))
def test_a_capture_is_marked_by_its_shape_and_colour(theme: str) -> None:
    t = THEMES[theme]
    d = 40
    plain, capture = badge(0, 3, d, theme, False), badge(0, 3, d, theme, True)
    gap = burst_gap(d)
    # the shape tells it, not only the colour: a burst, where a plain mark is a disc
    assert plain.getpixel(gap)[3] == 255 and capture.getpixel(gap)[3] < 64
    assert capture.getpixel((d // 2, 2))[3] == 255, "a spike points up"
    # and it is filled with the theme's capture colour
    filled = [
        px
        for px in capture.get_flattened_data()
        if px[3] == 255 and math.dist(px[:3], t.captured) < 10
    ]
    assert len(filled) > d * d // 8
    assert not [px for px in plain.get_flattened_data() if px[3] == 255 and px[:3] == t.captured]
    # on the board, over the green piece it would capture
    state = choice()
    (mark,) = [m for m in landings(state) if m.capture]
    assert mark.piece == 2 and mark.cell == geo.track_cell(19)
    img = board_image(state, size=SIZE, theme=theme)
    box = LAY.box(mark.cell)
    assert (
        sum(1 for px in img.crop(box).get_flattened_data() if math.dist(px, t.captured) < 10) > 100
    )


def test_a_piece_going_home_is_marked_on_its_home_triangle() -> None:
    state = choice()
    (mark,) = [m for m in landings(state) if m.piece == 3]
    assert mark.cell is None
    # with no piece home yet: on the triangle's centre, as large as on a square
    (centre,), diameter = places(LAY, mark)
    assert centre == LAY.point(*geo.triangle_centre(0)) and diameter == round(0.7 * LAY.cell)
    mask = marked(state)
    assert mask.getpixel(centre) == 255
    assert changed_in(mask, target_box(None, 0)) > 3 * diameter
    # beside the count of pieces home, which still reads
    state = game("classic", {"red": [51, 57, 57, 0]}, players=4)
    state, _ = run(state, "r6")
    (mark,) = [m for m in landings(state) if m.piece == 0]
    count_at = LAY.point(*geo.triangle_centre(0))
    (beside,), _ = places(LAY, mark, occupied=True)
    box = target_box(None, 0)
    assert box[0] <= beside[0] < box[2] and box[1] <= beside[1] < box[3]
    mask = marked(state)
    assert mask.getpixel(count_at) == 0 and mask.getpixel(beside) == 255


def test_a_mark_on_the_movers_own_piece_leaves_the_stack_readable() -> None:
    state = game("tower", {"red": [10, 16, 0, 0]}, players=4)
    state, _ = run(state, "r6")
    moves = engine.legal_moves(state)
    (tower,) = [m for m in moves if m.forms == "tower"]
    (mark,) = [m for m in landings(state) if m.piece == tower.piece]
    assert mark.cell == geo.piece_cell(0, 16)
    (corner,), diameter = places(LAY, mark, occupied=True)
    cx, cy = LAY.centre(mark.cell)
    assert corner[0] > cx + LAY.cell // 4 and corner[1] < cy - LAY.cell // 4, "top-right"
    assert diameter < LAY.cell * 0.7
    mask = marked(state)
    assert mask.getpixel(corner) == 255
    # the pieces under it still show: their centres and the square's lower-left
    # quarter are untouched
    x0, _, _, y1 = LAY.box(mark.cell)
    off = round(0.19 * LAY.cell)
    assert mask.getpixel((cx - off, cy - off)) == 0 and mask.getpixel((cx + off, cy + off)) == 0
    assert changed_in(mask, (x0, cy + 5, cx - 5, y1)) == 0


def test_pieces_landing_together_share_their_square() -> None:
    # two red pieces on one square (classic stacks freely), a 3: both may go to 13
    state = game("classic", {"red": [10, 10, 0, 0]}, players=4)
    state, _ = run(state, "r3")
    here = [m for m in landings(state) if m.cell == geo.piece_cell(0, 13)]
    assert len(here) == 2
    centres, diameter = places(LAY, here[0], 2)
    assert math.dist(centres[0], centres[1]) >= diameter - 1
    mask = marked(state)
    assert all(mask.getpixel(c) == 255 for c in centres)


@pytest.mark.parametrize("rules", engine.RULE_SETS)
def test_every_rule_set_marks_each_choice_on_its_landing_square(rules: str) -> None:
    for state in choices(rules, 6, seed=23):
        mask = marked(state)
        marks = landings(state)
        assert {m.piece for m in marks} == {m.piece for m in engine.legal_moves(state)}
        boxes = [target_box(m.cell, m.colour) for m in marks]
        for box in boxes:
            assert changed_in(mask, box) > 30, (rules, state.pieces, state.die)
        assert outside(mask, boxes) == 0, (rules, state.pieces, state.die)


def test_render_board_draws_the_marks_unless_told_not_to() -> None:
    state = choice()
    assert render_board(state) != render_board(state, marks=False)
    turn = COLOURS.index(state.turn)
    assert all(m.colour == turn for m in landings(state))


def test_the_picture_in_the_docs_is_the_board_drawn_today() -> None:
    # python -m tests.helpers.landing_shot draws it again after a change to the marks
    assert SHOT.read_bytes() == shot()
