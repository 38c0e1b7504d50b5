"""The store contract, run against SQLite and Redis (the ``store`` fixture),
plus what only one of them has: bad paths, an unreachable server."""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import socket
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.store import (
    DEFAULT_TTL,
    KEEP,
    RedisStore,
    Shown,
    SqliteStore,
    Store,
    Stored,
    StoreError,
    open_store,
)
from bot.store.buckets import new_game_id
from tests.conftest import STORE_TTL, FakeClock, StoreFactory
from tests.counting_store import CountingStore
from tests.local_redis import redis_binary, start_redis

# -- create and load ----------------------------------------------------------


def test_create_then_load(store: Store) -> None:
    assert store.create("g1", b"state", channel="c1") is True
    assert store.load("g1") == Stored(data=b"state", rev=1)
    assert store.channel_game("c1") == "g1"


def test_unknown_game_and_channel(store: Store) -> None:
    assert store.load("nope") is None
    assert store.channel_game("nowhere") is None
    assert store.save("nope", b"x", 1) is False


def test_create_refused_when_channel_taken(store: Store) -> None:
    assert store.create("g1", b"one", channel="c")
    assert store.create("g2", b"two", channel="c") is False
    assert store.load("g2") is None
    assert store.channel_game("c") == "g1"
    assert store.load("g1") == Stored(b"one", 1)


def test_create_refused_when_id_exists(store: Store) -> None:
    assert store.create("g1", b"one", channel="c1")
    assert store.save("g1", b"one-b", 1)
    assert store.create("g1", b"other", channel="c2") is False
    assert store.load("g1") == Stored(b"one-b", 2)
    assert store.channel_game("c2") is None
    assert store.channel_game("c1") == "g1"


def test_ids_and_channels_with_separators(store: Store) -> None:
    assert store.create("tg:-100123:7", b"a", channel="telegram:-100123")
    assert store.create("dc:1:2", b"b", channel="discord:1:2")
    assert store.channel_game("telegram:-100123") == "tg:-100123:7"
    assert store.channel_game("discord:1:2") == "dc:1:2"
    assert store.channel_game("telegram") is None


# -- save (compare-and-set) -----------------------------------------------------


def test_save_increments_rev(store: Store) -> None:
    store.create("g", b"v1", channel="c")
    assert store.save("g", b"v2", 1) is True
    assert store.load("g") == Stored(b"v2", 2)
    assert store.save("g", b"v3", 2) is True
    assert store.load("g") == Stored(b"v3", 3)


def test_save_with_stale_rev_writes_nothing(store: Store) -> None:
    store.create("g", b"v1", channel="c")
    assert store.save("g", b"mine", 1)
    assert store.save("g", b"theirs", 1) is False  # rev 1 is stale now
    assert store.save("g", b"future", 5) is False
    assert store.save("g", b"past", 0) is False
    assert store.load("g") == Stored(b"mine", 2)


def test_bytes_round_trip_exactly(store: Store) -> None:
    blobs = [
        bytes(range(256)),
        b"\x00\xff\xfe\x80 not utf-8 \xc3\x28",
        b"",
        b"\x00" * 10,
        "ü ♜ 🎲".encode(),
        bytes(range(256)) * 400,  # 100 KiB
    ]
    store.create("g", blobs[0], channel="c")
    loaded = store.load("g")
    assert loaded is not None
    assert loaded.data == blobs[0]
    assert type(loaded.data) is bytes
    rev = 1
    for blob in blobs[1:]:
        assert store.save("g", blob, rev)
        rev += 1
        loaded = store.load("g")
        assert loaded == Stored(blob, rev)
        assert type(loaded.data) is bytes


# -- channels -------------------------------------------------------------------


def test_release_channel(store: Store) -> None:
    store.create("g1", b"x", channel="c")
    store.release_channel("c", "g1")
    assert store.channel_game("c") is None
    assert store.load("g1") == Stored(b"x", 1)  # the game stays
    assert store.create("g2", b"y", channel="c")
    assert store.channel_game("c") == "g2"


def test_active_games_are_the_games_holding_a_channel(store: Store) -> None:
    assert store.active_games() == 0
    for k in range(3):
        assert store.create(f"g{k}", b"x", channel=f"c{k}")
    assert store.active_games() == 3
    store.release_channel("c0", "g0")  # finished: the game stays, its channel is free
    store.discard("g1", "c1")
    assert store.active_games() == 1


def test_release_channel_only_if_still_bound_to_that_game(store: Store) -> None:
    store.create("g1", b"x", channel="c")
    store.release_channel("c", "g1")
    store.create("g2", b"y", channel="c")
    store.release_channel("c", "g1")  # g1 no longer holds c: nothing happens
    assert store.channel_game("c") == "g2"
    store.release_channel("other", "g2")  # not bound at all
    assert store.channel_game("c") == "g2"
    assert store.save("g1", b"x2", 1)  # saving the released game does not take c back
    assert store.channel_game("c") == "g2"


# -- deadlines ------------------------------------------------------------------


def _games(store: Store, *ids: str) -> None:
    for game_id in ids:
        assert store.create(game_id, b"g", channel=f"chan-{game_id}")


def test_claim_due_only_due_ones_in_due_order(store: Store) -> None:
    _games(store, "a", "b", "c", "d")
    t = 1_000_000.0
    store.schedule("a", t + 3)
    store.schedule("b", t + 1)
    store.schedule("c", t + 2)
    store.schedule("d", t + 50)
    assert store.claim_due(t, lease=30) == []
    assert store.claim_due(t + 3, lease=30) == ["b", "c", "a"]


