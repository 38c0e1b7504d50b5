"""What a person can ask of a game, as one value: the adapters' commands and buttons."""

from __future__ import annotations

from dataclasses import dataclass

from .checks import in_person
from .game import Game, User
from .happened import Happened, Luck, Refusal
from .lobby import add_computer, end, join, leave, remove_computer, set_language, set_level, start
from .turns import move, roll

KINDS = (
    "join",
    "leave",
    "add_computer",
    "remove_computer",
    "start",
    "roll",
    "move",
    "end",
    "language",
    "rematch",
    "level",
)


#: what cannot be done at a tournament's table: it is seated, and starts, by itself
TOUR_SET = ("add_computer", "remove_computer", "start", "level")


@dataclass(frozen=True)
class Intent:
    """``kind`` is one of :data:`KINDS`; ``piece`` (from 1) goes with ``move``, ``lang``
    (a catalog's language, ``pt_BR``) with ``language``, ``level`` (a computer level:
    :data:`bot.players.LEVELS`) with ``level``; ``rematch`` is the service's
    (it opens a new game: see :func:`bot.hosting.rematch.rematch_of`); ``can_manage``: the platform
    lets this person manage the channel (may end any game, change its language, add or
    remove its computer players)."""

    kind: str
    piece: int = 0
    can_manage: bool = False
    lang: str = ""
    level: str = ""


def perform(game: Game, user: User, intent: Intent, luck: Luck) -> Happened:
    """Do what ``intent`` asks to ``game`` itself; what happened, or a :class:`Refusal`."""
    in_person(user)
    happened = Happened(by=user)
    kind = intent.kind
    if game.tour is not None and kind in TOUR_SET:
        raise Refusal("refuse.tour_table_set")  # a tournament's table is set by it
    if kind == "join":
        join(game, user, happened, luck)
    elif kind == "leave":
        leave(game, user, luck, happened)
    elif kind == "add_computer":
        add_computer(game, user, happened, intent.can_manage)
    elif kind == "remove_computer":
        remove_computer(game, user, happened, intent.can_manage)
    elif kind == "start":
        start(game, user, luck, happened)
    elif kind == "roll":
        roll(game, user, luck, happened)
    elif kind == "move":
        move(game, user, intent.piece, luck, happened)
    elif kind == "end":
        end(game, user, intent.can_manage, happened)
    elif kind == "language":
        set_language(game, user, intent.lang, intent.can_manage, happened)
    elif kind == "level":
        set_level(game, user, intent.level, intent.can_manage, happened)
    else:
        raise Refusal("refuse.bad_button")
    return happened
