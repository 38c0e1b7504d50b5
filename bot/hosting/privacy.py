"""Forgetting a person in a finished game kept for good (``/ludo forget``,
``ludo-bot forget``): their seat keeps only its colour.

A forgotten seat holds a person of the platform :data:`~bot.hosting.game.FORGOTTEN`
whose id is the seat's colour and whose name is empty: the pictures and
captions call it by its colour ("red player"), the record never named anyone,
and a rematch leaves the seat open (see :func:`bot.hosting.rematch.rematch_of`).
"""

from __future__ import annotations

from .game import FORGOTTEN, Game, User
from .results import person_key


def forget_in(game: Game, person: str) -> bool:
    """Take ``person`` (their key, ``telegram:101``) out of ``game``: each seat of
    theirs keeps its colour only, and so does the game's creator if it was them.
    Whether anything changed."""
    changed = False
    for k, seat in enumerate(game.seats):
        mine = False
        if seat.user is not None and person_key(seat.user) == person:
            seat.user = User(FORGOTTEN, seat.colour or str(k), "")
            mine = True
        if seat.was is not None and person_key(seat.was) == person:
            seat.was = None  # the seat the computer took over no longer names them
            mine = True
        if mine:
            game.rated.pop(seat.colour or "", None)
            changed = True
    if game.season is not None and any(who == person for who, _, _ in game.season[2]):
        game.season = None  # a season's podium naming them is no longer told
        changed = True
    if person_key(game.creator) == person:
        game.creator = User(FORGOTTEN, "creator", "")
        changed = True
    return changed


def named(game: Game) -> tuple[str, ...]:
    """The keys of everyone ``game`` names: its people's and its creator's."""
    people = [person_key(p) for s in game.seats for p in (s.user, s.was) if p is not None]
    if not game.creator.forgotten:
        people.append(person_key(game.creator))
    return tuple(dict.fromkeys(p for p in people if not p.startswith(f"{FORGOTTEN}:")))
