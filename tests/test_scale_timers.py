"""A thousand turn timers falling due at the same moment, fired by two workers at once
(threads, each with its own service and store on the same data), on a real Redis
and on a SQLite file: every game's timeout is played exactly once, none twice,
none lost (bench/timers.py measures the same with 10,000 games and processes)."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from bot.hosting import Game, Intent, User
from bot.service.game import GameService
from tests.helpers.stores import FakeClock, StoreFactory

GAMES = 1000
TIMER = 120


def open_games(svc: GameService, count: int) -> dict[str, int]:
    """``count`` started games, a person on turn and three computers each; their
    ids and saved revisions."""
    made: dict[str, int] = {}
    for g in range(count):
        person = User("test", str(g), f"P{g}")
        channel = f"scale-{g}"
        svc.open(channel, person, ("classic", "tower", "italian", "super")[g % 4], timer=TIMER)
        for _ in range(3):
            svc.act(channel, person, Intent("add_computer"))
        outcome = svc.act(channel, person, Intent("start"))
        assert outcome.game is not None and outcome.game.deadline is not None, outcome.refusal
        made[outcome.game.id] = outcome.game.rev
    return made


def test_two_workers_fire_a_thousand_deadlines_due_together_exactly_once(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    made = open_games(GameService(make_store(), clock=clock), GAMES)
    assert len(made) == GAMES
    due = clock.advance(TIMER + 1)
    workers = [GameService(make_store(), clock=clock) for _ in range(2)]
    fired: list[list[str]] = [[], []]
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def fire(i: int) -> None:
        try:
            start.wait()
            while out := workers[i].fire_due():
                fired[i] += [o.game.id for o in out if o.game is not None]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=fire, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and not any(t.is_alive() for t in threads)
    assert all(w.store_answered for w in workers)

    counts = Counter(fired[0] + fired[1])
    assert set(counts) == set(made), "a deadline lost, or a game fired that was not due"
    assert max(counts.values()) == 1, "a deadline fired twice"
    assert fired[0] and fired[1], "both workers took part"

    # what was saved agrees: one save and one timeout more per game, the next deadline ahead
    store = make_store()
    for game_id, rev in made.items():
        stored = store.load(game_id)
        assert stored is not None
        game = Game.from_bytes(stored.data, stored.rev)
        assert stored.rev == rev + 1, game_id
        assert sum(seat.timeouts for seat in game.seats) == 1, game_id
        assert game.deadline is not None and game.deadline == pytest.approx(due + TIMER, abs=0.01)
    assert workers[0].fire_due() == [] and workers[1].fire_due() == []
