"""The store contract, run against SQLite and Redis (the ``store`` fixture): create and
load, compare-and-set saves, channels, deadlines and their leases, expiry, the
adapters' notes, ``load_in``, saves that set a deadline or release the channel, and
one button press counted as one read and one write."""

from __future__ import annotations

from pathlib import Path

from bot.store import KEEP, Shown, SqliteStore, Store, Stored
from tests.helpers.counting_store import CountingStore
from tests.helpers.stores import STORE_TTL, FakeClock, StoreFactory

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
