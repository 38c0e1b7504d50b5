"""The turn deadlines of the SQLite store (table ``deadlines``, one row per game):
claimed for a lease by the worker that plays them, so every worker may look at once;
the deadline of a game that is gone is dropped, and that of a damaged game (or a
deadline that is no number) is logged and dropped (see :mod:`bot.store.sqlite.store`)."""

from __future__ import annotations

import logging
import sqlite3

from bot.store.base import DamagedRecord, damaged
from bot.store.sqlite import ops

log = logging.getLogger(__name__)

#: a deadline that is due: at or before now, or no number at all (text and blobs sort
#: after numbers)
DUE = "d.due <= ? OR d.due >= ''"


def any_due(conn: sqlite3.Connection, now: float) -> bool:
    """Whether a deadline is due at ``now`` (a look without the write lock)."""
    return (
        conn.execute(f"SELECT 1 FROM deadlines AS d WHERE {DUE} LIMIT 1", (now,)).fetchone()
        is not None
    )


def claim(
    conn: sqlite3.Connection, now: float, clock_now: float, lease: float, limit: int
) -> list[str]:
    """Up to ``limit`` ids of games due at ``now``, earliest first, their deadlines moved
    ``lease`` seconds on; in a write transaction.  ``clock_now``: the store's time, for
    the games' expiry."""
    ids: list[str] = []
    while len(ids) < limit:
        # the ones taken so far come first (those dropped before them are gone)
        rows = conn.execute(
            "SELECT d.game_id, d.due, g.id, g.data, g.rev, g.shown, g.srev, g.expires FROM"
            f" deadlines AS d LEFT JOIN games AS g ON g.id = d.game_id WHERE {DUE}"
            " ORDER BY d.due, d.game_id LIMIT ? OFFSET ?",
            (now, limit - len(ids), len(ids)),
        ).fetchall()
        drop = [row[0] for row in rows if not claimable(row, clock_now)]
        ids += [row[0] for row in rows if row[0] not in drop]
        conn.executemany("DELETE FROM deadlines WHERE game_id = ?", [(i,) for i in drop])
        if not drop:
            break
    conn.executemany(
        "UPDATE deadlines SET due = ? WHERE game_id = ?",
        [(now + lease, game_id) for game_id in ids],
    )
    return [str(i) for i in ids]


def claimable(row: tuple[object, ...], now: float) -> bool:
    """Whether a row of :func:`claim`'s query is a live game to claim; a damaged game
    or deadline is logged (its deadline is then dropped)."""
    game_id, due, found = str(row[0]), row[1], row[2]
    if found is None:
        return False  # the game is gone
    try:
        if ops.read_row(game_id, row[3:], now) is None:
            return False  # expired
    except DamagedRecord as exc:
        log.warning("skipped and removed the turn deadline of a damaged game: %s", exc)
        return False
    if not ops.is_number(due):
        damaged(game_id, f"its deadline {due!r} is not a number")  # counted
        log.warning("removed the deadline of game %r: %r is not a number", game_id, due)
        return False
    return True


def purge(conn: sqlite3.Connection, now: float) -> tuple[int, bool]:
    """Delete the games expired at ``now``, but never one whose deadline is still ahead,
    and the deadlines of games that are gone; in the caller's transaction.  How many
    games went, and whether pages were freed.  (A save keeps a game past its deadline
    already, :func:`bot.store.base.lifetime`; a deadline moved later by ``schedule``
    alone keeps its row here until it passes.)"""
    gone = conn.execute(
        "DELETE FROM games WHERE expires <= ? AND id NOT IN (SELECT game_id FROM deadlines"
        " WHERE typeof(due) IN ('integer', 'real') AND due > ?)",
        (now, now),
    ).rowcount
    conn.execute("DELETE FROM deadlines WHERE game_id NOT IN (SELECT id FROM games)")
    return int(gone), conn.execute("PRAGMA freelist_count").fetchone()[0] > 0
