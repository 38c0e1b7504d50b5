"""Board images: pure functions from a game state to PNG bytes (Pillow).

render_board(state, names={"red": "Ana"}, last_move=move) -> bytes
render_standings(state, names=...) -> bytes
animate(record, names=..., computers=("green",)) -> bytes   # the whole game, a GIF

The words drawn are English unless the caller gives others (``words=Words(...)``).
"""

from .animate import animate
from .board import DEFAULT_SIZE, board_image, render_board
from .standings import render_standings
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
]
