"""A tournament's tables as games: opening one, its no-shows, and its places.

A table opens, in its room or the tournament's channel, as a lobby with every seat
kept for its player (as a rematch keeps them: each says yes with I'm in).  It starts
as soon as everybody has, or when the tournament's turn timer runs out: then the
computer plays the seat of whoever did not come (their game counts as played, as a
seat the timer took over does).
"""

from __future__ import annotations

from .game import LOBBY, OVER, Game, Seat
from .happened import Happened, Luck, Refusal
from .lobby import begin
from .results import seat_key
from .tournament import Table, Tournament
from .turns import timeout as turn_timeout


def table_game(t: Tournament, table: Table, game_id: str, now: float, seed: str | None) -> Game:
    """The lobby of ``table``: its players' seats kept, waiting for their yes."""
    entrants = [e for k in table.players if (e := t.entrant(k)) is not None]
    if t.teams and len(entrants) == 4:
        # partners sit opposite (seats 1 and 3, 2 and 4): the best with the least rated
        best = sorted(entrants, key=lambda e: -e.rating)
        entrants = [best[0], best[1], best[3], best[2]]
    users = [e.user for e in entrants]
    return Game(
        id=game_id,
        channel=t.room_of(table),
        rules=t.rules,
        options=dict(t.options),
        creator=users[0],
        timer=t.timer,
        lang=t.lang,
        level=t.level,
        seed=seed,
        seats=[Seat(u, waiting=True) for u in users],
        created=now,
        deadline=now + t.timer,
        chat=t.chat,
        tour=(t.id, table.round, table.number),
    )


def timeout(game: Game, luck: Luck, happened: Happened) -> None:
    """A game's deadline passed (:func:`bot.hosting.turns.timeout`); a tournament's
    table nobody started yet starts, the computer in the seats of those not there."""
    if game.tour is None or game.status != LOBBY:
        turn_timeout(game, luck, happened)
        return
    if game.deadline is None or game.deadline > luck.now:
        raise Refusal("timer.not_due")
    absent = game.waiting
    for seat in absent:
        seat.was, seat.user, seat.waiting, seat.took_over = seat.user, None, False, True
    if absent:
        names = tuple(s.was.name for s in absent if s.was is not None)
        happened.note("tour.no_shows", players=names, level=game.level)
    here = [s.user for s in game.seats if s.user is not None]
    if here and not any(game.creator.same(u) for u in here):
        game.creator = here[0]  # the table's host is one who came
    begin(game, luck, happened)


def places_of(game: Game) -> dict[str, int] | None:
    """A finished table's places by entrant key (None: not played to its end).  A seat
    the computer played for its person counts as theirs; a computer filling a seat the
    rules needed is nobody's."""
    state = game.state
    if game.status != OVER or state is None or state.places is None:
        return None
    raw: dict[str, int] = {}
    winners = set(state.winner or ())
    for seat in game.seats:
        person = seat.user or seat.was
        if person is not None and seat.colour is not None:
            if state.options.teams:  # the team's result: first, or second
                raw[seat_key(seat)] = 1 if seat.colour in winners else 2
            else:
                raw[seat_key(seat)] = state.places.get(seat.colour, len(game.seats))
    if state.options.teams:
        return raw
    # places among the table's players (a computer filling a seat ranks nobody down)
    return {k: 1 + sum(p < mine for p in raw.values()) for k, mine in raw.items()}
