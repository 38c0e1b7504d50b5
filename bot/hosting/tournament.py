"""A tournament in a chat, without any I/O: sign-up, rounds of tables, results, standings.

A :class:`Tournament` is one stored record (like a game: loaded fresh, changed by one
step, saved with one compare-and-set).  Its tables are ordinary games of the chat
(:attr:`bot.hosting.Game.tour` names the tournament and the table), in rooms of their
own where the chat has them (:func:`set_rooms`), else one after another; the service
tells the tournament each one's places (:func:`record`).

Formats (decisions "about tournaments" in docs/decisions.md):

- ``swiss``: a fixed number of rounds; everybody plays every round.  A place is worth
  ``3 × (players beaten) / (others at the table)`` points (a table of four: 3, 2, 1, 0);
  similar scores sit together (:func:`.pairing.swiss`), avoiding repeat opponents.
  Standings: points, then the points of everyone one has met (Buchholz), then the tables
  won; equal in all three share a place (and the title, if it is the first).
- ``knockout``: the first two of each table go on, until four or fewer are left: they
  play the final table.  Standings: how far one got, then the place in one's last table.

Italian teams: each table is two against two, the best rated at a table partnered with
the least (:func:`bot.hosting.tables.table_game`); each partner scores the team's result
(the winners place first, the others second), so in a knockout the winning pair goes on.

Every step raises :class:`.Refusal` (nothing changes) or notes what it did in a
:class:`.Happened`; the presenter chooses the words.
"""

from __future__ import annotations

from typing import Any

from .checks import chosen_rules, in_person
from .game import NORMAL, User
from .happened import Happened, Refusal
from .pairing import met_pairs, snake, swiss
from .results import person_key
from .tour_model import (
    DONE,
    ENDED,
    FORMATS,
    KNOCKOUT,
    MAX_ROOMS,
    MAX_TABLES,
    ROUNDS_RANGE,
    RUNNING,
    SIGNUP,
    SIZE_RANGE,
    STATUSES,
    SWISS,
    TOP_POINTS,
    TOUR_TIMER_RANGE,
    Entrant,
    Standing,
    Table,
    Tournament,
)

__all__ = [
    "DONE",
    "ENDED",
    "FORMATS",
    "KNOCKOUT",
    "MAX_ROOMS",
    "MAX_TABLES",
    "ROUNDS_RANGE",
    "RUNNING",
    "SIGNUP",
    "SIZE_RANGE",
    "STATUSES",
    "SWISS",
    "TOP_POINTS",
    "TOUR_TIMER_RANGE",
    "Entrant",
    "Standing",
    "Table",
    "Tournament",
    "end",
    "open_tournament",
    "place_points",
    "points",
    "record",
    "set_rooms",
    "sign_up",
    "standings",
    "start",
    "withdraw",
]


# -- steps ----------------------------------------------------------------------


def open_tournament(
    tid: str,
    channel: str,
    user: User,
    rules: str,
    opts: dict[str, Any] | None,
    *,
    fmt: str,
    size: int,
    rounds: int,
    timer: int,
    now: float,
    rating: int,
    lang: str = "en",
    level: str = NORMAL,
    chat: str = "",
    rooms: bool = False,
) -> Tournament:
    """Sign-up for a new tournament, its host signed up first (refused if set up wrong);
    ``rooms``: the chat can give each table a room of its own (threads, forum topics)."""
    in_person(user)
    chosen = chosen_rules(rules, opts)
    if fmt not in FORMATS:
        raise Refusal("refuse.tour_format", formats=FORMATS)
    if not SIZE_RANGE[0] <= size <= SIZE_RANGE[1]:
        raise Refusal("refuse.tour_size", low=SIZE_RANGE[0], high=SIZE_RANGE[1])
    if fmt == SWISS and not ROUNDS_RANGE[0] <= rounds <= ROUNDS_RANGE[1]:
        raise Refusal("refuse.tour_rounds", low=ROUNDS_RANGE[0], high=ROUNDS_RANGE[1])
    if not TOUR_TIMER_RANGE[0] <= timer <= TOUR_TIMER_RANGE[1]:
        raise Refusal("refuse.tour_timer", low=TOUR_TIMER_RANGE[0], high=TOUR_TIMER_RANGE[1])
    return Tournament(
        id=tid,
        channel=channel,
        chat=chat or channel,
        rules=rules,
        options=chosen.overrides(),
        host=user,
        fmt=fmt,
        size=size,
        rounds=rounds if fmt == SWISS else 0,
        timer=timer,
        lang=lang,
        level=level,
        entrants=[Entrant(user, rating)],
        created=now,
        rooms_wanted=rooms,
    )


