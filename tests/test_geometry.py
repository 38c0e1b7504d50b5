"""Board geometry (``renderer.geometry``): cells and points, no images.

The board is the 15 x 15 cross of RULES.md section 1: cell ``(row, col)``
from the top-left corner, red's yard top-left and the other colours clockwise.
Progress ``p`` is relative to the piece's owner: 0 base, 1..51 track (absolute
square ``(13*c + p - 1) % 52``), 52..56 home column, 57 home.
"""

from __future__ import annotations

import math
from itertools import combinations, pairwise

import pytest

from renderer import geometry as geo

COLOURS = range(4)
CENTRE = {(r, c) for r in range(6, 9) for c in range(6, 9)}
#: every cell of the board
ALL_CELLS = [(r, c) for r in range(geo.GRID) for c in range(geo.GRID)]
#: the radius of a piece in its base slot, in cells (board.py draws it 0.95 cells wide)
BASE_TOKEN_RADIUS = 0.475


def in_cross(cell: geo.Cell) -> bool:
    """The cross: the three middle rows and the three middle columns."""
    r, c = cell
    return 6 <= r <= 8 or 6 <= c <= 8


def in_a_yard(cell: geo.Cell) -> bool:
    r, c = cell
    return any(
        top <= r < bottom and left <= c < right
        for top, left, bottom, right in (geo.yard_box(k) for k in COLOURS)
    )


def orthogonal(a: geo.Cell, b: geo.Cell) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def diagonal(a: geo.Cell, b: geo.Cell) -> bool:
    return abs(a[0] - b[0]) == 1 and abs(a[1] - b[1]) == 1


def track() -> list[geo.Cell]:
    return [geo.track_cell(sq) for sq in range(52)]


def columns() -> dict[int, list[geo.Cell]]:
    return {c: [geo.column_cell(c, p) for p in range(52, 57)] for c in COLOURS}


# --------------------------------------------------------------------------
# the track


def test_track_has_52_distinct_cells_on_the_board() -> None:
    # RULES.md 1: the main track is a ring of 52 squares, each its own cell.
    cells = track()
    assert len(set(cells)) == 52
    assert all(0 <= r < geo.GRID and 0 <= c < geo.GRID for r, c in cells)


def test_track_lies_in_the_cross_outside_yards_and_centre() -> None:
    # The track runs along the arms of the cross: never in a corner yard or the home centre.
    for sq, cell in enumerate(track()):
        assert in_cross(cell), (sq, cell)
        assert not in_a_yard(cell), (sq, cell)
        assert cell not in CENTRE, (sq, cell)


def test_consecutive_track_squares_are_neighbours_including_51_to_0() -> None:
    # A move of one square goes to the next cell; the ring closes from square 51 to 0.
    cells = track()
    for sq in range(52):
        a, b = cells[sq], cells[(sq + 1) % 52]
        assert orthogonal(a, b) or diagonal(a, b), (sq, a, b)


def test_diagonal_steps_are_exactly_the_four_inner_corners() -> None:
    # The path turns diagonally only round the four corners of the centre square.
    cells = track()
    diagonals = []
    for sq in range(52):
        a, b = cells[sq], cells[(sq + 1) % 52]
        if diagonal(a, b):
            diagonals.append(sq)
            # the two cells it skips between: one is a corner of the centre 3 x 3
            skipped = {(a[0], b[1]), (b[0], a[1])}
            assert skipped & {(6, 6), (6, 8), (8, 6), (8, 8)}, (sq, a, b)
    assert len(diagonals) == 4
    # one turn per quarter of the board, since each quarter is red's rotated
    assert sorted(sq % 13 for sq in diagonals) == [diagonals[0] % 13] * 4


def test_track_goes_clockwise_once_round_the_centre() -> None:
    # RULES.md 1: play passes clockwise; with y pointing down, clockwise is a growing angle.
    total = 0.0
    cells = track()
    for a, b in pairwise([*cells, cells[0]]):
        ta = math.atan2(a[0] - 7, a[1] - 7)
        tb = math.atan2(b[0] - 7, b[1] - 7)
        step = (tb - ta + math.pi) % (2 * math.pi) - math.pi
        assert step > 0, (a, b)
        total += step
    assert total == pytest.approx(2 * math.pi)


def test_track_cell_refuses_squares_off_the_ring() -> None:
    # Absolute squares are 0..51 only (RULES.md 1).
    for bad in (-1, 52, 100):
        with pytest.raises(ValueError, match=r"0\.\.51"):
            geo.track_cell(bad)


