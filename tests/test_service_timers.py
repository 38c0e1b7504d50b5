"""The game service's timers over a real store (SQLite and Redis): an expired turn played
by the computer, timeouts handing a seat over, deadlines surviving restarts and crashes
and firing once across workers, and lobbies nobody starts closing."""

from __future__ import annotations

from typing import Any

import pytest

from bot.hosting import MAX_TIMEOUTS
from bot.present import Text, say
from bot.store import Store
from tests.helpers.service import (
    ANA,
    BEN,
    CID,
    Clock,
    buttons,
    current,
    lobby,
    person_on_turn,
    service,
    started,
    step,
)

# --------------------------------------------------------------------------
# the turn timer


def test_an_expired_turn_is_played_by_the_computer(store: Store) -> None:
    clock = Clock()
    svc, _reply = started(store, seats=2, timer=60, clock=clock)
    game = current(svc, "chan")
    on_turn = game.state.turn  # type: ignore[union-attr]
    assert game.deadline == clock.now + 60
    assert svc.fire_due(clock.now + 59) == []  # not yet
    clock.advance(61)
    replies = svc.fire_due()
    assert len(replies) == 1 and replies[0].channel == "chan"
    assert replies[0].lines[0].key == "timer.expired"
    game = current(svc, "chan")
    assert game.state.turn != on_turn  # type: ignore[union-attr]
    seat = next(s for s in game.seats if s.colour == on_turn)
    assert seat.timeouts == 1 and not seat.computer
    # fired once: nothing more is due now
    assert svc.fire_due() == []


def test_three_timeouts_in_a_row_hand_the_seat_to_a_computer(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=30, clock=clock)
    first = current(svc, "chan").state.turn  # type: ignore[union-attr]
    took = False
    for _ in range(40):
        clock.advance(31)
        for r in svc.fire_due():
            took = took or any(t.key == "timer.took_over" for t in r.lines)
        if took:
            break
    assert took
    game = current(svc, "chan")
    seat = next(s for s in game.seats if s.colour == first)
    assert seat.computer and seat.took_over
    assert seat.timeouts == MAX_TIMEOUTS


def test_acting_in_time_resets_the_timeout_count(store: Store) -> None:
    clock = Clock()
    svc, reply = started(store, seats=2, timer=30, clock=clock)
    late = current(svc, "chan").state.turn  # type: ignore[union-attr]
    clock.advance(31)
    reply = svc.fire_due()[0]
    # the other player plays their turn; then the late one acts in time
    for _ in range(200):
        game = current(svc, "chan")
        user = person_on_turn(game)
        assert user is not None
        seat = game.seat_of(user)
        assert seat is not None
        if seat.colour == late:
            assert seat.timeouts == 1
            svc.roll("chan", user)
            assert current(svc, "chan").seat_of(user).timeouts == 0  # type: ignore[union-attr]
            return
        reply = step(svc, "chan", reply)
    pytest.fail("the late player never came back on turn")


def test_a_restart_loses_no_deadline(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    clock.advance(50)
    fresh = service(store, seed=5, clock=clock)  # the old process is gone
    replies = fresh.fire_due()
    assert [r.game_id for r in replies] == [game.id]


def test_a_deadline_fires_once_across_workers(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    clock.advance(50)
    a = service(store, seed=5, clock=clock)
    b = service(store, seed=6, clock=clock)
    fired = a.fire_due() + b.fire_due()
    assert len(fired) == 1
    assert current(svc, "chan").seats[0].timeouts + current(svc, "chan").seats[1].timeouts == 1


def test_a_move_in_time_cancels_the_deadline(store: Store) -> None:
    clock = Clock()
    svc, _reply = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None
    clock.advance(40)
    svc.roll("chan", user)
    clock.advance(10)  # past the first deadline, not the new one
    assert svc.fire_due() == []


def test_a_deadline_of_a_damaged_game_is_dropped(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    stored = store.load(game.id)
    assert stored is not None and store.save(game.id, b"{broken", stored.rev)
    clock.advance(50)
    assert svc.fire_due() == []
    # not claimed again and again after the lease: it is gone from the schedule
    clock.advance(3600)
    assert store.claim_due(clock.now, 30) == []


class _CrashOnSave:
    """A store whose next save dies after reaching the store (a worker killed mid-press)."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.crash = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def save(self, game_id: str, data: bytes, rev: int, **kw: Any) -> bool:
        done = self.inner.save(game_id, data, rev, **kw)
        if self.crash:
            self.crash = False
            raise SystemExit("worker killed right after its save")
        return done


def test_a_worker_killed_right_after_saving_loses_no_deadline(store: Store) -> None:
    # the deadline is set in the same atomic step as the save: a worker that
    # dies right after it cannot leave a timed turn without its timer
    clock = Clock()
    proxy = _CrashOnSave(store)
    svc, reply = lobby(proxy, seats=2, timer=45, clock=clock)  # type: ignore[arg-type]
    proxy.crash = True
    with pytest.raises(SystemExit):
        svc.press("chan", ANA, buttons(reply)["btn.start"])
    clock.advance(50)
    fresh = service(store, seed=5, clock=clock)
    replies = fresh.fire_due()
    assert len(replies) == 1 and replies[0].lines[0].key == "timer.expired"


# --------------------------------------------------------------------------
# lobbies nobody starts


def test_a_lobby_nobody_starts_closes_and_frees_its_channel(store: Store) -> None:
    clock = Clock()
    svc, reply = lobby(store, seats=2, clock=clock)  # the default: 30 minutes
    game = current(svc, "chan")
    assert game.deadline == clock.now + 30 * 60
    clock.advance(29 * 60)
    assert svc.fire_due() == []
    clock.advance(61)
    [closed] = svc.fire_due()
    assert closed.game_id == game.id and closed.channel == "chan" and closed.finished
    assert closed.lines == [Text("lobby.expired", {"count": 30})]
    assert say(closed.lines[0]) == "Nobody started this game for 30 minutes: it is closed."
    assert closed.buttons == []
    assert svc.fire_due() == []  # closed once
    # its buttons are dead, and the channel takes a new game
    r = svc.press("chan", CID, buttons(reply)["btn.join"])
    assert r.refused and r.lines[0].key == "refuse.game_over"
    assert not svc.new_game("chan", BEN).refused


def test_how_long_a_lobby_waits_is_set_per_service(store: Store) -> None:
    clock = Clock()
    svc = service(store, clock=clock, lobby_minutes=1)
    svc.new_game("one", ANA)
    forever = service(store, clock=clock, lobby_minutes=0)
    forever.new_game("two", ANA)
    clock.advance(24 * 3600)
    [closed] = svc.fire_due()
    assert closed.channel == "one" and closed.lines == [Text("lobby.expired", {"count": 1})]
    assert current(svc, "two").status == "lobby"
    with pytest.raises(ValueError):
        service(store, lobby_minutes=-1)


def test_a_started_game_does_not_expire_as_a_lobby(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=0, clock=clock)
    clock.advance(3600)
    assert svc.fire_due() == []
    assert current(svc, "chan").status == "playing"
