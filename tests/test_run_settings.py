"""``ludo-bot run`` reads its settings from the environment and from ``.env``, and
refuses a broken one in one line before anything is made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def clean_env(**values: str) -> dict[str, str]:
    """This process's environment without any ludo-bot setting, plus ``values``."""
    prefixes = ("LUDO_", "TELEGRAM_", "DISCORD_", "REDIS_", "LOG_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    return {**env, **values}


def run_in(folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.app.cli", *args],
        cwd=folder,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_run_reads_dotenv_in_the_working_directory(tmp_path: Path) -> None:
    # a bad value in .env stops the run with one line naming it: the file was read
    (tmp_path / ".env").write_text("LUDO_IMAGE_SIZE=600\nLUDO_TURN_SECONDS=soon\n")
    done = run_in(tmp_path, clean_env(), "run")
    assert done.returncode == 2
    assert done.stderr == "ludo-bot: LUDO_TURN_SECONDS must be a whole number, not 'soon'\n"
    assert list(tmp_path.iterdir()) == [tmp_path / ".env"]  # nothing made


def test_run_keeps_what_the_environment_sets_over_dotenv(tmp_path: Path) -> None:
    # the environment's valid value wins over the file's broken one: the run gets as
    # far as the missing platform token
    (tmp_path / ".env").write_text("LUDO_TURN_SECONDS=soon\n")
    done = run_in(tmp_path, clean_env(LUDO_TURN_SECONDS="30"), "run")
    assert done.returncode == 2
    assert done.stderr == (
        "ludo-bot: no chat platform is configured: set TELEGRAM_TOKEN or DISCORD_TOKEN\n"
    )


def test_run_reads_the_env_file_named_by_ludo_env_file(tmp_path: Path) -> None:
    (tmp_path / "prod.env").write_text("LOG_LEVEL=chatty\n")
    done = run_in(tmp_path, clean_env(LUDO_ENV_FILE="prod.env"), "run")
    assert done.returncode == 2
    assert done.stderr == (
        "ludo-bot: LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, not 'chatty'\n"
    )
    done = run_in(tmp_path, clean_env(LUDO_ENV_FILE="missing.env"), "run")
    assert done.returncode == 2
    assert done.stderr == "ludo-bot: LUDO_ENV_FILE 'missing.env' does not exist\n"


def test_run_refuses_a_broken_dotenv_line_and_a_database_it_cannot_make(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TELEGRAM_TOKEN=1:x\nnot a setting\n")
    done = run_in(tmp_path, clean_env(), "run")
    assert done.returncode == 2
    assert done.stderr.startswith("ludo-bot: ") and "line 2: expected NAME=value" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    (tmp_path / ".env").write_text("TELEGRAM_TOKEN=1:x\nLUDO_DATABASE=data/ludo.sqlite3\n")
    done = run_in(tmp_path, clean_env(), "run")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("ludo-bot: LUDO_DATABASE: the folder ")
    assert done.stderr.endswith("data' does not exist\n")
    assert not (tmp_path / "data").exists()
