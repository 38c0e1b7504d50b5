"""``REDIS_WAIT_REPLICAS`` and ``REDIS_WAIT_TIMEOUT_MS``: how long each write of a game
waits for Redis replicas to have it (see :mod:`bot.store.redis.wait`)."""

from __future__ import annotations

from collections.abc import Mapping

from ..store.redis.wait import MAX_TIMEOUT_MS, WaitSettings
from .values import ConfigError
from .values import number as _number


def load_wait(env: Mapping[str, str]) -> WaitSettings:
    """``REDIS_WAIT_REPLICAS``: ``auto`` (the default: 1 when the master has replicas
    or Sentinel is used, else 0), or how many replicas must confirm each write (0: none,
    writes do not wait).  ``REDIS_WAIT_TIMEOUT_MS``: how long a write waits for them
    at most (default 500, at most 800: less than the store's 1 s socket timeout)."""
    raw = env.get("REDIS_WAIT_REPLICAS", "").strip().lower() or "auto"
    replicas: int | None = None
    if raw != "auto":
        if not raw.isdigit() or int(raw) > 16:
            raise ConfigError(f"REDIS_WAIT_REPLICAS must be auto or 0 to 16, not {raw!r}")
        replicas = int(raw)
    timeout = _number(env, "REDIS_WAIT_TIMEOUT_MS", 500, 1, MAX_TIMEOUT_MS, whole=True)
    return WaitSettings(replicas=replicas, timeout_ms=int(timeout))
