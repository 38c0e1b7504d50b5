"""``render_board``: a game state as a PNG image of the board.

The picture is drawn in layers: the static board (:mod:`renderer.static`), the
players' names and the frame of the one to act (:mod:`renderer.status`), the
pieces and the last move's marks (:mod:`renderer.pieces`), the landing marks of
the moves to choose from (:mod:`renderer.marks`), then the status bar.
The static board and the sprites (pieces, rings, dice, words) are drawn once and
cached; each picture is composed from them in RGB, then mapped to the theme's
fixed palette and encoded as a palette PNG (:mod:`renderer.indexed`).
"""

from __future__ import annotations

from collections.abc import Iterable

from PIL import Image, ImageDraw

from engine import COLOUR_INDEX, GameState, Move

from . import geometry as geo
from .indexed import INDEXED_PNG_OPTIONS, PNG_OPTIONS, to_png
from .marks import draw_marks
from .pieces import draw_pieces, mark_captured, mark_last_move, rings_for
from .static import star_style, static_board
from .status import draw_players, draw_status
from .text import Names
from .theme import theme_for
from .words import ENGLISH, Words

DEFAULT_SIZE = 600
MIN_SIZE, MAX_SIZE = 300, 2400

__all__ = [
    "DEFAULT_SIZE",
    "INDEXED_PNG_OPTIONS",
    "MAX_SIZE",
    "MIN_SIZE",
    "PNG_OPTIONS",
    "Names",
    "board_image",
    "check_size",
    "render_board",
    "star_style",
    "static_board",
]


def check_size(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be a whole number of pixels from {MIN_SIZE} to {MAX_SIZE}")
    return size


def render_board(
    state: GameState,
    *,
    names: Names | None = None,
    last_move: Move | None = None,
    highlight: Iterable[tuple[str, int]] = (),
    rolled: tuple[str, int] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
    words: Words = ENGLISH,
    marks: bool = True,
) -> bytes:
    """The board of ``state`` as PNG bytes (a palette PNG, in the theme's colours).

    ``names`` maps colours to player names (any text; cut to fit).
    ``last_move`` (a :class:`engine.Move`, e.g. from ``legal_moves`` before it
    was applied) is marked where it came from and went, with a captured piece
    crossed out.  When the player on turn must choose, the pieces that can
    move are ringed; ``highlight`` rings more pieces, as (colour, piece).
    ``rolled`` is the die to show, as (colour, value), framed in that colour
    (default: the roll the player on turn must now move with, if any).
    ``words`` are the words drawn (the status bar, the names of unnamed seats), in
    the reader's language (default: English).  When the player on turn must
    choose, each move's landing square carries a mark with the moving piece's
    number (:mod:`renderer.marks`), unless ``marks`` is False.
    """
    img = board_image(
        state,
        names=names,
        last_move=last_move,
        highlight=highlight,
        rolled=rolled,
        size=size,
        theme=theme,
        words=words,
        marks=marks,
    )
    return to_png(img, theme)


def board_image(
    state: GameState,
    *,
    names: Names | None = None,
    last_move: Move | None = None,
    highlight: Iterable[tuple[str, int]] = (),
    rolled: tuple[str, int] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
    words: Words = ENGLISH,
    marks: bool = True,
) -> Image.Image:
    """:func:`render_board` as drawn, before it is mapped to the theme's palette and
    encoded: an RGB Pillow image."""
    check_size(size)
    t = theme_for(theme)
    lay = geo.Layout(size)
    seats = tuple(COLOUR_INDEX[colour] for colour in state.players)
    img = static_board(size, t.name, star_style(state), seats).copy()
    d = ImageDraw.Draw(img)
    names = names or {}
    pieces = state.pieces

    draw_players(img, d, lay, state, names, t, words)
    if last_move is not None:
        mark_last_move(d, lay, last_move, pieces, t)
    draw_pieces(img, d, lay, state, rings_for(state, highlight), t)
    if last_move is not None:
        mark_captured(img, lay, last_move, pieces, t)
    if marks:
        draw_marks(img, lay, state, t.name)
    draw_status(img, d, lay, state, names, rolled, t, words)
    return img
