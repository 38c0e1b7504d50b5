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
    #: Telegram: the bot token, and where the Bot API is (a self-hosted server, a test fake)
    telegram_token: str | None = None
    telegram_api_url: str | None = None
    #: Telegram webhook mode (several workers behind one URL); None: long polling
    telegram_webhook_url: str | None = None
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = 8443
    telegram_webhook_secret: str | None = None
    #: Discord: the bot token, a guild to sync the commands to while developing
    discord_token: str | None = None
    discord_guild_id: int | None = None
    #: sharding: the total shard count and the shards this process runs (None: automatic)
    discord_shard_count: int | None = None
    discord_shard_ids: tuple[int, ...] | None = None
    #: where Discord is (a REST proxy, a test fake); None: discord.com
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None

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
    webhook = env.get("TELEGRAM_WEBHOOK_URL", "").strip() or None
    if webhook is not None and not webhook.startswith("https://"):
        raise ConfigError(f"TELEGRAM_WEBHOOK_URL must be an https:// address, not {webhook!r}")
    secret = env.get("TELEGRAM_WEBHOOK_SECRET", "").strip() or None
    if secret is not None and not all(c.isalnum() or c in "_-" for c in secret):
        raise ConfigError("TELEGRAM_WEBHOOK_SECRET may hold only letters, digits, _ and -")
    if secret is not None and not 1 <= len(secret) <= 256:
        raise ConfigError("TELEGRAM_WEBHOOK_SECRET must be 1 to 256 characters long")
    api_url = env.get("TELEGRAM_API_URL", "").strip() or None
    if api_url is not None and not api_url.startswith(("http://", "https://")):
        raise ConfigError(f"TELEGRAM_API_URL must start with http:// or https://, not {api_url!r}")
    guild = env.get("DISCORD_GUILD_ID", "").strip()
    if guild and not guild.isdigit():
        raise ConfigError(f"DISCORD_GUILD_ID must be a server id (digits), not {guild!r}")
    shard_count = env.get("DISCORD_SHARD_COUNT", "").strip()
    count = (
        int(_number(env, "DISCORD_SHARD_COUNT", 1, 1, 100_000, whole=True)) if shard_count else None
    )
    ids_raw = env.get("DISCORD_SHARD_IDS", "").strip()
    shard_ids: tuple[int, ...] | None = None
    if ids_raw:
        if count is None:
            raise ConfigError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT")
        try:
            shard_ids = tuple(int(x) for x in ids_raw.replace(" ", "").split(","))
        except ValueError:
            raise ConfigError(
                f"DISCORD_SHARD_IDS must be shard numbers separated by commas, not {ids_raw!r}"
            ) from None
        bad = [i for i in shard_ids if not 0 <= i < count]
        if bad:
            raise ConfigError(f"DISCORD_SHARD_IDS: shard {bad[0]} is not in 0..{count - 1}")
    dc_api = env.get("DISCORD_API_BASE", "").strip() or None
    if dc_api is not None and not dc_api.startswith(("http://", "https://")):
        raise ConfigError(f"DISCORD_API_BASE must start with http:// or https://, not {dc_api!r}")
    dc_gateway = env.get("DISCORD_GATEWAY_URL", "").strip() or None
    if dc_gateway is not None and not dc_gateway.startswith(("ws://", "wss://")):
        raise ConfigError(
            f"DISCORD_GATEWAY_URL must start with ws:// or wss://, not {dc_gateway!r}"
        )
    return Settings(
        discord_token=env.get("DISCORD_TOKEN", "").strip() or None,
        discord_guild_id=int(guild) if guild else None,
        discord_shard_count=count,
        discord_shard_ids=shard_ids,
        discord_api_base=dc_api,
        discord_gateway_url=dc_gateway,
        telegram_token=env.get("TELEGRAM_TOKEN", "").strip() or None,
        telegram_api_url=api_url,
        telegram_webhook_url=webhook,
        telegram_webhook_listen=env.get("TELEGRAM_WEBHOOK_LISTEN", "").strip() or "0.0.0.0",
        telegram_webhook_port=int(
            _number(env, "TELEGRAM_WEBHOOK_PORT", 8443, 1, 65535, whole=True)
        ),
        telegram_webhook_secret=secret,
        redis_url=redis_url,
        database=env.get("LUDO_DATABASE", "").strip() or "ludo.sqlite3",
        game_ttl_days=_number(env, "LUDO_GAME_TTL_DAYS", 14.0, 0.01, 3650),
        turn_seconds=turn,
        image_size=int(_number(env, "LUDO_IMAGE_SIZE", 600, 300, 2400, whole=True)),
    )
