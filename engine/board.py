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
#: track squares per colour's quarter of the board (start square to the next one)
QUARTER = 13
#: absolute track index of each colour's start square: 0, 13, 26, 39
START_SQUARES: tuple[int, ...] = tuple(QUARTER * c for c in range(len(COLOURS)))
#: how far past a start square its quarter's star square lies
STAR_OFFSET = 8
#: absolute track index of the star squares (each start square + 8): 8, 21, 34, 47
STAR_SQUARES: tuple[int, ...] = tuple(sq + STAR_OFFSET for sq in START_SQUARES)

#: the colours in the game for each player count (RULES.md section 1)
DEFAULT_SEATS: dict[int, tuple[str, ...]] = {
    2: ("red", "yellow"),
    3: ("red", "green", "yellow"),
    4: ("red", "green", "yellow", "blue"),
}


def track_square(colour: int, progress: int) -> int:
    """Absolute track index (0..51) of a piece of ``colour`` at ``progress`` 1..51."""
    return (QUARTER * colour + progress - START) % TRACK_SQUARES


def square_key(colour: int, progress: int) -> int:
    """A number naming the physical square a piece stands on, or -1 (base, home).

    Track squares are 0..51; the home column squares of colour ``c`` are
    ``52 + 5*c .. 56 + 5*c``.  Two pieces share a square exactly when their
    keys are equal and not -1.
    """
    if START <= progress <= LAST_TRACK:
        return track_square(colour, progress)
    if FIRST_COLUMN <= progress < HOME:
        return TRACK_SQUARES + (HOME - FIRST_COLUMN) * colour + progress - FIRST_COLUMN
    return -1


#: ``SQUARE_KEYS[colour][progress] == square_key(colour, progress)`` for progress
#: 0..57: the same answer without a call, for the move generator's inner loops
SQUARE_KEYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(square_key(c, p) for p in range(HOME + 1)) for c in range(len(COLOURS))
)


def start_colour(key: int) -> int:
    """The colour whose start square ``key`` is, or -1."""
    if key < TRACK_SQUARES and key % QUARTER == 0:
        return key // QUARTER
    return -1


def is_star(key: int) -> bool:
    """Is square ``key`` one of the four star squares?"""
    return key < TRACK_SQUARES and key % QUARTER == STAR_OFFSET


def quarter_of(square: int) -> tuple[int, int]:
    """Track square ``square`` (0..51) as (colour whose quarter it is in, steps past its start)."""
    return divmod(square, QUARTER)
