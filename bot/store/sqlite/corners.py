"""Each person's corner in the SQLite file, beside its games (see
:mod:`bot.store.corners`)::

    corner_people(person PRIMARY KEY, data BLOB)               their settings
    corner_cards(game, person, rev, data BLOB, expires)         a game's card in a corner
    corner_seats(person, game, at)                              the games they sat in, in order
    corner_watch(channel, person, at)                           who hears of a chat's games

The tables are made when the corners are first opened on a file (a file of an older
ludo-bot gains them; an older ludo-bot leaves them alone).  Each call is one statement
or one write transaction of the store's own connection, under its lock.
"""

from __future__ import annotations

from collections.abc import Collection

from bot.store.base import Shown
from bot.store.corners import CARD_TTL, SEATS, WATCHERS
from bot.store.sqlite.store import SqliteStore

_TABLES = """
CREATE TABLE IF NOT EXISTS corner_people (
    person TEXT PRIMARY KEY,
    data   BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS corner_cards (
    game    TEXT NOT NULL,
    person  TEXT NOT NULL,
    rev     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (game, person)
);
CREATE INDEX IF NOT EXISTS corner_cards_expires ON corner_cards (expires);
CREATE TABLE IF NOT EXISTS corner_seats (
    person TEXT NOT NULL,
    game   TEXT NOT NULL,
    at     REAL NOT NULL,
    PRIMARY KEY (person, game)
);
CREATE TABLE IF NOT EXISTS corner_watch (
    channel TEXT NOT NULL,
    person  TEXT NOT NULL,
    at      REAL NOT NULL,
    PRIMARY KEY (channel, person)
);
"""


class SqliteCorners:
    """The corners in the file of ``store`` (its connection, its lock, its clock)."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        with store._write() as conn:
            for statement in _TABLES.split(";"):
                if statement.strip():
                    conn.execute(statement)

    def _now(self) -> float:
        return self.store._clock()

    def person(self, person: str) -> bytes | None:
        with self.store._use() as conn:
            row = conn.execute(
                "SELECT data FROM corner_people WHERE person = ?", (person,)
            ).fetchone()
        return bytes(row[0]) if row is not None else None

    def set_person(self, person: str, data: bytes) -> None:
        with self.store._write() as conn:
            conn.execute(
                "INSERT INTO corner_people (person, data) VALUES (?, ?)"
                " ON CONFLICT (person) DO UPDATE SET data = excluded.data",
                (person, bytes(data)),
            )

    def card(self, game_id: str, person: str) -> Shown | None:
        with self.store._use() as conn:
            row = conn.execute(
                "SELECT data, rev FROM corner_cards WHERE game = ? AND person = ? AND expires > ?",
                (game_id, person, self._now()),
            ).fetchone()
        return Shown(bytes(row[0]), int(row[1])) if row is not None else None

    def save_card(self, game_id: str, person: str, data: bytes, rev: int) -> bool:
        now = self._now()
        with self.store._write() as conn:
            row = conn.execute(
                "SELECT rev FROM corner_cards WHERE game = ? AND person = ? AND expires > ?",
                (game_id, person, now),
            ).fetchone()
            if (int(row[0]) if row is not None else 0) != rev:
                return False
            conn.execute(
                "INSERT INTO corner_cards (game, person, rev, data, expires) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (game, person) DO UPDATE SET"
                " rev = excluded.rev, data = excluded.data, expires = excluded.expires",
                (game_id, person, rev + 1, bytes(data), now + CARD_TTL),
            )
            if rev == 0:  # a new card: the cards no longer kept go
                conn.execute("DELETE FROM corner_cards WHERE expires <= ?", (now,))
            return True

    def seats(self, person: str) -> list[str]:
        with self.store._use() as conn:
            rows = conn.execute(
                "SELECT game FROM corner_seats WHERE person = ? ORDER BY at, game", (person,)
            ).fetchall()
        return [str(r[0]) for r in rows]

    def sit(self, person: str, game_id: str) -> None:
        with self.store._write() as conn:
            conn.execute(
                "INSERT INTO corner_seats (person, game, at) VALUES (?, ?, coalesce("
                "(SELECT max(at) FROM corner_seats WHERE person = ?), 0) + 1)"
                " ON CONFLICT (person, game) DO UPDATE SET at = excluded.at",
                (person, game_id, person),
            )
            conn.execute(
                "DELETE FROM corner_seats WHERE person = ? AND game NOT IN (SELECT game"
                " FROM corner_seats WHERE person = ? ORDER BY at DESC, game DESC LIMIT ?)",
                (person, person, SEATS),
            )

    def unsit(self, person: str, game_ids: Collection[str]) -> None:
        if game_ids:
            with self.store._write() as conn:
                conn.executemany(
                    "DELETE FROM corner_seats WHERE person = ? AND game = ?",
                    [(person, g) for g in game_ids],
                )

    def watchers(self, channel: str) -> list[str]:
        with self.store._use() as conn:
            rows = conn.execute(
                "SELECT person FROM corner_watch WHERE channel = ? ORDER BY at, person",
                (channel,),
            ).fetchall()
        return [str(r[0]) for r in rows]

    def watch(self, channel: str, person: str, on: bool) -> bool:
        with self.store._write() as conn:
            if not on:
                conn.execute(
                    "DELETE FROM corner_watch WHERE channel = ? AND person = ?", (channel, person)
                )
                return True
            there = conn.execute(
                "SELECT 1 FROM corner_watch WHERE channel = ? AND person = ?", (channel, person)
            ).fetchone()
            count = conn.execute(
                "SELECT count(*) FROM corner_watch WHERE channel = ?", (channel,)
            ).fetchone()[0]
            if there is None and count >= WATCHERS:
                return False
            conn.execute(
                "INSERT INTO corner_watch (channel, person, at) VALUES (?, ?, ?)"
                " ON CONFLICT (channel, person) DO NOTHING",
                (channel, person, self._now()),
            )
            return True

    def forget(self, person: str, channels: Collection[str] = ()) -> None:
        with self.store._write() as conn:
            conn.execute("DELETE FROM corner_people WHERE person = ?", (person,))
            conn.execute("DELETE FROM corner_seats WHERE person = ?", (person,))
            conn.execute("DELETE FROM corner_watch WHERE person = ?", (person,))
