"""A tournament played through the game service: its people, its services on a store, the
sign-up, and play until it is over (the people present say yes and play; the others never
come, and the timer gives their seats to the computer)."""

from __future__ import annotations

import random

from bot.hosting import LOBBY, PLAYING, Intent, User
from bot.service.game import GameService
from bot.service.outcome import TourOutcome
from bot.service.tournaments import Tournaments
from bot.store import Store
from tests.helpers.stores import FakeClock

CHANNEL = "telegram:-1001"


def people(n: int) -> list[User]:
    return [User("telegram", str(k + 1), f"P{k + 1}") for k in range(n)]


def services(store: Store, clock: FakeClock, seed: int = 7) -> tuple[GameService, Tournaments]:
    rng = random.Random(seed)
    svc = GameService(
        store, dice=lambda: rng.randint(1, 6), draw=lambda n: rng.randrange(n), clock=clock
    )
    return svc, Tournaments(svc)


def sign_up(tours: Tournaments, users: list[User], **kw: object) -> TourOutcome:
    out = tours.open(CHANNEL, users[0], "classic", timer=30, **kw)  # type: ignore[arg-type]
    assert out.refusal is None, out.refusal
    for u in users[1:]:
        out = tours.act(CHANNEL, u, "join")
        assert out.refusal is None, out.refusal
    return out


def run(svc: GameService, tours: Tournaments, clock: FakeClock, present: set[str]) -> list:
    """Play until the tournament is over: the people in ``present`` say yes and play the
    tables they are at (their moves by the first legal button); the rest never come, and
    the timer gives their seats to the computer.  The tournaments' news, in order."""
    news: list = []
    for _ in range(20_000):
        t = tours.get(CHANNEL)
        if t is None:
            return news
        game = svc.game_in(CHANNEL)
        if game is None:
            clock.advance(31)
            for o in svc.fire_due():
                news += o.game.news if o.game else []
            continue
        acted = False
        if game.status == LOBBY:
            for seat in game.waiting:
                if seat.user is not None and seat.user.id in present:
                    out = svc.act(CHANNEL, seat.user, Intent("join"))
                    assert out.refusal is None
                    news += out.game.news if out.game else []
                    acted = True
                    break
        elif game.status == PLAYING:
            seat = game.on_turn()
            if seat is not None and seat.user is not None and seat.user.id in present:
                state = game.state
                assert state is not None
                if state.phase == "roll":
                    out = svc.act(CHANNEL, seat.user, Intent("roll"))
                else:
                    moves = svc.movable(CHANNEL, seat.user)
                    out = svc.act(CHANNEL, seat.user, Intent("move", moves[0].piece + 1))
                assert out.refusal is None, out.refusal
                news += out.game.news if out.game else []
                acted = True
        if not acted:
            clock.advance(31)
            for o in svc.fire_due():
                news += o.game.news if o.game else []
    raise AssertionError("the tournament never ended")


def run_one(svc: GameService, tours: Tournaments, clock: FakeClock, present: set[str]) -> None:
    """One step of :func:`run`: a press by someone present, or the clock moved on."""
    game = svc.game_in(CHANNEL)
    if game is not None and game.status == LOBBY:
        for seat in game.waiting:
            if seat.user is not None and seat.user.id in present:
                svc.act(CHANNEL, seat.user, Intent("join"))
                return
    if game is not None and game.status == PLAYING:
        seat = game.on_turn()
        if seat is not None and seat.user is not None and seat.user.id in present:
            state = game.state
            assert state is not None
            if state.phase == "roll":
                svc.act(CHANNEL, seat.user, Intent("roll"))
            else:
                moves = svc.movable(CHANNEL, seat.user)
                svc.act(CHANNEL, seat.user, Intent("move", moves[0].piece + 1))
            return
    clock.advance(31)
    svc.fire_due()
