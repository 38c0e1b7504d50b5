"""The legal moves of a position: which pieces may move, and where to.

:func:`generate` lists every legal move for a die or bonus length;
:func:`try_enter` and :func:`try_step` test one piece and say why it cannot
move, which :mod:`engine.refusals` turns into words.
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Move
from .board import (
    COLOURS,
    HOME,
    LAST_TRACK,
    SQUARE_KEYS,
    START_SQUARES,
    TRACK_SQUARES,
    is_star,
    start_colour,
)
from .state import GameState


def current_moves(s: GameState) -> list[Move]:
    """The legal moves of ``s`` (cached in it: do not change the list)."""
    if s._moves is None:
        steps = s.die if s.phase == "move" else s.bonus[0]
        s._moves = generate(s, s.cur, steps, s.phase == "bonus")
    return s._moves


def generate(s: GameState, c: int, d: int, bonus: bool) -> list[Move]:
    """Every legal move of colour ``c`` for ``d`` squares (a die or a bonus)."""
    o = s.options
    moves: list[Move] = []
    may_enter = not bonus and s.follow < 0 and d in o.exit_rolls
    for i, p in enumerate(s.pos[c]):
        if p == HOME:
            continue
        if p == 0:
            if may_enter:
                may_enter = False  # base pieces are interchangeable: list one
                r = try_enter(s, c, i)
                if type(r) is Move:
                    moves.append(r)
            continue
        r = try_step(s, c, i, p, d)
        if type(r) is Move:
            moves.append(r)
    if bonus or len(moves) < 2:
        return moves
    return _constrain(s, c, d, moves)


def _constrain(s: GameState, c: int, d: int, moves: list[Move]) -> list[Move]:
    """Rules that narrow a roll's choice: forced exit, opening barriers, follow-up."""
    o = s.options
    if s.follow >= 0:
        follow = [m for m in moves if m.piece == s.follow]
        if follow:
            return follow
    if o.exit_forced and d in o.exit_rolls:
        enter = [m for m in moves if m.enter]
        if enter:
            return enter
    if o.open_barriers and d == 6:
        opening = [m for m in moves if _in_own_barrier(s, c, m.frm)]
        if opening:
            return opening
    return moves


def _in_own_barrier(s: GameState, c: int, p: int) -> bool:
    k = SQUARE_KEYS[c][p]
    if k < 0:
        return False
    here = s.occ.get(k, ())
    return len(here) == 2 and here[0] >> 3 == c and here[1] >> 3 == c


def try_enter(s: GameState, c: int, i: int) -> Move | str:
    """Bring piece ``i`` out onto the start square, or say why it cannot."""
    o = s.options
    key = START_SQUARES[c]
    here = s.occ.get(key, ())
    captures = None
    forms = None
    if here:
        stacking = o.stacking
        own = [x for x in here if x >> 3 == c]
        if stacking == "barrier":
            if own:
                return "own_on_start"
            if len(here) == 1:  # super 5: coming out captures an opponent on the start square
                captures = (COLOURS[here[0] >> 3], here[0] & 7)
            else:
                return "start_full"
        elif stacking == "tower":
            if len(here) >= 2:
                return "tower_on_start"
            if own:
                forms = "tower"
            elif not o.safe_starts:
                captures = (COLOURS[here[0] >> 3], here[0] & 7)
        else:
            captures = _free_capture(s, c, key, here)
    return Move(COLOURS[c], i, 0, 1, 1, True, captures, forms)


def _free_capture(s: GameState, c: int, key: int, here: Sequence[int]) -> tuple[str, int] | None:
    """Free stacking: a lone opponent off a safe square is captured (classic 6)."""
    if len(here) != 1:
        return None
    oc = here[0] >> 3
    if oc == c:
        return None
    o = s.options
    if o.teams and (oc - c) % 4 == 2:
        return None
    if (o.safe_starts and start_colour(key) >= 0) or (o.safe_stars and is_star(key)):
        return None
    return (COLOURS[oc], here[0] & 7)


def try_step(s: GameState, c: int, i: int, p: int, d: int) -> Move | str:
    """Move piece ``i`` (at ``p`` > 0) ``d`` squares, or say why it cannot."""
    o = s.options
    q = p + d
    bounce = False
    if q > HOME:
        if o.overshoot != "bounce":
            return "overshoot"
        q = 2 * HOME - q
        bounce = True
    stacking = o.stacking
    if stacking == "free":
        if q == HOME:
            return Move(COLOURS[c], i, p, q, d)
        if q > LAST_TRACK:
            return Move(COLOURS[c], i, p, q, d, bounce=bounce)
        key = SQUARE_KEYS[c][q]
        here = s.occ.get(key)
        captures = _free_capture(s, c, key, here) if here else None
        return Move(COLOURS[c], i, p, q, d, False, captures, None, bounce)
    # towers and barriers: nothing passes a stack of two of one colour
    keys = SQUARE_KEYS[c]
    origin = keys[p]
    occ = s.occ
    for step in range(1, d):
        w = p + step
        if w >= HOME:
            if w == HOME:
                continue  # home holds no tower: the bounce turns there
            w = 2 * HOME - w
        k = keys[w]
        here = occ.get(k)
        if here and _is_block(here, k == origin):
            return "blocked"
    if q == HOME:
        return Move(COLOURS[c], i, p, q, d)
    key = keys[q]
    here_list = [x for x in occ.get(key, ()) if x != c * 8 + i]
    if not here_list:
        return Move(COLOURS[c], i, p, q, d, bounce=bounce)
    if len(here_list) >= 2:
        return "blocked" if stacking == "tower" or _is_block(here_list, False) else "full"
    other = here_list[0]
    oc = other >> 3
    if oc == c:
        if stacking == "barrier" and start_colour(key) >= 0:
            return "no_barrier_on_start"
        return Move(COLOURS[c], i, p, q, d, False, None, stacking, bounce)
    if stacking == "barrier" and key < TRACK_SQUARES:
        if o.safe_stars and is_star(key):
            return Move(COLOURS[c], i, p, q, d)  # a shelter holds two colours
        sc = start_colour(key)
        if o.safe_starts and sc >= 0:
            if sc in (c, oc):
                return Move(COLOURS[c], i, p, q, d)
            return "foreign_start"
    return Move(COLOURS[c], i, p, q, d, False, (COLOURS[oc], other & 7), None, bounce)


def _is_block(here: Sequence[int], minus_mover: bool) -> bool:
    """Two pieces of one colour on a square: a tower or barrier nobody passes."""
    n = len(here) - (1 if minus_mover else 0)
    if n < 2:
        return False
    return here[0] >> 3 == here[1] >> 3