def test_claim_due_includes_deadline_equal_to_now(store: Store) -> None:
    _games(store, "a")
    store.schedule("a", 500.0)
    assert store.claim_due(499.999, lease=10) == []
    assert store.claim_due(500.0, lease=10) == ["a"]


def test_lease_hides_claimed_until_it_runs_out(store: Store) -> None:
    _games(store, "a", "b")
    t = 2_000_000.0
    store.schedule("a", t - 5)
    store.schedule("b", t - 1)
    assert store.claim_due(t, lease=30) == ["a", "b"]
    assert store.claim_due(t, lease=30) == []  # a second worker right after
    assert store.claim_due(t + 29.9, lease=30) == []
    # the claimer died: both come due again after the lease (both at t + 30)
    assert sorted(store.claim_due(t + 30, lease=30)) == ["a", "b"]
    assert store.claim_due(t + 30, lease=30) == []


def test_claim_due_respects_limit(store: Store) -> None:
    ids = [f"g{i:02d}" for i in range(12)]
    _games(store, *ids)
    for i, game_id in enumerate(ids):
        store.schedule(game_id, 100.0 + i)
    assert store.claim_due(200.0, lease=60, limit=5) == ids[:5]
    assert store.claim_due(200.0, lease=60, limit=5) == ids[5:10]
    assert store.claim_due(200.0, lease=60, limit=5) == ids[10:]
    assert store.claim_due(200.0, lease=60, limit=5) == []
    assert store.claim_due(10_000.0, lease=60, limit=0) == []


def test_schedule_moves_and_unschedule_removes(store: Store) -> None:
    _games(store, "a", "b")
    store.schedule("a", 100.0)
    store.schedule("b", 100.0)
    store.schedule("a", 300.0)  # moved later
    store.unschedule("b")
    store.unschedule("b")  # twice is fine
    store.unschedule("never-scheduled")
    assert store.claim_due(200.0, lease=10) == []
    assert store.claim_due(300.0, lease=10) == ["a"]
    store.unschedule("a")  # the claimer is done with it
    assert store.claim_due(1e9, lease=10) == []


def test_deadlines_of_games_that_are_gone_are_never_claimed(store: Store, clock: FakeClock) -> None:
    for i in range(5):
        store.schedule(f"ghost{i}", 10.0 + i)  # never created
    store.create("expired", b"x", channel="c0")
    store.schedule("expired", 16.0)
    clock.advance(STORE_TTL + 1)
    _games(store, "a", "b", "c")
    store.schedule("a", 20.0)
    store.schedule("b", 21.0)
    store.schedule("c", 22.0)
    assert store.claim_due(100.0, lease=5, limit=2) == ["a", "b"]
    assert store.claim_due(100.0, lease=5, limit=2) == ["c"]
    assert store.claim_due(1000.0, lease=5, limit=10) == ["a", "b", "c"]


def test_claimed_game_can_be_rescheduled(store: Store) -> None:
    _games(store, "a")
    store.schedule("a", 100.0)
    assert store.claim_due(100.0, lease=30) == ["a"]
    store.schedule("a", 110.0)  # the claimer sets the next deadline
    assert store.claim_due(109.0, lease=30) == []
    assert store.claim_due(110.0, lease=30) == ["a"]


# -- expiry ---------------------------------------------------------------------


