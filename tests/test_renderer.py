"""Board and standings images (``renderer``): pixel probes on real images of where the
pieces are drawn, stacks, the last move, captures and movable pieces, every rule set,
option, theme and size, the standings; drawing touches no file or network and is
deterministic; bad arguments are refused.

Positions use the progress coordinate of RULES.md section 1 (0 base, 1..51
track, 52..56 home column, 57 home); ``renderer.geometry`` says which cell each
progress is drawn in, and ``Layout`` where that cell is in pixels (see
:mod:`tests.helpers.pixels`).  Each test says in a comment why the pixels it expects
must be there."""

from __future__ import annotations

import builtins
import io
import math
import socket
from typing import Any

import pytest
from PIL import Image, ImageChops

import engine
from engine import COLOURS, GameState
from renderer import DEFAULT_SIZE, board_image, render_board, render_standings, standings_image
from renderer import board as board_module
from renderer import geometry as geo
from renderer import text as text_module
from renderer.indexed import to_indexed
from renderer.theme import THEMES
from tests.helpers.pixels import (
    CELL,
    LAY,
    MAX_PNG_BYTES,
    RGB,
    ROLLS,
    STACK_SQUARE,
    Box,
    T,
    around,
    baseline,
    centroid,
    changed,
    corners,
    count,
    decode,
    finished,
    image,
    inset,
    inside,
    matches,
    near,
    play,
    ringed,
    slot_px,
    sq,
    yard_px,
)
from tests.helpers.rules import game, run

# --------------------------------------------------------------------------
# where the pieces are drawn


@pytest.mark.parametrize("colour", COLOURS)
@pytest.mark.parametrize("p", [1, 8, 13, 26, 51, 52, 53, 54, 55, 56])
def test_lone_piece_is_drawn_in_its_cell_and_nowhere_else(colour: str, p: int) -> None:
    # RULES.md 1 + geometry: progress p of colour c is drawn in piece_cell(c, p), centred.
    c = COLOURS.index(colour)
    img = image(game("classic", {colour: [p, 0, 0, 0]}, players=4))
    cell_box = LAY.box(geo.piece_cell(c, p))
    # the only changes from the all-in-base board: that cell, and the slot it left in the yard
    where = changed(baseline(), img, blank=[yard_px(c)])
    assert where is not None and inside(where, cell_box), (where, cell_box)
    outline = matches(img, cell_box, T.colours[c].dark, 40)
    assert len(outline) >= 40  # the token's dark rim
    cx, cy = centroid(outline)
    ex, ey = LAY.centre(geo.piece_cell(c, p))
    assert abs(cx - ex) <= 1.5 and abs(cy - ey) <= 1.5


def test_red_piece_at_1_stands_on_the_red_start_square() -> None:
    # RULES.md 1: p = 1 is the own start square, absolute 0, painted red with a white arrow.
    img = image(game("classic", {"red": [1, 0, 0, 0]}, players=4))
    cell = geo.piece_cell(0, 1)
    assert cell == geo.start_cell(0) == geo.track_cell(0)
    box = LAY.box(cell)
    for corner in corners(inset(box, 3), 2):
        assert count(img, corner, T.colours[0].main, 20) == 4  # the start square's fill
    assert count(img, box, T.colours[0].dark, 40) >= 40  # and the piece on it


@pytest.mark.parametrize("colour", COLOURS)
def test_home_column_pieces_stand_in_their_own_column(colour: str) -> None:
    # RULES.md 1: p = 52..56 are the colour's own column squares, painted in its colour.
    c = COLOURS.index(colour)
    column = [geo.column_cell(c, p) for p in range(52, 57)]
    for p in range(52, 57):
        img = image(game("classic", {colour: [p, 0, 0, 0]}, players=4))
        cell = geo.piece_cell(c, p)
        assert cell == column[p - 52]
        box = LAY.box(cell)
        for corner in corners(inset(box, 3), 2):
            assert count(img, corner, T.colours[c].main, 20) == 4, (colour, p)
        assert count(img, box, T.colours[c].dark, 40) >= 40, (colour, p)


