"""The systemd unit, checked by systemd's own tools (offline, with a root of its
own, so no running systemd is needed), and the README's platform set-up.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import discord
from dotenv import dotenv_values

from tests.helpers.machine import systemd_analyze

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

# -- the systemd unit -------------------------------------------------------------

UNIT = ROOT / "deploy" / "ludo-bot.service"


def unit_settings() -> dict[str, list[str]]:
    """The unit's ``Key=value`` lines (a key may come more than once)."""
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def systemd_root(tmp: Path) -> Path:
    """A root for ``systemd-analyze --root``: the host's targets, the unit, and its
    program where the unit says (as the README's install puts it)."""
    units = tmp / "usr/lib/systemd/system"
    units.mkdir(parents=True)
    for target in Path("/usr/lib/systemd/system").glob("*.target"):
        if target.is_file() and not target.is_symlink():
            shutil.copy(target, units)
    (tmp / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, tmp / "etc/systemd/system")
    program = tmp / unit_settings()["ExecStart"][0].split()[0].lstrip("/")
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    return tmp


def test_env_example_reads_the_same_to_systemd() -> None:
    """.env.example, copied to the unit's EnvironmentFile, holds only plain
    ``NAME=value`` lines (no quotes, no ``export``), which systemd reads as the
    bot's own .env reader does."""
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    plain = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Z][A-Z0-9_]*=[^\s\"'`$\\#]*", line), line
            name, value = line.split("=", 1)
            plain[name] = value
    assert plain == dotenv_values(ROOT / ".env.example")


def test_systemd_unit_verifies(tmp_path: Path) -> None:
    """``systemd-analyze verify`` finds nothing to say (an unknown or misspelt value
    is a warning, so silence is required, not only status 0)."""
    run = subprocess.run(
        [systemd_analyze(), "verify", f"--root={systemd_root(tmp_path)}", UNIT.name],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout + run.stderr == "", run.stdout + run.stderr


def test_systemd_unit_is_hardened(tmp_path: Path) -> None:
    """systemd's own exposure score (0 safest, 10 none) is at most 2.0."""
    run = subprocess.run(
        [
            systemd_analyze(),
            "security",
            "--offline=true",
            "--threshold=20",
            f"--root={systemd_root(tmp_path)}",
            UNIT.name,
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr


def test_systemd_unit_runs_the_bot_as_its_own_user() -> None:
    unit = unit_settings()
    assert unit["User"][0] not in ("", "root", "0")
    assert unit["ExecStart"][0].endswith("/.venv/bin/ludo-bot run")
    assert unit["Restart"] == ["on-failure"]
    assert unit["RestartPreventExitStatus"] == ["2"]  # a setting that cannot work
    assert Path(unit["WorkingDirectory"][0]).is_absolute()
    assert Path(unit["EnvironmentFile"][0]).is_absolute()
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
    }.items():
        assert unit[key] == [value], key
    # the one writable place is the working directory, where .env.example's
    # LUDO_DATABASE (a relative path) puts the database
    workdir = unit["WorkingDirectory"][0]
    assert workdir in unit["ReadWritePaths"][0].split()
    example = dotenv_values(ROOT / ".env.example")
    assert not Path(example["LUDO_DATABASE"] or "/").is_absolute()
    # and the README's install puts the program where the unit looks for it
    install = str(Path(unit["ExecStart"][0].split()[0]).parent.parent.parent)
    assert f"{install} && sudo python3 -m venv .venv" in README


# -- README: the platforms -----------------------------------------------------------


def test_readme_invite_link_asks_for_exactly_the_named_permissions() -> None:
    """The permission integer of the invite URL is the sum of the permissions the
    README names, computed by discord.py."""
    section = README.split("### The Discord application", 1)[1].split("\n### ", 1)[0]
    url = re.search(r"https://discord\.com/oauth2/authorize\?\S+", section)
    assert url is not None
    assert "scope=bot+applications.commands" in url.group(0)
    given = int(re.search(r"permissions=(\d+)", url.group(0)).group(1))  # type: ignore[union-attr]
    named = discord.Permissions(
        view_channel=True,
        send_messages=True,
        send_messages_in_threads=True,
        embed_links=True,
        attach_files=True,
    )
    assert given == named.value
    for words in ("View Channels", "Send Messages in Threads", "Embed Links", "Attach Files"):
        assert words in section
