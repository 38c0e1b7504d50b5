"""SQLite for production: an online backup of a live store that plays on,
incremental vacuum (the file shrinks after old games are purged), and files
or folders that cannot be written refused when the store is opened, before
anything is created.

Root ignores file modes, and the tests may run as root: the tests of modes
then open the store in a child process that has become the unprivileged
user ``nobody``, where the modes count, as they do for a bot run as a
service user."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.store import SqliteStore, Stored, StoreError
from tests.helpers.service import ANA, BEN, Reply, current, play_out, service, step
from tests.helpers.stores import FakeClock
from tests.helpers.unprivileged import unprivileged

# -- backup -------------------------------------------------------------------------


def _started(store: SqliteStore, channel: str) -> tuple[object, Reply]:
    svc = service(store, seed=7)
    assert not svc.new_game(channel, ANA, "classic").refused
    assert not svc.join(channel, BEN).refused
    reply = svc.start(channel, ANA)
    assert not reply.refused, reply.lines
    return svc, reply


def test_backup_of_a_live_store_mid_game_plays_on(tmp_path: Path) -> None:
    live = SqliteStore(str(tmp_path / "live.sqlite3"))
    try:
        svc, reply = _started(live, "chan")
        for _ in range(30):
            reply = step(svc, "chan", reply)  # type: ignore[arg-type]
        # a second game keeps being played while the backup runs
        other, other_reply = _started(live, "other")
        stop = threading.Event()
        errors: list[BaseException] = []
        presses = 0

        def keep_playing() -> None:
            nonlocal other_reply, presses
            try:
                while not stop.is_set() and not other_reply.finished:
                    other_reply = step(other, "other", other_reply)  # type: ignore[arg-type]
                    presses += 1
            except BaseException as exc:
                errors.append(exc)

        player = threading.Thread(target=keep_playing)
        player.start()
        try:
            copy = tmp_path / "copies" / "backup.sqlite3"
            copy.parent.mkdir()
            live.backup(str(copy))
        finally:
            stop.set()
            player.join(timeout=60)
        assert not errors, errors
        assert presses > 0
        # one self-contained file: no -wal beside it
        assert sorted(p.name for p in copy.parent.iterdir()) == ["backup.sqlite3"]
        game = current(svc, "chan")  # type: ignore[arg-type]
        with SqliteStore(str(copy)) as restored:
            saved = restored.load(game.id)
            assert saved is not None and saved.rev == game.version
            assert restored.load_in("other") is not None
            again = service(restored, seed=11)
            assert current(again, "chan").version == game.version
            board = again.board("chan")
            assert board.buttons, "the player on turn has buttons in the restored game"
            final = play_out(again, "chan", board)
            assert final.finished
            assert restored.channel_game("chan") is None
        # the live store was not disturbed by any of this
        assert live.load(game.id) == Stored(live.load(game.id).data, game.version)  # type: ignore[union-attr]
        assert live.channel_game("chan") == game.id
    finally:
        live.close()


def test_backup_replaces_an_older_backup(tmp_path: Path) -> None:
    target = tmp_path / "backup.sqlite3"
    with SqliteStore(str(tmp_path / "live.sqlite3")) as live:
        assert live.create("g", b"one", channel="c")
        live.backup(str(target))
        assert live.save("g", b"two", 1)
        live.backup(str(target))
    with SqliteStore(str(target)) as copy:
        assert copy.load("g") == Stored(b"two", 2)


def test_backup_of_a_memory_store(tmp_path: Path) -> None:
    with SqliteStore(":memory:") as live:
        assert live.create("g", b"x", channel="c", due=5.0)
        live.backup(str(tmp_path / "saved.sqlite3"))
    with SqliteStore(str(tmp_path / "saved.sqlite3")) as copy:
        assert copy.load_in("c") == Stored(b"x", 1)
        assert copy.claim_due(5.0, lease=1) == ["g"]


def test_backup_refuses_targets_it_must_not_write(tmp_path: Path) -> None:
    live_path = tmp_path / "live.sqlite3"
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with SqliteStore(str(live_path)) as live, SqliteStore(str(tmp_path / "open.sqlite3")):
        assert live.create("g", b"x", channel="c")
        cases = {
            str(tmp_path / "no" / "dir" / "b.sqlite3"): "does not exist",
            str(notes): "is not an SQLite database",
            str(live_path): "live database itself",
            str(tmp_path / "open.sqlite3"): "is open",
            str(tmp_path): "is a directory",
        }
        for target, why in cases.items():
            with pytest.raises(StoreError) as err:
                live.backup(target)
            message = str(err.value)
            assert why in message and os.path.abspath(target) in message
            assert "\n" not in message
    assert notes.read_text() == "my notes\n"
    assert not (tmp_path / "no").exists()
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


# -- incremental vacuum ---------------------------------------------------------------


def _sizes(path: Path) -> tuple[int, int]:
    wal = Path(f"{path}-wal")
    return path.stat().st_size, wal.stat().st_size if wal.exists() else 0


def test_the_file_shrinks_after_old_games_are_purged(tmp_path: Path, clock: FakeClock) -> None:
    path = tmp_path / "shrink.sqlite3"
    with SqliteStore(str(path), ttl=1000, clock=clock) as s:
        assert s._conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
        blob = os.urandom(20_000)
        for i in range(500):  # about 10 MB of games
            assert s.create(f"old{i}", blob, channel=f"c{i}", due=clock.now + 10)
        s._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        full_db, _ = _sizes(path)
        assert full_db > 9_000_000
        clock.advance(500)
        assert s.create("young", b"still here", channel="young")
        clock.advance(600)  # the 500 old games expired, the young one did not
        assert s.purge() == 500
        db, wal = _sizes(path)
        assert db < full_db // 10, (db, full_db)
        assert db + wal < full_db // 2, (db, wal, full_db)
        assert s.load("young") == Stored(b"still here", 1)
    with SqliteStore(str(path), ttl=1000, clock=clock) as s:
        assert s.load("young") == Stored(b"still here", 1)
        assert s._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_an_older_file_is_switched_to_incremental_vacuum(tmp_path: Path) -> None:
    path = tmp_path / "older.sqlite3"
    with SqliteStore(str(path)) as s:
        assert s.create("g", b"x", channel="c")
    conn = sqlite3.connect(path)  # as files made before incremental vacuum were
    conn.execute("PRAGMA auto_vacuum = NONE")
    conn.execute("VACUUM")
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    conn.close()
    with SqliteStore(str(path)) as s:
        assert s._conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
        assert s.load("g") == Stored(b"x", 1)


# -- files and folders that cannot be written ---------------------------------------------


def test_a_parent_that_is_a_file_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    path = plain / "games.sqlite3"
    with pytest.raises(StoreError) as err:
        SqliteStore(str(path))
    assert str(path) in str(err.value) and "is not a directory" in str(err.value)
    assert plain.read_text() == "x"


def test_a_wal_that_cannot_be_made_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    (tmp_path / "games.sqlite3-wal").mkdir()  # SQLite cannot write its log here
    with pytest.raises(StoreError) as err:
        SqliteStore(str(path))
    message = str(err.value)
    assert message.startswith(f"cannot open SQLite database {str(path)!r}: ")
    assert "-wal" in message and "\n" not in message
    assert not path.exists()  # the first open created nothing that stays


def test_an_existing_file_whose_wal_cannot_be_made_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with SqliteStore(str(path)) as s:
        assert s.create("g", b"x", channel="c")
    before = path.read_bytes()
    (tmp_path / "games.sqlite3-wal").mkdir()
    with pytest.raises(StoreError, match="cannot open SQLite database"):
        SqliteStore(str(path))
    assert path.read_bytes() == before
    (tmp_path / "games.sqlite3-wal").rmdir()
    with SqliteStore(str(path)) as s:
        assert s.load("g") == Stored(b"x", 1)


def _try_open(path: Path) -> Callable[[], str]:
    def attempt() -> str:
        with SqliteStore(str(path)) as s:
            s.create("g2", b"x", channel="c2")
        return "opened"

    return attempt


def _a_database(path: Path) -> None:
    with SqliteStore(str(path)) as s:
        assert s.create("g", b"x", channel="c")
    path.chmod(0o666)


def test_a_read_only_file_is_refused_at_open(shared_dir: Path) -> None:
    path = shared_dir / "games.sqlite3"
    _a_database(path)
    assert unprivileged(_try_open(path)) == "opened"  # the control: writable, it opens
    path.chmod(0o444)
    got = unprivileged(_try_open(path))
    assert got.startswith("StoreError: "), got
    assert str(path) in got and "read-only" in got and "chmod" in got
    assert "\n" not in got


def test_a_read_only_file_that_passes_the_checks_fails_its_first_write_at_open(
    shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # where access() says yes but writing fails (an ACL, a file system that
    # lies): the rolled-back write at open catches it, not the first move
    path = shared_dir / "games.sqlite3"
    _a_database(path)
    path.chmod(0o444)
    monkeypatch.setattr("bot.store.sqlite.ops.check_path", lambda p: True)
    got = unprivileged(_try_open(path))
    assert got.startswith("StoreError: cannot open SQLite database"), got
    assert str(path) in got and "readonly" in got and "writable" in got
    assert "\n" not in got


def test_an_unwritable_directory_is_refused_before_anything_is_created(
    shared_dir: Path,
) -> None:
    folder = shared_dir / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    got = unprivileged(_try_open(folder / "games.sqlite3"))
    assert got.startswith("StoreError: "), got
    assert str(folder) in got and "not writable" in got
    assert list(folder.iterdir()) == []
