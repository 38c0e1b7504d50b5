"""The board's geometry as JSON, for the web client's SVG (``GET /api/geometry``).

Pure, and taken from :mod:`renderer.geometry` and :mod:`renderer.theme`, so the
web board has the same squares at the same places, the same stars and the same
colours as the pictures in the chat.  Every position is in cell units of the
15 x 15 grid, as ``[x, y]`` (the renderer writes ``(row, col)`` / ``(y, x)``):
a square's entry is its cell's top-left corner, a point's is the point itself.

Square names (the ``at`` of a piece in :mod:`bot.web.view`): ``t<n>`` the
track's square ``n`` (0..51, red's start square is 0, the order pieces go),
``c<colour>-<k>`` a home column's square (colour index 0..3, ``k`` 0..4 towards
the centre).  ``paths[colour][p - 1]`` names the square of progress ``p``
(1..56) of that colour's pieces, so a move is drawn square by square.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import engine
from engine import COLOURS, FIRST_COLUMN, HOME, LAST_TRACK, START, TRACK_SQUARES
from renderer import geometry as geo
from renderer.theme import RGB, THEMES, Theme

#: piece counts a yard has slots for (the italian handicap and super use 5 and 6)
SLOT_COUNTS = (4, 5, 6)


def _xy(point: tuple[float, float]) -> list[float]:
    """A renderer (y, x) point as [x, y]."""
    return [round(point[1], 4), round(point[0], 4)]


def track_name(square: int) -> str:
    return f"t{square}"


def column_name(colour: int, progress: int) -> str:
    return f"c{colour}-{progress - FIRST_COLUMN}"


def square_name(colour: int, progress: int) -> str | None:
    """The name of the square a piece of ``colour`` at ``progress`` stands on (None:
    the yard or home)."""
    if START <= progress <= LAST_TRACK:
        return track_name(engine.track_square(colour, progress))
    if FIRST_COLUMN <= progress < HOME:
        return column_name(colour, progress)
    return None


def star_style(rules: str) -> str:
    """How a rule set's star squares are drawn, as the renderer does: ``star``,
    ``shelter`` (super's barriers) or ``none`` (tower: they protect nobody)."""
    o = engine.rules_for(rules)
    if not o.safe_stars:
        return "none"
    return "shelter" if o.stacking == "barrier" else "star"


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def theme_json(t: Theme) -> dict[str, Any]:
    return {
        "background": _hex(t.background),
        "square": _hex(t.square),
        "grid": _hex(t.grid),
        "text": _hex(t.text),
        "star": _hex(t.star),
        "shelter": _hex(t.shelter),
        "inactive": _hex(t.inactive),
        "movable": _hex(t.movable),
        "last": _hex(t.last),
        "captured": _hex(t.captured),
        "die": _hex(t.die),
        "pip": _hex(t.pip),
        "edge": _hex(t.edge),
        "marks": t.marks,
        "colours": {
            COLOURS[i]: {
                "main": _hex(p.main),
                "light": _hex(p.light),
                "dark": _hex(p.dark),
                "ink": _hex(p.ink),
                "shape": p.shape,
            }
            for i, p in enumerate(t.colours)
        },
    }


@cache
def _board() -> dict[str, Any]:
    squares: dict[str, list[float]] = {}
    for sq in range(TRACK_SQUARES):
        squares[track_name(sq)] = _xy(geo.track_cell(sq))
    for c in range(len(COLOURS)):
        for p in range(FIRST_COLUMN, HOME):
            squares[column_name(c, p)] = _xy(geo.column_cell(c, p))
    paths = {
        COLOURS[c]: [square_name(c, p) for p in range(START, HOME)] for c in range(len(COLOURS))
    }
    yards = {}
    for c, name in enumerate(COLOURS):
        top, left, bottom, right = geo.yard_box(c)
        pt, pl, pb, pr = geo.YARD_PANEL
        yards[name] = {
            "box": [left, top, right - left, bottom - top],
            "panel": [left + pl, top + pt, pr - pl, pb - pt],
            "name": [left + (right - left) / 2, top + geo.NAME_LINE],
            "mark": _xy((top + geo.YARD_MARK[0], left + geo.YARD_MARK[1])),
            "slots": {str(n): [_xy(geo.base_slot(c, k, n)) for k in range(n)] for n in SLOT_COUNTS},
        }
    return {
        "grid": geo.GRID,
        "colours": list(COLOURS),
        "squares": squares,
        "track": [track_name(sq) for sq in range(TRACK_SQUARES)],
        "starts": {COLOURS[c]: track_name(sq) for c, sq in enumerate(engine.START_SQUARES)},
        "stars": [track_name(sq) for sq in engine.STAR_SQUARES],
        "paths": paths,
        "yards": yards,
        "home": {
            COLOURS[c]: {
                "triangle": [_xy(p) for p in geo.triangle(c)],
                "centre": _xy(geo.triangle_centre(c)),
            }
            for c in range(len(COLOURS))
        },
        "arrows": {COLOURS[c]: _xy(geo.arrow_direction(c)) for c in range(len(COLOURS))},
        "yard_mark_size": geo.YARD_MARK_SIZE,
        "themes": {name: theme_json(t) for name, t in THEMES.items()},
    }


def board_geometry(rules: str) -> dict[str, Any]:
    """The board of ``rules`` (a rule set's name; ValueError if unknown) as JSON."""
    if rules not in engine.RULE_SETS:
        raise ValueError(f"unknown rule set {rules!r}")
    o = engine.rules_for(rules)
    return {
        **_board(),
        "rules": rules,
        "star_style": star_style(rules),
        "safe_starts": o.safe_starts,
        "stacking": o.stacking,
    }
