"""Small helpers shared by the rule tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

import engine
from engine import COLOURS, Event, GameState, IllegalAction


def game(
    rules: str,
    position: dict[str, list[int]] | None = None,
    *,
    players: Sequence[str] | int | None = None,
    turn: str | None = None,
    **options: Any,
) -> GameState:
    """A game of ``rules`` at ``position`` (colours not named start in base).

    ``players`` defaults to the colours named in ``position`` completed to a
    legal seating (2: red+yellow, 3: +green, 4: all), or 4 players.
    """
    opts = engine.rules_for(rules, options)
    if players is None:
        named = set(position or {})
        players = next(
            (
                seats
                for seats in (
                    ("red", "yellow"),
                    ("red", "green", "yellow"),
                    ("red", "green", "yellow", "blue"),
                )
                if named <= set(seats) and opts.min_players <= len(seats)
            ),
        )
    state = engine.new_game(rules, players, options=options or None)
    if position is not None:
        full = {c: list(v) for c, v in state.pieces.items()}
        for c, v in position.items():
            full[c] = list(v)
        state = engine.new_game(rules, players, options=options or None, position=full, turn=turn)
    elif turn is not None:
        state = engine.new_game(rules, players, options=options or None, turn=turn)
    return state


def run(state: GameState, *actions: str | int) -> tuple[GameState, list[Event]]:
    """Apply actions written shortly: ``"r6"`` rolls a 6, ``"m2"`` moves piece 2."""
    events: list[Event] = []
    for a in actions:
        text = str(a)
        kind = {"r": "roll", "m": "move"}[text[0]]
        state, ev = engine.apply(state, {kind: int(text[1:])})
        events.extend(ev)
    return state, events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def targets(state: GameState) -> dict[int, int]:
    """piece -> destination progress for the legal moves now."""
    return {m.piece: m.to for m in engine.legal_moves(state)}


def on(colour: str, square: int) -> int:
    """Progress of a ``colour`` piece standing on absolute track ``square`` (RULES.md 1)."""
    p = (square - 13 * COLOURS.index(colour)) % 52 + 1
    assert p <= 51, f"{colour} never stands on square {square}"
    return p


def reasons(events: list[Event], kind: str) -> list[str]:
    """The ``reason`` of each event of ``kind`` ("six", "capture", "no_move"...)."""
    return [e.reason or "" for e in events if e.kind == kind]


def refused(state: GameState, action: str) -> IllegalAction:
    """Apply ``action`` expecting :class:`IllegalAction`; return it."""
    with pytest.raises(IllegalAction) as info:
        run(state, action)
    return info.value


def choices(rules: str, count: int, seed: int) -> list[GameState]:
    """States of random games of ``rules`` where the player on turn must choose."""
    rng = random.Random(seed)
    out: list[GameState] = []
    while len(out) < count:
        state = engine.new_game(rules, 4)
        while not state.is_over and len(out) < count:
            if state.phase == "roll":
                state, _ = engine.apply(state, {"roll": rng.randint(1, 6)})
            else:
                if len(engine.legal_moves(state)) > 1 and rng.random() < 0.1:
                    out.append(state)
                state, _ = engine.apply(
                    state, {"move": rng.choice(engine.legal_moves(state)).piece}
                )
    return out


def turns_of(state: GameState, action: str, times: int) -> list[str]:
    """Whose turn it is, ``times`` times over, as each player on turn does ``action``
    (a roll that leaves nothing to move: the turn passes)."""
    seen = []
    for _ in range(times):
        seen.append(state.turn)
        state, _ev = run(state, action)
    return seen


def onto_start(rules: str, square: int) -> tuple[str, list[int], GameState, list[Event]]:
    """A piece ends its move (a 3) on the start ``square``, where a lone yellow piece
    stands: red's, or green's on red's own start square 0 (which red never walks
    onto).  The attacker, the yellow pieces before, and the state and events after."""
    attacker = "green" if square == 0 else "red"
    victim = [on("yellow", square), 0, 0, 0]
    state = game(
        rules,
        {attacker: [on(attacker, square) - 3, 0, 0, 0], "yellow": victim},
        players=4,
        turn=attacker,
    )
    state, events = run(state, "r3", "m0")
    return attacker, victim, state, events