# --------------------------------------------------------------------------
# start squares, stars, progress


def test_start_cells_are_the_rules_start_squares() -> None:
    # RULES.md 1: colour c's start square is absolute 13*c, where its p = 1 stands.
    for c in COLOURS:
        assert geo.start_cell(c) == geo.track_cell(13 * c)
        assert geo.piece_cell(c, 1) == geo.start_cell(c)
    assert geo.start_cell(0) == (6, 1)  # red's arm is the left one, first square after its yard


def test_star_cells_are_absolute_8_21_34_47() -> None:
    # RULES.md 1: the stars are each start square + 8.
    assert geo.star_cells() == [geo.track_cell(sq) for sq in (8, 21, 34, 47)]
    assert geo.star_cells() == [geo.track_cell(13 * c + 8) for c in COLOURS]
    for c in COLOURS:  # own progress 9 is 8 squares past the start square
        assert geo.piece_cell(c, 9) == geo.star_cells()[c]


def test_piece_cell_follows_the_progress_formula() -> None:
    # RULES.md 1: p = 1..51 stands on absolute (13*c + p - 1) mod 52.
    for c in COLOURS:
        for p in range(1, 52):
            assert geo.piece_cell(c, p) == geo.track_cell((13 * c + p - 1) % 52), (c, p)
        for p in range(52, 57):
            assert geo.piece_cell(c, p) == geo.column_cell(c, p), (c, p)


def test_piece_cell_is_none_in_base_and_home() -> None:
    # p = 0 is the base and p = 57 home: neither is a square of the board.
    for c in COLOURS:
        assert geo.piece_cell(c, 0) is None
        assert geo.piece_cell(c, 57) is None


def test_column_cell_refuses_progress_outside_the_column() -> None:
    # Only p = 52..56 are home column squares.
    for bad in (0, 51, 57):
        with pytest.raises(ValueError, match=r"52\.\.56"):
            geo.column_cell(0, bad)


def test_arrow_points_from_the_start_square_to_the_next_square() -> None:
    # The arrow shows the way pieces go: start square to absolute 13*c + 1.
    for c in COLOURS:
        (r0, c0), (r1, c1) = geo.start_cell(c), geo.track_cell(13 * c + 1)
        assert geo.arrow_direction(c) == (float(r1 - r0), float(c1 - c0))
    assert geo.arrow_direction(0) == (0.0, 1.0)  # red starts going right, towards the centre


# --------------------------------------------------------------------------
# home columns


