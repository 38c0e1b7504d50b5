"""What lives in Redis beside the games (a person's open games, the sign-in's tokens and
holds): each works through the store's client, under its bot-wide key base, and names
it in errors by its URL without password."""

from __future__ import annotations

from typing import Self

import redis

from bot.store.redis.store import RedisStore


class Beside:
    """A part kept in the Redis of ``client``, under ``base``; ``where`` names that Redis
    in errors."""

    def __init__(self, client: redis.Redis, base: str, where: str) -> None:
        self.client = client
        self.base = base
        self.where = where

    @classmethod
    def of(cls, store: RedisStore) -> Self:
        """The part beside the games of ``store`` (its connections, its keys)."""
        return cls(store.client, store.base, store.url)
