"""The web board's geometry agrees with the renderer's: the same squares at the same places."""

from __future__ import annotations

import json

import pytest

import engine
from bot.web.geometry import board_geometry, square_name
from engine import COLOURS, FIRST_COLUMN, HOME, START
from renderer import geometry as geo
from renderer.theme import THEMES


@pytest.mark.parametrize("rules", engine.RULE_SETS)
def test_every_square_is_where_the_renderer_draws_it(rules: str) -> None:
    g = board_geometry(rules)
    json.dumps(g)  # plain JSON
    assert g["grid"] == geo.GRID == 15
    assert len(g["track"]) == 52 and len(set(g["track"])) == 52
    for sq, name in enumerate(g["track"]):
        r, c = geo.track_cell(sq)
        assert g["squares"][name] == [c, r]
    for ci, colour in enumerate(COLOURS):
        path = g["paths"][colour]
        assert len(path) == HOME - START
        for p in range(START, HOME):
            r, c = geo.piece_cell(ci, p) or (-1, -1)
            assert g["squares"][path[p - 1]] == [c, r]
            assert path[p - 1] == square_name(ci, p)
        # the column ends next to the colour's triangle
        assert path[-1] == f"c{ci}-{HOME - 1 - FIRST_COLUMN}"
        assert g["starts"][colour] == path[0]
        y, x = geo.base_slot(ci, 2, 4)
        assert g["yards"][colour]["slots"]["4"][2] == [x, y]
        assert g["home"][colour]["triangle"] == [[x, y] for y, x in geo.triangle(ci)]
    # no two squares share a cell
    cells = {tuple(v) for v in g["squares"].values()}
    assert len(cells) == len(g["squares"]) == 52 + 20


def test_the_rule_sets_stars_are_drawn_as_the_renderer_draws_them() -> None:
    stars = {r: board_geometry(r)["star_style"] for r in engine.RULE_SETS}
    assert stars == {"classic": "star", "tower": "none", "italian": "star", "super": "shelter"}
    assert board_geometry("classic")["stars"] == [f"t{sq}" for sq in engine.STAR_SQUARES]
    assert board_geometry("tower")["safe_starts"] is False


def test_every_theme_with_its_colours_and_shapes() -> None:
    themes = board_geometry("classic")["themes"]
    assert set(themes) == set(THEMES) >= {"classic", "dark", "colourblind"}
    cb = themes["colourblind"]
    assert cb["marks"] is True
    assert [cb["colours"][c]["shape"] for c in COLOURS] == ["disc", "square", "triangle", "diamond"]
    r, g, b = THEMES["classic"].colours[0].main
    assert themes["classic"]["colours"]["red"]["main"] == f"#{r:02x}{g:02x}{b:02x}"


def test_an_unknown_rule_set_is_refused() -> None:
    with pytest.raises(ValueError):
        board_geometry("chess")
