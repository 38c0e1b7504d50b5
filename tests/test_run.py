"""``ludo-bot run`` as an operator runs it: a real process against the fake Telegram,
with its health and metrics port; SIGTERM ends it cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.app.runner import count_games, production_warnings
from bot.ops.metrics import REGISTRY
from bot.store import RedisStore, SqliteStore
from tests.fakes.telegram import TOKEN, FakeTelegram, free_port, make_user
from tests.helpers.cli import environment, start_ludo_bot

pytestmark = pytest.mark.telegram

ROOT = Path(__file__).resolve().parent.parent
ANA = make_user(101, "Ana")


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def healthy(url: str, timeout: float = 30.0) -> str:
    """Wait until ``/healthz`` answers 200; its body."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last = "no answer"
    while loop.time() < deadline:
        try:
            status, body = await get(f"{url}/healthz")
        except aiohttp.ClientError as e:
            last = str(e)
        else:
            if status == 200:
                return body
            last = f"{status} {body}"
        await asyncio.sleep(0.1)
    raise AssertionError(f"/healthz never said ok: {last}")


async def run_bot(
    fake: FakeTelegram, tmp_path: Path, port: int, stderr: int, **env: str
) -> asyncio.subprocess.Process:
    """``ludo-bot run`` in ``tmp_path`` against ``fake`` (a SQLite file there, health on
    ``port``), configured by ``env`` besides; its errors piped (``stderr``)."""
    settings = environment(
        TELEGRAM_TOKEN=TOKEN,
        TELEGRAM_API_URL=fake.url,
        LUDO_DATABASE=str(tmp_path / "run.sqlite3"),
        LUDO_HEALTH_PORT=str(port),
        PYTHONWARNINGS="ignore",
        **env,
    )
    return await start_ludo_bot("run", env=settings, cwd=tmp_path, stderr=stderr)


async def test_the_bot_serves_reports_its_health_and_stops_cleanly_on_sigterm(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    port = free_port()
    proc = await run_bot(fake, tmp_path, port, asyncio.subprocess.PIPE, LOG_FORMAT="json")
    try:
        url = f"http://127.0.0.1:{port}"
        body = await healthy(url)
        assert '"store"' in body and '"telegram"' in body
        # it serves: a person opens a game in a group
        group = fake.group("Ludo")
        fake.send_text(group, ANA, "/ludo classic")
        await fake.wait_call("sendMessage", timeout=20)
        status, text = await get(f"{url}/metrics")
        assert status == 200
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        assert samples[("ludo_platform_connected", (("platform", "telegram"),))] == 1
        assert samples[("ludo_store_reachable", ())] == 1
        done = [
            v
            for (name, labels), v in samples.items()
            if name == "ludo_presses_total" and ("result", "done") in labels
        ]
        assert sum(done) >= 1, "the /ludo command was counted"
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    stderr = err.decode()
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    # JSON lines for a log collector
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines and all(line.startswith("{") and line.endswith("}") for line in lines), stderr


async def test_the_active_games_are_counted_for_the_figures(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "games.sqlite3"))
    for k in range(2):
        assert store.create(f"g{k}", b"x", channel=f"c{k}")
    stop = asyncio.Event()
    task = asyncio.ensure_future(count_games(store, stop, every=0.02))
    try:
        await asyncio.sleep(0.1)
        assert REGISTRY.get_sample_value("ludo_games_active") == 2
        store.release_channel("c0", "g0")
        await asyncio.sleep(0.1)
        assert REGISTRY.get_sample_value("ludo_games_active") == 1
    finally:
        stop.set()
        await asyncio.wait_for(task, 5)
        store.close()


def test_the_runner_passes_on_what_the_store_finds_risky(tmp_path: Path, redis_url: str) -> None:
    sqlite = SqliteStore(str(tmp_path / "games.sqlite3"))
    assert production_warnings(sqlite) == []  # nothing to check in a file
    sqlite.close()
    store = RedisStore(redis_url)
    try:
        said = production_warnings(store)
        assert said == store.production_warnings()
        assert all(isinstance(line, str) and "\n" not in line for line in said)
    finally:
        store.close()


class Lines:
    """A process's standard error, line by line as it comes."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.lines: list[str] = []
        self._new = asyncio.Event()
        self.task = asyncio.ensure_future(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            self.lines.append(raw.decode().rstrip("\n"))
            self._new.set()

    async def wait_for(self, words: str, since: int = 0, timeout: float = 10.0) -> str:
        """The first line from ``since`` on with ``words`` in it, once it comes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for line in self.lines[since:]:
                if words in line:
                    return line
            self._new.clear()
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"no line with {words!r}: {self.lines[since:]}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)