def set_rooms(t: Tournament, rooms: list[str], happened: Happened) -> bool:
    """The rooms the adapter made for the tables (none: it could not; they play one after
    another); False if the tournament does not wait for them (told already)."""
    if t.status != RUNNING or not t.awaiting_rooms:
        return False
    t.rooms, t.rooms_wanted = list(rooms), bool(rooms)
    t.version += 1
    happened.note("tour.rooms", count=len(rooms))
    return True


def sign_up(t: Tournament, user: User, rating: int, happened: Happened) -> None:
    """Sign up; the tournament starts by itself once it is full."""
    in_person(user)
    _need(t, SIGNUP)
    if t.entrant(person_key(user)) is not None:
        raise Refusal("refuse.tour_signed_up")
    if len(t.entrants) >= t.size:
        raise Refusal("refuse.tour_full", size=t.size)
    t.entrants.append(Entrant(user, rating))
    t.version += 1
    happened.note("tour.joined", who=user.name, count=len(t.entrants), size=t.size)
    if len(t.entrants) == t.size:
        _begin(t, happened)


def withdraw(t: Tournament, user: User, happened: Happened) -> None:
    """Leave the sign-up (the host stays: they end the tournament instead)."""
    _need(t, SIGNUP)
    e = t.entrant(person_key(user))
    if e is None:
        raise Refusal("refuse.tour_not_signed_up")
    if user.same(t.host):
        raise Refusal("refuse.tour_host_stays")
    t.entrants.remove(e)
    t.version += 1
    happened.note("tour.left", who=user.name, count=len(t.entrants), size=t.size)


def start(t: Tournament, user: User, can_manage: bool, happened: Happened) -> None:
    """Close the sign-up and seat the first round: the host, or a moderator."""
    _need(t, SIGNUP)
    if not (user.same(t.host) or can_manage):
        raise Refusal("refuse.tour_only_host", host=t.host.name)
    if len(t.entrants) < SIZE_RANGE[0]:
        raise Refusal("refuse.tour_need", need=SIZE_RANGE[0], count=len(t.entrants))
    _begin(t, happened)


def end(t: Tournament, user: User, can_manage: bool, happened: Happened) -> None:
    """Stop the tournament (no winner): the host, or a moderator."""
    _need(t, SIGNUP, RUNNING)
    if not (user.same(t.host) or can_manage):
        raise Refusal("refuse.tour_only_host", host=t.host.name)
    t.status = ENDED
    t.version += 1
    happened.note("tour.ended_by", who=user.name)


def record(t: Tournament, game_id: str, places: dict[str, int], happened: Happened) -> bool:
    """The table played by ``game_id`` finished with ``places`` (entrant key -> place);
    False if that was told already (or is no table of this tournament's round)."""
    table = t.table_of(game_id)
    if t.status != RUNNING or table is None or table.done or table.round != t.round:
        return False
    if set(places) != set(table.players):
        raise ValueError("the places must name the table's players")
    table.places = dict(places)
    t.version += 1
    happened.note("tour.table_done", round=t.round, table=table.number)
    if all(x.done for x in t.current()):
        if t.last_round or (t.fmt == KNOCKOUT and len(_advancing(t)) < 2):
            t.status = DONE
            first = tuple(t.name(s.key) for s in standings(t) if s.place == 1)
            if len(first) == 1:
                happened.note("tour.won", who=first[0])
            else:
                happened.note("tour.won_shared", players=first)
        else:
            _seat(t)
            happened.note("tour.round", round=t.round, tables=len(t.current()))
    return True


