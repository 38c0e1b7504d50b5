"""Discord's invalid requests (401, 403, 429), as the bot counts them: every answer to
the tables (discord.py's trace) and to the live board's sign-in, in
``ludo_discord_invalid_total`` and in a 10-minute window that ``/healthz`` warns of
well before a tenth of Discord's limit."""

from __future__ import annotations

import asyncio

import pytest

from bot.app.health import health_warnings
from bot.ops import invalid
from bot.ops.invalid import LIMIT, WARN_AT, WINDOW, Window, answered, warnings
from bot.ops.metrics import REGISTRY
from bot.store import Store
from tests.helpers.stores import FakeClock
from tests.helpers.web_server import ask_healthz


def total(caller: str) -> float:
    return REGISTRY.get_sample_value("ludo_discord_invalid_total", {"caller": caller}) or 0.0


def test_only_401_403_and_429_are_invalid_and_each_caller_is_counted() -> None:
    bot, web = total("bot"), total("web")
    assert [answered(s, "bot") for s in (200, 204, 400, 401, 403, 404, 429, 500)] == [
        False, False, False, True, True, False, True, False,
    ]  # fmt: skip
    assert answered(401, "web")
    assert (total("bot") - bot, total("web") - web) == (3, 1)


def test_the_window_counts_the_last_10_minutes() -> None:
    clock = FakeClock(1000.0)
    window = Window(clock)
    window.add(3)
    clock.advance(WINDOW / 2)
    window.add()
    assert window.count() == 4
    clock.advance(WINDOW / 2 + 10)  # the first three are older than 10 minutes now
    assert window.count() == 1
    clock.advance(WINDOW)
    assert window.count() == 0


def test_healthz_warns_before_the_count_nears_a_tenth_of_the_limit(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert WARN_AT < LIMIT // 10
    clock = FakeClock(0.0)
    window = Window(clock)
    monkeypatch.setattr(invalid, "RECENT", window)
    window.add(WARN_AT - 1)
    assert warnings(window) == {} and health_warnings(sqlite_store) == {}
    window.add()
    said = health_warnings(sqlite_store)["discord"]
    assert said.startswith(f"{WARN_AT} requests answered 401, 403 or 429 in the last 10 minutes")
    assert "10,000" in said

    status, body = asyncio.run(ask_healthz(lambda: health_warnings(sqlite_store)))
    assert status == 200 and body["warnings"] == {"discord": said}
    clock.advance(WINDOW + 1)  # ten quiet minutes later, the warning is gone
    assert health_warnings(sqlite_store) == {}
