"""Who may do what, when: the refusals every hosted step starts with."""

from __future__ import annotations

import engine

from .game import LOBBY, PLAYING, Game, Seat, User
from .happened import Refusal


def options(game: Game) -> engine.Options:
    return engine.rules_for(game.rules, game.options)


def need(game: Game, *status: str) -> None:
    """Refuse unless the game is in one of ``status``."""
    if game.status not in status:
        key = {LOBBY: "refuse.not_started", PLAYING: "refuse.already_started"}.get(
            game.status, "refuse.game_over"
        )
        raise Refusal(key)


def seated(game: Game, user: User) -> Seat:
    seat = game.seat_of(user)
    if seat is None:
        raise Refusal("refuse.not_seated")
    return seat


def your_turn(game: Game, user: User) -> Seat:
    seat = seated(game, user)
    on_turn = game.on_turn()
    if seat is not on_turn:
        who = on_turn.user.name if on_turn and on_turn.user else None
        colour = on_turn.colour if on_turn else None
        raise Refusal("refuse.not_your_turn", who=who, colour=colour)
    return seat
