"""What the SQLite store needs besides its queries: checking a path before
anything is created, reading a row strictly, turning sqlite3's exceptions
into :class:`StoreError`, and copying a live database (see
:mod:`bot.store.sqlite.store`)."""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sqlite3
import stat
from typing import Any

from bot.store.base import (
    Keep,
    Shown,
    Stored,
    StoreError,
    StoreUnavailable,
    damaged,
    failed,
    unavailable,
)
from bot.store.sqlite import disk

#: seconds a statement waits for another connection's write lock before failing
BUSY_TIMEOUT = 1.5
#: the first bytes of every SQLite database file
HEADER = b"SQLite format 3\x00"
#: the files SQLite keeps beside a database in WAL mode
SIDE_FILES = ("-wal", "-shm", "-journal")
#: the mode of a database file and of a backup this store creates: its owner's alone
#: (SQLite gives the -wal, -shm and -journal files beside it the same mode)
PRIVATE = 0o600

log = logging.getLogger(__name__)


def check_path(path: str) -> bool:
    """Refuse, with a one-line StoreError naming the path and what to fix, a
    database path that cannot work, before anything is created: its folder
    must exist and be writable (SQLite writes its ``-wal`` and ``-shm``
    files there), and the file, if there, must be a readable and writable
    regular file.  Whether the file exists."""
    what = f"cannot open SQLite database {path!r}"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(folder):
        raise StoreError(f"{what}: directory {folder!r} does not exist (create it first)")
    if not os.path.isdir(folder):
        raise StoreError(f"{what}: {folder!r} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(
            f"{what}: directory {folder!r} is not writable (SQLite writes its -wal and "
            "-shm files there); make it writable by the user running the bot"
        )
    if os.path.isdir(path):
        raise StoreError(f"{what}: it is a directory")
    if not os.path.exists(path):
        return False
    if not os.path.isfile(path):
        raise StoreError(f"{what}: it is not a regular file")
    if not os.access(path, os.R_OK | os.W_OK):
        raise StoreError(
            f"{what}: the file is read-only; make it readable and writable by the user "
            "running the bot (chmod u+rw, or chown)"
        )
    if stat.S_IMODE(os.stat(path).st_mode) & 0o077:
        log.warning(
            "SQLite database %r can be read by other users of this host; "
            "it holds people's names and ids (chmod 600 it)",
            path,
        )
    return True


def create_private(path: str) -> None:
    """Create ``path`` as an empty file (an empty database) only its owner may read and
    write, unless it is there already."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE))


def remove_new(path: str) -> None:
    """Remove what a failed first open of ``path`` created."""
    for name in (path, *(path + side for side in SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
            os.remove(name)


def open_failure(path: str, exc: sqlite3.Error) -> StoreError:
    """The one-line StoreError for a database that did not open: a StoreUnavailable if
    only room is missing (a full disk, a size limit reached), which a later start may
    well find."""
    name = getattr(exc, "sqlite_errorname", "")
    room = name.startswith(("SQLITE_FULL", "SQLITE_IOERR")) and (
        disk.full(path) is not None or disk.size_limit(path) is not None
    )
    hint = ""
    if name.startswith("SQLITE_READONLY"):
        hint = (
            " (the file, its -wal or -shm file or its directory is read-only: make them "
            "writable by the user running the bot)"
        )
    elif (why := disk.reason(exc, path)) is not None:  # full, or limited in size
        hint = f" ({why})"
    elif name.startswith(("SQLITE_CANTOPEN", "SQLITE_IOERR")):
        hint = " (check that it and its -wal and -shm files can be created and written)"
    message = f"cannot open SQLite database {path!r}: {exc}{hint}"
    return StoreUnavailable(message) if room else StoreError(message)


def translate(exc: sqlite3.Error, path: str) -> StoreError:
    """The StoreError to raise for ``exc`` from the database at ``path``, counted."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(exc):
        return unavailable(
            f"SQLite database {path!r} stayed locked for {BUSY_TIMEOUT:g} s: {exc}",
            kind="timeout",
        )
    if isinstance(exc, sqlite3.OperationalError):
        # a full disk, a read-only or lost file, an I/O error: nothing was written (the
        # store rolls back), and the same call works once the disk is put right
        what = disk.cause(exc, path)
        if what is not None:
            return unavailable(f"SQLite database {path!r} {what}")
        return unavailable(f"SQLite database {path!r} cannot be used now: {exc}")
    return failed(f"SQLite database {path!r} failed: {exc}")