def _begin(t: Tournament, happened: Happened) -> None:
    t.status = RUNNING
    happened.note("tour.started", count=len(t.entrants))
    _seat(t)
    happened.note("tour.round", round=t.round, tables=len(t.current()))


def _need(t: Tournament, *status: str) -> None:
    if t.status not in status:
        raise Refusal("refuse.tour_signup_closed" if t.status == RUNNING else "refuse.tour_over")


def _ratings(t: Tournament) -> dict[str, int]:
    return {e.key: e.rating for e in t.entrants}


def _seat(t: Tournament) -> None:
    """Seat the next round."""
    rating = _ratings(t)
    if t.round == 0:
        seated = snake([e.key for e in t.entrants], rating)
    elif t.fmt == KNOCKOUT:
        seated = snake(_advancing(t), rating)
    else:
        played = [x.players for x in t.tables]
        seated = swiss([e.key for e in t.entrants], points(t), rating, met_pairs(played))
    t.round += 1
    t.tables.extend(Table(t.round, k + 1, players) for k, players in enumerate(seated))


def _advancing(t: Tournament) -> list[str]:
    """Knockout: who goes on from the round just played: each table's first two (a tie
    at the cut goes to the better rating)."""
    rating = _ratings(t)
    out: list[str] = []
    for table in t.current():
        places = table.places or {}
        order = sorted(table.players, key=lambda k: (places.get(k, 9), -rating.get(k, 0)))
        out.extend(order[:2])
    return out


def place_points(place: int, seats: int) -> float:
    """What a Swiss place is worth at a table of ``seats`` (a team game: of 2 teams)."""
    return TOP_POINTS * (seats - place) / (seats - 1)


def points(t: Tournament) -> dict[str, float]:
    """Each entrant's Swiss points so far (a team game: the team's result, for each
    partner: 3 for the winners, 0 for the others)."""
    out = {e.key: 0.0 for e in t.entrants}
    for table in t.tables:
        sides = 2 if t.teams else len(table.players)
        for key, place in (table.places or {}).items():
            out[key] += place_points(place, sides)
    return out


def standings(t: Tournament) -> list[Standing]:
    """Everybody, best first (see the module's doc for the order)."""
    rating = _ratings(t)
    rows: list[tuple[tuple[float, float, int, int, str], str, float, float]] = []
    if t.fmt == SWISS:
        pts = points(t)
        for e in t.entrants:
            met = {k for x in t.tables if x.done and e.key in x.players for k in x.players}
            buchholz = float(sum(pts[k] for k in met - {e.key}))
            wins = sum(1 for x in t.tables if (x.places or {}).get(e.key) == 1)
            order = (-round(pts[e.key], 6), -round(buchholz, 6), -wins, -e.rating, e.user.name)
            rows.append((order, e.key, pts[e.key], buchholz))
    else:
        for e in t.entrants:
            mine = [x for x in t.tables if e.key in x.players]
            last = mine[-1] if mine else None
            reached = last.round if last is not None else 0
            place = (last.places or {}).get(e.key, 4) if last is not None else 4
            rows.append(
                ((-reached, place, 0, -e.rating, e.user.name), e.key, reached, float(place))
            )
    rows.sort()
    out: list[Standing] = []
    for k, (order, key, pts_, tie) in enumerate(rows):
        # equal results share a place (the rating brought in only orders the lines)
        same = k > 0 and rows[k - 1][0][:3] == order[:3]
        place = out[-1].place if same else k + 1
        out.append(Standing(key, t.name(key), place, pts_, tie, rating[key]))
    return out
