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
from bot.store.corners import Corners, MemoryCorners
from bot.store.redis.corners import RedisCorners
from bot.store.redis.store import RedisStore
from bot.store.sqlite.corners import SqliteCorners
from bot.store.sqlite.store import SqliteStore

__all__ = [
    "DEFAULT_TTL",
    "KEEP",
    "Corners",
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
    "corners_of",
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


def corners_of(store: Store) -> Corners:
    """Each person's corner, kept beside the games of ``store``: in its Redis (every
    worker shares them) or its SQLite file; in this process for any other store."""
    if isinstance(store, RedisStore):
        return RedisCorners.of(store)
    if isinstance(store, SqliteStore):
        return SqliteCorners(store)
    return MemoryCorners()