def settle(conn: sqlite3.Connection) -> None:
    """Roll back the transaction open on ``conn``, if any (what SQLite has not undone
    itself after a failure); a rollback that fails leaves it to the next call."""
    if conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def vacuum(conn: sqlite3.Connection, path: str) -> None:
    """Give the free pages of the database at ``path`` back to the file system (outside
    any transaction: executescript commits), then copy the log into the file and empty
    it; best effort, never raises (a lock, a full disk: the next purge tries again)."""
    try:
        conn.executescript("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
    except sqlite3.Error as exc:
        settle(conn)
        log.info("SQLite database %r: freed space not given back now: %s", path, exc)


def is_number(value: Any) -> bool:
    """Whether a column value is a finite number (SQLite keeps any type in any column)."""
    return type(value) in (int, float) and math.isfinite(value)


def read_row(game_id: str, row: tuple[Any, ...], now: float) -> Stored | None:
    """A game from its columns ``(data, rev, shown, srev, expires)``: None if
    it expired, :class:`DamagedRecord` if the store cannot read it."""
    data, rev, shown, srev, expires = row
    if not is_number(expires):
        raise damaged(game_id, f"its expiry {expires!r} is not a number")
    if expires <= now:
        return None
    if type(rev) is not int or rev < 1:
        raise damaged(game_id, f"its revision {rev!r} is not a number")
    if not isinstance(data, bytes):
        raise damaged(game_id, f"its data is {type(data).__name__}, not bytes")
    if type(srev) is not int or srev < 0:
        raise damaged(game_id, f"the revision of its notes {srev!r} is not a number")
    if shown is not None and not isinstance(shown, bytes):
        raise damaged(game_id, f"its notes are {type(shown).__name__}, not bytes")
    notes = None if not srev else Shown(data=bytes(shown or b""), rev=srev)
    return Stored(data=data, rev=rev, shown=notes)


def set_due(conn: sqlite3.Connection, game_id: str, due: float | Keep | None) -> None:
    """Set the game's deadline to ``due``, remove it (None) or leave it (KEEP)."""
    if due is None:
        conn.execute("DELETE FROM deadlines WHERE game_id = ?", (game_id,))
    elif not isinstance(due, Keep):
        conn.execute(
            "INSERT INTO deadlines (game_id, due) VALUES (?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET due = excluded.due",
            (game_id, float(due)),
        )


def check_backup_target(target: str, source: str) -> None:
    """Refuse a backup target that cannot or must not be written: a missing or
    unwritable directory, a directory, the live database itself, a file that
    is no SQLite database (not overwritten), or a database in use."""
    what = f"cannot back up to {target!r}"
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise StoreError(f"{what}: directory {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(f"{what}: directory {folder!r} is not writable")
    if os.path.isdir(target):
        raise StoreError(f"{what}: it is a directory")
    if not os.path.exists(target):
        return
    if source != ":memory:" and os.path.exists(source) and os.path.samefile(source, target):
        raise StoreError(f"{what}: it is the live database itself")
    try:
        with open(target, "rb") as existing:
            head = existing.read(len(HEADER))
    except OSError as exc:
        raise StoreError(f"{what}: {exc.strerror}") from exc
    if head and head != HEADER:
        raise StoreError(f"{what}: the file exists and is not an SQLite database (not overwritten)")
    if os.path.exists(target + "-wal"):
        raise StoreError(
            f"{what}: {target + '-wal'!r} exists, so the file is open (or was not closed "
            "cleanly); stop what uses it, or back up to another file"
        )


def copy_database(conn: sqlite3.Connection, target: str) -> None:
    """Copy the database of ``conn`` (with SQLite's online backup: a
    consistent copy while others keep writing) to ``target``, through a
    temporary file renamed into place: a single file with no ``-wal``,
    complete or not there, that only its owner may read.  Raises sqlite3.Error
    or OSError."""
    temp = f"{target}.tmp-{os.getpid()}-{os.urandom(4).hex()}"
    try:
        create_private(temp)
        dest = sqlite3.connect(temp, isolation_level=None)
        try:
            conn.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dest.close()
        os.replace(temp, target)
        with contextlib.suppress(FileNotFoundError):
            os.remove(target + "-shm")  # of an earlier copy opened as a store
    finally:
        remove_new(temp)
