"""LOG_LEVEL and LOG_FORMAT: what ``ludo-bot run`` logs, and how (text or JSON lines)."""

from __future__ import annotations

import io
import json
import logging
from datetime import datetime
from pathlib import Path

import pytest

from bot.app.cli import main
from bot.app.logs import JsonFormatter, setup_logging

pytestmark = pytest.mark.usefixtures("keep_logging")


def test_json_lines_carry_time_level_logger_message_and_the_traceback() -> None:
    out = io.StringIO()
    setup_logging("INFO", "json", out)
    log = logging.getLogger("bot.test")
    log.info("game %s opened in %s", "ab12", "tg:-100 «chat»")
    log.debug("not shown at INFO")
    try:
        {}["missing"]
    except KeyError:
        log.exception("a press failed")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2  # one object a line, the traceback inside its line
    first, second = (json.loads(line) for line in lines)
    assert set(first) == {"time", "level", "logger", "message"}
    assert first["level"] == "INFO" and first["logger"] == "bot.test"
    assert first["message"] == "game ab12 opened in tg:-100 «chat»"
    assert datetime.fromisoformat(first["time"]).utcoffset() is not None
    assert second["level"] == "ERROR" and second["message"] == "a press failed"
    assert isinstance(second["exc_info"], str)
    assert (
        second["exc_info"].startswith("Traceback") and "KeyError: 'missing'" in second["exc_info"]
    )


def test_text_lines_and_the_level() -> None:
    out = io.StringIO()
    setup_logging("warning", "text", out)
    log = logging.getLogger("bot.test")
    log.info("quiet")
    log.warning("the store is unreachable")
    assert out.getvalue().count("\n") == 1
    assert out.getvalue().rstrip().endswith(" WARNING bot.test: the store is unreachable")


def test_the_libraries_stay_at_warning_unless_the_level_is_higher() -> None:
    out = io.StringIO()
    setup_logging("DEBUG", "json", out)
    logging.getLogger("discord.gateway").info("heartbeat")
    logging.getLogger("bot.x").debug("ours")
    assert [json.loads(line)["logger"] for line in out.getvalue().splitlines()] == ["bot.x"]
    setup_logging("ERROR", "json", out)
    assert logging.getLogger("discord").level == logging.ERROR


def test_setup_replaces_the_handlers_and_refuses_unknown_values() -> None:
    first, second = io.StringIO(), io.StringIO()
    setup_logging("INFO", "text", first)
    setup_logging("INFO", "json", second)
    logging.getLogger("bot.test").info("once")
    assert first.getvalue() == "" and json.loads(second.getvalue())["message"] == "once"
    with pytest.raises(ValueError):
        setup_logging("LOUD")
    with pytest.raises(ValueError):
        setup_logging("INFO", "xml")


def test_a_record_formatted_twice_is_the_same_line() -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "m", None, None)
        import sys

        record.exc_info = sys.exc_info()
    fmt = JsonFormatter()
    assert fmt.format(record) == fmt.format(record)


def test_run_applies_the_logging_settings_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # ludo-bot run with LOG_FORMAT=json and no platform: logging is set up (JSON on
    # standard error) before the run ends with its one line.
    monkeypatch.chdir(tmp_path)
    for name in (
        "TELEGRAM_TOKEN",
        "DISCORD_TOKEN",
        "REDIS_URL",
        "REDIS_SENTINELS",
        "LUDO_ENV_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOG_FORMAT", "json")
    monkeypatch.setenv("LOG_LEVEL", "WARNING")
    monkeypatch.setenv("LUDO_DATABASE", str(tmp_path / "ludo.sqlite3"))
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err == "ludo-bot: no chat platform is configured: set TELEGRAM_TOKEN or DISCORD_TOKEN\n"
    root = logging.getLogger()
    assert root.level == logging.WARNING
    assert [type(h.formatter) for h in root.handlers] == [JsonFormatter]
    assert not (tmp_path / "ludo.sqlite3").exists()  # refused before the store was made
