"""Who may do what, when: the refusals every hosted step starts with."""

from __future__ import annotations

from typing import Any

import engine
from engine import LudoError

from .game import LOBBY, PLAYING, Game, Seat, User
from .happened import Refusal


def options(game: Game) -> engine.Options:
    return engine.rules_for(game.rules, game.options)


def chosen_rules(rules: str, opts: dict[str, Any] | None) -> engine.Options:
    """The rules asked for, or the refusal saying why they cannot be played so."""
    try:
        return engine.rules_for(rules, opts or {})
    except LudoError as e:
        facts = getattr(e, "params", {})
        raise Refusal(
            "refuse.bad_rules", reason=getattr(e, "reason", "bad_rules"), **facts
        ) from None


def in_person(user: User) -> None:
    """Refuse an account many people share: nobody could tell who is playing."""
    if user.shared:
        raise Refusal("refuse.as_yourself")


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


def host_or_moderator(
    game: Game, user: User, can_manage: bool, refusal: str = "refuse.only_host_computers"
) -> Seat:
    """Refuse (``refusal``) unless ``user`` is seated and hosts the game, or may manage
    the channel."""
    seat = seated(game, user)
    if not (user.same(game.creator) or can_manage):
        raise Refusal(refusal, host=game.creator.name)
    return seat


def pass_host(game: Game, seat: Seat) -> None:
    """``seat``'s person is leaving it: if they host the game, host rights pass to the
    next person seated after them (one who said yes to a rematch first); none left, they
    stay (the game is then closed for want of people)."""
    if not game.creator.same(seat.user):
        return
    k = game.seats.index(seat)
    after = [s for s in game.seats[k + 1 :] + game.seats[:k] if s.user is not None]
    ready = [s for s in after if not s.waiting]
    if ready or after:
        game.creator = (ready or after)[0].user  # type: ignore[assignment]
