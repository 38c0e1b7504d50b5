"""Driving the game service the way players do: by pressing the buttons it sends."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.model import Game, User
from bot.replies import Reply
from bot.service import GameService
from bot.store import Store

ANA = User("test", "1", "Ana")
BEN = User("test", "2", "Ben")
CID = User("test", "3", "Cid")
DEE = User("test", "4", "Dee")
USERS = {u.id: u for u in (ANA, BEN, CID, DEE)}


class Dice:
    """A seeded die (the service's own die is cryptographic, hence not repeatable)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rolled = 0

    def __call__(self) -> int:
        self.rolled += 1
        return self.rng.randint(1, 6)


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def service(
    store: Store,
    *,
    seed: int = 1,
    clock: Callable[[], float] | None = None,
    render: bool = False,
    **kw: object,
) -> GameService:
    return GameService(store, dice=Dice(seed), clock=clock or Clock(), render=render, **kw)  # type: ignore[arg-type]


def stored_bytes(store: Store, game_id: str) -> bytes:
    got = store.load(game_id)
    assert got is not None
    return got.data


def current(svc: GameService, channel: str) -> Game:
    game = svc.game_in(channel)
    assert game is not None
    return game


def person_on_turn(game: Game) -> User | None:
    seat = game.on_turn()
    return seat.user if seat is not None else None


def press_first(
    svc: GameService,
    channel: str,
    reply: Reply,
    user: User,
    pick: Callable[[int], int] | None = None,
) -> Reply:
    """Press a button of ``reply`` (the first, or the one ``pick`` chooses)."""
    buttons = [b for row in reply.buttons for b in row]
    assert buttons, f"no buttons to press in {reply}"
    k = pick(len(buttons)) if pick else 0
    return svc.press(channel, user, buttons[k].data)


def step(svc: GameService, channel: str, reply: Reply) -> Reply:
    """The person on turn presses the first button of the latest reply."""
    user = person_on_turn(current(svc, channel))
    assert user is not None, "nobody to press: the game waits for no one"
    return svc.press(channel, user, next(b for row in reply.buttons for b in row).data)


def play_out(svc: GameService, channel: str, reply: Reply, limit: int = 5000) -> Reply:
    """Press first buttons until the game is over; the last reply."""
    for _ in range(limit):
        if reply.finished:
            return reply
        reply = step(svc, channel, reply)
    raise AssertionError(f"no end after {limit} presses")
