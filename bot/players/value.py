"""A position's chance of winning for each colour, learned from games of the heuristic.

Each colour gets a score, a weighted sum of a few features of its pieces (the
pieces in the base, at home and in the home column, the lone pieces on the
track, the squares still to walk, the expected loss of the lone pieces, how
soon it plays); the chance that colour wins is the softmax of the scores over
the colours at the table (a conditional logit; in italian teams, of the two
teams' summed scores).  The weights were fitted per rule set on positions of
games between four heuristic players (the opponents the search models), by
``bench/fit_value.py``.
"""

from __future__ import annotations

import math

from engine import GameState
from engine.board import HOME, LAST_TRACK
from engine.board import TRACK_SQUARES as TRACK

from .heuristic import exposure

#: what a piece in the base still has to walk (its 57 squares and the wait to come out)
BASE_REMAINING = HOME + 6

#: the fitted weights, per rule set ("teams": italian teams), in the order of
#: :func:`features`
WEIGHTS: dict[str, tuple[float, ...]] = {
    "classic": (
        -0.078,
        0.0221,
        0.1289,
        0.0502,
        -1.5072,
        0.1321,
        -0.993,
        0.0863,
        0.0682,
        0.0324,
        -0.0481,
        -1.5926,
    ),
    "tower": (
        -0.0225,
        0.3463,
        0.3034,
        0.0037,
        -1.5374,
        0.1323,
        -0.8423,
        0.0709,
        0.0398,
        0.0183,
        -0.0528,
        -1.7341,
    ),
    "italian": (
        -0.0345,
        0.2061,
        0.2042,
        0.044,
        -1.6219,
        0.1476,
        -0.7186,
        0.0773,
        0.0376,
        0.0236,
        -0.0909,
        -1.5134,
    ),
    "teams": (
        -0.091,
        0.0184,
        -0.0034,
        0.0261,
        -0.7618,
        0.1026,
        -0.3488,
        0.0057,
        -0.0057,
        0.0057,
        -0.0935,
        -0.1678,
    ),
    "super": (
        -0.003,
        -0.0302,
        0.0575,
        0.0814,
        -1.3757,
        0.0889,
        -1.083,
        0.0923,
        0.0565,
        0.0329,
        -0.1258,
        -1.7948,
    ),
}


def features(state: GameState, c: int) -> tuple[float, ...]:
    """The features of colour ``c``'s side of ``state``."""
    base = home = column = lone = 0
    remaining = 0
    occ = state.occ
    for p in state.pos[c]:
        if p == 0:
            base += 1
            remaining += BASE_REMAINING
        elif p == HOME:
            home += 1
        else:
            remaining += HOME - p
            if p > LAST_TRACK:
                column += 1
            elif len(occ.get((13 * c + p - 1) % TRACK, ())) == 1:
                lone += 1
    seats = state.seats
    t = (seats.index(c) - seats.index(state.cur)) % len(seats)
    r = remaining / HOME
    return (
        base,
        home,
        column,
        lone,
        r,
        r * r,
        exposure(state, c) / HOME,
        1.0 if t == 0 else 0.0,
        1.0 if t == 1 else 0.0,
        1.0 if t == 2 else 0.0,
        1.0 if base + home == 4 else 0.0,
        min(r, 1.0),
    )


def weights_for(state: GameState) -> tuple[float, ...]:
    """The weights of ``state``'s rule set (a custom set: those of the preset it is named after)."""
    o = state.options
    return WEIGHTS.get("teams" if o.teams else o.name) or WEIGHTS["classic"]


def score(state: GameState, c: int, w: tuple[float, ...]) -> float:
    return sum(a * b for a, b in zip(w, features(state, c), strict=True))


def win_chance(state: GameState, c: int) -> float:
    """The chance that the side of colour ``c`` (with its partner in italian teams) wins.

    In italian teams a team's score is its two colours' scores together (the
    weights were fitted that way), against the other team's.
    """
    if state.won:
        return 1.0 if c in state.won else 0.0
    w = weights_for(state)
    if state.options.teams:
        mine = score(state, c, w) + score(state, (c + 2) % 4, w)
        theirs = score(state, (c + 1) % 4, w) + score(state, (c + 3) % 4, w)
        return 1.0 / (1.0 + math.exp(theirs - mine))
    scores = {x: score(state, x, w) for x in state.seats}
    top = max(scores.values())
    total = sum(math.exp(v - top) for v in scores.values())
    return math.exp(scores[c] - top) / total
