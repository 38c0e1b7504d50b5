"""Stores for the tests: a clock that moves only when told, and a factory of stores
on the same data (one SQLite file, or one Redis key prefix), as other threads or
worker processes would open them (see the ``store`` and ``make_store`` fixtures of
:mod:`tests.plugin`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from bot.store import RedisStore, SqliteStore, Store
from tests.helpers.local_redis import forget_prefix

#: the ttl of the ``store`` fixture's stores (short enough to reason about)
STORE_TTL = 3600.0


class FakeClock:
    """A clock that moves only when told: pass it as ``clock=``."""

    def __init__(self, now: float | None = None) -> None:
        self.now = time.time() if now is None else now
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        with self._lock:
            self.now += seconds
            return self.now


class StoreFactory:
    """New stores on the same data; see :mod:`tests.plugin` (``make_store``)."""

    def __init__(self, kind: str, target: str, prefix: str, clock: Callable[[], float]) -> None:
        self.kind = kind
        self.target = target
        self.prefix = prefix
        self.clock = clock
        self.opened: list[Store] = []

    def __call__(self, *, ttl: float = STORE_TTL, clock: Callable[[], float] | None = None) -> Any:
        clk = self.clock if clock is None else clock
        made: Store
        if self.kind == "sqlite":
            made = SqliteStore(self.target, ttl=ttl, clock=clk)
        else:
            made = RedisStore(self.target, ttl=ttl, prefix=self.prefix, clock=clk)
        self.opened.append(made)
        return made

    def close_all(self) -> None:
        for opened in self.opened:
            opened.close()
        if self.kind == "redis":
            forget_prefix(self.target, self.prefix)


def old_schema(version: int, *columns: str) -> str:
    """The schema of the SQLite files an earlier ``version`` of the bot wrote: its table
    of games (``columns`` after the first five), and the deadlines."""
    games = ",\n".join(
        [
            "    id      TEXT PRIMARY KEY",
            "    rev     INTEGER NOT NULL",
            "    data    BLOB NOT NULL",
            "    channel TEXT UNIQUE",
            "    expires REAL NOT NULL",
            *(f"    {column}" for column in columns),
        ]
    )
    return f"""
CREATE TABLE games (
{games}
);
CREATE INDEX games_expires ON games (expires);
CREATE TABLE deadlines (
    game_id TEXT PRIMARY KEY,
    due     REAL NOT NULL
);
CREATE INDEX deadlines_due ON deadlines (due, game_id);
PRAGMA user_version = {version};
"""
