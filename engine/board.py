"""Board geometry in the progress coordinate of RULES.md section 1.

A piece's progress ``p`` is relative to its owner: 0 base, 1..51 main track,
52..56 home column, 57 home.  Colours are numbered red=0, green=1, yellow=2,
blue=3, seated clockwise in that order.
"""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("red", "green", "yellow", "blue")
COLOUR_INDEX: dict[str, int] = {name: i for i, name in enumerate(COLOURS)}

BASE = 0
START = 1
LAST_TRACK = 51
FIRST_COLUMN = 52
HOME = 57

TRACK_SQUARES = 52
#: absolute track index of each colour's start square
START_SQUARES: tuple[int, ...] = (0, 13, 26, 39)
#: absolute track index of the star squares (each start square + 8)
STAR_SQUARES: tuple[int, ...] = (8, 21, 34, 47)

#: the colours in the game for each player count (RULES.md section 1)
DEFAULT_SEATS: dict[int, tuple[str, ...]] = {
    2: ("red", "yellow"),
    3: ("red", "green", "yellow"),
    4: ("red", "green", "yellow", "blue"),
}


def track_square(colour: int, progress: int) -> int:
    """Absolute track index (0..51) of a piece of ``colour`` at ``progress`` 1..51."""
    return (13 * colour + progress - 1) % TRACK_SQUARES


def square_key(colour: int, progress: int) -> int:
    """A number naming the physical square a piece stands on, or -1 (base, home).

    Track squares are 0..51; the home column squares of colour ``c`` are
    ``52 + 5*c .. 56 + 5*c``.  Two pieces share a square exactly when their
    keys are equal and not -1.
    """
    if 1 <= progress <= LAST_TRACK:
        return (13 * colour + progress - 1) % TRACK_SQUARES
    if FIRST_COLUMN <= progress < HOME:
        return TRACK_SQUARES + 5 * colour + progress - FIRST_COLUMN
    return -1


def start_colour(key: int) -> int:
    """The colour whose start square ``key`` is, or -1."""
    if key < TRACK_SQUARES and key % 13 == 0:
        return key // 13
    return -1


def is_star(key: int) -> bool:
    return key < TRACK_SQUARES and key % 13 == 8
