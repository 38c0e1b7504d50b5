"""Settings from the environment: defaults, and a clear word for a broken value."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.app.config import ConfigError, load_env_file, load_settings, open_configured_store
from tests.helpers.unprivileged import unprivileged


def test_defaults_need_nothing_set() -> None:
    s = load_settings({})
    assert s.redis_url is None and s.database == "ludo.sqlite3"
    assert s.turn_seconds == 120 and s.game_ttl == 14 * 24 * 3600
    assert s.image_size == 600


def test_values_are_read() -> None:
    s = load_settings(
        {
            "REDIS_URL": "redis://localhost:6379/2",
            "LUDO_DATABASE": "/tmp/x.db",
            "LUDO_TURN_SECONDS": "0",
            "LUDO_GAME_TTL_DAYS": "2.5",
            "LUDO_IMAGE_SIZE": "800",
        }
    )
    assert s.redis_url == "redis://localhost:6379/2" and s.database == "/tmp/x.db"
    assert s.turn_seconds == 0 and s.game_ttl == 2.5 * 24 * 3600 and s.image_size == 800


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LUDO_TURN_SECONDS": "soon"}, "LUDO_TURN_SECONDS must be a whole number, not 'soon'"),
        ({"LUDO_TURN_SECONDS": "5"}, "LUDO_TURN_SECONDS must be 0 (off) or at least 10"),
        ({"LUDO_TURN_SECONDS": "-1"}, "LUDO_TURN_SECONDS must be from 0"),
        ({"LUDO_GAME_TTL_DAYS": "forever"}, "LUDO_GAME_TTL_DAYS must be a number"),
        ({"LUDO_IMAGE_SIZE": "20"}, "LUDO_IMAGE_SIZE must be from 300 to 2400"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL must start with redis://"),
    ],
)
def test_a_broken_value_names_the_setting(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(env)
    assert words in str(err.value)


# -- the new settings ------------------------------------------------------------


def test_operations_defaults() -> None:
    s = load_settings({})
    assert s.log_level == "INFO" and s.log_format == "text"
    assert s.web_port is None and s.web_host == "127.0.0.1"
    assert s.lobby_minutes == 30 and s.lobby_seconds == 30 * 60
    assert s.redis_sentinels is None and s.redis_sentinel_master is None
    assert not s.uses_redis


def test_the_settings_never_show_a_secret() -> None:
    s = load_settings(
        {
            "TELEGRAM_TOKEN": "123:tg-secret",
            "TELEGRAM_WEBHOOK_URL": "https://bot.example/telegram",
            "TELEGRAM_WEBHOOK_SECRET": "hook-secret",
            "DISCORD_TOKEN": "dc-secret",
            "REDIS_SENTINELS": "s1:26379",
            "REDIS_SENTINEL_MASTER": "m",
            "REDIS_PASSWORD": "redis-secret",
            "REDIS_SENTINEL_PASSWORD": "sentinel-secret",
        }
    )
    assert s.redis_password == "redis-secret" and s.redis_sentinel_password == "sentinel-secret"
    assert "secret" not in repr(s) and "s1" in repr(s)


def test_operations_values_are_read() -> None:
    s = load_settings(
        {
            "LOG_LEVEL": "debug",
            "LOG_FORMAT": "JSON",
            "LUDO_HEALTH_PORT": "9102",
            "LUDO_HEALTH_HOST": "0.0.0.0",
            "LUDO_LOBBY_MINUTES": "0",
            "REDIS_SENTINELS": "10.0.0.1:26379, sentinel-b:26380,[::1]:26381",
            "REDIS_SENTINEL_MASTER": "ludo-master",
        }
    )
    assert s.log_level == "DEBUG" and s.log_format == "json"
    assert s.web_port == 9102 and s.web_host == "0.0.0.0"
    assert s.lobby_minutes == 0 and s.lobby_seconds is None  # 0: lobbies never expire
    assert s.redis_sentinels == (("10.0.0.1", 26379), ("sentinel-b", 26380), ("::1", 26381))
    assert s.redis_sentinel_master == "ludo-master" and s.uses_redis
    assert s.redis_password is None and s.redis_sentinel_password is None
    assert load_settings({"LUDO_HEALTH_HOST": "metrics.internal"}).web_host == "metrics.internal"


def test_one_web_server_for_health_metrics_and_the_webhook() -> None:
    hook = {"TELEGRAM_WEBHOOK_URL": "https://bot.example/telegram"}
    # polling: off unless asked for, on loopback unless told otherwise; the older names too
    assert (load_settings({"LUDO_WEB_PORT": "9100"}).web_port, "127.0.0.1") == (9100, "127.0.0.1")
    old = load_settings({"LUDO_HEALTH_PORT": "9100", "LUDO_HEALTH_HOST": "10.0.0.2"})
    assert (old.web_port, old.web_host) == (9100, "10.0.0.2")
    both = load_settings({"LUDO_WEB_PORT": "9100", "LUDO_HEALTH_PORT": "9100"})
    assert both.web_port == 9100
    # webhook mode: the webhook's port and address (their defaults too) ...
    s = load_settings(hook)
    assert (s.web_port, s.web_host) == (8443, "0.0.0.0")
    s = load_settings(hook | {"TELEGRAM_WEBHOOK_PORT": "9000", "TELEGRAM_WEBHOOK_LISTEN": "::"})
    assert (s.web_port, s.web_host) == (9000, "::")
    # ... unless LUDO_WEB_PORT and LUDO_WEB_HOST say otherwise
    s = load_settings(hook | {"TELEGRAM_WEBHOOK_PORT": "9000", "LUDO_WEB_PORT": "9200"})
    assert (s.web_port, s.web_host) == (9200, "0.0.0.0")
    s = load_settings(hook | {"LUDO_WEB_HOST": "10.0.0.3", "LUDO_HEALTH_HOST": "10.0.0.3"})
    assert s.web_host == "10.0.0.3"


def test_a_mistyped_redis_scheme_does_not_echo_the_password() -> None:
    with pytest.raises(ConfigError) as err:
        load_settings({"REDIS_URL": "reddis://bot:s3cret-pw@cache:6379/0?password=qs3cret"})
    message = str(err.value)
    assert "REDIS_URL must start with redis://" in message
    assert "s3cret" not in message and "reddis://bot:***@cache:6379/0" in message


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"LOG_LEVEL": "loud"}, "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, not 'loud'"),
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be one of text, json, not 'xml'"),
        ({"LUDO_HEALTH_PORT": "0"}, "LUDO_HEALTH_PORT must be from 1 to 65535, not 0"),
        ({"LUDO_HEALTH_PORT": "http"}, "LUDO_HEALTH_PORT must be a whole number, not 'http'"),
        ({"LUDO_HEALTH_HOST": "my host"}, "LUDO_HEALTH_HOST must be an IP address or a host"),
        ({"LUDO_HEALTH_HOST": "http://x"}, "LUDO_HEALTH_HOST must be an IP address or a host"),
        ({"LUDO_LOBBY_MINUTES": "-1"}, "LUDO_LOBBY_MINUTES must be from 0 to 10080, not -1"),
        ({"LUDO_LOBBY_MINUTES": "half"}, "LUDO_LOBBY_MINUTES must be a whole number"),
        ({"REDIS_SENTINELS": "a:1"}, "REDIS_SENTINELS needs REDIS_SENTINEL_MASTER"),
        ({"REDIS_SENTINEL_MASTER": "m"}, "REDIS_SENTINEL_MASTER needs REDIS_SENTINELS"),
        ({"REDIS_PASSWORD": "pw"}, "REDIS_PASSWORD needs REDIS_SENTINELS"),
        (
            {"REDIS_URL": "redis://r:6379", "REDIS_SENTINEL_PASSWORD": "pw"},
            "REDIS_SENTINEL_PASSWORD needs REDIS_SENTINELS (with REDIS_URL the password goes",
        ),
        (
            {"REDIS_SENTINELS": "a", "REDIS_SENTINEL_MASTER": "m"},
            "REDIS_SENTINELS must be host:port pairs separated by commas, not 'a'",
        ),
        (
            {"REDIS_SENTINELS": "a:1,b:x", "REDIS_SENTINEL_MASTER": "m"},
            "REDIS_SENTINELS must be host:port pairs separated by commas, not 'b:x'",
        ),
        (
            {"REDIS_SENTINELS": "a:1,", "REDIS_SENTINEL_MASTER": "m"},
            "REDIS_SENTINELS must be host:port pairs separated by commas, not ''",
        ),
        (
            {"REDIS_SENTINELS": "a:70000", "REDIS_SENTINEL_MASTER": "m"},
            "REDIS_SENTINELS: port 70000 is not in 1..65535",
        ),
        (
            {"REDIS_SENTINELS": "a:1", "REDIS_SENTINEL_MASTER": "m a"},
            "REDIS_SENTINEL_MASTER may hold only",
        ),
        (
            {"REDIS_SENTINELS": "a:1", "REDIS_SENTINEL_MASTER": "m", "REDIS_URL": "redis://x"},
            "set REDIS_URL or REDIS_SENTINELS, not both",
        ),
        (
            {
                "TELEGRAM_WEBHOOK_URL": "https://bot.example/telegram",
                "TELEGRAM_WEBHOOK_PORT": "9000",
                "LUDO_HEALTH_PORT": "9100",
            },
            "LUDO_HEALTH_PORT is 9100, but /healthz and /metrics are served with the webhook "
            "on 9000 now",
        ),
        (
            {"TELEGRAM_WEBHOOK_URL": "https://bot.example/telegram", "LUDO_HEALTH_HOST": "::1"},
            "LUDO_HEALTH_HOST is ::1, but /healthz and /metrics are served with the webhook "
            "on 0.0.0.0 now",
        ),
        ({"LUDO_WEB_PORT": "9000", "LUDO_HEALTH_PORT": "9001"}, "LUDO_WEB_PORT (9000) and its"),
        ({"LUDO_WEB_PORT": "65536"}, "LUDO_WEB_PORT must be from 1 to 65535, not 65536"),
        ({"LUDO_WEB_HOST": "a b"}, "LUDO_WEB_HOST must be an IP address or a host"),
        ({"TELEGRAM_WEBHOOK_LISTEN": "a b"}, "TELEGRAM_WEBHOOK_LISTEN must be an IP address"),
    ],
)
def test_a_broken_operations_value_names_the_setting(env: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_settings(env)
    assert words in str(err.value)


# -- the SQLite file, checked before anything is created -------------------------


def test_a_database_in_a_missing_folder_is_refused_and_nothing_is_made(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "ludo.sqlite3"
    with pytest.raises(ConfigError, match=r"LUDO_DATABASE: the folder .*nowhere.* does not exist"):
        load_settings({"LUDO_DATABASE": str(path)})
    assert list(tmp_path.iterdir()) == []


def test_a_database_under_a_file_or_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings({"LUDO_DATABASE": str(tmp_path / "plain" / "ludo.sqlite3")})
    with pytest.raises(ConfigError, match="is a folder, not a file"):
        load_settings({"LUDO_DATABASE": str(tmp_path)})


def _settings_of(path: Path) -> Callable[[], str]:
    def attempt() -> str:
        load_settings({"LUDO_DATABASE": str(path)})
        return "accepted"

    return attempt


def test_a_database_in_an_unwritable_folder_is_refused(shared_dir: Path) -> None:
    folder = shared_dir / "locked"
    folder.mkdir()
    folder.chmod(0o777)
    assert unprivileged(_settings_of(folder / "ludo.sqlite3")) == "accepted"  # the control
    folder.chmod(0o555)
    got = unprivileged(_settings_of(folder / "ludo.sqlite3"))
    assert re.match(r"ConfigError: LUDO_DATABASE: the folder .* is not writable", got), got
    assert not (folder / "ludo.sqlite3").exists()


def test_a_read_only_database_is_refused(shared_dir: Path) -> None:
    path = shared_dir / "ludo.sqlite3"
    path.write_bytes(b"")
    path.chmod(0o666)
    assert unprivileged(_settings_of(path)) == "accepted"  # the control
    path.chmod(0o444)
    got = unprivileged(_settings_of(path))
    assert got.startswith("ConfigError: ") and "is read-only" in got, got


def test_with_redis_the_database_setting_is_not_checked(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere" / "x.db")
    s = load_settings({"REDIS_URL": "redis://localhost:6379/0", "LUDO_DATABASE": missing})
    assert s.uses_redis and s.database == missing


# -- .env ----------------------------------------------------------------------


def test_a_dotenv_file_gives_the_values_not_set_already(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\nLUDO_TURN_SECONDS=45\nexport LUDO_IMAGE_SIZE=900\n"
        "LOG_FORMAT='json'\nLUDO_LOBBY_MINUTES=5\nEMPTY=\n"
    )
    environ = {"LUDO_LOBBY_MINUTES": "12", "LUDO_DATABASE": str(tmp_path / "g.db")}
    assert load_env_file(env_file, environ) == env_file
    # what was set stays set; the rest comes from the file
    assert environ["LUDO_LOBBY_MINUTES"] == "12" and environ["EMPTY"] == ""
    s = load_settings(environ)
    assert (s.turn_seconds, s.image_size, s.log_format, s.lobby_minutes) == (45, 900, "json", 12)


def test_dotenv_of_the_working_directory_is_read_into_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("LUDO_TURN_SECONDS=33\nLUDO_HEALTH_PORT=9321\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LUDO_ENV_FILE", raising=False)
    monkeypatch.delenv("LUDO_TURN_SECONDS", raising=False)  # restored (unset) afterwards
    monkeypatch.setenv("LUDO_HEALTH_PORT", "9400")  # the environment wins
    monkeypatch.setenv("LUDO_DATABASE", str(tmp_path / "ludo.sqlite3"))
    assert load_env_file() == tmp_path / ".env"
    s = load_settings()
    assert s.turn_seconds == 33 and s.web_port == 9400


def test_no_dotenv_file_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    environ: dict[str, str] = {}
    assert load_env_file(environ=environ) is None and environ == {}


def test_ludo_env_file_names_another_file(tmp_path: Path) -> None:
    other = tmp_path / "prod.env"
    other.write_text("LUDO_IMAGE_SIZE=1200\n")
    environ = {"LUDO_ENV_FILE": str(other)}
    assert load_env_file(environ=environ) == other and environ["LUDO_IMAGE_SIZE"] == "1200"
    with pytest.raises(ConfigError, match=r"LUDO_ENV_FILE '.*missing\.env' does not exist"):
        load_env_file(environ={"LUDO_ENV_FILE": str(tmp_path / "missing.env")})


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"LUDO_TURN_SECONDS=30\nthis is not a setting\n", "line 2: expected NAME=value"),
        (b'A="never closed\n', "line 1: expected NAME=value"),
        (b"A=\xff\xfe\n", "is not UTF-8 text"),
    ],
)
def test_a_broken_dotenv_file_is_one_clear_error(
    tmp_path: Path, content: bytes, words: str
) -> None:
    env_file = tmp_path / ".env"
    env_file.write_bytes(content)
    environ: dict[str, str] = {}
    with pytest.raises(ConfigError, match=words):
        load_env_file(env_file, environ)
    assert environ == {}  # nothing half read


def test_open_configured_store_opens_the_sqlite_file(tmp_path: Path) -> None:
    from bot.store import SqliteStore

    settings = load_settings({"LUDO_DATABASE": str(tmp_path / "g.db")})
    store = open_configured_store(settings)
    try:
        assert isinstance(store, SqliteStore) and store.path == str(tmp_path / "g.db")
        assert store.ttl == settings.game_ttl
    finally:
        store.close()


class Reading(dict[str, str]):
    """An empty environment that notes every name asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(key)
        return super().get(key, default)


def test_every_setting_is_documented() -> None:
    env = Reading()
    load_settings(env)
    load_env_file(environ=env)
    names = env.asked
    assert {"LOG_LEVEL", "LUDO_HEALTH_PORT", "REDIS_SENTINELS", "LUDO_ENV_FILE"} <= names
    root = Path(__file__).resolve().parent.parent
    example = (root / ".env.example").read_text()
    readme = (root / "README.md").read_text()
    table = readme[readme.index("## Configuration") : readme.index("## Deployment")]
    for name in sorted(names - {"LUDO_ENV_FILE"}):  # the file cannot name itself
        assert f"\n{name}=" in example, f"{name} is not in .env.example"
    for name in sorted(names):
        assert f"`{name}`" in table, f"{name} is not in the README's Configuration table"


def test_open_configured_store_opens_redis_at_the_url(redis_url: str) -> None:
    from bot.store import RedisStore

    settings = load_settings({"REDIS_URL": redis_url, "LUDO_GAME_TTL_DAYS": "1"})
    store = open_configured_store(settings)
    try:
        assert isinstance(store, RedisStore) and store.ttl == 24 * 3600
    finally:
        store.close()
