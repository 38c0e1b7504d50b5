"""Which move a chosen piece makes, and why an action is refused.

Every refusal is an :class:`IllegalAction` whose message a player understands
and whose ``reason`` code a caller can phrase itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import Move
from .board import COLOURS, HOME
from .errors import IllegalAction
from .moves import current_moves, try_enter, try_step
from .state import GameState


def parse_action(action: Any) -> tuple[str, int]:
    """``{"roll": d}`` or ``{"move": i}`` as (kind, value); any other shape is refused."""
    if not isinstance(action, Mapping) or len(action) != 1:
        raise IllegalAction(
            f'an action is {{"roll": d}} or {{"move": i}}, not {action!r}', "bad_action"
        )
    ((kind, value),) = action.items()
    if kind not in ("roll", "move"):
        raise IllegalAction(f"unknown action {kind!r}: use roll or move", "bad_action")
    if isinstance(value, bool) or not isinstance(value, int):
        raise _not_a_number(kind, value)
    return kind, value


def _not_a_number(kind: str, value: object) -> IllegalAction:
    what = "die value" if kind == "roll" else "piece number"
    return IllegalAction(f"{kind} needs a whole {what}, not {value!r}", "bad_action")


def move_for(state: GameState, piece: int) -> Move:
    """The legal move that moving ``piece`` (0-based) of the player on turn makes now.

    Pieces in the base are interchangeable: when ``piece`` is in the base and
    a base piece may come out, this is that move, made by ``piece``.  Any
    other piece raises the :class:`IllegalAction` that ``{"move": piece}``
    would, so the state is never changed.
    """
    if isinstance(piece, bool) or not isinstance(piece, int):
        raise _not_a_number("move", piece)
    if state.phase != "move" and state.phase != "bonus":
        raise out_of_order(state, "move")
    return find_move(state, piece)


def find_move(s: GameState, piece: int) -> Move:
    """:func:`move_for` once a move is due (the player on turn must move now)."""
    moves = current_moves(s)
    for m in moves:
        if m.piece == piece:
            return m
    c = s.cur
    ps = s.pos[c]
    if 0 <= piece < len(ps) and ps[piece] == 0:
        for m in moves:
            if m.enter:  # any base piece may be the one brought out
                return m._replace(piece=piece)
    raise _why_not(s, c, piece, moves)


def _why_not(s: GameState, c: int, piece: int, moves: list[Move]) -> IllegalAction:
    ps = s.pos[c]
    bonus = s.phase == "bonus"
    d = s.bonus[0] if bonus else s.die
    what = f"make the bonus move of {d}" if bonus else f"move {d}"
    if isinstance(piece, bool) or not 0 <= piece < len(ps):
        return IllegalAction(
            f"piece {piece} does not exist: {COLOURS[c]} has pieces 0 to {len(ps) - 1}",
            "no_such_piece",
            piece,
        )
    p = ps[piece]
    o = s.options
    if p == HOME:
        return IllegalAction(f"piece {piece} is already home", "home", piece)

    def no(why: str, reason: str) -> IllegalAction:
        return IllegalAction(f"piece {piece} cannot {what}: {why}", reason, piece)

    if p == 0:
        if bonus:
            return no("a bonus move cannot bring a piece out of the base", "in_base")
        if s.follow >= 0:
            return no("the piece that just came out moves with this roll", "follow_up")
        if d not in o.exit_rolls:
            need = " or ".join(str(x) for x in o.exit_rolls)
            return IllegalAction(
                f"piece {piece} is in the base: it needs a {need} to come out", "in_base", piece
            )
        r: Move | str = try_enter(s, c, piece)
    else:
        r = try_step(s, c, piece, p, d)
    if isinstance(r, Move):
        # the move exists but a rule of the roll narrows the choice
        if s.follow >= 0:
            return no(f"piece {s.follow} just came out and must move with this roll", "follow_up")
        if o.exit_forced and any(m.enter for m in moves):
            return no(f"a {d} must bring a piece out of the base", "must_enter")
        if o.open_barriers and d == 6:
            return no("a 6 must open one of your barriers", "must_open_barrier")
        return no("another move is required", "constrained")
    return no(_REASONS.get(r, r), r)


_REASONS = {
    "overshoot": "it would overshoot home",
    "blocked": "a tower or barrier blocks the way",
    "full": "the square it would land on is full",
    "no_barrier_on_start": "a barrier cannot form on a start square",
    "foreign_start": "that start square takes a second piece only of its own colour",
    "own_on_start": "a piece of yours already stands on the start square",
    "start_full": "the start square is full",
    "tower_on_start": "a tower stands on the start square",
}


def out_of_order(s: GameState, doing: str) -> IllegalAction:
    if s.phase == "over":
        return IllegalAction("the game is over", "game_over")
    if doing == "roll":
        if s.phase == "bonus":
            return IllegalAction(
                f"{COLOURS[s.cur]} must first make the bonus move of {s.bonus[0]}", "bonus_due"
            )
        return IllegalAction(
            f"{COLOURS[s.cur]} has rolled {s.die} and must move a piece first", "move_due"
        )
    return IllegalAction(f"{COLOURS[s.cur]} must roll the die before moving", "roll_due")
