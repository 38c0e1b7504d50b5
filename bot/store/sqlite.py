"""The SQLite store: one file on one host, no server.

Safe for several threads of one process (each store holds one connection,
guarded by a lock) and for several processes on the same host (each opens
its own store on the same file: WAL journal, a busy timeout, and
``BEGIN IMMEDIATE`` around every read-modify-write).  The file must be on a
local disk: WAL does not work over a network file system.

Layout (schema version 2, in ``PRAGMA user_version``)::

    games(id PRIMARY KEY, rev, data BLOB, channel UNIQUE NULL, expires,
          shown BLOB NULL, srev DEFAULT 0)
    deadlines(game_id PRIMARY KEY, due)

A channel binding is the ``channel`` column of its game, so it expires and
is renewed with the game; likewise the adapters' notes are the ``shown``
and ``srev`` columns (``srev`` 0: no notes), gone with the row.  A file of
schema version 1 (without those two columns) gets them when it is opened.
``expires`` and the expiry checks use the store's ``clock``; ``due`` is
compared with the ``now`` given to ``claim_due``.  Expired games are
invisible at once and are deleted (with orphaned deadlines) by
:meth:`SqliteStore.purge`, which ``create`` and ``claim_due`` call every
:data:`PURGE_EVERY` seconds.  ``save`` with a deadline or a release is one
transaction; without, one UPDATE.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bot.store.base import DEFAULT_TTL, KEEP, Keep, Shown, Stored, StoreError

#: seconds a statement waits for another connection's write lock before failing
BUSY_TIMEOUT = 15.0
#: seconds between purges of expired games (by the store's clock)
PURGE_EVERY = 600.0

SCHEMA_VERSION = 2
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
"""
#: columns added since schema version 1, added to such a file on opening
_ADDED_COLUMNS = {
    "shown": "ALTER TABLE games ADD COLUMN shown BLOB",
    "srev": "ALTER TABLE games ADD COLUMN srev INTEGER NOT NULL DEFAULT 0",
}
#: the columns ``load`` and ``load_in`` read, for :func:`_stored`
_GAME = "data, rev, shown, srev"


