"""The Discord gateway and the bot's token, end to end: sharded sessions, a configured
gateway URL, a wrong token failing the start with one line (and ``ludo-bot run``
exiting with it), a session refused for good, at the start or while running, reported
with what to fix."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from bot.adapters.discord import AdapterError
from bot.hosting import LOBBY
from bot.store import SqliteStore
from tests.fakes.discord import FakeDiscord
from tests.helpers.cli import environment, start_ludo_bot
from tests.helpers.discord import ANA, BEN, Harness, one_line
from tests.helpers.faults import sample

pytestmark = pytest.mark.discord


# ----------------------------------------------------------------------
# gateway settings


async def test_sharded_sessions(h: Harness, fake: FakeDiscord) -> None:
    await h.start(shard_count=2, shard_ids=(0, 1))
    assert not fake.calls_to("GET", "/gateway/bot")
    shards = sorted(c.shard for c in fake.connections)
    assert shards == [(0, 2), (1, 2)]
    assert all(c.path == "/gateway" for c in fake.connections)
    # the guild's shard delivers its interactions
    game_id, _lobby = await h.lobby(ANA, BEN)
    assert h.game(game_id).status == LOBBY
    h.check_clean()


async def test_configured_gateway_url_is_used(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """DISCORD_GATEWAY_URL must be where the bot connects, also with automatic sharding
    (when discord.py asks /gateway/bot, whose answer points elsewhere)."""
    fake = FakeDiscord(bot_gateway_path="/gateway-from-api")
    await fake.start()
    h = Harness(fake, SqliteStore(str(tmp_path / "ludo.sqlite3")), caplog)
    try:
        await h.start()
        assert [c.path for c in fake.connections] == ["/gateway"], (
            "the bot connected to the gateway /gateway/bot named, not the configured one"
        )
    finally:
        await h.stop_all()
        h.store.close()
        await fake.close()


# ----------------------------------------------------------------------
# a wrong token


async def test_wrong_token_fails_start_with_one_line(h: Harness, fake: FakeDiscord) -> None:
    adapter = h.make(token="not-the-token")
    with pytest.raises(AdapterError) as err:
        await adapter.start(ready_timeout=10)
    assert one_line(str(err.value)) and "DISCORD_TOKEN" in str(err.value)
    (me,) = fake.calls_to("GET", "/users/@me")
    assert me.status == 401 and me.authorization == "Bot not-the-token"
    assert not fake.command_syncs and not fake.connections


async def test_failed_start_closes_the_client(h: Harness, fake: FakeDiscord) -> None:
    """A start that fails must not leave discord.py's HTTP session open (aiohttp then
    complains "Unclosed client session" / "Unclosed connector" on stderr)."""
    adapter = h.make(token="not-the-token")
    with pytest.raises(AdapterError):
        await adapter.start(ready_timeout=10)
    assert adapter.client.is_closed(), "the failed start left the client and its session open"


async def test_run_with_wrong_token_exits_with_one_line(fake: FakeDiscord, tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("ludo-bot")
    cmd = [str(script), "run"] if script.exists() else [sys.executable, "-m", "bot.app.cli", "run"]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISCORD_", "TELEGRAM_", "REDIS_", "LUDO_"))
    }
    env.update(
        DISCORD_TOKEN="wrong-token",
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        LUDO_DATABASE=str(tmp_path / "ludo.sqlite3"),
    )
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        env=env,
        cwd=str(Path(__file__).resolve().parents[1]),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    stderr = err.decode()
    assert proc.returncode == 2, (proc.returncode, stderr)  # not started again
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"one line expected on stderr, got:\n{stderr}"
    assert "DISCORD_TOKEN" in lines[0]
    assert fake.calls_to("GET", "/users/@me")[0].status == 401
    assert not fake.connections


async def test_run_that_cannot_reach_discord_exits_to_be_started_again(tmp_path: Path) -> None:
    # 75 (EX_TEMPFAIL): deploy/ludo-bot.service starts it again, as it does not on 2
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{closed.getsockname()[1]}/api/v10"
    settings = environment(
        DISCORD_TOKEN="some-token",
        DISCORD_API_BASE=nowhere,
        LUDO_DATABASE=str(tmp_path / "ludo.sqlite3"),
    )
    proc = await start_ludo_bot("run", env=settings, cwd=tmp_path)
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    stderr = err.decode()
    assert proc.returncode == 75, (proc.returncode, stderr)
    assert stderr.startswith("ludo-bot: cannot reach Discord") and stderr.count("\n") == 1, stderr
    assert list(tmp_path.iterdir()) == []  # checked before the database was made


# ----------------------------------------------------------------------
# faults: Discord refusing the bot for good, the store down, the figures


#: what each fatal close code's line must name (what to fix)
FIX = {
    4004: "DISCORD_TOKEN",
    4010: "DISCORD_SHARD_IDS",
    4011: "DISCORD_SHARD_COUNT",
    4013: "intents",
    4014: "Privileged Gateway Intents",
}


@pytest.mark.parametrize("code", sorted(FIX))
async def test_a_gateway_refusing_the_session_fails_start_with_what_to_fix(
    h: Harness, fake: FakeDiscord, code: int
) -> None:
    """REST takes the token, the gateway closes IDENTIFY with a code no reconnection
    mends: start fails at once with one line naming the code and what to fix."""
    fake.refuse_identify = code
    adapter = h.make()
    began = time.monotonic()
    with pytest.raises(AdapterError) as err:
        await adapter.start(ready_timeout=15)
    assert time.monotonic() - began < 5
    message = str(err.value)
    assert one_line(message) and str(code) in message and FIX[code] in message, message
    assert fake.calls_to("GET", "/users/@me")[0].status == 200
    assert [c.close_code for c in fake.connections] == [code]
    assert adapter.client.is_closed()
    assert sample("ludo_platform_connected", platform="discord") == 0


@pytest.mark.parametrize("how", ["token reset", "intents disallowed"])
async def test_a_session_refused_while_running_is_reported_within_seconds(
    h: Harness, fake: FakeDiscord, how: str
) -> None:
    """Running, then Discord ends the session for good: the token reset (the reconnection's
    IDENTIFY closed with 4004) or the intents disallowed (the live session closed with
    4014).  ``failed()`` says so within seconds, in one line; the bot counts as offline."""
    adapter = await h.start()
    assert sample("ludo_platform_connected", platform="discord") == 1
    assert adapter.fatal.error is None
    began = time.monotonic()
    if how == "token reset":
        code = 4004
        fake.refuse_identify = code
        await fake.drop_sessions(4000)  # discord.py resumes, then identifies again
    else:
        code = 4014
        await fake.drop_sessions(code)
    error = await asyncio.wait_for(adapter.failed(), 15)
    assert time.monotonic() - began < 10
    assert isinstance(error, AdapterError) and adapter.fatal.error is error
    assert one_line(str(error)) and str(code) in str(error) and FIX[code] in str(error)
    assert fake.connections[-1].close_code == code
    assert adapter.client.is_closed()
    assert sample("ludo_platform_connected", platform="discord") == 0
    await adapter.stop()  # stopping after the failure is quiet
    h.check_clean()


async def run_ludo_bot(fake: FakeDiscord, tmp_path: Path, **env: str) -> asyncio.subprocess.Process:
    """``ludo-bot run`` against the fake, configured by ``env`` (besides the fake's)."""
    settings = environment(
        DISCORD_TOKEN=fake.token,
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        LUDO_DATABASE=str(tmp_path / "ludo.sqlite3"),
        PYTHONWARNINGS="ignore",
        **env,
    )
    return await start_ludo_bot("run", env=settings, cwd=Path(__file__).resolve().parents[1])


async def test_run_exits_with_one_line_when_the_gateway_refuses_the_token(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The issue's case: REST takes the token, the gateway closes with 4004.  ``ludo-bot
    run`` must not stay up offline: it exits non-zero within seconds, with one line."""
    fake.refuse_identify = 4004
    began = time.monotonic()
    proc = await run_ludo_bot(fake, tmp_path)
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    stderr = err.decode()
    assert proc.returncode not in (0, None), (proc.returncode, stderr)
    assert time.monotonic() - began < 30
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"one line expected on stderr, got:\n{stderr}"
    assert "4004" in lines[0] and "DISCORD_TOKEN" in lines[0]
    assert fake.token not in stderr, "the error line prints the bot token"
    assert fake.calls_to("GET", "/users/@me")[0].status == 200
    assert [c.close_code for c in fake.connections] == [4004]


async def test_run_exits_with_one_line_when_the_intents_are_disallowed_while_running(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Connected and serving, then Discord closes the session with 4014: the process
    stops everything and exits non-zero within seconds, with one line saying what to fix."""
    proc = await run_ludo_bot(fake, tmp_path, LOG_LEVEL="WARNING")
    try:
        await fake.wait_ready(30)
    except BaseException:
        proc.kill()
        raise
    began = time.monotonic()
    await fake.drop_sessions(4014)
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:  # never left running: it would take the next fake's port
            proc.kill()
            await proc.wait()
    stderr = err.decode()
    assert proc.returncode not in (0, None), (proc.returncode, stderr)
    assert time.monotonic() - began < 15
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"one line expected on stderr, got:\n{stderr}"
    assert "4014" in lines[0] and "intents" in lines[0]
