"""Setting up a position: the seats, the start position, and checking a given one.

Shared by :func:`engine.new_game` and :meth:`engine.GameState.from_dict`; every
bad input raises :class:`RecordError` with a message for a player.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .board import (
    COLOUR_INDEX,
    COLOURS,
    DEFAULT_SEATS,
    HOME,
    TRACK_SQUARES,
    is_star,
    square_key,
    start_colour,
)
from .errors import RecordError
from .rules import Options


def seats_for(opts: Options, players: Any) -> tuple[int, ...]:
    """The colour indices in the game for ``players`` (colours, or their number)."""
    if isinstance(players, int) and not isinstance(players, bool):
        if players not in DEFAULT_SEATS:
            raise RecordError(f"a game has 2 to 4 players, not {players}")
        players = DEFAULT_SEATS[players]
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of colours (red, green, yellow, blue)")
    for p in players:
        if p not in COLOUR_INDEX:
            raise RecordError(f"unknown colour {p!r}: colours are {', '.join(COLOURS)}")
    if len(set(players)) != len(players):
        raise RecordError("a colour cannot play twice")
    n = len(players)
    if not opts.min_players <= n <= opts.max_players:
        if opts.min_players == opts.max_players:
            raise RecordError(
                f"{opts.name} is played by exactly {opts.min_players} players, not {n}"
            )
        raise RecordError(
            f"{opts.name} is played by {opts.min_players} to {opts.max_players} players, not {n}"
        )
    if opts.teams and n != 4:
        raise RecordError(f"teams play 2 against 2: they need 4 players, not {n}")
    expected = DEFAULT_SEATS[n]
    if set(players) != set(expected):
        raise RecordError(
            f"with {n} players the colours are {', '.join(expected)}, not {', '.join(players)}"
        )
    return tuple(COLOUR_INDEX[p] for p in expected)


def start_position(opts: Options, seats: tuple[int, ...]) -> list[list[int]]:
    """The rule set's start position: piece progress per colour index."""
    pos: list[list[int]] = [[] for _ in COLOURS]
    for c in seats:
        n = opts.pieces_for(COLOURS[c])
        pos[c] = [1 if i < opts.start_out else 0 for i in range(n)]
    return pos


def check_position(
    opts: Options, seats: tuple[int, ...], position: Any, *, check_over: bool
) -> list[list[int]]:
    """``position`` (colour -> progress values) checked, as piece progress per colour index.

    ``check_over`` also refuses a position in which someone has already won.
    """
    if not isinstance(position, Mapping):
        raise RecordError("position must map each colour to its pieces' progress values")
    names = {COLOURS[c] for c in seats}
    extra = set(position) - names
    if extra:
        raise RecordError(
            f"position names colours not in the game: {', '.join(sorted(map(str, extra)))}"
        )
    pos: list[list[int]] = [[] for _ in COLOURS]
    for c in seats:
        name = COLOURS[c]
        values = position.get(name)
        n = opts.pieces_for(name)
        if not isinstance(values, list | tuple) or len(values) != n:
            raise RecordError(f"position: {name} needs a list of {n} progress values")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= HOME:
                raise RecordError(f"position: progress runs from 0 (base) to 57 (home), not {v!r}")
        pos[c] = list(values)
    _check_capacity(opts, pos)
    if check_over:
        done = [c for c in seats if pos[c].count(HOME) >= opts.needed_home(COLOURS[c])]
        if opts.teams:
            if any((c + 2) % 4 in done for c in done):
                raise RecordError("position: a team has already won")
        elif done:
            raise RecordError(f"position: {COLOURS[done[0]]} has already won")
    return pos


def build_occupancy(pos: list[list[int]]) -> dict[int, list[int]]:
    """Square key -> the pieces standing there, each as ``colour * 8 + piece``."""
    occ: dict[int, list[int]] = {}
    for c, ps in enumerate(pos):
        for i, p in enumerate(ps):
            k = square_key(c, p)
            if k >= 0:
                occ.setdefault(k, []).append(c * 8 + i)
    return occ


def _check_capacity(opts: Options, pos: list[list[int]]) -> None:
    if opts.stacking == "free":
        return
    occ = build_occupancy(pos)
    for key, here in occ.items():
        colours = {x >> 3 for x in here}
        where = f"square {key}" if key < TRACK_SQUARES else "a home column square"
        if len(here) > 2:
            raise RecordError(f"position: {where} holds {len(here)} pieces; at most 2 fit")
        if len(here) == 2:
            if opts.stacking == "tower" and len(colours) == 2:
                raise RecordError(
                    f"position: {where} holds two colours; only towers share a square"
                )
            if opts.stacking == "barrier":
                sc = start_colour(key)
                if len(colours) == 1 and sc >= 0:
                    raise RecordError(
                        f"position: a barrier cannot stand on a start square ({where})"
                    )
                if len(colours) == 2 and not (is_star(key) or (sc >= 0 and sc in colours)):
                    raise RecordError(f"position: {where} cannot hold two colours")
