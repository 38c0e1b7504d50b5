"""Failover with presses in flight (issue 37): a real Sentinel set (one master, one
replica, three sentinels) and a real Redis Cluster (three masters, a replica each),
every replication link lagging 250 ms behind a proxy, the master killed 20 times at
random moments while six games are being saved, and given back its replica after
each kill (:mod:`tests.helpers.failover`).  With writes waiting for the replica
(WAIT, on by default when the master has replicas) not one acknowledged save is
lost; without it, the same kills lose some (the check sees them).

The three runs go at once, each on its own servers: they mostly wait (for the
sentinels, the cluster's election, the replicas), so one test holds one worker for
the longest of them rather than three for their sum.  ``bench/failover.py`` prints
the same runs' figures."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.store.redis.wait import WaitSettings
from tests.helpers.failover import Report, SentinelSet, press_through_kills
from tests.helpers.failover_cluster import ClusterSet
from tests.helpers.local_redis import redis_binary

pytestmark = pytest.mark.slow

KILLS = 20


def _sentinel(workdir: Path, wait: WaitSettings, kills: int) -> Report:
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/plugin.py)"
    with SentinelSet(exe, workdir, lag=0.25) as ring, ring.store(wait) as store:
        assert store.replication.asked() == (0 if wait.replicas == 0 else 1)
        return press_through_kills(ring, store, kills=kills, games=6)


def _cluster(workdir: Path, wait: WaitSettings, kills: int) -> Report:
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/plugin.py)"
    with ClusterSet(exe, workdir, lag=0.25) as ring, ring.store(wait) as store:
        assert store.replication.replicas == 1  # auto: the masters have replicas
        return press_through_kills(ring, store, kills=kills, games=6)


def test_failovers_lose_no_acknowledged_save_and_would_without_waiting(tmp_path: Path) -> None:
    with ThreadPoolExecutor(3) as pool:
        sentinel = pool.submit(_sentinel, tmp_path / "sentinel", WaitSettings(), KILLS)
        cluster = pool.submit(_cluster, tmp_path / "cluster", WaitSettings(), KILLS)
        # what WAIT prevents, and the proof that the check can fail
        unwaited = pool.submit(_sentinel, tmp_path / "no-wait", WaitSettings(replicas=0), 3)
    for name, report in (("Sentinel", sentinel.result()), ("Cluster", cluster.result())):
        assert report.lost == [], f"{name}: {report.lost}"
        assert report.acknowledged > 100, f"{name}: {report}"
        assert len(report.resumed) == KILLS, f"{name}: {report.resumed}"
        assert max(report.resumed) < 10.0, f"{name}: play resumed after {report.resumed}"
    without = unwaited.result()
    assert len(without.lost) >= 1, without
    assert max(without.resumed) < 10.0, without.resumed
