"""Board images: pure functions from a game state to PNG bytes (Pillow).

render_board(state, names={"red": "Ana"}, last_move=move) -> bytes
render_standings(state, names=...) -> bytes
"""

from .board import DEFAULT_SIZE, board_image, render_board
from .standings import render_standings
from .theme import THEMES

__all__ = ["DEFAULT_SIZE", "THEMES", "board_image", "render_board", "render_standings"]