class SqliteStore:
    """Games in an SQLite file (or ``":memory:"``, private to this store)."""

    def __init__(
        self,
        path: str,
        *,
        ttl: float = DEFAULT_TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl must be positive, not {ttl!r}")
        self.path = path
        self.ttl = ttl
        self._clock = clock
        self._lock = threading.RLock()
        self._last_purge = float("-inf")
        self._closed = False
        self._conn = self._open(path)

    # -- opening -----------------------------------------------------------

    def _open(self, path: str) -> sqlite3.Connection:
        if path != ":memory:":
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                raise StoreError(
                    f"cannot open SQLite database {path!r}: directory {parent!r} does not exist"
                )
            if os.path.isdir(path):
                raise StoreError(f"cannot open SQLite database {path!r}: it is a directory")
        try:
            conn = sqlite3.connect(
                path,
                timeout=BUSY_TIMEOUT,
                isolation_level=None,  # autocommit; transactions are explicit
                check_same_thread=False,  # shared by threads under self._lock
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite database {path!r}: {exc}") from exc
        try:
            self._setup(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise StoreError(f"cannot open SQLite database {path!r}: {exc}") from exc
        except StoreError:
            conn.close()
            raise
        return conn

    def _setup(self, conn: sqlite3.Connection) -> None:
        # Reading the header first turns "not a database" into an error here.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"SQLite database {self.path!r} has schema version {version}; "
                f"this ludo-bot knows version {SCHEMA_VERSION} at most (upgrade ludo-bot)"
            )
        if self.path != ":memory:":
            mode = _set_wal(conn)
            if mode.lower() != "wal":
                raise StoreError(
                    f"SQLite database {self.path!r} cannot use WAL journal mode "
                    f"(got {mode!r}); is it on a network file system?"
                )
        conn.execute("PRAGMA synchronous=NORMAL")  # durable enough with WAL, much faster
        if version < SCHEMA_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                # a version 1 file: its games table (kept by CREATE IF NOT
                # EXISTS) lacks the notes columns.  Checked under the write
                # lock, as another process may have just added them.
                have = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
                for column, statement in _ADDED_COLUMNS.items():
                    if column not in have:
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    # -- plumbing ----------------------------------------------------------

    @contextmanager
    def _use(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, with sqlite errors as StoreError."""
        with self._lock:
            if self._closed:
                raise StoreError(f"SQLite store {self.path!r} is closed")
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite database {self.path!r} failed: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """An immediate (write-locked) transaction, committed unless it raises."""
        with self._use() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _maybe_purge(self, conn: sqlite3.Connection, now: float) -> None:
        if now - self._last_purge >= PURGE_EVERY:
            self._purge(conn, now)

    def _purge(self, conn: sqlite3.Connection, now: float) -> int:
        gone = conn.execute("DELETE FROM games WHERE expires <= ?", (now,)).rowcount
        conn.execute("DELETE FROM deadlines WHERE game_id NOT IN (SELECT id FROM games)")
        self._last_purge = now
        return gone

    # -- the Store protocol ------------------------------------------------

    def create(self, game_id: str, data: bytes, *, channel: str, due: float | None = None) -> bool:
        with self._write() as conn:
            now = self._clock()
            self._maybe_purge(conn, now)
            # An expired game holding this id or channel is gone: drop its row
            # (and with it its notes).
            conn.execute(
                "DELETE FROM games WHERE (id = ? OR channel = ?) AND expires <= ?",
                (game_id, channel, now),
            )
            taken = conn.execute(
                "SELECT 1 FROM games WHERE id = ? OR channel = ? LIMIT 1", (game_id, channel)
            ).fetchone()
            if taken is not None:
                return False
            conn.execute(
                "INSERT INTO games (id, rev, data, channel, expires) VALUES (?, 1, ?, ?, ?)",
                (game_id, bytes(data), channel, now + self.ttl),
            )
            _set_due(conn, game_id, due)
            return True

    def load(self, game_id: str) -> Stored | None:
        with self._use() as conn:
            row = conn.execute(
                f"SELECT {_GAME} FROM games WHERE id = ? AND expires > ?",
                (game_id, self._clock()),
            ).fetchone()
        return _stored(row)

    def load_in(self, channel: str) -> Stored | None:
        with self._use() as conn:
            row = conn.execute(
                f"SELECT {_GAME} FROM games WHERE channel = ? AND expires > ?",
                (channel, self._clock()),
            ).fetchone()
        return _stored(row)

    def save(
        self,
        game_id: str,
        data: bytes,
        rev: int,
        *,
        due: float | Keep | None = KEEP,
        release: bool = False,
    ) -> bool:
        if isinstance(due, Keep):  # one statement: atomic on its own
            with self._use() as conn:
                return self._save_game(conn, game_id, data, rev, release)
        with self._write() as conn:
            if not self._save_game(conn, game_id, data, rev, release):
                return False
            _set_due(conn, game_id, due)
            return True

    def _save_game(
        self, conn: sqlite3.Connection, game_id: str, data: bytes, rev: int, release: bool
    ) -> bool:
        """The compare-and-set of ``save``, releasing the channel if asked."""
        now = self._clock()
        cur = conn.execute(
            "UPDATE games SET data = ?, rev = rev + 1, expires = ?,"
            " channel = CASE WHEN ? THEN NULL ELSE channel END"
            " WHERE id = ? AND rev = ? AND expires > ?",
            (bytes(data), now + self.ttl, bool(release), game_id, rev, now),
        )
        return cur.rowcount == 1

    def save_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        with self._use() as conn:
            cur = conn.execute(
                "UPDATE games SET shown = ?, srev = srev + 1"
                " WHERE id = ? AND srev = ? AND expires > ?",
                (bytes(data), game_id, rev, self._clock()),
            )
            return cur.rowcount == 1

    def channel_game(self, channel: str) -> str | None:
        with self._use() as conn:
            row = conn.execute(
                "SELECT id FROM games WHERE channel = ? AND expires > ?",
                (channel, self._clock()),
            ).fetchone()
        return None if row is None else str(row[0])

    def release_channel(self, channel: str, game_id: str) -> None:
        with self._use() as conn:
            conn.execute(
                "UPDATE games SET channel = NULL WHERE id = ? AND channel = ?", (game_id, channel)
            )

    def schedule(self, game_id: str, due: float) -> None:
        with self._use() as conn:
            _set_due(conn, game_id, float(due))

    def unschedule(self, game_id: str) -> None:
        with self._use() as conn:
            _set_due(conn, game_id, None)

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        if limit <= 0:
            return []
        with self._use() as conn:
            # A cheap look without the write lock first: usually nothing is due.
            nothing_due = (
                conn.execute("SELECT 1 FROM deadlines WHERE due <= ? LIMIT 1", (now,)).fetchone()
                is None
            )
            if nothing_due and self._clock() - self._last_purge < PURGE_EVERY:
                return []
        with self._write() as conn:
            clock_now = self._clock()
            self._maybe_purge(conn, clock_now)
            rows = conn.execute(
                "SELECT d.game_id FROM deadlines AS d JOIN games AS g ON g.id = d.game_id"
                " WHERE d.due <= ? AND g.expires > ? ORDER BY d.due, d.game_id LIMIT ?",
                (now, clock_now, limit),
            ).fetchall()
            ids = [str(row[0]) for row in rows]
            conn.executemany(
                "UPDATE deadlines SET due = ? WHERE game_id = ?",
                [(now + lease, game_id) for game_id in ids],
            )
            return ids

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    # -- extras ------------------------------------------------------------

    def purge(self) -> int:
        """Delete expired games and deadlines of games that are gone; the
        number of games deleted.  ``create`` and ``claim_due`` do this every
        :data:`PURGE_EVERY` seconds on their own."""
        with self._write() as conn:
            return self._purge(conn, self._clock())

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r}, ttl={self.ttl!r})"


def _set_due(conn: sqlite3.Connection, game_id: str, due: float | Keep | None) -> None:
    """Set the game's deadline to ``due``, remove it (None) or leave it (KEEP)."""
    if due is None:
        conn.execute("DELETE FROM deadlines WHERE game_id = ?", (game_id,))
    elif not isinstance(due, Keep):
        conn.execute(
            "INSERT INTO deadlines (game_id, due) VALUES (?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET due = excluded.due",
            (game_id, float(due)),
        )


def _stored(row: tuple[bytes, int, bytes | None, int] | None) -> Stored | None:
    """A row of ``SELECT {_GAME}`` as a Stored (None for no row)."""
    if row is None:
        return None
    data, rev, shown, srev = row
    notes = None if not srev else Shown(data=bytes(shown or b""), rev=int(srev))
    return Stored(data=bytes(data), rev=int(rev), shown=notes)


def _set_wal(conn: sqlite3.Connection) -> str:
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
