"""Where games live between messages: Redis when several workers share them,
otherwise an SQLite file on this host.  See :mod:`bot.store.base` for the
contract both keep."""

from __future__ import annotations

from bot.store.base import (
    DEFAULT_TTL,
    KEEP,
    DamagedRecord,
    Keep,
    Kept,
    Shown,
    Store,
    Stored,
    StoreError,
    StoreUnavailable,
)
from bot.store.buckets import new_game_id
from bot.store.redis.store import RedisStore
from bot.store.sqlite.store import SqliteStore

__all__ = [
    "DEFAULT_TTL",
    "KEEP",
    "DamagedRecord",
    "Keep",
    "Kept",
    "RedisStore",
    "Shown",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Stored",
    "new_game_id",
    "open_store",
]


def open_store(redis_url: str | None, sqlite_path: str, ttl: float = DEFAULT_TTL) -> Store:
    """The store to use: Redis at ``redis_url`` if one is given (not empty),
    else the SQLite file at ``sqlite_path``.  Raises StoreError (one line, for
    the operator) if it cannot be reached or opened; StoreUnavailable if
    Redis cannot be reached."""
    if redis_url:
        return RedisStore(redis_url, ttl=ttl)
    return SqliteStore(sqlite_path, ttl=ttl)
