"""Settings, read from the environment in one place and checked once.

``ludo-bot run`` first reads ``.env`` (:func:`load_env_file`), then checks every
setting (:func:`load_settings`) before anything is created, then opens the
store the settings name (:func:`open_configured_store`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path

from dotenv import dotenv_values
from dotenv.parser import parse_stream

from ..hosting import TIMER_RANGE
from ..limits.rate import LimitSettings
from ..store import RedisStore, Store, open_store
from ..store.redis.ops import redact
from ..store.redis.wait import WaitSettings
from .boardconfig import BoardSettings, load_board, load_media_chat
from .limitconfig import load_limits
from .values import ConfigError as ConfigError
from .values import check_database
from .values import choice as _choice
from .values import host as _host
from .values import is_host as _is_host
from .values import number as _number
from .values import port as _port
from .waitconfig import load_wait

#: the log levels LOG_LEVEL takes
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
#: the log formats LOG_FORMAT takes
LOG_FORMATS = ("text", "json")
#: the longest a lobby may wait for its start, in minutes (a week)
MAX_LOBBY_MINUTES = 7 * 24 * 60


@dataclass(frozen=True)
class Settings:
    """Every setting, checked.  Its repr leaves the tokens and passwords out."""

    #: Redis for several workers sharing games; None: the SQLite file
    redis_url: str | None = field(default=None, repr=False)  # may hold a password
    #: the SQLite file used when no Redis is configured
    database: str = "ludo.sqlite3"
    #: games untouched this long are forgotten
    game_ttl_days: float = 14.0
    #: default turn timer in seconds (0: off; 10 s to 7 days)
    turn_seconds: int = 120
    #: board image width in pixels
    image_size: int = 600
    #: Telegram: the bot token, and where the Bot API is (a self-hosted server, a test fake)
    telegram_token: str | None = field(default=None, repr=False)
    telegram_api_url: str | None = None
    #: Telegram webhook mode (several workers behind one URL); None: long polling
    telegram_webhook_url: str | None = None
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = 8443
    telegram_webhook_secret: str | None = field(default=None, repr=False)
    #: Discord: the bot token, a guild to sync the commands to while developing
    discord_token: str | None = field(default=None, repr=False)
    discord_guild_id: int | None = None
    #: sharding: the total shard count and the shards this process runs (None: automatic)
    discord_shard_count: int | None = None
    discord_shard_ids: tuple[int, ...] | None = None
    #: where Discord is (a REST proxy, a test fake); None: discord.com
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    #: Redis Sentinel: the sentinels (host, port) and the name of the master they watch
    redis_sentinels: tuple[tuple[str, int], ...] | None = None
    redis_sentinel_master: str | None = None
    #: REDIS_URL names a node of a Redis Cluster (redis-py's cluster client)
    redis_cluster: bool = False
    #: how each write waits for replicas (REDIS_WAIT_REPLICAS, REDIS_WAIT_TIMEOUT_MS)
    redis_wait: WaitSettings = field(default_factory=WaitSettings)
    #: with Sentinel: the password of Redis itself, and of the sentinels (None: none)
    redis_password: str | None = field(default=None, repr=False)
    redis_sentinel_password: str | None = field(default=None, repr=False)
    #: lobbies nobody starts are closed after this many minutes (0: never)
    lobby_minutes: int = 30
    #: logging: the least level logged, and ``text`` or ``json`` (one object a line)
    log_level: str = "INFO"
    log_format: str = "text"
    #: the web server's port (/healthz, /metrics, the Telegram webhook; None: none), and
    #: the address it listens on (see :func:`_web`)
    web_port: int | None = None
    web_host: str = "127.0.0.1"
    #: rate limits per person, per chat and per client address of the board, and each
    #: person's quotas (see bot.limits, bot.app.limitconfig)
    limits: LimitSettings = field(default_factory=LimitSettings)
    #: the live board in the chat apps (None: off; see bot.app.boardconfig)
    board: BoardSettings | None = None
    #: where inline tables' pictures are uploaded (None: by URL, or in words)
    telegram_media_chat: int | str | None = None

    @property
    def game_ttl(self) -> float:
        return self.game_ttl_days * 24 * 3600

    @property
    def lobby_seconds(self) -> float | None:
        """How long a lobby waits for its start, in seconds (None: for ever)."""
        return self.lobby_minutes * 60.0 if self.lobby_minutes else None

    @property
    def uses_redis(self) -> bool:
        """Whether games live in Redis (a URL or Sentinel), not in the SQLite file."""
        return self.redis_url is not None or self.redis_sentinels is not None


def load_env_file(
    path: str | os.PathLike[str] | None = None, environ: MutableMapping[str, str] | None = None
) -> Path | None:
    """Read the settings of a ``.env`` file into ``environ`` (default: the process
    environment), never overriding a variable already set there.

    The file is ``path`` if given, else the one ``LUDO_ENV_FILE`` names (which
    must exist), else ``.env`` in the working directory if there is one.
    Returns the file read (None: none).  Raises ConfigError if the file cannot
    be read or has a line that is not ``NAME=value``.
    """
    environ = os.environ if environ is None else environ
    named = path is not None or bool(environ.get("LUDO_ENV_FILE", "").strip())
    if path is None:
        path = environ.get("LUDO_ENV_FILE", "").strip() or Path.cwd() / ".env"
    file = Path(path)
    if not named and not file.is_file():
        return None
    what = "LUDO_ENV_FILE" if named else "the .env file"
    try:
        text = file.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ConfigError(f"{what} {str(file)!r} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {str(file)!r} is a folder") from None
    except OSError as e:
        raise ConfigError(f"cannot read {what} {str(file)!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{what} {str(file)!r} is not UTF-8 text") from None
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:
            line = binding.original.string.strip()
            raise ConfigError(
                f"{file}, line {binding.original.line}: expected NAME=value, not {line[:40]!r}"
            )
    # what load_dotenv(override=False) does, into any mapping
    for name, value in dotenv_values(stream=io.StringIO(text)).items():
        if value is not None and name not in environ:
            environ[name] = value
    return file


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from ``env`` (default: the process environment)."""
    env = os.environ if env is None else env
    redis_url = env.get("REDIS_URL", "").strip() or None
    if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(
            f"REDIS_URL must start with redis://, rediss:// or unix://, not {redact(redis_url)!r}"
        )
    low, high = TIMER_RANGE  # 10 s to 7 days
    turn = int(_number(env, "LUDO_TURN_SECONDS", 120, 0, high, whole=True))
    if 0 < turn < low:
        raise ConfigError(f"LUDO_TURN_SECONDS must be 0 (off) or at least {low}, not {turn}")
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
    sentinels, master = _sentinels(env, redis_url)
    database = env.get("LUDO_DATABASE", "").strip() or "ludo.sqlite3"
    webhook_port = int(_number(env, "TELEGRAM_WEBHOOK_PORT", 8443, 1, 65535, whole=True))
    webhook_listen = _host(env, "TELEGRAM_WEBHOOK_LISTEN", "0.0.0.0")
    web_port, web_host = _web(env, webhook is not None, webhook_port, webhook_listen)
    lobby = int(_number(env, "LUDO_LOBBY_MINUTES", 30, 0, MAX_LOBBY_MINUTES, whole=True))
    log_level = _choice(env, "LOG_LEVEL", LOG_LEVELS, "INFO", str.upper)
    cluster = _choice(env, "REDIS_CLUSTER", ("0", "1"), "0", str.strip) == "1"
    if cluster and redis_url is None:
        raise ConfigError("REDIS_CLUSTER=1 needs REDIS_URL (any node of the cluster)")
    log_format = _choice(env, "LOG_FORMAT", LOG_FORMATS, "text", str.lower)
    telegram = bool(env.get("TELEGRAM_TOKEN", "").strip())
    board = load_board(
        env,
        telegram=telegram,
        discord=bool(env.get("DISCORD_TOKEN", "").strip()),
        web=web_port is not None,
    )
    if redis_url is None and sentinels is None:  # last: the values first, then the disk
        check_database(database)
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
        telegram_webhook_listen=webhook_listen,
        telegram_webhook_port=webhook_port,
        telegram_webhook_secret=secret,
        redis_url=redis_url,
        redis_sentinels=sentinels,
        redis_sentinel_master=master,
        redis_cluster=cluster,
        redis_wait=load_wait(env),
        redis_password=env.get("REDIS_PASSWORD", "").strip() or None,
        redis_sentinel_password=env.get("REDIS_SENTINEL_PASSWORD", "").strip() or None,
        database=database,
        game_ttl_days=_number(env, "LUDO_GAME_TTL_DAYS", 14.0, 0.01, 3650),
        turn_seconds=turn,
        image_size=int(_number(env, "LUDO_IMAGE_SIZE", 600, 300, 2400, whole=True)),
        lobby_minutes=lobby,
        log_level=log_level,
        log_format=log_format,
        web_port=web_port,
        web_host=web_host,
        limits=load_limits(env),
        board=board,
        telegram_media_chat=load_media_chat(env, telegram=telegram),
    )