def test_game_expires_after_ttl_without_save(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    store.schedule("g", clock.now + 10)
    clock.advance(STORE_TTL - 1)
    assert store.load("g") == Stored(b"x", 1)
    assert store.channel_game("c") == "g"
    clock.advance(2)
    assert store.load("g") is None
    assert store.channel_game("c") is None
    assert store.save("g", b"late", 1) is False
    assert store.claim_due(clock.now, lease=30) == []  # its deadline went with it
    # the channel and the id are free again, with no trace of the old game
    assert store.create("g2", b"new", channel="c")
    assert store.channel_game("c") == "g2"
    assert store.create("g", b"again", channel="c3")
    assert store.load("g") == Stored(b"again", 1)
    assert store.claim_due(clock.now + 100, lease=30) == []


def test_save_renews_expiry_of_game_and_channel(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    clock.advance(STORE_TTL * 0.75)
    assert store.save("g", b"y", 1)
    clock.advance(STORE_TTL * 0.75)  # 1.5 ttl after create, 0.75 after the save
    assert store.load("g") == Stored(b"y", 2)
    assert store.channel_game("c") == "g"
    assert store.create("other", b"z", channel="c") is False
    clock.advance(STORE_TTL * 0.3)
    assert store.load("g") is None
    assert store.channel_game("c") is None


def test_load_does_not_renew(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    clock.advance(STORE_TTL * 0.6)
    assert store.load("g") is not None
    assert store.channel_game("c") == "g"
    clock.advance(STORE_TTL * 0.6)
    assert store.load("g") is None


def test_expired_binding_of_recreated_game_is_not_revived(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="old")
    clock.advance(STORE_TTL + 1)
    assert store.create("g", b"y", channel="new")
    assert store.channel_game("old") is None
    assert store.channel_game("new") == "g"
    assert store.create("h", b"z", channel="old")


def test_sqlite_purge_deletes_expired_rows(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "purge.sqlite3"
    with SqliteStore(str(path), ttl=100, clock=clock) as s:
        s.create("old", b"x", channel="c1")
        s.schedule("old", clock.now)
        clock.advance(60)
        s.create("young", b"y", channel="c2")
        s.schedule("young", clock.now)
        clock.advance(50)
        assert s.purge() == 1
        assert s.purge() == 0
        assert s.load("young") == Stored(b"y", 1)
        raw = s._conn
        assert [r[0] for r in raw.execute("SELECT id FROM games")] == ["young"]
        assert [r[0] for r in raw.execute("SELECT game_id FROM deadlines")] == ["young"]


def test_sqlite_purges_on_its_own(tmp_path: Path, clock: FakeClock) -> None:
    with SqliteStore(str(tmp_path / "auto.sqlite3"), ttl=100, clock=clock) as s:
        s.create("old", b"x", channel="c1")
        clock.advance(10_000)
        s.claim_due(clock.now, lease=10)
        assert s._conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0


# -- the adapters' notes (what the chat shows) ---------------------------------


def test_load_brings_the_notes_once_there_are_some(store: Store) -> None:
    assert store.create("g", b"state", channel="c")
    loaded = store.load("g")
    assert loaded == Stored(b"state", 1)
    assert loaded is not None and loaded.shown is None
    assert store.save_shown("g", b"msg 42", 0) is True
    assert store.load("g") == Stored(b"state", 1, Shown(b"msg 42", 1))
    assert store.load_in("c") == Stored(b"state", 1, Shown(b"msg 42", 1))


def test_save_shown_is_a_compare_and_set_on_its_own_rev(store: Store) -> None:
    store.create("g", b"v1", channel="c")
    assert store.save_shown("g", b"first", 1) is False  # there are no notes yet
    assert store.load("g") == Stored(b"v1", 1)
    assert store.save_shown("g", b"first", 0) is True
    assert store.save_shown("g", b"late", 0) is False  # rev 0 is stale now
    assert store.save_shown("g", b"future", 7) is False
    assert store.load("g") == Stored(b"v1", 1, Shown(b"first", 1))
    assert store.save_shown("g", b"second", 1) is True
    assert store.save_shown("g", b"again", 1) is False
    # the game's data and rev are untouched by all of this
    assert store.load("g") == Stored(b"v1", 1, Shown(b"second", 2))
    assert store.save("g", b"v2", 1)  # the game's CAS still expects rev 1
    assert store.save("g", b"v3", 2)


def test_saving_the_game_leaves_the_notes_alone(store: Store) -> None:
    store.create("g", b"v1", channel="c")
    assert store.save_shown("g", b"notes", 0)
    assert store.save("g", b"v2", 1)
    assert store.save("g", b"v3", 2, due=123.0)
    assert store.save("g", b"v4", 3, due=None, release=True)
    assert store.load("g") == Stored(b"v4", 4, Shown(b"notes", 1))
    assert store.save_shown("g", b"notes 2", 1)  # and their rev goes on from there
    assert store.load("g") == Stored(b"v4", 4, Shown(b"notes 2", 2))


def test_notes_bytes_round_trip_exactly(store: Store) -> None:
    store.create("g", b"x", channel="c")
    blobs = [b"", bytes(range(256)), b"\x00\xff not utf-8 \xc3\x28", bytes(range(256)) * 40]
    for rev, blob in enumerate(blobs):
        assert store.save_shown("g", blob, rev)
        loaded = store.load("g")
        assert loaded is not None and loaded.shown == Shown(blob, rev + 1)
        assert type(loaded.shown.data) is bytes


def test_save_shown_on_a_missing_game_writes_nothing(store: Store) -> None:
    assert store.save_shown("nope", b"notes", 0) is False
    assert store.load("nope") is None
    assert store.create("nope", b"x", channel="c")  # no trace of the refused notes
    assert store.load("nope") == Stored(b"x", 1)


def test_notes_expire_with_the_game(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    assert store.save_shown("g", b"old notes", 0)
    clock.advance(STORE_TTL + 1)
    assert store.save_shown("g", b"late", 1) is False
    assert store.save_shown("g", b"late", 0) is False
    assert store.load("g") is None
    # the id again, for a new game: it starts without the old game's notes
    assert store.create("g", b"new", channel="c2")
    assert store.load("g") == Stored(b"new", 1)
    assert store.load_in("c2") == Stored(b"new", 1)
    assert store.save_shown("g", b"new notes", 1) is False
    assert store.save_shown("g", b"new notes", 0) is True
    assert store.load("g") == Stored(b"new", 1, Shown(b"new notes", 1))


def test_save_shown_does_not_renew_the_game(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    clock.advance(STORE_TTL * 0.6)
    assert store.save_shown("g", b"notes", 0)
    clock.advance(STORE_TTL * 0.6)  # 1.2 ttl after the last save of the game
    assert store.load("g") is None
    assert store.load_in("c") is None
    assert store.channel_game("c") is None


def test_save_shown_after_the_game_released_its_channel(store: Store) -> None:
    # the chat is told the game is over after the save that ended it
    store.create("g", b"x", channel="c")
    assert store.save("g", b"over", 1, release=True)
    assert store.save_shown("g", b"final board", 0)
    assert store.load("g") == Stored(b"over", 2, Shown(b"final board", 1))
    assert store.channel_game("c") is None


# -- load_in ---------------------------------------------------------------------


def test_load_in_finds_the_game_bound_to_the_channel(store: Store) -> None:
    assert store.load_in("c") is None
    store.create("g1", b"one", channel="c")
    store.create("g2", b"two", channel="d")
    assert store.load_in("c") == Stored(b"one", 1)
    assert store.save("g1", b"one-b", 1)
    assert store.save_shown("g1", b"n", 0)
    assert store.load_in("c") == Stored(b"one-b", 2, Shown(b"n", 1))
    assert store.load_in("d") == Stored(b"two", 1)
    assert store.load_in("e") is None
    assert store.load_in("g1") is None  # an id is not a channel


def test_load_in_after_release(store: Store) -> None:
    store.create("g1", b"one", channel="c")
    store.release_channel("c", "g1")
    assert store.load_in("c") is None
    store.create("g2", b"two", channel="c")
    assert store.load_in("c") == Stored(b"two", 1)
    assert store.save("g2", b"two-b", 1, release=True)
    assert store.load_in("c") is None
    assert store.load("g2") == Stored(b"two-b", 2)  # the game stays


def test_load_in_after_expiry(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    clock.advance(STORE_TTL - 1)
    assert store.load_in("c") == Stored(b"x", 1)  # and loading does not renew
    clock.advance(2)
    assert store.load_in("c") is None
    store.create("h", b"y", channel="c")
    assert store.load_in("c") == Stored(b"y", 1)


def test_load_in_ignores_a_stale_binding_of_a_recreated_game(
    store: Store, clock: FakeClock
) -> None:
    store.create("g", b"x", channel="old")
    clock.advance(STORE_TTL + 1)
    assert store.create("g", b"y", channel="new")
    assert store.load_in("old") is None
    assert store.load_in("new") == Stored(b"y", 1)


# -- save with a deadline, save that releases the channel ---------------------------


def test_save_sets_moves_and_removes_the_deadline(store: Store) -> None:
    _games(store, "g")
    assert store.save("g", b"v2", 1, due=100.0)
    assert store.claim_due(99.0, lease=10) == []
    assert store.save("g", b"v3", 2, due=200.0)  # moved
    assert store.claim_due(150.0, lease=10) == []
    assert store.save("g", b"v4", 3, due=None)  # removed
    assert store.claim_due(1e9, lease=10) == []
    assert store.save("g", b"v5", 4, due=300.0)
    assert store.claim_due(300.0, lease=10) == ["g"]
    assert store.load("g") == Stored(b"v5", 5)


def test_save_without_due_leaves_the_deadline_alone(store: Store) -> None:
    _games(store, "a", "b")
    store.schedule("a", 100.0)
    assert store.save("a", b"v2", 1)  # the old call: the deadline stays
    assert store.save("a", b"v3", 2, due=KEEP)
    assert store.save("b", b"v2", 1)  # and none appears
    assert store.claim_due(100.0, lease=10) == ["a"]


def test_failed_save_leaves_the_deadline_alone(store: Store) -> None:
    _games(store, "a", "b")
    store.schedule("a", 100.0)
    assert store.save("a", b"x", 5, due=None) is False  # stale: not unscheduled
    assert store.save("a", b"x", 5, due=500.0) is False  # nor moved
    assert store.save("b", b"x", 0, due=50.0) is False  # nor scheduled
    assert store.save("nope", b"x", 1, due=50.0) is False  # a game that is not there
    assert store.claim_due(100.0, lease=10) == ["a"]
    assert store.load("a") == Stored(b"g", 1)


def test_the_loser_of_a_race_does_not_set_the_deadline(make_store: StoreFactory) -> None:
    one, two = make_store(), make_store()
    _games(one, "g")
    first, second = one.load("g"), two.load("g")
    assert first is not None and second is not None
    assert one.save("g", b"mine", first.rev, due=100.0)
    assert two.save("g", b"theirs", second.rev, due=None) is False
    assert two.save("g", b"theirs", second.rev, due=50.0) is False
    assert one.claim_due(99.0, lease=10) == []
    assert one.claim_due(100.0, lease=10) == ["g"]
    assert two.load("g") == Stored(b"mine", 2)


def test_save_with_release_unbinds_the_channel(store: Store, clock: FakeClock) -> None:
    store.create("g", b"x", channel="c")
    assert store.save("g", b"over", 1, due=None, release=True)
    assert store.channel_game("c") is None
    assert store.load("g") == Stored(b"over", 2)  # the game stays, renewed
    assert store.save("g", b"over-b", 2)  # saving it again does not take c back
    assert store.channel_game("c") is None
    assert store.create("h", b"y", channel="c")
    assert store.channel_game("c") == "h"
    clock.advance(STORE_TTL * 0.9)
    assert store.save("g", b"over-c", 3, release=True)  # h keeps c
    assert store.channel_game("c") == "h"
    clock.advance(STORE_TTL * 0.2)
    assert store.load("g") == Stored(b"over-c", 4)
    assert store.channel_game("c") is None  # h expired; g never took it back


def test_release_only_the_channel_still_bound_to_that_game(store: Store) -> None:
    store.create("g1", b"x", channel="c")
    store.release_channel("c", "g1")
    store.create("g2", b"y", channel="c")
    assert store.save("g1", b"x2", 1, release=True)  # g1 no longer holds c
    assert store.channel_game("c") == "g2"
    assert store.load_in("c") == Stored(b"y", 1)


def test_failed_save_does_not_release(store: Store) -> None:
    store.create("g", b"x", channel="c")
    assert store.save("g", b"over", 7, release=True) is False
    assert store.save("g", b"over", 0, release=True) is False
    assert store.channel_game("c") == "g"
    assert store.load_in("c") == Stored(b"x", 1)
    assert store.create("h", b"y", channel="c") is False


def test_save_with_release_and_due_together(store: Store) -> None:
    _games(store, "g")
    store.schedule("g", 10.0)
    assert store.save("g", b"over", 1, due=None, release=True)
    assert store.claim_due(1e9, lease=10) == []
    assert store.channel_game("chan-g") is None


# -- create with a deadline ----------------------------------------------------------


def test_create_with_due_schedules(store: Store) -> None:
    assert store.create("a", b"x", channel="ca", due=100.0)
    assert store.create("b", b"y", channel="cb")  # none
    assert store.claim_due(99.0, lease=10) == []
    assert store.claim_due(1e9, lease=10) == ["a"]
    assert store.load("a") == Stored(b"x", 1)


def test_refused_create_does_not_schedule(store: Store) -> None:
    assert store.create("a", b"x", channel="c")
    assert store.create("b", b"y", channel="c", due=100.0) is False  # channel taken
    assert store.create("a", b"z", channel="d", due=100.0) is False  # id taken
    assert store.claim_due(1e9, lease=10) == []


def test_create_with_due_on_a_reused_id(store: Store, clock: FakeClock) -> None:
    assert store.create("g", b"x", channel="c", due=50.0)
    clock.advance(STORE_TTL + 1)
    assert store.create("g", b"y", channel="c", due=200.0)  # the old deadline is gone
    assert store.claim_due(100.0, lease=10) == []
    assert store.claim_due(200.0, lease=10) == ["g"]
    clock.advance(STORE_TTL + 1)
    assert store.create("g", b"z", channel="c")  # without one: none is left over
    assert store.claim_due(1e9, lease=10) == []


# -- one button press, counted -----------------------------------------------------


def test_a_press_is_one_read_and_one_write(store: Store) -> None:
    counting = CountingStore(store)
    assert counting.create("g", b"v1", channel="c", due=100.0)
    counting.reset()
    got = counting.load_in("c")
    assert got is not None
    assert counting.save("g", b"v2", got.rev, due=200.0)
    assert counting.save_shown("g", b"board", 0)
    assert counting.calls == {"load_in": 1, "save": 1, "save_shown": 1}
    assert counting.claim_due(1e9, lease=10) == ["g"]
    counting.unschedule("g")
    counting.schedule("g", 1.0)
    assert counting.channel_game("c") == "g"
    counting.release_channel("c", "g")
    assert counting.load("g") == Stored(b"v2", 2, Shown(b"board", 1))
    assert counting.calls["load"] == 1 and counting.calls["claim_due"] == 1
    counting.reset()
    assert not counting.calls


# -- several threads and processes ------------------------------------------------


def _increment(s: Store, game_id: str, times: int, think: float = 0.0002) -> int:
    """Add 1 to the counter game ``times`` times by load + CAS; the retries.

    ``think`` seconds between load and save (as the service computes the
    move) widen the window in which another writer gets in between."""
    retries = 0
    for _ in range(times):
        while True:
            cur = s.load(game_id)
            assert cur is not None
            time.sleep(think)
            if s.save(game_id, str(int(cur.data) + 1).encode(), cur.rev):
                break
            retries += 1
    return retries


def _run_threads(stores: list[Store], game_id: str, times: int) -> None:
    errors: list[BaseException] = []

    def work(s: Store) -> None:
        try:
            _increment(s, game_id, times)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors


def test_threads_cas_increment_exactly(make_store: StoreFactory) -> None:
    # SQLite: one store per thread on the same file, as separate processes would;
    # Redis: likewise one client per thread.
    first = make_store(clock=time.time)
    assert first.create("counter", b"0", channel="c")
    stores = [first] + [make_store(clock=time.time) for _ in range(7)]
    _run_threads(stores, "counter", 50)
    assert first.load("counter") == Stored(b"400", 401)


def test_threads_share_one_store(make_store: StoreFactory) -> None:
    s = make_store(clock=time.time)
    assert s.create("counter", b"0", channel="c")
    _run_threads([s] * 8, "counter", 25)
    assert s.load("counter") == Stored(b"200", 201)


def test_memory_sqlite_store(tmp_path: Path) -> None:
    with SqliteStore(":memory:") as s:
        assert s.create("counter", b"0", channel="c")
        _run_threads([s] * 4, "counter", 25)
        assert s.load("counter") == Stored(b"100", 101)
        assert s.channel_game("c") == "counter"
    with SqliteStore(":memory:") as other:  # private to each store
        assert other.load("counter") is None
    assert not list(tmp_path.iterdir())


def _open(kind: str, target: str, prefix: str) -> Store:
    if kind == "sqlite":
        return SqliteStore(target)
    return RedisStore(target, prefix=prefix)


def _wait_until(start_at: float) -> None:
    time.sleep(max(0.0, start_at - time.time()))


def _proc_increment(kind: str, target: str, prefix: str, start_at: float, times: int) -> int:
    s = _open(kind, target, prefix)
    try:
        _wait_until(start_at)
        return _increment(s, "counter", times)
    finally:
        s.close()


def _proc_claim(kind: str, target: str, prefix: str, start_at: float, now: float) -> list[str]:
    s = _open(kind, target, prefix)
    try:
        _wait_until(start_at)
        claimed: list[str] = []
        while batch := s.claim_due(now, lease=3600, limit=2):
            claimed += batch
            time.sleep(0.005)  # handling them: gives the other process its turns
        return claimed
    finally:
        s.close()


@pytest.fixture(scope="module")
def pool() -> Iterator[multiprocessing.pool.Pool]:
    """Two worker processes (spawned: nothing inherited), kept for the module."""
    with multiprocessing.get_context("spawn").Pool(2) as p:
        p.map(time.sleep, [0, 0])  # both started and importable
        yield p


def _both(pool: multiprocessing.pool.Pool, fn: Callable[..., Any], *args: object) -> list[Any]:
    start_at = time.time() + 0.3  # both begin together, not one after the other
    results = [pool.apply_async(fn, (*args[:3], start_at, *args[3:])) for _ in range(2)]
    return [r.get(timeout=60) for r in results]


def test_two_processes_cas_increment_exactly(
    make_store: StoreFactory, pool: multiprocessing.pool.Pool
) -> None:
    s = make_store(clock=time.time)
    assert s.create("counter", b"0", channel="c")
    _both(pool, _proc_increment, make_store.kind, make_store.target, make_store.prefix, 150)
    assert s.load("counter") == Stored(b"300", 301)


def test_two_processes_never_claim_the_same_game(
    make_store: StoreFactory, pool: multiprocessing.pool.Pool
) -> None:
    s = make_store(clock=time.time)
    ids = [f"g{i:03d}" for i in range(120)]
    for game_id in ids:
        assert s.create(game_id, b"x", channel=f"c{game_id}")
        s.schedule(game_id, 1000.0)
    now = 2000.0
    a, b = _both(pool, _proc_claim, make_store.kind, make_store.target, make_store.prefix, now)
    assert a, "the first process claimed nothing: the test did not overlap them"
    assert b, "the second process claimed nothing: the test did not overlap them"
    assert not set(a) & set(b)
    assert sorted(a + b) == ids
    assert len(a) + len(b) == len(ids)
    assert s.claim_due(now, lease=10) == []


# -- Redis only: a script sent again after a lost reply ---------------------------


@pytest.fixture
def redis_store(redis_url: str) -> Iterator[RedisStore]:
    factory = StoreFactory("redis", redis_url, f"test-{uuid.uuid4().hex[:12]}:", time.time)
    try:
        yield factory()
    finally:
        factory.close_all()


def test_redis_create_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    assert redis_store._create_once("g", b"x", "c", "token-1") is True
    assert redis_store._create_once("g", b"x", "c", "token-1") is True  # the retry
    assert redis_store._create_once("g", b"x", "c", "token-2") is False  # someone else
    assert redis_store.load("g") == Stored(b"x", 1)


def test_redis_save_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    assert redis_store.create("g", b"v1", channel="c")
    assert redis_store._save_once("g", b"v2", 1, "token-a") is True
    assert redis_store._save_once("g", b"v2", 1, "token-a") is True  # the retry
    assert redis_store.load("g") == Stored(b"v2", 2)
    assert redis_store._save_once("g", b"v2-other", 1, "token-b") is False  # stale
    assert redis_store._save_once("g", b"v3", 2, "token-c") is True
    assert redis_store._save_once("g", b"v2", 1, "token-a") is False  # no longer its write
    assert redis_store.load("g") == Stored(b"v3", 3)


def test_redis_save_with_due_and_release_sent_twice_is_done_once(
    redis_store: RedisStore,
) -> None:
    assert redis_store.create("g", b"v1", channel="c")
    assert redis_store._save_once("g", b"v2", 1, "token-a", due=100.0) is True
    redis_store.unschedule("g")  # as a claimer might, meanwhile
    assert redis_store._save_once("g", b"v2", 1, "token-a", due=100.0) is True  # the retry
    assert redis_store.claim_due(1e9, lease=10) == []  # was done once, not again
    assert redis_store._save_once("g", b"v3", 2, "token-b", release=True) is True
    assert redis_store.create("h", b"y", channel="c")
    assert redis_store._save_once("g", b"v3", 2, "token-b", release=True) is True
    assert redis_store.channel_game("c") == "h"  # not released a second time
    assert redis_store.load("g") == Stored(b"v3", 3)


def test_redis_save_shown_sent_twice_is_done_once(redis_store: RedisStore) -> None:
    assert redis_store.create("g", b"v1", channel="c")
    assert redis_store._save_shown_once("g", b"n1", 0, "token-a") is True
    assert redis_store._save_shown_once("g", b"n1", 0, "token-a") is True  # the retry
    assert redis_store.load("g") == Stored(b"v1", 1, Shown(b"n1", 1))
    assert redis_store._save_shown_once("g", b"other", 0, "token-b") is False  # stale
    assert redis_store._save_shown_once("g", b"n2", 1, "token-c") is True
    assert redis_store._save_shown_once("g", b"n1", 0, "token-a") is False  # no longer its write
    assert redis_store.load("g") == Stored(b"v1", 1, Shown(b"n2", 2))


def test_redis_one_round_trip_each(
    redis_store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = redis_store._client
    sent: list[str] = []
    real: Callable[..., Any] = client.execute_command

    def counted(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]))
        return real(*args, **options)

    def press(game_id: str, channel: str) -> list[Callable[[], object]]:
        return [
            lambda: redis_store.load(game_id),
            lambda: redis_store.load_in(channel),
            lambda: redis_store.save(game_id, b"v2", 1, due=20.0),
            lambda: redis_store.save_shown(game_id, b"n", 0),
            lambda: redis_store.save(game_id, b"v3", 2, due=None, release=True),
        ]

    assert redis_store.create("g", b"v1", channel="c", due=10.0)
    for call in press("g", "c"):  # once first, so that every script is loaded on the server
        call()
    assert redis_store.create("h", b"v1", channel="d", due=10.0)
    monkeypatch.setattr(client, "execute_command", counted)
    for call in press("h", "d"):
        sent.clear()
        call()
        assert len(sent) == 1, sent
    assert redis_store.load("h") == Stored(b"v3", 3, Shown(b"n", 1))


def test_redis_key_layout(redis_store: RedisStore, redis_url: str) -> None:
    # a game's keys: the prefix, then the bucket of its channel as a hash tag (one
    # Redis Cluster slot per bucket); the game id falls in that bucket too
    tag = redis_store.prefix.rstrip(":")
    assert redis_store.base == f"{redis_store.prefix}{{{tag}}}:"
    g = new_game_id("chat")
    p = f"{redis_store.prefix}{{{tag}.{zlib.crc32(b'chat') % 1024}}}:"
    assert redis_store.bucket_base("chat") == redis_store.bucket_base(g) == p
    redis_store.create(g, b"\x00data", channel="chat")
    redis_store.schedule(g, 123.5)
    raw = redis.Redis.from_url(redis_url)
    try:
        game = raw.hgetall(f"{p}game:{g}")
        assert game[b"rev"] == b"1"
        assert game[b"data"] == b"\x00data"
        assert game[b"channel"] == b"chat"
        assert raw.get(f"{p}chan:chat") == g.encode()
        assert raw.zscore(f"{p}due", g) == 123.5
        assert 0 < raw.ttl(f"{p}game:{g}") <= STORE_TTL
        assert 0 < raw.ttl(f"{p}chan:chat") <= STORE_TTL
        raw.expire(f"{p}game:{g}", 100)  # as if much time had passed
        raw.expire(f"{p}chan:chat", 100)
        assert redis_store.save(g, b"again", 1)
        assert raw.ttl(f"{p}game:{g}") > 100  # renewed
        assert raw.ttl(f"{p}chan:chat") > 100
        assert b"shown" not in raw.hgetall(f"{p}game:{g}")  # no notes yet
        raw.expire(f"{p}game:{g}", 100)
        assert redis_store.save_shown(g, b"\x00notes", 0)
        game = raw.hgetall(f"{p}game:{g}")
        assert game[b"shown"] == b"\x00notes"
        assert game[b"srev"] == b"1"
        assert game[b"rev"] == b"2"
        assert 0 < raw.ttl(f"{p}game:{g}") <= 100  # the notes do not renew the game
        assert redis_store.save(g, b"done", 2, due=None, release=True)
        assert raw.zscore(f"{p}due", g) is None
        assert raw.get(f"{p}chan:chat") is None
        assert raw.hget(f"{p}game:{g}", "shown") == b"\x00notes"
    finally:
        raw.close()


# -- errors an operator sees -----------------------------------------------------


def test_sqlite_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir" / "games.sqlite3"
    with pytest.raises(StoreError) as err:
        SqliteStore(str(path))
    message = str(err.value)
    assert str(path) in message
    assert "does not exist" in message
    assert not (tmp_path / "no").exists()


def test_sqlite_path_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        SqliteStore(str(tmp_path))


def test_sqlite_file_that_is_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    junk = b"these are my notes, not a database\n" * 200
    path.write_bytes(junk)
    with pytest.raises(StoreError) as err:
        SqliteStore(str(path))
    assert str(path) in str(err.value)
    assert "not a database" in str(err.value)
    assert path.read_bytes() == junk  # left alone


def _open_at_once(path: str, n: int) -> list[bool | BaseException]:
    """``n`` threads each open a store on ``path`` and create a game in one
    channel: what each got."""
    results: list[bool | BaseException] = []

    def open_and_create(i: int) -> None:
        try:
            with SqliteStore(path) as s:
                results.append(s.create(f"g{i}", b"x", channel="same"))
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=open_and_create, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_sqlite_many_stores_open_a_new_file_at_once(tmp_path: Path) -> None:
    for round_ in range(5):
        results = _open_at_once(str(tmp_path / f"new-{round_}.sqlite3"), 8)
        assert sorted(results, key=repr) == [False] * 7 + [True]  # one channel, one winner


def test_sqlite_reopen_keeps_games(tmp_path: Path) -> None:
    path = str(tmp_path / "keep.sqlite3")
    with SqliteStore(path) as s:
        s.create("g", b"\x00\x01", channel="c")
        s.save("g", b"\x00\x02", 1)
        s.schedule("g", 5.0)
    with SqliteStore(path) as s:
        assert s.load("g") == Stored(b"\x00\x02", 2)
        assert s.channel_game("c") == "g"
        assert s.claim_due(5.0, lease=1) == ["g"]


def test_sqlite_one_query_each(tmp_path: Path) -> None:
    with SqliteStore(str(tmp_path / "count.sqlite3")) as s:
        assert s.create("g", b"v1", channel="c")
        assert s.save_shown("g", b"n", 0)
        statements: list[str] = []
        s._conn.set_trace_callback(statements.append)
        assert s.load("g") == Stored(b"v1", 1, Shown(b"n", 1))
        assert s.load_in("c") == Stored(b"v1", 1, Shown(b"n", 1))
        assert s.save("g", b"v2", 1)
        assert s.save_shown("g", b"n2", 1)
        assert len(statements) == 4, statements
        statements.clear()
        assert s.save("g", b"v3", 2, due=5.0, release=True)  # one transaction
        assert statements[0].startswith("BEGIN") and statements[-1] == "COMMIT"
        assert len(statements) == 4, statements


#: the layout of SQLite files written by the ludo-bot before the notes
_V1_SCHEMA = """
CREATE TABLE games (
    id      TEXT PRIMARY KEY,
    rev     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    channel TEXT UNIQUE,
    expires REAL NOT NULL
);
CREATE INDEX games_expires ON games (expires);
CREATE TABLE deadlines (
    game_id TEXT PRIMARY KEY,
    due     REAL NOT NULL
);
CREATE INDEX deadlines_due ON deadlines (due, game_id);
PRAGMA user_version = 1;
"""


def _v1_file(path: Path, expires: float) -> None:
    """A database as the previous version left it: two games, one deadline."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_V1_SCHEMA)
        conn.executemany(
            "INSERT INTO games (id, rev, data, channel, expires) VALUES (?, ?, ?, ?, ?)",
            [("g", 3, b"\x00old", "c", expires), ("h", 1, b"other", None, expires)],
        )
        conn.execute("INSERT INTO deadlines (game_id, due) VALUES ('g', 5.0)")
        conn.commit()
    finally:
        conn.close()


def _columns(path: Path) -> tuple[int, list[str]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return version, [row[1] for row in conn.execute("PRAGMA table_info(games)")]
    finally:
        conn.close()


def test_sqlite_opens_and_upgrades_a_file_of_the_previous_version(
    tmp_path: Path, clock: FakeClock
) -> None:
    path = tmp_path / "v1.sqlite3"
    _v1_file(path, clock.now + 1000)
    with SqliteStore(str(path), ttl=1000, clock=clock) as s:
        assert s.load("g") == Stored(b"\x00old", 3)
        assert s.load_in("c") == Stored(b"\x00old", 3)
        assert s.channel_game("c") == "g"
        assert s.claim_due(5.0, lease=1) == ["g"]
        assert s.save_shown("g", b"notes", 0)
        assert s.save("g", b"new", 3, due=7.0, release=True)
        assert s.load("g") == Stored(b"new", 4, Shown(b"notes", 1))
        assert s.load("h") == Stored(b"other", 1)
        assert s.create("k", b"k", channel="c", due=9.0)
    assert _columns(path) == (
        3,
        ["id", "rev", "data", "channel", "expires", "shown", "srev"],
    )
    with SqliteStore(str(path), ttl=1000, clock=clock) as s:  # and again: nothing to do
        assert s.load("g") == Stored(b"new", 4, Shown(b"notes", 1))
        assert s.claim_due(10.0, lease=1) == ["g", "k"]
    assert _columns(path)[0] == 3


def test_sqlite_many_stores_upgrade_an_old_file_at_once(tmp_path: Path) -> None:
    for round_ in range(3):
        path = tmp_path / f"old-{round_}.sqlite3"
        _v1_file(path, time.time() + 1000)
        results = _open_at_once(str(path), 8)
        assert sorted(results, key=repr) == [False] * 7 + [True]  # one channel, one winner
        with SqliteStore(str(path)) as s:
            assert s.load("g") == Stored(b"\x00old", 3)
            assert s.save_shown("g", b"n", 0)
        assert _columns(path)[0] == 3


def test_sqlite_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(StoreError, match="schema version 99"):
        SqliteStore(str(path))


def test_closed_store_raises_store_error(tmp_path: Path) -> None:
    s = SqliteStore(str(tmp_path / "closed.sqlite3"))
    s.close()
    s.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        s.load("g")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_redis() -> None:
    url = f"redis://127.0.0.1:{_closed_port()}/0"
    started = time.monotonic()
    with pytest.raises(StoreError) as err:
        RedisStore(url)
    message = str(err.value)
    assert message.startswith(f"cannot reach Redis at {url}: ")
    assert "refused" in message.lower()
    assert time.monotonic() - started < 10


def test_unreachable_redis_hides_password() -> None:
    url = f"redis://bot:s3cret@127.0.0.1:{_closed_port()}/0"
    with pytest.raises(StoreError) as err:
        RedisStore(url)
    assert "s3cret" not in str(err.value)
    assert "bot:***@127.0.0.1" in str(err.value)


def test_bad_redis_url() -> None:
    with pytest.raises(StoreError, match="bad Redis URL"):
        RedisStore("http://example.invalid/")


def test_redis_that_goes_away_raises_store_error(tmp_path: Path) -> None:
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/conftest.py)"
    proc, url = start_redis(exe, tmp_path)
    try:
        s = RedisStore(url)
        assert s.create("g", b"x", channel="c")
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    for call in (
        lambda: s.load("g"),
        lambda: s.save("g", b"y", 1),
        lambda: s.claim_due(time.time(), lease=1),
    ):
        with pytest.raises(StoreError) as err:
            call()
        assert str(err.value).startswith(f"cannot reach Redis at {url}: ")
    s.close()


# -- open_store --------------------------------------------------------------------


def test_open_store_without_url_is_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    for url in (None, ""):
        s = open_store(url, str(path), 60.0)
        try:
            assert isinstance(s, SqliteStore)
            assert s.ttl == 60.0
            assert s.create(f"g{url!r}", b"x", channel=f"c{url!r}")
        finally:
            s.close()
    assert path.exists()


def test_open_store_with_url_is_redis(redis_url: str, tmp_path: Path) -> None:
    s = open_store(redis_url, str(tmp_path / "unused.sqlite3"), DEFAULT_TTL)
    try:
        assert isinstance(s, RedisStore)
        assert s.ttl == DEFAULT_TTL
        assert s.load(f"missing-{uuid.uuid4().hex}") is None
    finally:
        s.close()
    assert not (tmp_path / "unused.sqlite3").exists()