@pytest.mark.slow
async def test_telegram_unreachable_is_a_few_lines_and_sigterm_stops_at_once(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram unreachable: one warning when it begins, one when it ends (how long),
    not a traceback per retry; unreachable for 20 s, the bot still stops within 2 s of
    SIGTERM, saying why."""
    port = free_port()
    proc = await run_bot(fake, tmp_path, port, asyncio.subprocess.STDOUT)
    assert proc.stdout is not None
    log = Lines(proc.stdout)
    try:
        await healthy(f"http://127.0.0.1:{port}")
        # the start: the bot's account named, one line for the web server
        start = await log.wait_for("ludo-bot is running")
        assert start.endswith("ludo-bot is running on Telegram @ludo_test_bot (polling)"), start
        served = [line for line in log.lines if "/healthz" in line]
        assert served == [log.lines[0]] and served[0].endswith(
            f"serving /healthz and /metrics at http://127.0.0.1:{port}"
        ), log.lines
        # a short outage: a warning when it begins, one when it ends
        api_port = fake.port
        mark = len(log.lines)
        await fake.close()
        lost = await log.wait_for("Telegram does not answer: ", mark)
        assert "WARNING" in lost and "(trying again until it does)" in lost
        await asyncio.sleep(1.0)
        await fake.start(api_port)
        fake.send_text(fake.group("Ludo"), ANA, "hello")  # the next long poll answers at once
        back = await log.wait_for("Telegram answers again after ", mark)
        assert "WARNING" in back and back.endswith(" s")
        assert log.lines[mark:] == [lost, back], log.lines[mark:]
        # 20 s unreachable, then SIGTERM
        mark = len(log.lines)
        await fake.close()
        await asyncio.sleep(20.0)
        outage = list(log.lines[mark:])
        sent = asyncio.get_running_loop().time()
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 30)
        took = asyncio.get_running_loop().time() - sent
        await asyncio.wait_for(log.task, 5)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    said = log.lines[mark:]
    print(
        f"\n20 s unreachable: {len(outage)} log line(s); SIGTERM to exit: {took:.2f} s; "
        f"{len(said)} line(s) in all:\n" + "\n".join(said)
    )
    assert proc.returncode == 0, "\n".join(log.lines)
    assert took < 2.0, f"{took:.2f} s from SIGTERM to exit"
    assert len(outage) == 1 and "Telegram does not answer: " in outage[0], outage
    assert len(said) <= 3, said
    assert "Telegram had not answered for 2" in said[1] and said[1].endswith(
        " s when the bot stopped"
    ), said
    assert said[-1].split(": ", 1)[1].startswith("ludo-bot stopped: SIGTERM (in "), said
    assert not [line for line in log.lines if "Traceback" in line]


async def test_a_start_refused_at_its_checks_leaves_no_file(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram or Redis unreachable, the token refused, the web port taken: one line
    saying what to fix, and no database file (nor anything else) made; what may well
    work later by itself (an unreachable platform or store) exits 75, which systemd
    starts again, the rest 2, which it does not (deploy/ludo-bot.service)."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    nowhere = f"http://127.0.0.1:{free_port()}"
    no_redis = f"redis://127.0.0.1:{free_port()}/0"
    cases = {
        "unreachable": ({"TELEGRAM_API_URL": nowhere}, "cannot reach the Telegram Bot API", 75),
        "no redis": ({"REDIS_URL": no_redis}, "cannot reach Redis at redis://127.0.0.1:", 75),
        "refused": ({"TELEGRAM_TOKEN": "999:wrong"}, "Telegram refused TELEGRAM_TOKEN", 2),
        "port": (
            {"LUDO_HEALTH_PORT": str(taken.getsockname()[1])},
            "cannot serve /healthz and /metrics on 127.0.0.1:",
            2,
        ),
    }
    env = environment(TELEGRAM_TOKEN=TOKEN, TELEGRAM_API_URL=fake.url, LUDO_HEALTH_HOST="127.0.0.1")
    try:
        for name, (settings, words, status) in cases.items():
            folder = tmp_path / name
            folder.mkdir()
            proc = await start_ludo_bot("run", env=env | settings, cwd=folder)
            _, err = await asyncio.wait_for(proc.communicate(), 60)
            said = err.decode()
            assert proc.returncode == status, said
            assert said.startswith(f"ludo-bot: {words}") and said.count("\n") == 1, said
            assert list(folder.iterdir()) == [], f"{name}: {list(folder.iterdir())}"
    finally:
        taken.close()