@pytest.mark.parametrize("pieces", [4, 5, 6])
def test_pieces_in_the_base_sit_at_their_base_slots(pieces: int) -> None:
    # p = 0 is the base: piece i is drawn at base_slot(c, i, n) inside its own yard.
    s = game("italian", players=4, pieces=pieces)
    img = image(s)
    for c in range(4):
        for i in range(pieces):
            xy = slot_px(c, i, pieces)
            rim = matches(img, around(xy, 0.55 * CELL), T.colours[c].dark, 40)
            assert len(rim) >= 60, (c, i)
            cx, cy = centroid(rim)
            assert abs(cx - xy[0]) <= 1.5 and abs(cy - xy[1]) <= 1.5, (c, i)
            assert inside(around(xy, 0.5 * CELL), yard_px(c))


def test_a_piece_that_left_the_base_leaves_an_empty_slot() -> None:
    # A piece out of the base is not drawn in the yard any more (only its empty place is).
    c = 2
    img = image(game("classic", {"yellow": [20, 0, 0, 0]}, players=4))
    assert count(img, around(slot_px(c, 0), 0.55 * CELL), T.colours[c].dark, 40) == 0
    assert count(img, around(slot_px(c, 1), 0.55 * CELL), T.colours[c].dark, 40) >= 60


def triangle_px(c: int) -> Box:
    pts = [LAY.point(y, x) for y, x in geo.triangle(c)]
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


@pytest.mark.parametrize("colour", COLOURS)
def test_pieces_home_are_counted_in_the_colours_triangle(colour: str) -> None:
    # p = 57 is home, the colour's triangle: the count is written there and nowhere else.
    c = COLOURS.index(colour)
    none = image(game("classic", {colour: [30, 0, 0, 0]}, players=4))
    one = image(game("classic", {colour: [57, 0, 0, 0]}, players=4))
    two = image(game("classic", {colour: [57, 57, 0, 0]}, players=4))
    track_box = LAY.box(geo.piece_cell(c, 30))
    for a, b, blank in ((none, one, [yard_px(c), track_box]), (one, two, [yard_px(c)])):
        where = changed(a, b, blank)
        assert where is not None and inside(where, triangle_px(c)), (where, triangle_px(c))
    # the digit sits on the triangle's centroid
    tc = LAY.point(*geo.triangle_centre(c))
    assert ImageChops.difference(none, one).crop(around(tc, 0.3 * CELL)).getbbox() is not None


# --------------------------------------------------------------------------
# stacks


def stack_state(colours: list[str]) -> GameState:
    """Classic, one piece per listed colour (repeats: more pieces) on STACK_SQUARE."""
    position: dict[str, list[int]] = {c: [0, 0, 0, 0] for c in COLOURS}
    for colour in colours:
        ps = position[colour]
        ps[ps.index(0)] = sq(colour, STACK_SQUARE)
    return game("classic", position, players=4)


@pytest.mark.parametrize(
    "colours",
    [["red", "green"], ["red", "green", "yellow"], ["red", "green", "yellow", "blue"]],
)
def test_pieces_sharing_a_square_are_all_visible(colours: list[str]) -> None:
    # Classic 5: any number of pieces share a square; each must be seen, side by side.
    img = image(stack_state(colours))
    box = LAY.box(geo.track_cell(STACK_SQUARE))
    centres = []
    for colour in colours:
        c = COLOURS.index(colour)
        body = matches(img, box, T.colours[c].main, 30)
        assert len(body) >= 60, colour  # a good part of a token shows
        centres.append(centroid(body))
    for a in range(len(centres)):
        for b in range(a + 1, len(centres)):
            # side by side, not piled on one spot: a quarter of a cell apart at least
            assert math.dist(centres[a], centres[b]) >= 0.25 * CELL, (colours[a], colours[b])


def badge_pixels(img: Image.Image) -> int:
    """Text-coloured pixels on the stack square (the "+k" badge)."""
    return count(img, LAY.box(geo.track_cell(STACK_SQUARE)), T.text, 20)


def test_four_pieces_on_a_square_have_no_badge() -> None:
    # Four tokens fit in the four quarters: nothing is hidden, so no "+k".
    assert badge_pixels(image(stack_state(["red", "green", "yellow", "blue"]))) == 0


