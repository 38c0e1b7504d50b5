"""Seating a hosted game: opening, joining, computer seats, starting, leaving, ending."""

from __future__ import annotations

from typing import Any

import engine
from engine import DEFAULT_SEATS

from ..players import LEVELS
from . import dice
from .checks import (
    chosen_rules,
    host_or_moderator,
    in_person,
    need,
    options,
    pass_host,
    seated,
)
from .game import ENDED, LOBBY, NORMAL, PLAYING, Game, Seat, User
from .happened import Happened, Luck, Refusal
from .slow import TIMER_RANGE
from .turns import advance, finish


def open_game(
    game_id: str,
    channel: str,
    user: User,
    rules: str,
    opts: dict[str, Any] | None,
    *,
    timer: int,
    auto_move: bool,
    now: float,
    lang: str = "en",
    lobby_minutes: int = 0,
    seed: str | None = None,
    level: str = NORMAL,
) -> Game:
    """A new lobby in ``channel`` with ``user`` in the first seat (refused if set up wrong).

    Its deadline is ``lobby_minutes`` from ``now`` (0: none): a lobby nobody
    started by then is closed by :func:`bot.hosting.timeout`."""
    in_person(user)
    chosen = chosen_rules(rules, opts)
    if timer and not TIMER_RANGE[0] <= timer <= TIMER_RANGE[1]:
        raise Refusal("refuse.bad_timer", low=TIMER_RANGE[0], high=TIMER_RANGE[1])
    _check_level(level)
    return Game(
        id=game_id,
        channel=channel,
        rules=rules,
        options=chosen.overrides(),
        creator=user,
        timer=timer,
        auto_move=auto_move,
        lang=lang,
        level=level,
        seed=seed,
        seats=[Seat(user)],
        created=now,
        deadline=now + lobby_minutes * 60 if lobby_minutes > 0 else None,
    )


def join(game: Game, user: User, happened: Happened, luck: Luck | None = None) -> None:
    """Sit down; in a rematch, a person whose seat is kept says yes, and the game
    starts once everybody has (``luck`` given)."""
    need(game, LOBBY)
    seat = game.seat_of(user)
    if seat is not None and seat.waiting:
        seat.waiting = False
        happened.note("rematch.ready", who=user.name)
        if not game.waiting and luck is not None:
            start(game, game.creator, luck, happened)
        return
    if seat is not None:
        raise Refusal("refuse.already_seated")
    if game.tour is not None:
        raise Refusal("refuse.tour_table_join")
    if len(game.seats) >= options(game).max_players:
        raise Refusal("refuse.full")
    game.seats.append(Seat(user))
    game.first = None  # other seats: who starts is drawn again
    happened.note("lobby.joined", who=user.name)


def add_computer(game: Game, user: User, happened: Happened, can_manage: bool = False) -> None:
    """A computer player of the table's level in the next seat: the host, or a seated
    moderator."""
    need(game, LOBBY)
    host_or_moderator(game, user, can_manage)
    if len(game.seats) >= options(game).max_players:
        raise Refusal("refuse.full")
    game.seats.append(Seat(None, level=game.level))
    game.first = None
    happened.note("lobby.computer_added", level=game.level)


def set_level(game: Game, user: User, level: str, can_manage: bool, happened: Happened) -> None:
    """The table's computer level from now on (of the computers added next, those filling
    the empty seats at the start and the seats taken over): the host, or a seated
    moderator.  The computers seated already keep theirs."""
    need(game, LOBBY)
    host_or_moderator(game, user, can_manage, "refuse.only_host_level")
    _check_level(level)
    game.level = level
    happened.note("lobby.level", level=level)


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise Refusal("refuse.bad_level", levels=LEVELS)


def remove_computer(game: Game, user: User, happened: Happened, can_manage: bool = False) -> None:
    """The last computer player out: the host, or a seated moderator."""
    need(game, LOBBY)
    host_or_moderator(game, user, can_manage)
    for k in range(len(game.seats) - 1, -1, -1):
        if game.seats[k].computer:
            del game.seats[k]
            game.first = None
            break
    else:
        raise Refusal("refuse.no_computer")
    happened.note("lobby.computer_removed")


def start(game: Game, user: User, luck: Luck, happened: Happened) -> None:
    """Start the game: the creator at any time, anyone once the seats are full."""
    need(game, LOBBY)
    seat = seated(game, user)
    opts = options(game)
    ready = [s for s in game.seats if not s.waiting]
    if seat.waiting or not (user.same(game.creator) or len(ready) >= opts.max_players):
        raise Refusal("refuse.only_host_starts", host=game.creator.name)
    if game.waiting:
        # a rematch started without the people who did not say yes: they lose their seats
        names = tuple(s.user.name for s in game.waiting if s.user is not None)
        game.seats = ready
        game.first = None
        happened.note("rematch.without", players=names)
    begin(game, luck, happened)


