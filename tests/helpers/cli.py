"""Running ``ludo-bot`` as its users do: the installed command (``python -m bot.app.cli``
where it is not installed), run to its end or started as a process in an environment
of the test's settings only, and the record of a short game to give it."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: a short game from the start: two players
RECORD = {
    "rules": "classic",
    "players": ["red", "yellow"],
    "turn": "red",
    "actions": [{"roll": 6}, {"move": 0}, {"roll": 3}, {"move": 0}],
}


def ludo_bot_command() -> list[str]:
    """The ``ludo-bot`` command: the script installed beside this Python, else the module."""
    exe = shutil.which("ludo-bot", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "bot.app.cli"]


def ludo_bot(
    *args: str, stdin: str = "", env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``ludo-bot args...`` run to its end, given ``stdin`` (in ``env``, by default this
    process's environment): its exit code and output."""
    return subprocess.run(
        [*ludo_bot_command(), *args],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


#: the bot's own settings in the environment (a test sets those it means)
SETTINGS = ("TELEGRAM_", "DISCORD_", "REDIS_", "LUDO_", "LOG_", "HEALTH_")


def environment(**settings: str) -> dict[str, str]:
    """This process's environment without the bot's own settings, plus ``settings``."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith(SETTINGS)}
    return kept | settings


async def start_ludo_bot(
    *args: str, env: dict[str, str], cwd: Path, stderr: int = asyncio.subprocess.PIPE
) -> asyncio.subprocess.Process:
    """``ludo-bot args...`` started in ``cwd`` with ``env``, its output piped (its errors
    to a pipe of their own, or with ``stderr=asyncio.subprocess.STDOUT`` to the output)."""
    return await asyncio.create_subprocess_exec(
        *ludo_bot_command(),
        *args,
        env=env,
        cwd=str(cwd),
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )
