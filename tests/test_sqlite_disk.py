"""SQLite on a full disk, and on files nothing may write, with real games through the
real game service: every press is refused ``refuse.store_down`` and the game stays as
it was, the file stays whole (``PRAGMA integrity_check``), the operator reads one
warning naming the file and the cause, and play resumes by itself, with no restart,
once there is room again (or the files can be written again).

The disks are real (:mod:`tests.helpers.disk`): a small tmpfs filled up where the
tests may mount one, else a limit on the size of the files this process writes; files
made immutable where that is allowed, else no file writable at all."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.service.turns import DEADLINE_LEASE
from bot.store import Shown, SqliteStore, Stored, StoreError, StoreUnavailable
from bot.store.sqlite.store import PURGE_EVERY
from tests.helpers.disk import FullDisk, Unwritable
from tests.helpers.service import Clock, Reply, current, service, started, step
from tests.helpers.stores import FakeClock
from tests.helpers.unprivileged import unprivileged

REFUSED = "refuse.store_down"


@pytest.fixture(params=["tmpfs", "file size limit"])
def disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FullDisk]:
    """A disk to fill: a tmpfs (the file size limit where mounting is not allowed), and
    the file size limit."""
    made = FullDisk(tmp_path / "disk", mount=request.param == "tmpfs")
    try:
        yield made
    finally:
        made.close()


def intact(path: Path) -> None:
    """The database at ``path`` is whole, read by a connection of its own."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        db.close()


def deadline(path: Path, game_id: str) -> float | None:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT due FROM deadlines WHERE game_id = ?", (game_id,)).fetchone()
    finally:
        db.close()
    return None if row is None else float(row[0])


def playing(store: SqliteStore, moves: int = 6, **kw: Any) -> tuple[Any, Reply]:
    """A game of two people in ``chan``, ``moves`` presses into it."""
    svc, reply = started(store, seats=2, **kw)
    for _ in range(moves):
        reply = step(svc, "chan", reply)
        assert not reply.refused, reply.lines
    return svc, reply


def warnings(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(start)]


# -- a full disk --------------------------------------------------------------------


def test_a_full_disk_refuses_every_press_and_play_resumes_when_there_is_room(
    disk: FullDisk, caplog: pytest.LogCaptureFixture
) -> None:
    path = disk.folder / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        svc, reply = playing(store)
        game = current(svc, "chan")
        before = store.load(game.id)
        caplog.set_level(logging.INFO, logger="bot")
        disk.fill()
        try:
            for _ in range(3):  # the same press, again and again: refused, nothing changes
                r = step(svc, "chan", reply)
                assert r.refused and r.lines[0].key == REFUSED, r.lines
                assert store.load(game.id) == before
                assert not svc.svc.store_reachable
            looked = svc.board("chan")  # reading goes on: the board is still shown
            assert not looked.refused and looked.version == game.version
            intact(path)
        finally:
            disk.free()
        svc.svc.outage.settle = 0  # over at the next answer (not 3 s of answers)
        r = step(svc, "chan", reply)  # room again: the same press goes through
        assert not r.refused, r.lines
        after = store.load(game.id)
        assert before is not None and after is not None and after.rev == before.rev + 1
        for _ in range(4):
            r = step(svc, "chan", r)
            assert not r.refused, r.lines
        intact(path)
    said = warnings(caplog, "the game store is unreachable")
    assert len(said) == 1, said  # one warning for the whole outage, not one a press
    assert str(path) in said[0] and "cannot be written" in said[0]
    if disk.how == "tmpfs":
        assert "the disk holding it is full (0 bytes free): free some space" in said[0], said
        assert (
            "free some space there; play then resumes by itself [database or disk is full"
            in said[0]
        )
    else:  # the disk has room; this process may not grow the file
        assert "the bot may not write files bigger than" in said[0], said
    assert "\n" not in said[0]
    assert len(warnings(caplog, "the game store is back after")) == 1


def test_a_full_disk_neither_loses_a_turn_timer_nor_fires_it_twice(disk: FullDisk) -> None:
    path = disk.folder / "games.sqlite3"
    clock = Clock()
    with SqliteStore(str(path)) as store:
        svc, _reply = playing(store, moves=3, timer=45, clock=clock)
        game = current(svc, "chan")
        due = deadline(path, game.id)
        assert due is not None
        clock.advance(50)  # the turn's time is up
        disk.fill()
        try:
            assert svc.fire_due() == []  # the claim is refused: nothing fired, nothing moved
            assert svc.fire_due() == []
            assert deadline(path, game.id) == due
            assert current(svc, "chan").version == game.version
            intact(path)
        finally:
            disk.free()
        fired = svc.fire_due()
        assert [r.lines[0].key for r in fired] == ["timer.expired"]
        assert current(svc, "chan").version > game.version
        assert svc.fire_due() == []  # once
        new_due = deadline(path, game.id)
        assert new_due is not None and new_due > clock.now


class FillsAfterClaim(SqliteStore):
    """A store whose disk fills up right after its next claim of the turn timers: the
    claim is written, the timed-out turn is not."""

    disk: FullDisk | None = None

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        claimed = super().claim_due(now, lease, limit)
        if self.disk is not None:
            self.disk.fill()
            self.disk = None
        return claimed


def test_a_disk_full_between_the_claim_and_the_turn_plays_it_after_the_lease(
    disk: FullDisk,
) -> None:
    path = disk.folder / "games.sqlite3"
    clock = Clock()
    filling = FillsAfterClaim(str(path))
    with filling as store:
        svc, _reply = playing(store, moves=3, timer=45, clock=clock)
        game = current(svc, "chan")
        clock.advance(50)
        filling.disk = disk
        try:
            assert svc.fire_due() == []  # claimed, then the turn could not be saved
            assert current(svc, "chan").version == game.version
            leased = deadline(path, game.id)
            assert leased == clock.now + DEADLINE_LEASE  # kept, for after the lease
            intact(path)
        finally:
            disk.free()
        assert svc.fire_due() == []  # room again, but the lease runs
        clock.advance(DEADLINE_LEASE)
        assert [r.lines[0].key for r in svc.fire_due()] == ["timer.expired"]
        assert svc.fire_due() == []


def rows(path: Path, query: str) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute(query).fetchone()[0])
    finally:
        db.close()


def test_a_full_disk_defers_the_purge_and_it_is_done_when_there_is_room(
    disk: FullDisk,
) -> None:
    path = disk.folder / "games.sqlite3"
    clock = FakeClock(1_000_000.0)
    with SqliteStore(str(path), ttl=60, clock=clock) as store:
        for i in range(40):
            assert store.create(f"old{i}", os.urandom(2000), channel=f"c{i}", due=5.0)
        clock.advance(PURGE_EVERY)  # all expired, and a purge is due
        disk.fill()
        try:
            calls = (
                store.purge,
                lambda: store.claim_due(1.0, 30),
                lambda: store.create("h", b"y", channel="h"),
            )
            for call in calls:  # deleting writes to the log: refused, nothing deleted
                with pytest.raises(StoreUnavailable):
                    call()
            assert rows(path, "SELECT COUNT(*) FROM games") == 40
            intact(path)
        finally:
            disk.free()
        used = os.path.getsize(path) + os.path.getsize(f"{path}-wal")
        assert store.claim_due(1.0, 30) == []  # the purge, done now (it was not counted)
        assert rows(path, "SELECT COUNT(*) FROM games") == 0
        assert rows(path, "SELECT COUNT(*) FROM deadlines") == 0
        assert os.path.getsize(path) + os.path.getsize(f"{path}-wal") < used  # given back
        assert rows(path, "PRAGMA freelist_count") == 0
        assert store.create("h", b"y", channel="h")
        intact(path)


def test_space_freed_is_given_back_later_if_the_disk_is_full_right_after_a_write(
    disk: FullDisk,
) -> None:
    # the vacuum after a purge runs once its write is committed: a full disk there must
    # not turn the write that was done into a failure, nor leave a transaction open
    path = disk.folder / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        for i in range(40):
            assert store.create(f"g{i}", os.urandom(2000), channel=f"c{i}")
        for i in range(30):
            store.discard(f"g{i}", f"c{i}")  # pages freed, not given back (no purge)
        freed = rows(path, "PRAGMA freelist_count")
        assert freed > 0
        disk.fill()
        try:
            store._vacuum_due = True  # as after a purge that freed pages, before its vacuum
            assert store.create("x", b"x", channel="c39") is False  # taken: nothing to write
            assert store.load("g39") is not None  # and the store goes on
            assert rows(path, "PRAGMA freelist_count") == freed  # the vacuum could not run
            intact(path)
        finally:
            disk.free()
        assert store.create("x", b"x", channel="x")
        assert store.purge() == 0  # a purge finds the free pages and gives them back
        assert rows(path, "PRAGMA freelist_count") == 0
        intact(path)


def test_a_store_opened_on_a_full_disk_is_refused_clearly_and_opens_when_there_is_room(
    disk: FullDisk,
) -> None:
    # a restart on a full disk: SQLite makes its -shm and -wal files again when the
    # database is opened, and there is no room for them
    path = disk.folder / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        first, reply = playing(store)
        game_id = current(first, "chan").id
        before = store.load(game_id)
    disk.fill(limit=1)  # without a tmpfs: no file may grow past its first byte
    try:
        with pytest.raises(StoreError) as err:
            SqliteStore(str(path))
        said = str(err.value)
        assert said.startswith(f"cannot open SQLite database {str(path)!r}: "), said
        assert "\n" not in said
        if disk.how == "tmpfs":
            assert "(the disk holding it is full (0 bytes free): free some space" in said
        else:
            assert "(the bot may not write files bigger than 1 byte" in said, said
    finally:
        disk.free()
    with SqliteStore(str(path)) as restarted:
        svc = service(restarted)
        assert restarted.load(game_id) == before  # nothing lost
        assert not step(svc, "chan", reply).refused
        intact(path)


def test_a_transaction_a_failure_left_open_is_rolled_back_by_the_next_call(
    tmp_path: Path,
) -> None:
    # SQLite undoes a failed COMMIT itself on a full disk; were one ever left open,
    # every later write would fail ("cannot start a transaction within a transaction")
    # and its statements would be acknowledged and never committed
    path = tmp_path / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        assert store.create("g", b"x", channel="c")
        store._conn.execute("BEGIN IMMEDIATE")
        store._conn.execute("UPDATE games SET data = x'00'")  # never committed
        assert store.save("g", b"y", 1, due=5.0)
        assert store.save_shown("g", b"n", 0)
        assert not store._conn.in_transaction
    with SqliteStore(str(path)) as reopened:
        assert reopened.load("g") == Stored(b"y", 2, Shown(b"n", 1))
    intact(path)


# -- files nothing may write ---------------------------------------------------------


def test_files_nothing_may_write_refuse_every_press_and_play_resumes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        svc, reply = playing(store)
        game = current(svc, "chan")
        before = store.load(game.id)
        unwritable = Unwritable(path)
        caplog.set_level(logging.INFO, logger="bot")
        unwritable.on()
        try:
            for _ in range(3):
                r = step(svc, "chan", reply)
                assert r.refused and r.lines[0].key == REFUSED, r.lines
                assert store.load(game.id) == before
            assert not svc.board("chan").refused
            intact(path)
        finally:
            unwritable.off()
        svc.svc.outage.settle = 0
        r = step(svc, "chan", reply)
        assert not r.refused, r.lines
        after = store.load(game.id)
        assert before is not None and after is not None and after.rev == before.rev + 1
        intact(path)
    said = warnings(caplog, "the game store is unreachable")
    assert len(said) == 1, said
    assert str(path) in said[0] and "cannot be written" in said[0] and "\n" not in said[0]
    if unwritable.how == "immutable":
        both = f"{str(path)!r} and {str(path) + '-wal'!r} are read-only (or immutable)"
        assert f"{both}: make them writable by the user running the bot" in said[0], said
    else:
        assert "the bot may not write files bigger than 0 bytes" in said[0], said
    assert len(warnings(caplog, "the game store is back after")) == 1


def _modes_under_a_running_store(path: Path) -> str:
    """As an ordinary user: the store's files made read-only while it runs."""
    with SqliteStore(str(path)) as store:
        assert store.create("g", b"x", channel="c")
        for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            name.chmod(0o444)
        saved = store.save("g", b"y", 1, due=5.0) and store.load("g") == Stored(b"y", 2)
    try:
        SqliteStore(str(path)).close()
        reopened = "opened"
    except StoreError as exc:
        reopened = str(exc)
    return f"saved={saved}; {reopened}"


def test_modes_made_read_only_under_a_running_store_stop_only_its_next_start(
    shared_dir: Path,
) -> None:
    # the kernel checks modes when a file is opened: the store, holding its files open,
    # plays on (nothing is lost), and the next start is refused, saying what to fix
    folder = shared_dir / "db"
    folder.mkdir()
    folder.chmod(0o777)
    got = unprivileged(lambda: _modes_under_a_running_store(folder / "games.sqlite3"))
    assert got.startswith("saved=True; cannot open SQLite database"), got
    assert "read-only" in got and "chmod" in got
