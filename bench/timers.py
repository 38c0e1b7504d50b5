"""Many games open at once with turn timers: memory per game, and 2 workers firing
every deadline when they all fall due together.

    python bench/timers.py [--games N] [--sqlite-games M] [--workers W]

For each store (a local redis-server started as the tests start one, or
``REDIS_URL``; then a SQLite file in a temporary folder), ``--workers`` worker
processes (multiprocessing, spawn), each with its own :class:`GameService` and
store, open their share of the games through the service: one person and three
computer players each, started, a 120 s turn timer, and the adapters' note of
what the chat shows.  Every service runs on one clock, stopped at the same
instant, so every deadline is the same.  Then:

- memory per game: Redis ``INFO used_memory`` after the games were opened minus
  before, over the games; for SQLite the size of the file (checkpointed) over
  the games;
- firing: the workers wait at a barrier, then call ``fire_due`` with the clock
  past the deadlines until it has nothing more for them.  Timed from the barrier
  to the last worker done.  Checked: every game's timeout came out of exactly one
  worker once, every game was saved exactly once more (its revision) and has
  exactly one timeout on its seats.

Target: 10,000 deadlines due at once fire within 30 s with 2 workers, each
exactly once.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for the local redis-server of the tests
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bot.adapters.reconcile import Notes  # noqa: E402
from bot.hosting import Game, Intent, User  # noqa: E402
from bot.service.game import GameService  # noqa: E402
from bot.store import RedisStore, SqliteStore, Store  # noqa: E402
from tests.helpers.local_redis import redis_binary, start_redis, stop_redis  # noqa: E402

#: every deadline due at once should fire within this many seconds
TARGET_SECONDS = 30.0
RULES = ["classic", "tower", "italian", "super"]
TIMER = 120


def make_store(kind: str, target: str, prefix: str) -> Store:
    if kind == "redis":
        return RedisStore(target, prefix=prefix)
    return SqliteStore(target)


def open_games(svc: GameService, name: str, count: int) -> dict[str, int]:
    """``count`` started games, one person (on turn) and three computers each, with
    what the chat shows noted; each game's id and saved revision."""
    made: dict[str, int] = {}
    for g in range(count):
        person = User("bench", f"{name}-{g}", f"Person {g}")
        channel = f"{name}-{g}"
        svc.open(channel, person, RULES[g % len(RULES)], timer=TIMER)
        for _ in range(3):
            svc.act(channel, person, Intent("add_computer"))
        outcome = svc.act(channel, person, Intent("start"))
        game = outcome.game
        assert game is not None and game.deadline is not None, outcome.refusal
        shown = Notes(str(1_000_000 + g), game.rev, person.id, "picture").to_bytes()
        assert svc.note_shown(game.id, shown, 0)
        made[game.id] = game.rev
    return made


def worker(
    kind: str,
    target: str,
    prefix: str,
    index: int,
    count: int,
    now: float,
    opened: Barrier,
    go: Barrier,
    results: Any,
) -> None:
    """Open ``count`` games, wait for the others, then fire every deadline due."""
    store = make_store(kind, target, prefix)
    svc = GameService(store, clock=lambda: now)
    made = open_games(svc, f"w{index}", count)
    opened.wait()
    go.wait()
    start = time.monotonic()
    fired: list[str] = []
    rounds = 0
    while True:
        out = svc.fire_due(now + TIMER + 60)
        rounds += 1
        if not out:
            break
        fired += [o.game.id for o in out if o.game is not None]
    done = time.monotonic()
    ok = svc.store_answered
    store.close()
    results.put((index, made, fired, start, done, rounds, ok))


def used_memory(kind: str, target: str) -> int:
    """Redis's used_memory, or the SQLite file's size once its log is checkpointed."""
    if kind == "redis":
        client = redis.Redis.from_url(target)
        try:
            return int(client.info("memory")["used_memory"])
        finally:
            client.close()
    if not os.path.exists(target):
        return 0
    conn = sqlite3.connect(target, timeout=30)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return os.path.getsize(target)


