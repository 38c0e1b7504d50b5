"""``render_board``: a game state as a PNG image of the board."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from functools import lru_cache

from PIL import Image, ImageDraw

from engine import COLOURS, HOME, GameState, Move, legal_moves

from . import geometry as geo
from .sprites import cross, die, ring, token
from .text import clean_name, fit, font
from .theme import RGB, Theme, theme_for

DEFAULT_SIZE = 600
MIN_SIZE, MAX_SIZE = 300, 2400
#: PNG settings shared by every image (and by the benchmark's encode floor)
PNG_OPTIONS = {"format": "PNG", "compress_level": 6}

Names = Mapping[str, str]


def star_style(state: GameState) -> str:
    """How the star squares are drawn: stars, shelters (super), or not at all (tower)."""
    o = state.options
    if not o.safe_stars:
        return "none"
    return "shelter" if o.stacking == "barrier" else "star"


def check_size(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be a whole number of pixels from {MIN_SIZE} to {MAX_SIZE}")
    return size


# --------------------------------------------------------------------------
# the static board, drawn once per size, theme, star style and seating


@lru_cache(maxsize=32)
def static_board(size: int, theme: str, stars: str, seats: tuple[int, ...]) -> Image.Image:
    """Everything that does not move, drawn at twice the size and shrunk (smooth edges)."""
    t = theme_for(theme)
    lay = geo.Layout(size)
    scale = 2
    big = geo.Layout(size, scale)
    img = Image.new("RGB", (big.board, big.height), t.background)
    d = ImageDraw.Draw(img)
    line = max(1, big.cell // 28)

    for c in range(4):
        _draw_yard(d, big, t, c, c in seats, line)
    # the track, the start squares, the stars and the home columns
    for sq in range(52):
        cell = geo.track_cell(sq)
        fill = t.square
        if sq % 13 == 0:
            fill = t.colours[sq // 13].main
        elif sq % 13 == 8 and stars == "shelter":
            fill = t.shelter
        d.rectangle(_shrink_box(big.box(cell)), fill=fill, outline=t.grid, width=line)
        if sq % 13 == 8 and stars != "none":
            _draw_star(d, big, cell, t.square if stars == "shelter" else t.star)
    for c in range(4):
        for p in range(52, 57):
            d.rectangle(
                _shrink_box(big.box(geo.column_cell(c, p))),
                fill=t.colours[c].main,
                outline=t.grid,
                width=line,
            )
        _draw_arrow(d, big, c, t)
    # the centre: one triangle per colour, pointing at the middle
    for c in range(4):
        d.polygon(
            [big.point(y, x) for y, x in geo.triangle(c)], fill=t.colours[c].main, outline=t.grid
        )
    return img.resize((size, lay.height), Image.Resampling.LANCZOS)


def _shrink_box(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return x0, y0, x1 - 1, y1 - 1


def _draw_yard(
    d: ImageDraw.ImageDraw, lay: geo.Layout, t: Theme, c: int, seated: bool, line: int
) -> None:
    top, left, bottom, right = geo.yard_box(c)
    pal = t.colours[c]
    fill = pal.main if seated else t.inactive
    d.rectangle(
        (*lay.point(top, left), *lay.point(bottom, right)), fill=fill, outline=t.grid, width=line
    )
    pt, pl, pb, pr = geo.YARD_PANEL
    d.rounded_rectangle(
        (*lay.point(top + pt, left + pl), *lay.point(top + pb, left + pr)),
        radius=lay.cell // 3,
        fill=t.square if seated else t.background,
    )


def _draw_star(d: ImageDraw.ImageDraw, lay: geo.Layout, cell: geo.Cell, colour: RGB) -> None:
    import math

    cx, cy = lay.centre(cell)
    outer = lay.cell * 0.38
    inner = outer * 0.45
    pts = []
    for k in range(10):
        r = outer if k % 2 == 0 else inner
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    d.polygon(pts, fill=colour)


def _draw_arrow(d: ImageDraw.ImageDraw, lay: geo.Layout, c: int, t: Theme) -> None:
    """A white arrow on the start square, pointing the way pieces go."""
    cx, cy = lay.centre(geo.start_cell(c))
    dy, dx = geo.arrow_direction(c)
    s = lay.cell * 0.3
    # arrow in local coordinates (along, across), turned to (dx, dy)
    shape = [
        (-0.9, -0.22),
        (0.1, -0.22),
        (0.1, -0.55),
        (0.9, 0.0),
        (0.1, 0.55),
        (0.1, 0.22),
        (-0.9, 0.22),
    ]
    pts = [(cx + s * (a * dx - b * dy), cy + s * (a * dy + b * dx)) for a, b in shape]
    d.polygon(pts, fill=t.square)


# --------------------------------------------------------------------------
# the moving parts


def render_board(
    state: GameState,
    *,
    names: Names | None = None,
    last_move: Move | None = None,
    highlight: Iterable[tuple[str, int]] = (),
    rolled: tuple[str, int] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
) -> bytes:
    """The board of ``state`` as PNG bytes.

    ``names`` maps colours to player names (any text; cut to fit).
    ``last_move`` (a :class:`engine.Move`, e.g. from ``legal_moves`` before it
    was applied) is marked where it came from and went, with a captured piece
    crossed out.  When the player on turn must choose, the pieces that can
    move are ringed; ``highlight`` rings more pieces, as (colour, piece).
    ``rolled`` is the die to show, as (colour, value), framed in that colour
    (default: the roll the player on turn must now move with, if any).
    """
    img = board_image(
        state,
        names=names,
        last_move=last_move,
        highlight=highlight,
        rolled=rolled,
        size=size,
        theme=theme,
    )
    out = io.BytesIO()
    img.save(out, **PNG_OPTIONS)  # type: ignore[arg-type]
    return out.getvalue()


def board_image(
    state: GameState,
    *,
    names: Names | None = None,
    last_move: Move | None = None,
    highlight: Iterable[tuple[str, int]] = (),
    rolled: tuple[str, int] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
) -> Image.Image:
    """:func:`render_board` before the PNG encoding (a Pillow image)."""
    check_size(size)
    t = theme_for(theme)
    lay = geo.Layout(size)
    img = static_board(size, t.name, star_style(state), state.seats).copy()
    d = ImageDraw.Draw(img)
    names = names or {}
    pieces = state.pieces

    if state.phase != "over":
        _frame_yard(d, lay, state.cur, t)
    name_font = font(round(lay.cell * 0.52))
    for colour in state.players:
        c = COLOURS.index(colour)
        _draw_name(d, lay, c, clean_name(names.get(colour), colour.capitalize()), name_font, t)

    if last_move is not None:
        _mark_last_move(d, lay, last_move, pieces, t)

    rings: set[tuple[int, int]] = set()
    if state.phase in ("move", "bonus"):
        for m in legal_moves(state):
            c = COLOURS.index(m.colour)
            if m.enter:  # any piece in the base may be the one to come out
                rings.update((c, i) for i, p in enumerate(state.pos[c]) if p == 0)
            else:
                rings.add((c, m.piece))
    for colour, piece in highlight:
        if colour in COLOURS:
            rings.add((COLOURS.index(colour), piece))

    _draw_pieces(img, d, lay, state, rings, t)
    if last_move is not None and last_move.captures is not None:
        vc = COLOURS.index(last_move.captures[0])
        vi = last_move.captures[1]
        if vc in state.seats and vi < len(state.pos[vc]) and state.pos[vc][vi] == 0:
            y, x = geo.base_slot(vc, vi, len(state.pos[vc]))
            s = round(lay.cell * 0.7)
            _paste(img, cross(s, t.captured), lay.point(y, x))
    _draw_status(img, d, lay, state, names, rolled, t)
    return img


def _paste(img: Image.Image, sprite: Image.Image, centre: tuple[int, int]) -> None:
    w, h = sprite.size
    img.paste(sprite, (centre[0] - w // 2, centre[1] - h // 2), sprite)


def _frame_yard(d: ImageDraw.ImageDraw, lay: geo.Layout, c: int, t: Theme) -> None:
    """A frame round the yard of the player on turn: dark outside, bright inside,
    so it shows on every colour (gold alone vanishes on yellow)."""
    top, left, bottom, right = geo.yard_box(c)
    w = max(3, lay.cell // 8)
    x0, y0 = lay.point(top, left)
    x1, y1 = lay.point(bottom, right)
    d.rectangle((x0, y0, x1 - 1, y1 - 1), outline=t.last, width=w)
    d.rectangle((x0 + w, y0 + w, x1 - 1 - w, y1 - 1 - w), outline=t.movable, width=w)


def _draw_name(
    d: ImageDraw.ImageDraw, lay: geo.Layout, c: int, name: str, f: object, t: Theme
) -> None:
    top, left, _, right = geo.yard_box(c)
    width = (right - left - 0.6) * lay.cell
    text = fit(name, f, width)  # type: ignore[arg-type]
    x, y = lay.point(top + geo.NAME_LINE, (left + right) / 2)
    d.text((x, y), text, font=f, fill=t.colours[c].ink, anchor="mm")  # type: ignore[arg-type]


def _where(lay: geo.Layout, c: int, p: int, n: int) -> tuple[int, int] | None:
    """Pixel centre of a piece of colour ``c`` at progress ``p`` (None at home)."""
    if p == 0:
        return None
    cell = geo.piece_cell(c, p)
    if cell is None:
        y, x = geo.triangle_centre(c)
        return lay.point(y, x)
    return lay.centre(cell)


def _mark_last_move(
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    m: Move,
    pieces: Mapping[str, tuple[int, ...]],
    t: Theme,
) -> None:
    if m.colour not in COLOURS:
        return
    c = COLOURS.index(m.colour)
    n = len(pieces.get(m.colour, ()))
    w = max(2, lay.cell // 12)
    # where it came from: a thin outline; where it went: a thick one
    if m.frm == 0:
        y, x = geo.base_slot(c, m.piece, max(n, 4))
        r = lay.cell * 0.55
        cx, cy = lay.point(y, x)
        d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=t.last, width=max(1, w // 2))
    elif 1 <= m.frm < HOME:
        cell = geo.piece_cell(c, m.frm)
        if cell is not None:
            x0, y0, x1, y1 = lay.box(cell)
            d.rectangle(
                (x0 + w, y0 + w, x1 - 1 - w, y1 - 1 - w), outline=t.last, width=max(1, w // 2)
            )
    if 1 <= m.to < HOME:
        cell = geo.piece_cell(c, m.to)
        if cell is not None:
            x0, y0, x1, y1 = lay.box(cell)
            d.rectangle((x0, y0, x1 - 1, y1 - 1), outline=t.last, width=w)
    elif m.to == HOME:
        d.polygon([lay.point(y, x) for y, x in geo.triangle(c)], outline=t.last, width=w)


_STACK_OFFSETS = {
    1: [(0.0, 0.0)],
    2: [(-0.19, -0.19), (0.19, 0.19)],
    3: [(-0.23, -0.23), (-0.23, 0.23), (0.23, -0.23)],
    4: [(-0.23, -0.23), (-0.23, 0.23), (0.23, -0.23), (0.23, 0.23)],
}
_STACK_SIZE = {1: 0.8, 2: 0.6, 3: 0.5, 4: 0.5}


def _draw_pieces(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    state: GameState,
    rings: set[tuple[int, int]],
    t: Theme,
) -> None:
    cells: dict[geo.Cell, list[tuple[int, int]]] = {}
    home: dict[int, int] = {}
    slot = lay.cell * 0.47
    for c in state.seats:
        ps = state.pos[c]
        for i, p in enumerate(ps):
            if p != 0:  # the empty place in the base, so the yard reads like a rack
                y, x = geo.base_slot(c, i, len(ps))
                px, py = lay.point(y, x)
                d.ellipse(
                    (px - slot, py - slot, px + slot, py + slot),
                    outline=t.colours[c].light,
                    width=max(2, lay.cell // 14),
                )
            if p == 0:
                y, x = geo.base_slot(c, i, len(ps))
                _token(img, lay, c, i, lay.point(y, x), round(lay.cell * 0.95), (c, i) in rings, t)
            elif p == HOME:
                home[c] = home.get(c, 0) + 1
            else:
                cell = geo.piece_cell(c, p)
                assert cell is not None
                cells.setdefault(cell, []).append((c, i))
    stacking = state.options.stacking
    for cell, here in cells.items():
        n = len(here)
        cx, cy = lay.centre(cell)
        if stacking != "free" and n == 2 and here[0][0] == here[1][0]:
            # a tower (tower 6) or a barrier (super 4): a thick frame in the owner's colour
            x0, y0, x1, y1 = lay.box(cell)
            d.rectangle(
                (x0, y0, x1 - 1, y1 - 1),
                outline=t.colours[here[0][0]].dark,
                width=max(3, lay.cell // 8),
            )
        shown = here if n <= 4 else here[:3]
        k = min(n, 4)
        diameter = round(lay.cell * _STACK_SIZE[k])
        for (c, i), (oy, ox) in zip(shown, _STACK_OFFSETS[k], strict=False):
            centre = (round(cx + ox * lay.cell), round(cy + oy * lay.cell))
            _token(img, lay, c, i, centre, diameter, (c, i) in rings, t)
        if n > 4:
            oy, ox = _STACK_OFFSETS[4][3]
            f = font(round(lay.cell * 0.3))
            d.text(
                (cx + ox * lay.cell, cy + oy * lay.cell),
                f"+{n - 3}",
                font=f,
                fill=t.text,
                anchor="mm",
            )
    f = font(round(lay.cell * 0.75))
    for c, count in home.items():
        y, x = geo.triangle_centre(c)
        px, py = lay.point(y, x)
        d.text(
            (px, py),
            str(count),
            font=f,
            fill=t.colours[c].ink,
            anchor="mm",
            stroke_width=max(1, lay.cell // 20),
            stroke_fill=t.colours[c].dark,
        )


def _token(
    img: Image.Image,
    lay: geo.Layout,
    c: int,
    i: int,
    centre: tuple[int, int],
    diameter: int,
    ringed: bool,
    t: Theme,
) -> None:
    _paste(img, token(c, i + 1, diameter, t.name), centre)
    if ringed:
        w = max(2, diameter // 9)
        _paste(img, ring(diameter + 2 * w, (20, 20, 20), w + 2), centre)
        _paste(img, ring(diameter + 2 * w - 2, t.movable, w), centre)


def _draw_status(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    state: GameState,
    names: Names,
    rolled: tuple[str, int] | None,
    t: Theme,
) -> None:
    top = lay.board
    h = lay.status
    mid = top + h // 2
    who = state.turn
    label = clean_name(names.get(who), who.capitalize())
    if state.phase == "over":
        winners = state.winner or []
        label = " & ".join(clean_name(names.get(w), w.capitalize()) for w in winners)
        text = "wins!" if len(winners) == 1 else "win!"
        c = COLOURS.index(winners[0]) if winners else state.cur
    else:
        c = state.cur
        text = {
            "roll": "to roll",
            "move": "choose a piece",
            "bonus": f"bonus move of {state.bonus[0] if state.bonus else 6}",
        }[state.phase]
    dot = round(h * 0.55)
    x = lay.margin + dot // 2 + 4
    _paste(img, token(c, None, dot, t.name), (x, mid))
    f = font(round(h * 0.42))
    die_size = round(h * 0.72)
    if rolled is None and state.phase == "move" and state.die:
        rolled = (state.turn, state.die)
    show = rolled is not None and rolled[0] in COLOURS and rolled[1] in range(1, 7)
    room = lay.size - (x + dot) - (die_size + 16 if show else 8)
    suffix = f": {text}" if state.phase != "over" else f" {text}"
    name = fit(label, f, max(10.0, room - f.getlength(suffix)))
    d.text((x + dot // 2 + 10, mid), name + suffix, font=f, fill=t.text, anchor="lm")
    if rolled is not None and show:
        frame = t.colours[COLOURS.index(rolled[0])].main
        sprite = die(rolled[1], die_size, t.name, frame)
        _paste(img, sprite, (lay.size - lay.margin - die_size // 2 - 4, mid))
