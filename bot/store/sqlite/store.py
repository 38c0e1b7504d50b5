"""The SQLite store: one file on one host, no server.

Safe for several threads of one process (each store holds one connection,
guarded by a lock) and for several processes on the same host (each opens
its own store on the same file: WAL journal, a busy timeout, and
``BEGIN IMMEDIATE`` around every read-modify-write).  The file must be on a
local disk: WAL does not work over a network file system.

Layout (schema version 3, in ``PRAGMA user_version``)::

    games(id PRIMARY KEY, rev, data BLOB, channel UNIQUE NULL, expires,
          shown BLOB NULL, srev DEFAULT 0)
    deadlines(game_id PRIMARY KEY, due)
    kept, kept_entries, last_games     finished games kept for good, which
                                       never expire (:mod:`bot.store.sqlite.kept`)

A channel binding is the ``channel`` column of its game, so it expires and
is renewed with the game; likewise the adapters' notes are the ``shown``
and ``srev`` columns (``srev`` 0: no notes), gone with the row.  A file of
schema version 1 (without those two columns) gets them when it is opened,
and one of version 1 or 2 the tables of the kept games.
``expires`` and the expiry checks use the store's ``clock`` (a game lives
``ttl`` from its save, or from its deadline if later: :func:`lifetime`);
``due`` is compared with the ``now`` given to ``claim_due``.  Expired games are
invisible at once and are deleted (with orphaned deadlines) by
:meth:`SqliteStore.purge`, which ``create`` and ``claim_due`` call every
:data:`PURGE_EVERY` seconds.  ``save`` with a deadline or a release is one
transaction; without, one UPDATE.

Every statement waits at most :data:`BUSY_TIMEOUT` for another connection's
lock.  New files use ``auto_vacuum=INCREMENTAL`` (an older file is switched with
one VACUUM when it is opened, if small); each purge that deleted games gives the
freed pages back.  A call that fails (the disk full, a file that cannot be
written) writes nothing and leaves no transaction open: the next call works as
soon as the disk allows, with no restart; its StoreUnavailable says why, in the
words of :mod:`bot.store.sqlite.disk`, and so does :meth:`SqliteStore.write_trouble`
until a write works again.  :meth:`SqliteStore.backup` copies the live database.
A row the store cannot read (a revision, expiry or deadline that is not a number,
data not bytes) is a damaged game: see :class:`bot.store.base.DamagedRecord`."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bot.store.base import DEFAULT_TTL, KEEP, Keep, Kept, Stored, StoreError, lifetime
from bot.store.sqlite import disk, due, ops
from bot.store.sqlite import kept as kept_ops
from bot.store.sqlite.ops import BUSY_TIMEOUT, set_due
from bot.store.sqlite.schema import SCHEMA_VERSION, connect

__all__ = ["BUSY_TIMEOUT", "PURGE_EVERY", "SCHEMA_VERSION", "SqliteStore"]

#: seconds between purges of expired games (by the store's clock)
PURGE_EVERY = 600.0


#: the columns ``load`` and ``load_in`` read, for :func:`bot.store.sqlite.ops.read_row`
_GAME = "id, data, rev, shown, srev, expires"
#: a row the store can read (the rules of :func:`bot.store.sqlite.ops.read_row`)
_READABLE = (
    "typeof(rev) = 'integer' AND rev >= 1 AND typeof(data) = 'blob'"
    " AND typeof(srev) = 'integer' AND srev >= 0 AND (shown IS NULL OR typeof(shown) = 'blob')"
    " AND typeof(expires) IN ('integer', 'real') AND expires BETWEEN -1e308 AND 1e308"
)


class SqliteStore:
    """Games in an SQLite file (or ``":memory:"``, private to this store).

    Opening refuses, with a one-line StoreError naming the path and what to fix, a
    folder that does not exist (it is not created), is not a folder or cannot be
    written, a file that is read-only, is no database or has a newer schema; a
    rolled-back write at open proves the file writable (a failed first open leaves
    no file)."""

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
        #: (when, whether pages were freed) of a purge in the open transaction
        self._purged: tuple[float, bool] | None = None
        self._vacuum_due = False
        self._closed = False
        #: the last write failed for its files (True: for a reason the disk named)
        self._unwritable: bool | None = None
        self._conn = connect(path)

    # -- plumbing ----------------------------------------------------------

    @contextmanager
    def _use(self) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, with sqlite errors as StoreError; whatever
        fails, no transaction is left open (so the next call works as soon as the disk
        lets it: a full disk, a file that cannot be written, need no restart)."""
        with self._lock:
            if self._closed:
                raise StoreError(f"SQLite store {self.path!r} is closed")
            conn, changes = self._conn, self._conn.total_changes
            try:
                ops.settle(conn)  # one left open by a failure that could not be undone
                yield conn
            except sqlite3.Error as exc:
                ops.settle(conn)
                if disk.writing(exc):
                    self._unwritable = disk.reason(exc, self.path) is not None
                raise ops.translate(exc, self.path) from exc
            except BaseException:
                ops.settle(conn)
                raise
            if conn.total_changes != changes:  # a write went through
                self._unwritable = None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write-locked transaction, committed unless it raises (else rolled back)."""
        with self._use() as conn:
            conn.execute("BEGIN IMMEDIATE")
            self._purged = None
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                self._purged = None
                ops.settle(conn)
                raise
            self._committed(conn)

    def _committed(self, conn: sqlite3.Connection) -> None:
        """After a commit: a purge in it counts as done, and the pages it freed are
        given back."""
        if self._purged is not None:
            (self._last_purge, freed), self._purged = self._purged, None
            self._vacuum_due = self._vacuum_due or freed
        if self._vacuum_due:
            self._vacuum(conn)

    def _vacuum(self, conn: sqlite3.Connection) -> None:
        """Give the pages freed by a purge back to the file system (best effort, after a
        write that is done and must not be reported failed: see :func:`ops.vacuum`)."""
        self._vacuum_due = False
        if self.path != ":memory:":
            ops.vacuum(conn, self.path)

    def _maybe_purge(self, conn: sqlite3.Connection, now: float) -> None:
        if now - self._last_purge >= PURGE_EVERY:
            self._purge(conn, now)

    def _purge(self, conn: sqlite3.Connection, now: float) -> int:
        """Delete expired games (never one whose deadline is still ahead: see
        :func:`bot.store.sqlite.due.purge`) and orphaned deadlines, in the caller's
        transaction; it counts (``_last_purge``) once that transaction commits."""
        gone, freed = due.purge(conn, now)
        self._purged = (now, freed)
        return gone

    # -- the Store protocol ------------------------------------------------

    def create(self, game_id: str, data: bytes, *, channel: str, due: float | None = None) -> bool:
        with self._write() as conn:
            now = self._clock()
            self._maybe_purge(conn, now)
            # An expired game holding this id or channel is gone: drop its row
            # (and with it its notes).  A damaged one holds them.
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
                (game_id, bytes(data), channel, now + lifetime(self.ttl, now, due)),
            )
            set_due(conn, game_id, due)
            return True

    def load(self, game_id: str) -> Stored | None:
        with self._use() as conn:
            row = conn.execute(f"SELECT {_GAME} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else ops.read_row(str(row[0]), row[1:], self._clock())

    def load_in(self, channel: str) -> Stored | None:
        with self._use() as conn:
            row = conn.execute(
                f"SELECT {_GAME} FROM games WHERE channel = ?", (channel,)
            ).fetchone()
        return None if row is None else ops.read_row(str(row[0]), row[1:], self._clock())

    def save(
        self,
        game_id: str,
        data: bytes,
        rev: int,
        *,
        due: float | Keep | None = KEEP,
        release: bool = False,
    ) -> bool:
        now = self._clock()
        # the compare-and-set; the expiry renewed (:func:`lifetime`; KEEP: never shortened)
        cas = (
            "UPDATE games SET data = ?, rev = rev + 1,"
            " expires = CASE WHEN ? AND expires > ? THEN expires ELSE ? END,"
            " channel = CASE WHEN ? THEN NULL ELSE channel END"
            f" WHERE id = ? AND rev = ? AND expires > ? AND {_READABLE}"
        )
        expires, keep = now + lifetime(self.ttl, now, due), isinstance(due, Keep)
        args = (bytes(data), keep, expires, expires, release, game_id, rev, now)
        if keep:  # one statement: atomic on its own
            with self._use() as conn:
                return bool(conn.execute(cas, args).rowcount == 1)
        with self._write() as conn:
            if conn.execute(cas, args).rowcount != 1:
                return False
            set_due(conn, game_id, due)
            return True

    def save_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        with self._use() as conn:
            cur = conn.execute(
                "UPDATE games SET shown = ?, srev = srev + 1 WHERE id = ? AND srev = ?"
                f" AND expires > ? AND {_READABLE}",
                (bytes(data), game_id, rev, self._clock()),
            )
            return cur.rowcount == 1

    def channel_game(self, channel: str) -> str | None:
        with self._use() as conn:
            row = conn.execute(
                "SELECT id, expires FROM games WHERE channel = ?", (channel,)
            ).fetchone()
        if row is None or (ops.is_number(row[1]) and row[1] <= self._clock()):
            return None
        return str(row[0])  # a damaged game holds its channel until discarded

    def active_games(self) -> int:
        with self._use() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM games WHERE channel IS NOT NULL AND expires > ?",
                (self._clock(),),
            ).fetchone()
        return int(row[0])

    def release_channel(self, channel: str, game_id: str) -> None:
        with self._use() as conn:
            conn.execute(
                "UPDATE games SET channel = NULL WHERE id = ? AND channel = ?", (game_id, channel)
            )

    def discard(self, game_id: str, channel: str) -> None:
        # the channel binding is a column of the game's row: it goes with it
        with self._write() as conn:
            conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
            conn.execute("DELETE FROM deadlines WHERE game_id = ?", (game_id,))

    def schedule(self, game_id: str, due: float) -> None:
        with self._use() as conn:
            set_due(conn, game_id, float(due))

    def unschedule(self, game_id: str) -> None:
        with self._use() as conn:
            set_due(conn, game_id, None)

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        if limit <= 0:
            return []
        with self._use() as conn:
            # A cheap look without the write lock first: usually nothing is due.
            if not due.any_due(conn, now) and self._clock() - self._last_purge < PURGE_EVERY:
                return []
        with self._write() as conn:
            clock_now = self._clock()
            self._maybe_purge(conn, clock_now)
            return due.claim(conn, now, clock_now, lease, limit)

    def keep(self, kept: Kept) -> bool:
        with self._write() as conn:
            return kept_ops.keep(conn, kept)

    def last_game(self, channel: str) -> bytes | None:
        with self._use() as conn:
            return kept_ops.last_game(conn, channel)

    def entries(self, chat: str, since: float = 0.0) -> list[tuple[str, bytes]]:
        with self._use() as conn:
            return kept_ops.entries(conn, chat, since)

    def chats(self) -> list[str]:
        with self._use() as conn:
            return kept_ops.chats(conn)

    def forget(self, person: str, scrub: Callable[[bytes], bytes | None] | None = None) -> int:
        with self._write() as conn:
            return kept_ops.forget(conn, person, scrub)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    # -- extras ------------------------------------------------------------

    def write_trouble(self) -> str | None:
        """Why writes fail now, for ``/healthz`` (:func:`bot.store.sqlite.disk.trouble`)."""
        return disk.trouble(self.path, self._unwritable)

    def backup(self, target_path: str) -> None:
        """Copy the live database, every game with it, to the file
        ``target_path`` with SQLite's online backup (others may keep playing
        meanwhile): a single file that opens as a store.  The copy is written
        beside the target and renamed into place, so the target is whole or
        untouched.  An existing target is replaced only if it is an SQLite
        database that is not open.  Raises StoreError (one line, naming the
        path) if it cannot be done."""
        target = os.path.abspath(target_path)
        ops.check_backup_target(target, self.path)
        try:
            with self._use() as conn:
                ops.copy_database(conn, target)
        except OSError as exc:
            raise StoreError(f"cannot back up to {target!r}: {exc.strerror or exc}") from exc

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