def test_more_than_four_pieces_show_a_plus_badge() -> None:
    # Over four, three tokens are drawn and "+k" says how many more (k = n - 3).
    four = ["red", "green", "yellow", "blue"]
    five = image(stack_state([*four, "red"]))
    eight = image(stack_state(four * 2))
    assert badge_pixels(five) >= 15 and badge_pixels(eight) >= 15
    # the badge follows the count: "+2" and "+5" differ, and only on that square
    where = changed(five, eight, blank=[yard_px(c) for c in range(4)])
    assert where is not None and inside(where, LAY.box(geo.track_cell(STACK_SQUARE)))


def frame_pixels(img: Image.Image, cell: geo.Cell, colour: RGB) -> int:
    """Owner's-dark pixels in the four corners of a cell, where no token reaches."""
    return sum(count(img, box, colour, 40) for box in corners(LAY.box(cell), 3))


@pytest.mark.parametrize(
    ("rules", "p"),
    [("tower", 10), ("super", 10), ("super", 53)],
)
def test_tower_and_barrier_get_the_owners_frame(rules: str, p: int) -> None:
    # Tower 6 / super 4: two own pieces on a square are a block, framed in the owner's dark.
    s = game(rules, {"red": [p, p, 0, 0]}, players=4)
    img = image(s)
    cell = geo.piece_cell(0, p)
    assert frame_pixels(img, cell, T.colours[0].dark) >= 32  # of 36 corner pixels
    lone = image(game(rules, {"red": [p, 0, 0, 0]}, players=4))
    assert frame_pixels(lone, cell, T.colours[0].dark) == 0  # one piece is not a block


def test_two_own_pieces_in_classic_are_not_framed() -> None:
    # Classic 5: no blocks, so two own pieces on a square are just two pieces.
    img = image(game("classic", {"red": [10, 10, 0, 0]}, players=4))
    assert frame_pixels(img, geo.piece_cell(0, 10), T.colours[0].dark) == 0


def test_two_colours_on_a_super_shelter_are_not_framed() -> None:
    # Super 4: a shelter (star) holds two colours; that is no barrier, so no frame.
    s = game("super", {"red": [sq("red", 8), 0, 0, 0], "green": [sq("green", 8), 0, 0, 0]})
    img = image(s)
    cell = geo.track_cell(8)
    assert frame_pixels(img, cell, T.colours[0].dark) == 0
    assert frame_pixels(img, cell, T.colours[1].dark) == 0
    assert count(img, LAY.box(cell), T.colours[0].main) >= 60  # both pieces are there
    assert count(img, LAY.box(cell), T.colours[1].main) >= 60


# --------------------------------------------------------------------------
# the last move, captures, movable pieces


def moved(state: GameState, roll: int) -> tuple[engine.Move, GameState]:
    """Roll, take the first legal move (as listed before it is applied); the move and the result."""
    state, _ = engine.apply(state, {"roll": roll})
    m = engine.legal_moves(state)[0]
    after, _ = engine.apply(state, {"move": m.piece})
    return m, after


def test_last_move_outlines_the_destination_cell() -> None:
    # render_board: where the last move went gets a thick outline in theme.last.
    m, after = moved(game("classic", {"red": [5, 0, 0, 0]}, players=4), 3)
    assert (m.frm, m.to) == (5, 8)
    plain = image(after)
    marked = image(after, last_move=m)
    dest = geo.piece_cell(0, 8)
    for corner in corners(LAY.box(dest), 2):
        assert count(marked, corner, T.last, 30) == 4
        assert count(plain, corner, T.last, 30) == 0
    # where it came from is marked too (a thin outline inside the cell)
    origin = LAY.box(geo.piece_cell(0, 5))
    assert count(marked, origin, T.last, 30) > 0
    assert count(plain, origin, T.last, 30) == 0


def test_last_move_from_the_base_marks_the_slot_and_the_start_square() -> None:
    # Coming out (p 0 -> 1): the empty slot is circled and the start square outlined.
    m, after = moved(game("classic", players=4), 6)
    assert m.enter and m.to == 1
    marked = image(after, last_move=m)
    plain = image(after)
    slot = around(slot_px(0, m.piece), 0.6 * CELL)
    assert count(marked, slot, T.last, 30) > 0
    assert count(plain, slot, T.last, 30) == 0
    for corner in corners(LAY.box(geo.start_cell(0)), 2):
        assert count(marked, corner, T.last, 30) == 4