def check(kind: str, target: str, prefix: str, made: dict[str, int], fired: list[str]) -> str:
    """'' if every game fired exactly once, else what went wrong."""
    counts = Counter(fired)
    twice = [g for g, n in counts.items() if n > 1]
    lost = [g for g in made if g not in counts]
    unknown = [g for g in counts if g not in made]
    store = make_store(kind, target, prefix)
    wrong = []
    try:
        for game_id, rev in made.items():
            stored = store.load(game_id)
            if stored is None:
                wrong.append(f"{game_id} gone")
                continue
            game = Game.from_bytes(stored.data, stored.rev)
            timeouts = sum(seat.timeouts for seat in game.seats)
            if stored.rev != rev + 1 or timeouts != 1:
                wrong.append(f"{game_id} rev {rev}->{stored.rev}, {timeouts} timeouts")
    finally:
        store.close()
    problems = []
    for what, ids in (("fired twice", twice), ("lost", lost), ("unknown", unknown)):
        if ids:
            problems.append(f"{len(ids)} {what} (e.g. {ids[:3]})")
    if wrong:
        problems.append(f"{len(wrong)} saved wrongly (e.g. {wrong[:3]})")
    return "; ".join(problems)


def run(kind: str, target: str, games: int, workers: int) -> bool:
    """Open ``games`` games with ``workers`` processes and fire them; prints the
    figures; whether every deadline fired once within the target."""
    ctx = mp.get_context("spawn")
    opened, go = ctx.Barrier(workers + 1), ctx.Barrier(workers + 1)
    results = ctx.Queue()
    prefix = f"bench-timers-{os.getpid()}:"
    now = time.time()
    before = used_memory(kind, target)
    shares = [games // workers + (1 if i < games % workers else 0) for i in range(workers)]
    procs = [
        ctx.Process(
            target=worker,
            args=(kind, target, prefix, i, shares[i], now, opened, go, results),
        )
        for i in range(workers)
    ]
    t0 = time.monotonic()
    for p in procs:
        p.start()
    opened.wait(timeout=games + 120)
    setup = time.monotonic() - t0
    per_game = (used_memory(kind, target) - before) / games
    go.wait(timeout=120)
    got = [results.get(timeout=games + 120) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        if p.exitcode != 0:
            sys.exit(f"a worker failed (exit code {p.exitcode})")
    made: dict[str, int] = {}
    fired: list[str] = []
    for _index, m, f, _start, _done, _rounds, ok in got:
        made.update(m)
        fired += f
        if not ok:
            print(f"{kind}: a worker lost the store while firing")
    took = max(g[4] for g in got) - min(g[3] for g in got)
    split = "/".join(str(len(g[2])) for g in got)
    problems = check(kind, target, prefix, made, fired)
    memory = "bytes of used_memory" if kind == "redis" else "bytes of file"
    print(
        f"{kind:6} {games} games opened by {workers} workers in {setup:.1f} s; "
        f"{per_game:,.0f} {memory} a game"
    )
    verdict = problems or "each exactly once"
    print(
        f"{kind:6} {len(fired)} deadlines fired in {took:.2f} s "
        f"({len(fired) / took:,.0f}/s; per worker {split}): {verdict}",
        flush=True,
    )
    if kind == "redis":
        client = redis.Redis.from_url(target)
        for key in client.scan_iter(f"{prefix}*", count=1000):
            client.delete(key)
        client.close()
    return not problems and took <= TARGET_SECONDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000, help="games on Redis")
    parser.add_argument("--sqlite-games", type=int, default=10_000, help="games on SQLite")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"turn timers: {os.cpu_count()} CPUs (load average {load})")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        url = os.environ.get("REDIS_URL")
        if not url:
            exe = redis_binary()
            if exe is None:
                sys.exit("no redis-server: install the test extra or set REDIS_URL")
            proc, url = start_redis(exe, Path(tmp))
        try:
            if args.games:
                ok = run("redis", url, args.games, args.workers) and ok
        finally:
            if proc is not None:
                stop_redis(proc)
        if args.sqlite_games:
            path = str(Path(tmp) / "timers.sqlite3")
            SqliteStore(path).close()  # the empty store's file: not counted per game
            ok = run("sqlite", path, args.sqlite_games, args.workers) and ok
    verdict = "met" if ok else "MISSED"
    print(f"target: every deadline once within {TARGET_SECONDS:g} s: {verdict}")


if __name__ == "__main__":
    main()
