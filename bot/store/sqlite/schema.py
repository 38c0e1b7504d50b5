"""The layout of the SQLite store's file, and opening a file: checked, created for its
owner alone, and made ready for the layout (see :mod:`bot.store.sqlite.store`)."""

from __future__ import annotations

import logging
import sqlite3
import time
from contextlib import suppress

from bot.store.base import StoreError
from bot.store.sqlite import ops
from bot.store.sqlite.ops import BUSY_TIMEOUT

#: an older file (without incremental vacuum) up to this size is switched to it at open
VACUUM_AT_OPEN = 64 * 1024 * 1024
#: the write-ahead log is cut back to this size after a checkpoint
WAL_SIZE_LIMIT = 4 * 1024 * 1024

log = logging.getLogger(__name__)

SCHEMA_VERSION = 3
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id      TEXT PRIMARY KEY,
    rev     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    channel TEXT UNIQUE,
    expires REAL NOT NULL,
    shown   BLOB,
    srev    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_expires ON games (expires);
CREATE TABLE IF NOT EXISTS deadlines (
    game_id TEXT PRIMARY KEY,
    due     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS deadlines_due ON deadlines (due, game_id);
CREATE TABLE IF NOT EXISTS kept (
    key      TEXT PRIMARY KEY,
    chat     TEXT NOT NULL,
    channel  TEXT NOT NULL,
    finished REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS kept_chat ON kept (chat, finished, key);
CREATE TABLE IF NOT EXISTS kept_entries (
    key   TEXT NOT NULL,
    who   TEXT NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (key, who)
);
CREATE INDEX IF NOT EXISTS kept_entries_who ON kept_entries (who);
CREATE TABLE IF NOT EXISTS last_games (
    channel  TEXT PRIMARY KEY,
    finished REAL NOT NULL,
    key      TEXT NOT NULL,
    game     BLOB NOT NULL
);
"""
#: columns added since schema version 1, added to such a file on opening (the
#: tables added since, those of the kept games in version 3, come with _SCHEMA)
_ADDED_COLUMNS = {
    "shown": "ALTER TABLE games ADD COLUMN shown BLOB",
    "srev": "ALTER TABLE games ADD COLUMN srev INTEGER NOT NULL DEFAULT 0",
}


def set_up(conn: sqlite3.Connection, path: str) -> None:
    """Make the database at ``conn`` (opened on ``path``) ready: the schema,
    WAL, incremental vacuum; a rolled-back write proves it writable.  Raises
    StoreError or sqlite3.Error."""
    # Reading the header first turns "not a database" into an error here.
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"SQLite database {path!r} has schema version {version}; "
            f"this ludo-bot knows version {SCHEMA_VERSION} at most (upgrade ludo-bot)"
        )
    if conn.execute("PRAGMA page_count").fetchone()[0] == 0:  # a new file
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    if path != ":memory:":
        mode = set_wal(conn)
        if mode.lower() != "wal":
            raise StoreError(
                f"SQLite database {path!r} cannot use WAL journal mode "
                f"(got {mode!r}); is it on a network file system?"
            )
    conn.execute("PRAGMA synchronous=NORMAL")  # durable enough with WAL, much faster
    conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
    if version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            # an older file gets the tables it lacks above (version 2: those
            # of the kept games); a version 1 file's games table (kept by
            # CREATE IF NOT EXISTS) also lacks the notes columns.  Checked
            # under the write lock, as another process may have just added them.
            have = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
            for column, statement in _ADDED_COLUMNS.items():
                if column not in have:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    else:  # a write that is rolled back: a read-only file fails here, not at the first move
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        finally:
            conn.execute("ROLLBACK")
    _switch_to_incremental_vacuum(conn, path)


def _switch_to_incremental_vacuum(conn: sqlite3.Connection, path: str) -> None:
    """An older file (auto_vacuum off) gets incremental vacuum, with the
    VACUUM that takes, if it is small; if another connection is busy with
    it, the next opening tries again."""
    if path == ":memory:" or conn.execute("PRAGMA auto_vacuum").fetchone()[0] != 0:
        return
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    if pages * conn.execute("PRAGMA page_size").fetchone()[0] > VACUUM_AT_OPEN:
        log.info("SQLite database %r: no incremental vacuum (too big to switch now)", path)
        return
    with suppress(sqlite3.OperationalError):
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        conn.execute("VACUUM")


def set_wal(conn: sqlite3.Connection) -> str:
    """Switch to the WAL journal (a no-op once the file is in WAL mode); the
    journal mode now.  The switch needs a moment alone with the file and does
    not wait for it like other statements, so try again for a while."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def connect(path: str) -> sqlite3.Connection:
    """A connection to the store's file at ``path`` (``":memory:"``: a private database),
    set up (see :func:`set_up`); raises StoreError, a file it created removed again."""
    memory = path == ":memory:"
    existed = memory or ops.check_path(path)
    try:
        if not existed:
            ops.create_private(path)  # its -wal and -shm files get its mode
        conn = sqlite3.connect(
            path,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,  # autocommit; transactions are explicit
            check_same_thread=False,  # shared by the store's threads, under its lock
        )
    except sqlite3.Error as exc:
        raise ops.open_failure(path, exc) from exc
    try:
        set_up(conn, path)
    except (sqlite3.Error, StoreError) as exc:
        conn.close()
        if not existed:
            ops.remove_new(path)
        if isinstance(exc, StoreError):
            raise
        raise ops.open_failure(path, exc) from exc
    return conn