def test_last_move_home_outlines_the_triangle() -> None:
    # A move to p = 57 ends in the colour's triangle, which gets the outline.
    m, after = moved(game("classic", {"red": [54, 0, 0, 0]}, players=4), 3)
    assert m.home
    marked = image(after, last_move=m)
    plain = image(after)
    assert count(marked, triangle_px(0), T.last, 30) > 20
    assert count(plain, triangle_px(0), T.last, 30) == 0


def test_captured_piece_is_crossed_out_in_its_base() -> None:
    # Classic 6: the capture sends green's piece back to base; a cross marks its slot there.
    s = game("classic", {"red": [5, 0, 0, 0], "green": [sq("green", 7), 0, 0, 0]}, players=4)
    m, after = moved(s, 3)
    assert m.captures == ("green", 0) and after.pieces["green"][0] == 0
    marked = image(after, last_move=m)
    plain = image(after)
    slot = around(slot_px(1, 0), 0.45 * CELL)
    assert count(marked, slot, T.captured, 40) >= 20
    assert count(plain, slot, T.captured, 40) == 0
    # only that piece: the next slot has no cross
    assert count(marked, around(slot_px(1, 1), 0.45 * CELL), T.captured, 40) == 0


def test_movable_pieces_are_ringed_and_the_others_are_not() -> None:
    # With a 6: piece 0 can walk and a base piece can come out; piece 1 at 55 would overshoot.
    s, _ = run(game("classic", {"red": [5, 55, 0, 0]}, players=4), "r6")
    assert s.phase == "move"
    img = image(s)
    assert ringed(img, LAY.centre(geo.piece_cell(0, 5))) >= 40
    assert ringed(img, slot_px(0, 2)) >= 40 and ringed(img, slot_px(0, 3)) >= 40
    assert ringed(img, LAY.centre(geo.piece_cell(0, 55))) == 0
    assert ringed(img, slot_px(1, 0)) == 0  # not green's turn


def test_base_pieces_are_not_ringed_without_an_exit_roll() -> None:
    # With a 2 (classic 2: only a 6 brings a piece out) pieces 0 and 1 move, the base does not.
    s, _ = run(game("classic", {"red": [5, 55, 0, 0]}, players=4), "r2")
    img = image(s)
    assert ringed(img, LAY.centre(geo.piece_cell(0, 5))) >= 40
    assert ringed(img, LAY.centre(geo.piece_cell(0, 55))) >= 40
    assert ringed(img, slot_px(0, 2)) == 0 and ringed(img, slot_px(0, 3)) == 0


def test_no_rings_while_waiting_for_the_roll() -> None:
    # Phase 'roll': nobody chooses a piece yet.
    img = image(game("classic", {"red": [5, 55, 0, 0]}, players=4))
    assert ringed(img, LAY.centre(geo.piece_cell(0, 5))) == 0
    assert ringed(img, slot_px(0, 2)) == 0


def test_highlight_rings_an_extra_piece() -> None:
    # highlight=[(colour, piece)] rings those pieces whatever the phase.
    s = game("classic", {"green": [20, 0, 0, 0]}, players=4)
    img = image(s, highlight=[("green", 0), ("blue", 2)])
    assert ringed(img, LAY.centre(geo.piece_cell(1, 20))) >= 40
    assert ringed(img, slot_px(3, 2)) >= 40
    assert ringed(img, slot_px(3, 1)) == 0 and ringed(img, slot_px(1, 1)) == 0
    # unknown colours and pieces are ignored rather than failing
    image(s, highlight=[("purple", 0), ("red", 9)])


