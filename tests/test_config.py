"""Settings from the environment: defaults, and a clear word for a broken value."""

from __future__ import annotations

import pytest

from bot.app.config import ConfigError, load_settings


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
