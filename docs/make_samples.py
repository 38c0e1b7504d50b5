"""Draw the sample images of docs/ (run from the project root: python docs/make_samples.py)."""

from __future__ import annotations

import random
from pathlib import Path

import engine
from renderer import render_board, render_standings

HERE = Path(__file__).resolve().parent
NAMES = {"red": "Ana", "green": "Bartholomew the Brave", "yellow": "Ёжик", "blue": "Zoë"}


def capture_scene() -> None:
    # classic: red rolled 4 and captures green; the board after the move
    state = engine.new_game(
        "classic",
        4,
        position={
            "red": [20, 5, 0, 57],
            "green": [0, 0, 0, 11],
            "yellow": [12, 0, 0, 0],
            "blue": [30, 31, 0, 0],
        },
        turn="red",
    )
    state, _ = engine.apply(state, {"roll": 4})
    move = next(m for m in engine.legal_moves(state) if m.piece == 0)
    state, _ = engine.apply(state, {"move": 0})
    png = render_board(state, names=NAMES, last_move=move, rolled=("red", 4))
    (HERE / "sample-classic.png").write_bytes(png)


def choose_scene() -> None:
    # tower: red has a tower and must choose with a 5 (movable pieces ringed)
    state = engine.new_game(
        "tower",
        4,
        position={
            "red": [10, 10, 3, 0],
            "green": [0, 0, 30, 57],
            "yellow": [53, 53, 0, 0],
            "blue": [7, 0, 0, 0],
        },
        turn="red",
    )
    state, _ = engine.apply(state, {"roll": 5})
    (HERE / "sample-tower.png").write_bytes(render_board(state, names=NAMES))


def super_scene() -> None:
    # super, dark theme: a barrier, shelters, a bonus move due
    state = engine.new_game(
        "super",
        4,
        position={
            "red": [5, 5, 9, 1],
            "green": [0, 0, 0, 45],
            "yellow": [0, 57, 57, 0],
            "blue": [1, 0, 0, 0],
        },
        turn="red",
    )
    state, _ = engine.apply(state, {"roll": 6})
    (HERE / "sample-super-dark.png").write_bytes(render_board(state, names=NAMES, theme="dark"))


def finished_game() -> None:
    rng = random.Random(9)
    state = engine.new_game("classic", 4)
    while not state.is_over:
        if state.phase == "roll":
            state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
        else:
            state, _ = engine.apply(state, {"move": rng.choice(engine.legal_moves(state)).piece})
    (HERE / "sample-standings.png").write_bytes(render_standings(state, names=NAMES))


if __name__ == "__main__":
    capture_scene()
    choose_scene()
    super_scene()
    finished_game()
