"""The pictures of a game: its board as the players last saw it, or the final standings."""

from __future__ import annotations

from engine import Move
from renderer import render_board, render_standings

from ..hosting import Game


def board_png(game: Game, size: int = 600) -> bytes:
    """The board of a started game, with its last move and roll marked."""
    assert game.state is not None
    last = None
    lm = game.last.get("move")
    if lm:
        captures = (lm[4], lm[5]) if len(lm) >= 6 else None
        last = Move(lm[0], lm[1], lm[2], lm[3], 0, lm[2] == 0, captures)
    roll = game.last.get("roll")
    rolled = (roll[0], roll[1]) if roll else None
    return render_board(game.state, names=game.names(), last_move=last, rolled=rolled, size=size)


def standings_png(game: Game, size: int = 600) -> bytes:
    """The final standings of a finished game."""
    assert game.state is not None
    return render_standings(game.state, names=game.names(), size=size)
