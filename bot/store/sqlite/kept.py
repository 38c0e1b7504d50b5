"""Finished games kept for good in SQLite: the queries behind ``keep``,
``last_game``, ``entries`` and ``forget`` of :class:`bot.store.sqlite.store.SqliteStore`
(see :class:`bot.store.base.Store`; the tables are in
:mod:`bot.store.sqlite.schema`)::

    kept(key PRIMARY KEY, chat, channel, finished)      one row per kept game
    kept_entries(key, who, entry BLOB)                  its stats, one per seat
    last_games(channel PRIMARY KEY, finished, key, game BLOB)

Nothing here expires: the purge of expired games leaves these tables alone.
Each function takes the store's connection; ``keep`` and ``forget`` run inside
the store's write transaction, the others are one statement each (atomic on
their own).  sqlite3 errors propagate, for the store to translate.
"""

from __future__ import annotations

import sqlite3

from bot.store.base import Kept, Scrub


def keep(conn: sqlite3.Connection, kept: Kept) -> bool:
    """Keep ``kept`` (inside a transaction): False, with nothing written, if
    its key was kept before."""
    new = conn.execute(
        "INSERT INTO kept (key, chat, channel, finished) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (key) DO NOTHING",
        (kept.key, kept.chat, kept.channel, float(kept.finished)),
    )
    if new.rowcount != 1:
        return False
    conn.executemany(
        "INSERT INTO kept_entries (key, who, entry) VALUES (?, ?, ?)",
        [(kept.key, who, bytes(entry)) for who, entry in kept.entries.items()],
    )
    # the channel's last game, unless the one there finished later (or at
    # the same time); one whose time is no number is replaced
    conn.execute(
        "INSERT INTO last_games (channel, finished, key, game) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (channel) DO UPDATE SET"
        " finished = excluded.finished, key = excluded.key, game = excluded.game"
        " WHERE excluded.finished > last_games.finished"
        " OR typeof(last_games.finished) NOT IN ('integer', 'real')",
        (kept.channel, float(kept.finished), kept.key, bytes(kept.game)),
    )
    return True


def last_game(conn: sqlite3.Connection, channel: str) -> bytes | None:
    """The bytes of the game finished last in ``channel``; None if none was
    kept (or what is kept there is not bytes)."""
    row = conn.execute("SELECT game FROM last_games WHERE channel = ?", (channel,)).fetchone()
    return row[0] if row is not None and isinstance(row[0], bytes) else None


def entries(conn: sqlite3.Connection, chat: str, since: float) -> list[tuple[str, bytes]]:
    """Every entry kept in ``chat`` of the games finished at or after
    ``since``: oldest game first (ties by key), each game's by who."""
    rows = conn.execute(
        "SELECT e.who, e.entry FROM kept AS k JOIN kept_entries AS e ON e.key = k.key"
        " WHERE k.chat = ? AND k.finished >= ? ORDER BY k.finished, k.key, e.who",
        (chat, float(since)),
    ).fetchall()
    return [(str(who), entry) for who, entry in rows if isinstance(entry, bytes)]


def chats(conn: sqlite3.Connection) -> list[str]:
    """Every chat with a kept game, sorted."""
    rows = conn.execute("SELECT DISTINCT chat FROM kept ORDER BY chat").fetchall()
    return [str(chat) for (chat,) in rows]


def forget(conn: sqlite3.Connection, person: str, scrub: Scrub | None = None) -> int:
    """Delete every entry of ``person`` (inside a transaction); how many there were.
    With ``scrub``, every last game is offered to it and replaced by what it returns
    (None: left as it is): a scan of the last games (one a channel, on one host), those
    with the person's id in their bytes only, if it is a plain word."""
    if scrub is not None:
        ident = person.partition(":")[2]
        query = "SELECT channel, game FROM last_games"
        if ident.isascii() and ident.isalnum():
            rows = conn.execute(query + " WHERE instr(game, ?) > 0", (ident.encode(),))
        else:
            rows = conn.execute(query)
        for channel, game in rows.fetchall():
            new = scrub(game) if isinstance(game, bytes) else None
            if new is not None:
                conn.execute("UPDATE last_games SET game = ? WHERE channel = ?", (new, channel))
    return int(conn.execute("DELETE FROM kept_entries WHERE who = ?", (person,)).rowcount)
