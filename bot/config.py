"""Settings, read from the environment in one place and checked once."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


class ConfigError(Exception):
    """A setting with a value that cannot work; the message names it."""


@dataclass(frozen=True)
class Settings:
    #: Redis for several workers sharing games; None: the SQLite file
    redis_url: str | None = None
    #: the SQLite file used when no Redis is configured
    database: str = "ludo.sqlite3"
    #: games untouched this long are forgotten
    game_ttl_days: float = 14.0
    #: default turn timer in seconds (0: off)
    turn_seconds: int = 120
    #: board image width in pixels
    image_size: int = 600

    @property
    def game_ttl(self) -> float:
        return self.game_ttl_days * 24 * 3600


def _number(
    env: Mapping[str, str], name: str, default: float, low: float, high: float, whole: bool = False
) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"{name} must be {kind}, not {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be from {low:g} to {high:g}, not {raw}")
    return value


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``env`` (default: the process environment)."""
    env = os.environ if env is None else env
    redis_url = env.get("REDIS_URL", "").strip() or None
    if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(
            f"REDIS_URL must start with redis://, rediss:// or unix://, not {redis_url!r}"
        )
    turn = int(_number(env, "LUDO_TURN_SECONDS", 120, 0, 24 * 3600, whole=True))
    if 0 < turn < 10:
        raise ConfigError(f"LUDO_TURN_SECONDS must be 0 (off) or at least 10, not {turn}")
    return Settings(
        redis_url=redis_url,
        database=env.get("LUDO_DATABASE", "").strip() or "ludo.sqlite3",
        game_ttl_days=_number(env, "LUDO_GAME_TTL_DAYS", 14.0, 0.01, 3650),
        turn_seconds=turn,
        image_size=int(_number(env, "LUDO_IMAGE_SIZE", 600, 300, 2400, whole=True)),
    )
