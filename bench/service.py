"""The cost of one button press through the game service, and of a game in the store.

    python bench/service.py [--games N]

Plays games (two people pressing buttons, two computer players) through the
service with board images on, against Redis (a local redis-server it starts,
or REDIS_URL) and SQLite, and times every press: load, apply, save, render.
Prints the median and p99 per store and the bytes a finished game takes in
Redis (its key's memory) and as data.  Targets: p99 at most 50 ms, at most 4 KB
a game in Redis.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for the local redis-server of the tests
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402

from bot.hosting import Intent, User  # noqa: E402
from bot.present import parse_press, table_view  # noqa: E402
from bot.service.game import GameService  # noqa: E402
from bot.store import RedisStore, SqliteStore, Store  # noqa: E402
from tests.helpers.local_redis import redis_binary, start_redis, stop_redis  # noqa: E402

PEOPLE = [User("bench", "1", "Ana"), User("bench", "2", "Ben")]
RULES = ["classic", "tower", "italian", "super"]


def play(store: Store, games: int, seed: int) -> tuple[list[float], list[str]]:
    """Whole games by buttons; the time of each press: the service's one load and one
    compare-and-set, the table view with its board drawn, and the note of what is shown."""
    rng = random.Random(seed)
    svc = GameService(store)
    times: list[float] = []
    ids: list[str] = []
    for g in range(games):
        channel = f"bench-{seed}-{g}"
        rules = RULES[g % len(RULES)]
        svc.open(channel, PEOPLE[0], rules, timer=120)
        svc.act(channel, PEOPLE[1], Intent("join"))
        svc.act(channel, PEOPLE[0], Intent("add_computer"))
        svc.act(channel, PEOPLE[0], Intent("add_computer"))
        outcome = svc.act(channel, PEOPLE[0], Intent("start"))
        assert outcome.game is not None
        ids.append(outcome.game.id)
        view = table_view(outcome.game, outcome.happened)
        srev = 0
        while not view.finished:
            assert view.turn is not None
            press = parse_press(rng.choice([b for row in view.buttons for b in row]).data)
            assert press is not None
            t0 = time.perf_counter()
            outcome = svc.press(channel, view.turn, press.game_id, press.version, press.intent)
            assert outcome.game is not None and not outcome.refused, outcome.refusal
            view = table_view(outcome.game, outcome.happened)
            assert view.image is not None
            svc.note_shown(view.game_id, b"{}", srev)
            srev += 1
            times.append(time.perf_counter() - t0)
    return times, ids


def report(name: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(
        f"{name:7} presses {len(ms):6}  median {statistics.median(ms):6.2f} ms  "
        f"p99 {p99:6.2f} ms  max {ms[-1]:6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc = None
        url = os.environ.get("REDIS_URL")
        if not url:
            exe = redis_binary()
            if exe is None:
                sys.exit("no redis-server: install the test extra or set REDIS_URL")
            proc, url = start_redis(exe, Path(tmp))
        try:
            rstore = RedisStore(url, prefix="bench:")
            times, ids = play(rstore, args.games, 1)
            report("redis", times)
            client = redis.Redis.from_url(url)
            keys = [
                rstore.bucket_base(game_id).encode() + b"game:" + game_id.encode()
                for game_id in ids
            ]
            keys = [k for k in keys if client.exists(k)]
            memory = [client.memory_usage(k) or 0 for k in keys]
            sizes = []
            for game_id in ids:
                got = rstore.load(game_id)
                if got is not None:
                    sizes.append(len(got.data))
            print(
                f"redis   bytes per finished game: data {statistics.mean(sizes):.0f} "
                f"(max {max(sizes)}), key memory {statistics.mean(memory):.0f} "
                f"(max {max(memory)})"
            )
            for k in keys:
                client.delete(k)
            client.close()
            rstore.close()
            sstore = SqliteStore(str(Path(tmp) / "bench.sqlite3"))
            times, _ = play(sstore, args.games, 2)
            report("sqlite", times)
            sstore.close()
        finally:
            if proc is not None:
                stop_redis(proc)


if __name__ == "__main__":
    main()