def _web(
    env: Mapping[str, str], webhook: bool, hook_port: int, hook_listen: str
) -> tuple[int | None, str]:
    """Where the web server listens: LUDO_WEB_PORT and LUDO_WEB_HOST (older names:
    LUDO_HEALTH_PORT, LUDO_HEALTH_HOST; None: no server).  In webhook mode it serves
    the webhook too: on TELEGRAM_WEBHOOK_PORT and TELEGRAM_WEBHOOK_LISTEN unless
    LUDO_WEB_PORT and LUDO_WEB_HOST say otherwise; an older name set there must
    agree (it meant a second server, which is gone)."""
    port, old_port = _port(env, "LUDO_WEB_PORT"), _port(env, "LUDO_HEALTH_PORT")
    host, old_host = _host(env, "LUDO_WEB_HOST", ""), _host(env, "LUDO_HEALTH_HOST", "")
    pairs: list[tuple[str, object, object, object]] = [
        ("PORT", port, old_port, hook_port),
        ("HOST", host or None, old_host or None, hook_listen),
    ]
    for what, new, old, hook in pairs:
        if webhook and old is not None and old != (new or hook):
            raise ConfigError(
                f"LUDO_HEALTH_{what} is {old}, but /healthz and /metrics are served with the "
                f"webhook on {new or hook} now: drop it (LUDO_WEB_{what} moves both)"
            )
        if not webhook and None not in (new, old) and new != old:
            raise ConfigError(
                f"LUDO_WEB_{what} ({new}) and its older name LUDO_HEALTH_{what} ({old}) differ"
            )
    if webhook:
        return port or hook_port, host or hook_listen
    return port or old_port, host or old_host or "127.0.0.1"


