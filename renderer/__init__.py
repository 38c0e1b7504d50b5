"""Board images: pure functions from a game state to PNG bytes (Pillow).

The PNGs are palette PNGs, each theme's pictures on a fixed palette of its own
(:mod:`renderer.indexed`): small, quick to encode, and the same to the eye.

render_board(state, names={"red": "Ana"}, last_move=move) -> bytes
render_standings(state, names=...) -> bytes
board_image(state, ...), standings_image(state, ...) -> the same, as drawn (RGB Pillow images)
animate(record, names=..., computers=("green",)) -> bytes   # the whole game, a GIF

The words drawn are English unless the caller gives others (``words=Words(...)``).
"""

from .animate import animate
from .board import DEFAULT_SIZE, board_image, render_board
from .standings import render_standings, standings_image
from .theme import THEMES
from .words import ENGLISH, Words

__all__ = [
    "DEFAULT_SIZE",
    "ENGLISH",
    "THEMES",
    "Words",
    "animate",
    "board_image",
    "render_board",
    "render_standings",
    "standings_image",
]