def test_player_on_turn_has_a_framed_yard_until_the_game_is_over() -> None:
    # The yard of the colour to act is framed (dark outside); a finished game frames none.
    s = game("classic", players=4, turn="yellow")
    img = image(s)
    x0, y0, x1, y1 = yard_px(2)
    edge = (x0, (y0 + y1) // 2 - 5, x0 + 2, (y0 + y1) // 2 + 5)
    assert count(img, edge, T.last, 20) == 20
    assert count(img, (x0 + 2, y0 + CELL, x1 - 2, y1 - 2), T.movable, 40) > 0
    assert count(image(game("classic", players=4)), edge, T.last, 20) == 0  # red's turn
    over = image(finished("classic"))
    for c in range(4):
        x0, y0, x1, y1 = yard_px(c)
        assert count(over, (x0, y0, x1, y0 + 2), T.last, 20) == 0, c


# --------------------------------------------------------------------------
# every rule set and option


CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("classic", 2, {}),
    ("classic", 3, {}),
    ("classic", 4, {}),
    ("tower", 2, {}),
    ("tower", 3, {}),
    ("tower", 4, {}),
    ("italian", 2, {}),
    ("italian", 3, {}),
    ("italian", 4, {}),
    ("italian", 4, {"pieces": 5}),
    ("italian", 4, {"pieces": 6}),
    ("italian", 2, {"pieces": {"red": 6, "yellow": 5}}),
    ("italian", 3, {"pieces": {"green": 5}}),
    ("italian", 4, {"teams": True}),
    ("italian", 4, {"pieces_to_win": 2}),
    ("super", 4, {}),
]


