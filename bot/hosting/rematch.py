"""A rematch: the same table again, after a game is finished.

The same people in the same seats (so the same colours), the same rules,
options, timer, language and computer levels; the person asking for it has said yes, every
other person's seat is kept for them until they say yes too (see
:func:`bot.hosting.lobby.join`), and the game starts by itself once everybody
has.  The seat after the one that started the last game starts this one.
"""

from __future__ import annotations

from .checks import in_person
from .game import ENDED, OVER, Game, Seat, User
from .happened import Happened, Luck, Refusal
from .lobby import can_start, start


def rematch_of(
    old: Game,
    game_id: str,
    user: User,
    now: float,
    lobby_minutes: int = 0,
    seed: str | None = None,
) -> Game:
    """The lobby of a rematch of ``old``, asked for by ``user`` (refused if ``old`` is
    not a finished game, or ``user`` did not play it to its end)."""
    in_person(user)
    if old.state is None or old.status not in (OVER, ENDED):
        raise Refusal("refuse.no_rematch")
    if old.seat_of(user) is None:
        raise Refusal("refuse.not_in_last_game")
    # a forgotten person's seat is left open: it is not theirs to come back to
    kept = [s for s in old.seats if s.user is None or not s.user.forgotten]
    seats = [
        Seat(
            s.user,
            waiting=s.user is not None and not user.same(s.user),
            level=old.level if s.took_over else s.level,  # a seat taken over: the table's
        )
        for s in kept
    ]
    turn = (old.start or {}).get("turn")
    before = next((k for k, s in enumerate(old.seats) if s.colour == turn), None)
    if len(kept) < len(old.seats):
        before = None  # other seats: who starts is decided as in a new game
    return Game(
        id=game_id,
        channel=old.channel,
        rules=old.rules,
        options=dict(old.options),
        creator=user,
        timer=old.timer,
        auto_move=old.auto_move,
        lang=old.lang,
        level=old.level,
        seed=seed,
        seats=seats,
        created=now,
        deadline=now + lobby_minutes * 60 if lobby_minutes > 0 else None,
        chat=old.chat,
        after=old.id,
        theme=old.theme,
        place=old.place,
        first=(before + 1) % len(seats) if before is not None else None,
    )


def opened(game: Game, user: User, luck: Luck) -> Happened:
    """What opening the rematch ``game`` did: it waits for the others to say yes, or,
    with nobody to wait for (the others were computers), it starts at once (if the
    seats left are enough: a forgotten person's seat is open)."""
    happened = Happened(by=user)
    names = tuple(s.user.name for s in game.waiting if s.user is not None)
    happened.note("rematch.opened", who=user.name, players=names)
    if not names and can_start(game):
        start(game, user, luck, happened)
    return happened