def test_home_column_is_five_cells_in_a_straight_line() -> None:
    # RULES.md 1: five column squares, walked one after another towards the centre.
    for c, cells in columns().items():
        assert len(set(cells)) == 5
        steps = {(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(cells)}
        assert len(steps) == 1, (c, cells)  # the same unit step every time
        assert all(orthogonal(a, b) for a, b in pairwise(cells))


def test_home_column_starts_next_to_p51_and_ends_next_to_the_centre() -> None:
    # From p = 51 the piece passes into the column (RULES.md 1), which leads into home.
    for c, cells in columns().items():
        assert orthogonal(geo.piece_cell(c, 51), cells[0]), c
        assert any(orthogonal(cells[-1], x) for x in CENTRE), c
        assert cells[-1] not in CENTRE


def test_home_columns_are_disjoint_and_off_the_track() -> None:
    # Each column is its own colour's (72 = 52 + 4*5 squares, RULES.md 1).
    ring = set(track())
    cols = columns()
    for c, cells in cols.items():
        assert not set(cells) & ring, c
        assert all(in_cross(x) and not in_a_yard(x) and x not in CENTRE for x in cells)
    for a, b in combinations(COLOURS, 2):
        assert not set(cols[a]) & set(cols[b]), (a, b)
    assert len(ring | {x for cells in cols.values() for x in cells}) == 72


def test_red_column_is_the_middle_row_of_the_left_arm() -> None:
    # Red's quarter is the left arm (red's yard is top-left): row 7, walking right.
    assert columns()[0] == [(7, 1), (7, 2), (7, 3), (7, 4), (7, 5)]


# --------------------------------------------------------------------------
# rotation


@pytest.mark.parametrize("cell", ALL_CELLS[::7])
def test_four_quarter_turns_are_the_identity(cell: geo.Cell) -> None:
    # Four quarter turns bring every cell back; one turn moves all but the centre.
    assert geo.rotate(cell, 4) == cell
    assert geo.rotate(geo.rotate(geo.rotate(geo.rotate(cell, 1), 1), 1), 1) == cell
    assert geo.rotate(cell, -1) == geo.rotate(cell, 3)
    if cell != (7, 7):
        assert geo.rotate(cell, 1) != cell


def test_rotation_keeps_cells_on_the_board_and_is_a_bijection() -> None:
    # A quarter turn of the square board maps its 225 cells onto themselves.
    for q in range(4):
        assert sorted(geo.rotate(cell, q) for cell in ALL_CELLS) == ALL_CELLS


def test_point_rotation_matches_cell_rotation() -> None:
    # A cell's centre turns with the cell; four turns are the identity for points too.
    for cell in ALL_CELLS[::5]:
        centre = (cell[0] + 0.5, cell[1] + 0.5)
        for q in range(4):
            r, c = geo.rotate(cell, q)
            assert geo.rotate_point(centre, q) == pytest.approx((r + 0.5, c + 0.5))
        assert geo.rotate_point(centre, 4) == pytest.approx(centre)
    assert geo.rotate_point((7.5, 7.5), 1) == (7.5, 7.5)  # the board's centre is fixed


def test_each_colour_is_red_turned_by_its_seat() -> None:
    # Every colour's part is red's turned one quarter clockwise per seat (geometry.py).
    for c in COLOURS:
        for p in range(1, 57):
            assert geo.piece_cell(c, p) == geo.rotate(geo.piece_cell(0, p), c), (c, p)
        assert geo.start_cell(c) == geo.rotate(geo.start_cell(0), c)
        assert geo.star_cells()[c] == geo.rotate(geo.star_cells()[0], c)
        for a, b in zip(geo.triangle(c), geo.triangle(0), strict=True):
            assert a == pytest.approx(geo.rotate_point(b, c))
        red_yard = {
            geo.rotate((r, k), c)
            for r in range(6)
            for k in range(6)  # red's yard, cell by cell
        }
        top, left, bottom, right = geo.yard_box(c)
        own = {(r, k) for r in range(int(top), int(bottom)) for k in range(int(left), int(right))}
        assert own == red_yard, c


# --------------------------------------------------------------------------
# yards and base slots


def test_yards_are_the_four_corners_red_first_then_clockwise() -> None:
    # RULES.md 1: red top-left, then clockwise: green top-right, yellow bottom-right, blue.
    assert geo.yard_box(0) == (0.0, 0.0, 6.0, 6.0)
    assert geo.yard_box(1) == (0.0, 9.0, 6.0, 15.0)
    assert geo.yard_box(2) == (9.0, 9.0, 15.0, 15.0)
    assert geo.yard_box(3) == (9.0, 0.0, 15.0, 6.0)
    assert geo.yard_cells(2) == ((9, 9), (14, 14))


@pytest.mark.parametrize("pieces", [4, 5, 6])
def test_base_slots_lie_inside_the_yard_panel(pieces: int) -> None:
    # Pieces in the base sit on the yard's white panel, whole token included.
    pt, pl, pb, pr = geo.YARD_PANEL
    for c in COLOURS:
        top, left, _, _ = geo.yard_box(c)
        for i in range(pieces):
            y, x = geo.base_slot(c, i, pieces)
            assert top + pt <= y - BASE_TOKEN_RADIUS and y + BASE_TOKEN_RADIUS <= top + pb
            assert left + pl <= x - BASE_TOKEN_RADIUS and x + BASE_TOKEN_RADIUS <= left + pr


@pytest.mark.parametrize("pieces", [4, 5, 6])
def test_base_slots_are_apart(pieces: int) -> None:
    # Tokens 0.95 cells wide need about 1.2 cells between centres to read as separate pieces.
    for c in COLOURS:
        slots = [geo.base_slot(c, i, pieces) for i in range(pieces)]
        for a, b in combinations(slots, 2):
            assert math.dist(a, b) >= 1.2, (c, a, b)


def test_base_slots_read_in_number_order() -> None:
    # A piece keeps its place in the base: numbers read left to right, then top to bottom.
    for pieces in (4, 5, 6):
        slots = [geo.base_slot(0, i, pieces) for i in range(pieces)]
        assert slots == sorted(slots), pieces  # (y, x): row first, then column
        assert len({y for y, _ in slots}) == 2, pieces  # two rows


def test_base_slots_are_upright_in_every_yard() -> None:
    # Yards are not turned with the board: slot i sits at the same place in every yard.
    for pieces in (4, 5, 6):
        for i in range(pieces):
            offsets = set()
            for c in COLOURS:
                top, left, _, _ = geo.yard_box(c)
                y, x = geo.base_slot(c, i, pieces)
                offsets.add((round(y - top, 6), round(x - left, 6)))
            assert len(offsets) == 1, (pieces, i, offsets)


def test_name_line_is_above_the_panel() -> None:
    # The name band sits between the yard's top edge and its white panel.
    assert 0 < geo.NAME_LINE < geo.YARD_PANEL[0]


# --------------------------------------------------------------------------
# the centre


def test_triangles_meet_at_the_centre_and_tile_it() -> None:
    # Home is the centre 3 x 3, cut into four triangles meeting at the board's centre.
    corners = {(6.0, 6.0), (6.0, 9.0), (9.0, 9.0), (9.0, 6.0)}
    area = 0.0
    for c in COLOURS:
        pts = geo.triangle(c)
        assert any(math.dist(p, (7.5, 7.5)) < 1e-9 for p in pts)
        base = [p for p in pts if math.dist(p, (7.5, 7.5)) > 1e-9]
        assert {(round(y, 9), round(x, 9)) for y, x in base} <= corners
        (y0, x0), (y1, x1), (y2, x2) = pts
        area += abs((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)) / 2
    assert area == pytest.approx(9.0)


def test_each_triangle_faces_its_own_home_column() -> None:
    # A piece walks from its last column square straight into its own triangle.
    for c in COLOURS:
        last = geo.column_cell(c, 56)
        last_centre = (last[0] + 0.5, last[1] + 0.5)
        base = [p for p in geo.triangle(c) if math.dist(p, (7.5, 7.5)) > 1e-9]
        mid = ((base[0][0] + base[1][0]) / 2, (base[0][1] + base[1][1]) / 2)
        assert math.dist(mid, last_centre) == pytest.approx(0.5)  # the shared edge
        dists = {k: math.dist(geo.triangle_centre(k), last_centre) for k in COLOURS}
        assert min(dists, key=dists.__getitem__) == c


def test_triangle_centre_is_the_centroid() -> None:
    # The home count is written at the triangle's centroid, which lies inside the centre.
    for c in COLOURS:
        pts = geo.triangle(c)
        y, x = geo.triangle_centre(c)
        assert y == pytest.approx(sum(p[0] for p in pts) / 3)
        assert x == pytest.approx(sum(p[1] for p in pts) / 3)
        assert 6 < y < 9 and 6 < x < 9
    assert geo.triangle_centre(0) == pytest.approx((7.5, 6.5))  # red's points left


# --------------------------------------------------------------------------
# pixels


def test_layout_at_600_pixels() -> None:
    # 600 = 15 * 40: cells of 40 px, no margin, a status bar of 1.6 cells below.
    lay = geo.Layout(600)
    assert (lay.cell, lay.margin, lay.board, lay.status, lay.height) == (40, 0, 600, 64, 664)
    assert lay.point(1, 2) == (80, 40)  # (x, y) from (y, x) in cells
    assert lay.point(0.5, 0.25) == (10, 20)
    assert lay.centre((1, 2)) == (100, 60)
    assert lay.box((1, 2)) == (80, 40, 120, 80)


def test_layout_centres_the_grid_when_size_is_not_a_multiple_of_15() -> None:
    # 610 px: 40 px cells leave 10 px, split evenly on both sides.
    lay = geo.Layout(610)
    assert (lay.cell, lay.margin) == (40, 5)
    assert lay.point(0, 0) == (5, 5)
    assert lay.box((14, 14)) == (565, 565, 605, 605)
    assert 610 - lay.box((14, 14))[2] == lay.margin


def test_layout_status_bar_has_a_floor() -> None:
    # Small boards keep a 40 px status bar so its text stays legible.
    assert geo.Layout(300).status == 40
    assert geo.Layout(300).height == 340
    assert geo.Layout(1200).status == 128


@pytest.mark.parametrize("size", [300, 600, 607, 614, 1000, 1200, 2400])
def test_layout_boxes_tile_the_board(size: int) -> None:
    # Neighbouring cells share an edge and every box is one cell wide.
    lay = geo.Layout(size)
    for r in range(geo.GRID):
        for c in range(geo.GRID - 1):
            a, b = lay.box((r, c)), lay.box((r, c + 1))
            assert a[2] == b[0] and a[1] == b[1]
            assert a[2] - a[0] == lay.cell and a[3] - a[1] == lay.cell
    assert lay.box((14, 14))[2] <= size
    x, y = lay.centre((7, 7))
    assert abs(x - size / 2) <= 1 and abs(y - size / 2) <= 1