@pytest.mark.parametrize(("rules", "players", "options"), CASES)
def test_every_rule_set_and_option_renders(
    rules: str, players: int, options: dict[str, Any]
) -> None:
    # Each rule set and option gives a PNG of the default size, small enough to post.
    s = engine.new_game(rules, players, options=options or None)
    for state in (s, play(s, ROLLS)):
        png = render_board(state)
        assert len(png) < MAX_PNG_BYTES
        img = decode(png)
        assert img.size == (DEFAULT_SIZE, LAY.height)
    # seated yards are in their colour, empty seats grey; each base piece is in its slot
    img = image(s)
    for c in range(4):
        x0, y0, _, y1 = yard_px(c)
        fill = img.getpixel((x0 + round(0.35 * CELL), (y0 + y1) // 2))
        want = T.colours[c].main if c in s.seats else T.inactive
        assert near(fill, want, 12), (c, fill)
        if c in s.seats:
            n = len(s.pos[c])
            for i, p in enumerate(s.pos[c]):
                if p == 0:
                    rim = count(img, around(slot_px(c, i, n), 0.55 * CELL), T.colours[c].dark, 40)
                    assert rim >= 60, (c, i)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_both_themes_render(theme: str) -> None:
    # Each theme paints its own background and palette, at the default size, within budget.
    s = play(engine.new_game("classic", 4), ROLLS)
    png = render_board(s, theme=theme)
    assert len(png) < MAX_PNG_BYTES
    img = decode(png)
    assert img.size == (DEFAULT_SIZE, LAY.height)
    t = THEMES[theme]
    assert near(img.getpixel((1, LAY.height - 2)), t.background, 3)  # status bar corner
    red_yard = img.getpixel((round(0.35 * CELL), 3 * CELL))
    assert near(red_yard, t.colours[0].main, 12)
    st = decode(render_standings(finished("classic"), theme=theme))
    assert near(st.getpixel((1, 1)), t.background, 3)


def test_the_busiest_board_stays_within_the_png_budget() -> None:
    # 24 pieces spread over the board, long names, rings and a last move: still under budget.
    pos = {c: [(k * 7 + i * 3 + 1) % 56 + 1 for i in range(6)] for k, c in enumerate(COLOURS)}
    s, _ = run(game("italian", pos, players=4, pieces=6), "r6")
    m = engine.legal_moves(s)[0]
    names = dict.fromkeys(COLOURS, "Жанна Константиновна " * 3)
    for theme in sorted(THEMES):
        png = render_board(s, names=names, last_move=m, highlight=[("green", 0)], theme=theme)
        assert len(png) < MAX_PNG_BYTES, theme
        assert decode(png).size == (DEFAULT_SIZE, LAY.height)


@pytest.mark.parametrize("size", [300, 1200])
def test_other_sizes_render(size: int) -> None:
    # The image is size wide and size + status bar high.
    s = play(engine.new_game("super", 4), ROLLS)
    lay = geo.Layout(size)
    img = decode(render_board(s, size=size))
    assert img.size == (size, lay.height)
    st = decode(render_standings(finished("tower"), size=size))
    assert st.size[0] == size


@pytest.mark.parametrize("size", [600, 607, 614, 1000])
def test_board_squares_line_up_with_the_pieces(size: int) -> None:
    # The static board and the pieces share one Layout: a star is centred where
    # Layout.centre puts a piece standing on it, at any allowed size.
    lay = geo.Layout(size)
    img = image(game("classic", players=4), size=size)
    for cell in geo.star_cells():
        x0, y0, x1, y1 = lay.box(cell)
        pad = lay.cell // 4
        star = matches(img, (x0 - pad, y0 - pad, x1 + pad, y1 + pad), T.star, 25)
        cx, cy = centroid(star)
        ex, ey = lay.centre(cell)
        assert abs(cx - ex) <= 1.0 and abs(cy - ey) <= 1.0, (size, cell, (cx - ex, cy - ey))


@pytest.mark.parametrize(
    ("rules", "style"), [("classic", "star"), ("tower", "none"), ("super", "shelter")]
)
def test_star_squares_are_drawn_as_the_rule_set_says(rules: str, style: str) -> None:
    # Classic stars are safe (classic 7); tower has no safe squares (tower 2); super's stars
    # are shelters (super 4), painted dark.  Other track squares carry no such mark.
    img = image(engine.new_game(rules, 4, options=None, position={c: [0] * 4 for c in COLOURS}))
    plain = geo.track_cell(9)  # absolute 9: an ordinary square, right after red's star
    for cell in [*geo.star_cells(), plain]:
        box = LAY.box(cell)
        star = count(img, inset(box, 8), T.star, 20)
        shelter = sum(count(img, corner, T.shelter, 20) for corner in corners(inset(box, 3), 2))
        if cell != plain and style == "star":
            assert star >= 40 and shelter == 0, cell
        elif cell != plain and style == "shelter":
            assert shelter == 16, cell
            assert count(img, inset(box, 8), T.square, 20) >= 40, cell  # a light star on it
        else:
            assert star == 0 and shelter == 0, cell


def test_start_squares_are_painted_in_their_colours() -> None:
    # RULES.md 1: the start square of colour c is absolute 13*c, marked in c's colour.
    img = image(game("classic", players=4))
    for c in range(4):
        box = inset(LAY.box(geo.start_cell(c)), 3)
        for corner in corners(box, 2):
            assert count(img, corner, T.colours[c].main, 20) == 4, c
        # and the arrow on it is light (the way the pieces go)
        assert count(img, box, T.square, 20) >= 40, c


def standings_height(size: int, n: int) -> int:
    row = round(size * 0.13)
    return round(size * 0.16) + row * n + row // 3


@pytest.mark.parametrize(
    ("rules", "options"),
    [("classic", {}), ("tower", {}), ("italian", {}), ("italian", {"teams": True})],
)
def test_finished_game_renders_board_and_standings(rules: str, options: dict[str, Any]) -> None:
    # A finished game: the board names the winner(s), the standings list every player.
    s = finished(rules, **options)
    assert (s.scores is not None) == (rules == "classic")  # classic 13: scores; else distance
    board = render_board(s, names={"red": "Ana", "green": "Bo"})
    assert len(board) < MAX_PNG_BYTES
    assert decode(board).size == (DEFAULT_SIZE, LAY.height)
    png = render_standings(s, names={"red": "Ana", "green": "Bo"})
    st = decode(png)
    assert st.size == (DEFAULT_SIZE, standings_height(DEFAULT_SIZE, 4))
    # the winners' rows (first, best first) are filled with their light colour
    row = round(DEFAULT_SIZE * 0.13)
    head = round(DEFAULT_SIZE * 0.16)
    winners = s.winner or []
    assert s.ranking is not None and s.ranking[: len(winners)] == winners
    for k, colour in enumerate(winners):
        probe = st.getpixel((round(DEFAULT_SIZE * 0.5), head + k * row + row // 2 + row // 3))
        assert near(probe, T.colours[COLOURS.index(colour)].light, 10), (colour, probe)


def test_standings_of_a_running_game_render() -> None:
    # render_standings also shows the order so far of a game still going.
    s = play(engine.new_game("italian", 3), ROLLS[:20])
    st = decode(render_standings(s))
    assert st.size == (DEFAULT_SIZE, standings_height(DEFAULT_SIZE, 3))


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_png_is_board_image_on_the_themes_palette(theme: str) -> None:
    # render_board is board_image mapped to the theme's fixed palette, then encoded as a
    # palette PNG (lossless from there); tests/test_render_palette.py shows that the
    # mapping looks the same.  Likewise render_standings and standings_image.
    s = play(engine.new_game("classic", 4), ROLLS[:30])
    png = render_board(s, theme=theme)
    assert Image.open(io.BytesIO(png)).mode == "P"
    on_palette = to_indexed(image(s, theme=theme), theme).convert("RGB")
    assert decode(png).tobytes() == on_palette.tobytes()
    over = finished("classic")
    png = render_standings(over, theme=theme)
    assert Image.open(io.BytesIO(png)).mode == "P"
    on_palette = to_indexed(standings_image(over, theme=theme), theme).convert("RGB")
    assert decode(png).tobytes() == on_palette.tobytes()


# --------------------------------------------------------------------------
# purity


def test_render_touches_no_files_and_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rendering is a pure function of its inputs: fonts and board are built from memory.
    s, _ = run(game("classic", {"green": [20, 0, 0, 0]}, players=4), "r6")
    render_board(s)  # the PNG encoder's modules are loaded once, outside the patch

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"renderer touched a file or the network: {args!r}")

    monkeypatch.setattr(builtins, "open", refuse)
    monkeypatch.setattr(io, "open", refuse)
    monkeypatch.setattr(socket, "socket", refuse)
    boards = board_module.static_board.cache_info().misses
    fonts = text_module.font.cache_info().misses
    png = render_board(s, size=733, theme="dark", names={"red": "Ωmega", "green": "Жанна"})
    png2 = render_standings(finished("italian"), size=733, theme="dark")
    assert board_module.static_board.cache_info().misses > boards  # a new board was drawn
    assert text_module.font.cache_info().misses > fonts  # and new fonts loaded
    monkeypatch.undo()
    assert decode(png).size == (733, geo.Layout(733).height)
    assert decode(png2).size[0] == 733


def test_render_is_deterministic_and_leaves_the_state_alone() -> None:
    # Same input, same bytes; the caches are copied before drawing, never drawn on.
    s, _ = run(game("classic", {"green": [20, 0, 0, 0], "red": [5, 0, 0, 0]}, players=4), "r6")
    before = s.to_dict()
    pos = [p[:] for p in s.pos]
    m = engine.legal_moves(s)[0]
    kw: dict[str, Any] = {"names": {"red": "Ana"}, "last_move": m, "highlight": [("green", 0)]}
    first = render_board(s, **kw)
    other = render_board(play(engine.new_game("classic", 4), ROLLS[:10]))
    assert render_board(s, **kw) == first
    assert other != first
    assert s.to_dict() == before and s.pos == pos
    assert engine.legal_moves(s)[0] == m


# --------------------------------------------------------------------------
# bad arguments


@pytest.mark.parametrize("size", [299, 2401, 0, -600, 600.0, "600", True, None])
def test_bad_size_is_refused(size: Any) -> None:
    # check_size: a whole number of pixels from 300 to 2400, nothing else.
    s = game("classic", players=2)
    for fn in (render_board, board_image, render_standings):
        with pytest.raises(ValueError, match="size must be a whole number of pixels from 300"):
            fn(s, size=size)


@pytest.mark.parametrize("theme", ["neon", "", "Classic", None])
def test_unknown_theme_is_refused(theme: Any) -> None:
    # theme_for: only the named themes, with the list in the message.
    s = game("classic", players=2)
    for fn in (render_board, board_image, render_standings):
        with pytest.raises(ValueError, match=r"unknown theme .*classic, dark"):
            fn(s, theme=theme)