def _sentinels(
    env: Mapping[str, str], redis_url: str | None
) -> tuple[tuple[tuple[str, int], ...] | None, str | None]:
    """REDIS_SENTINELS (``host:port,host:port``) and REDIS_SENTINEL_MASTER, checked."""
    raw = env.get("REDIS_SENTINELS", "").strip()
    master = env.get("REDIS_SENTINEL_MASTER", "").strip() or None
    if not raw:
        for name in ("REDIS_SENTINEL_MASTER", "REDIS_PASSWORD", "REDIS_SENTINEL_PASSWORD"):
            if env.get(name, "").strip():
                more = " (with REDIS_URL the password goes in the URL)" if redis_url else ""
                raise ConfigError(f"{name} needs REDIS_SENTINELS{more}")
        return None, None
    if redis_url is not None:
        raise ConfigError("set REDIS_URL or REDIS_SENTINELS, not both")
    if master is None:
        raise ConfigError("REDIS_SENTINELS needs REDIS_SENTINEL_MASTER (the master's name)")
    if not all(c.isalnum() or c in "_-." for c in master):
        raise ConfigError(
            f"REDIS_SENTINEL_MASTER may hold only letters, digits, _, - and ., not {master!r}"
        )
    sentinels: list[tuple[str, int]] = []
    for item in raw.replace(" ", "").split(","):
        host, sep, port = item.rpartition(":")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]  # [IPv6]:port
        if not sep or not host or not _is_host(host) or not port.isdigit():
            raise ConfigError(
                f"REDIS_SENTINELS must be host:port pairs separated by commas, not {item!r}"
            )
        if not 1 <= int(port) <= 65535:
            raise ConfigError(f"REDIS_SENTINELS: port {port} is not in 1..65535")
        sentinels.append((host, int(port)))
    return tuple(sentinels), master


def open_configured_store(settings: Settings) -> Store:
    """The store the settings name: Redis through Sentinel, Redis at a URL (a node of
    Redis Cluster), or the SQLite file.  Raises StoreError if it cannot be reached."""
    ttl, wait = settings.game_ttl, settings.redis_wait
    if settings.redis_sentinels is not None and settings.redis_sentinel_master is not None:
        return RedisStore.from_sentinel(
            list(settings.redis_sentinels),
            settings.redis_sentinel_master,
            password=settings.redis_password,
            sentinel_password=settings.redis_sentinel_password,
            ttl=ttl,
            wait=wait,
        )
    if settings.redis_url is not None:
        return RedisStore(settings.redis_url, ttl=ttl, cluster=settings.redis_cluster, wait=wait)
    return open_store(None, settings.database, ttl)
