"""The picture of the landing marks in docs/landing-marks.png, drawn as a chat shows it.

    python -m tests.helpers.landing_shot    # writes docs/landing-marks.png again

Red has rolled a 6 in a classic game: piece 1 may come out, piece 2 walk to an
empty square, piece 3 capture a green piece and piece 4 go home.  The chat's
board (600 px, the classic theme) is beside the same board in the colourblind
and dark themes, so one look judges all three.
"""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

import engine
from engine import GameState
from renderer import DEFAULT_SIZE, THEMES, render_board
from tests.helpers.rules import game, on, run

SHOT = Path(__file__).resolve().parents[2] / "docs" / "landing-marks.png"
NAMES = {"red": "Ana", "green": "Bia", "yellow": "Caio", "blue": "Duda"}


def choice() -> GameState:
    """Red to choose after a 6: out, a plain move, a capture, home."""
    state = game(
        "classic", {"red": [0, 10, 14, 51], "green": [on("green", 19), 0, 0, 0]}, players=4
    )
    state, _ = run(state, "r6")
    assert len(engine.legal_moves(state)) == 4
    return state


def shot() -> bytes:
    """The three themes' boards side by side, as one PNG."""
    boards = [
        Image.open(io.BytesIO(render_board(choice(), names=NAMES, size=DEFAULT_SIZE, theme=t)))
        for t in THEMES
    ]
    w, h = boards[0].size
    out = Image.new("RGB", (w * len(boards) + 10 * (len(boards) - 1), h), (255, 255, 255))
    for k, board in enumerate(boards):
        out.paste(board.convert("RGB"), (k * (w + 10), 0))
    buf = io.BytesIO()
    out.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


if __name__ == "__main__":
    SHOT.write_bytes(shot())
    print(SHOT)
