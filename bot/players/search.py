"""A position's worth and a search over the dice: what ``hard`` and ``expert`` think with.

:func:`evaluate` scores a whole position for one side (a colour, or both
partners of an italian team): each piece's progress plus what leaving the
base is worth, minus the expected loss of the lone pieces an enemy could hit
next round (the heuristic's own risk count), against the strongest opponent.

:class:`DiceSearch` is an expectimax over the dice: after each candidate move
the game is played on with every roll (a chance node, the six faces equally
likely); the searching side's own moves are maximised, every other player
answers with the heuristic's move (a model of the opponent, cheap and close to
how the computer players and many people play).  The depth is the number of
rolls looked through (the searching side's own follow-up or extra rolls may be
looked through without counting, ``free_own``); iterative deepening gives an
answer at every depth, and a depth that does not finish within the node budget
(or the wall-clock cap) is dropped, so the result only depends on the state and
the budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engine import GameState, Move, current_moves, move_in_place, roll_in_place
from engine.board import HOME

from .heuristic import ENTER, exposure, score_moves

#: the worth of a won game (far above any position's worth)
WIN = 10_000.0
#: a piece at home is worth its 57 squares plus this (it can never be lost)
HOME_EXTRA = 6.0
#: weight of the strongest opponent against the mean of all opponents
STRONGEST = 0.6


class OutOfBudget(Exception):
    """The search used its nodes or its time: the depth under way is dropped."""


def side_of(state: GameState, c: int) -> tuple[int, ...]:
    """The colours playing together with ``c`` (its partner too in italian teams)."""
    if state.options.teams:
        return (c, (c + 2) % 4)
    return (c,)


def colour_value(state: GameState, c: int) -> float:
    """What the pieces of colour ``c`` are worth, less the expected loss of the lone ones."""
    total = 0.0
    for p in state.pos[c]:
        if p == HOME:
            total += HOME + ENTER + HOME_EXTRA
        elif p:
            total += p + ENTER
    return total - exposure(state, c)


def evaluate(state: GameState, c: int) -> float:
    """The worth of ``state`` for the side of colour ``c`` (higher is better)."""
    side = side_of(state, c)
    if state.won:
        return WIN if c in state.won else -WIN
    mine = sum(colour_value(state, x) for x in side)
    if state.options.teams:
        others = [sum(colour_value(state, x) for x in side_of(state, c ^ 1))]
    else:
        others = [colour_value(state, x) for x in state.seats if x not in side]
    if not others:
        return mine
    best = max(others)
    mean = sum(others) / len(others)
    return mine - STRONGEST * best - (1.0 - STRONGEST) * mean


class DiceSearch:
    """Expectimax over the dice for the side of the player on turn."""

    def __init__(
        self,
        nodes: int,
        seconds: float | None = None,
        evaluate: Callable[[GameState, int], float] = evaluate,
        free_own: int = 0,
    ) -> None:
        #: a position's worth for a colour's side: :func:`evaluate`, or the
        #: learned chance of winning (:func:`bot.players.value.win_chance`)
        self.evaluate = evaluate
        #: how many of the searching side's own rolls in a row (a follow-up
        #: or extra roll) are looked through without counting as depth, so a
        #: move that earns one is still valued after the next opponent's answer
        self.free_own = free_own
        #: nodes (positions evaluated or expanded) allowed per decision
        self.nodes = nodes
        #: the wall-clock cap per decision (None: none)
        self.seconds = seconds
        self.used = 0
        self.depth_done = 0
        self._deadline = 0.0
        self._limited = True

    def _tick(self) -> None:
        self.used += 1
        if not self._limited:
            return
        if self.used > self.nodes:
            raise OutOfBudget
        if (
            self.seconds is not None
            and self.used & 63 == 0
            and time.perf_counter() > self._deadline
        ):
            raise OutOfBudget

    def values(self, state: GameState, moves: list[Move], depth: int) -> list[float]:
        """The searched worth of each of ``moves``, looking ``depth`` rolls ahead."""
        me = state.cur
        side = side_of(state, me)
        return [self._after(state, m.piece, depth, me, side) for m in moves]

    def _after(
        self,
        state: GameState,
        piece: int,
        depth: int,
        me: int,
        side: tuple[int, ...],
        streak: int = 0,
    ) -> float:
        s = state.copy()
        move_in_place(s, piece, None)
        return self._value(s, depth, me, side, streak)

    def _value(
        self, s: GameState, depth: int, me: int, side: tuple[int, ...], streak: int = 0
    ) -> float:
        """``s``'s searched worth; ``streak``: own rolls in a row not counted as depth."""
        self._tick()
        if s.phase == "over":
            return self.evaluate(s, me)
        if s.phase == "roll":
            free = s.cur in side and streak < self.free_own
            if depth == 0 and not free:
                return self.evaluate(s, me)
            after = depth if free else depth - 1
            then = streak + 1 if free else 0
            total = 0.0
            for d in range(1, 7):
                r = s.copy()
                roll_in_place(r, d, None)
                total += self._value(r, after, me, side, then)
            return total / 6.0
        moves = current_moves(s)
        if s.cur in side:
            if len(moves) == 1:
                return self._after(s, moves[0].piece, depth, me, side, streak)
            return max(self._after(s, m.piece, depth, me, side, streak) for m in moves)
        if len(moves) == 1:
            reply = moves[0]
        else:
            scores = score_moves(s, moves)
            reply = moves[scores.index(max(scores))]
        return self._after(s, reply.piece, depth, me, side, streak)

    def best(self, state: GameState, moves: list[Move], max_depth: int) -> list[float]:
        """Iterative deepening from one roll to ``max_depth``: the deepest finished values.

        Depth 1 always finishes (the budget is only checked from depth 2 on),
        so there is always an answer.
        """
        self.used = 0
        self.depth_done = 0
        start = time.perf_counter()
        if self.seconds is not None:
            self._deadline = start + self.seconds
        self._limited = False
        try:
            found = self.values(state, moves, min(1, max_depth))
        finally:
            self._limited = True
        self.depth_done = 1
        for depth in range(2, max_depth + 1):
            try:
                found = self.values(state, moves, depth)
            except OutOfBudget:
                break
            self.depth_done = depth
        return found