def begin(game: Game, luck: Luck, happened: Happened) -> None:
    """Start the game with the seats as they are (computers filling where the rules
    need four)."""
    opts = options(game)
    happened.note("game.started")
    if fills(opts):
        empty = 4 - len(game.seats)
        if empty > 0:
            game.seats.extend(Seat(None, level=game.level) for _ in range(empty))
            happened.note("lobby.computer_filled", count=empty, level=game.level)
    if len(game.seats) < opts.min_players:
        raise Refusal("refuse.need_players", need=opts.min_players)
    colours = DEFAULT_SEATS[len(game.seats)]
    for seat, colour in zip(game.seats, colours, strict=True):
        seat.colour = colour
    if game.first is not None and game.first < len(colours):
        first = colours[game.first]  # a rematch: the next seat starts
    else:
        first = _first_player(opts, colours, luck, happened, game.seed)
    state = engine.new_game(game.rules, list(colours), options=game.options, turn=first)
    game.state = state
    game.start = {
        "players": list(state.players),
        "position": {c: list(v) for c, v in state.pieces.items()},
        "turn": first,
    }
    game.status = PLAYING
    game.version += 1
    advance(game, luck, happened)


def fills(opts: engine.Options) -> bool:
    """Whether computers fill the empty seats at the start: super is played by
    exactly 4, and teams need 4."""
    return opts.min_players == 4 or bool(opts.teams)


def can_start(game: Game) -> bool:
    """Whether the seats taken are enough to start (computers filling the rest)."""
    opts = options(game)
    return fills(opts) or len([s for s in game.seats if not s.waiting]) >= opts.min_players


def _first_player(
    opts: engine.Options,
    colours: tuple[str, ...],
    luck: Luck,
    happened: Happened,
    seed: str | None,
) -> str:
    if opts.first_player == "highest_roll":
        # italian 1: everybody rolls, the highest starts, ties roll again
        contenders = list(colours)
        drawn = 0

        def die() -> int:
            nonlocal drawn
            drawn += 1
            return dice.roll(seed, drawn - 1, "start") if seed is not None else luck.die()

        while True:
            rolls = [(c, die()) for c in contenders]
            happened.note("game.start_rolls", rolls=rolls)
            top = max(d for _, d in rolls)
            contenders = [c for c, d in rolls if d == top]
            if len(contenders) == 1:
                return contenders[0]
    # classic 1, tower 1: drawn at random
    return colours[luck.draw(len(colours))]


def leave(game: Game, user: User, luck: Luck, happened: Happened) -> None:
    """Leave the lobby, or hand a running game's seat to a computer player."""
    need(game, LOBBY, PLAYING)
    seat = seated(game, user)
    if game.tour is not None and game.status == LOBBY:
        raise Refusal("refuse.tour_table_leave")
    if game.status == LOBBY:
        pass_host(game, seat)
        game.seats.remove(seat)
        game.first = None
        if not game.humans:
            finish(game, ENDED)
            happened.note("lobby.closed_empty", who=user.name)
            return
        happened.note("lobby.left", who=user.name)
        return
    pass_host(game, seat)
    seat.was, seat.user = seat.user, None
    seat.took_over = True
    happened.note("game.left", who=user.name, colour=seat.colour)
    if not game.humans and game.tour is None:  # a tournament's table is played out
        finish(game, ENDED)
        happened.note("game.ended_empty")
        return
    advance(game, luck, happened)


def end(game: Game, user: User, can_manage: bool, happened: Happened) -> None:
    """End the game: its creator, or someone the platform lets manage the channel."""
    need(game, LOBBY, PLAYING)
    if game.tour is not None:  # it ends with its tournament
        raise Refusal("refuse.tour_table_end")
    if not (user.same(game.creator) or can_manage):
        raise Refusal("refuse.only_creator_ends", host=game.creator.name)
    finish(game, ENDED)
    happened.note("game.ended_by", who=user.name)


def set_language(game: Game, user: User, lang: str, can_manage: bool, happened: Happened) -> None:
    """The table speaks ``lang`` from now on: its creator, or someone who may manage the
    channel, decides (the adapter checked that the bot speaks it)."""
    need(game, LOBBY, PLAYING)
    if not (user.same(game.creator) or can_manage):
        raise Refusal("refuse.only_creator_language", host=game.creator.name)
    if not lang:
        raise Refusal("refuse.bad_language")
    game.lang = lang
    happened.note("game.language", language=lang)
