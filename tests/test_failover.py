"""Failover with presses in flight (issue 37): a real Sentinel set (one master, one
replica, three sentinels) and a real Redis Cluster (three masters, a replica each),
every replication link lagging 250 ms behind a proxy, the master killed 20 times at
random moments while six games are being saved, and given back its replica after
each kill (:mod:`tests.helpers.failover`).  With writes waiting for the replica
(WAIT, on by default when the master has replicas) not one acknowledged save is
lost; without it, the same kills lose some (the check sees them).

``bench/failover.py`` prints the same runs' figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store.redis_wait import WaitSettings
from tests.helpers.failover import SentinelSet, press_through_kills
from tests.helpers.failover_cluster import ClusterSet
from tests.helpers.local_redis import redis_binary

pytestmark = pytest.mark.slow


def _exe() -> str:
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (see tests/plugin.py)"
    return exe


def test_sentinel_failovers_lose_no_acknowledged_save(tmp_path: Path) -> None:
    with SentinelSet(_exe(), tmp_path, lag=0.25) as ring, ring.store(WaitSettings()) as store:
        assert store.replication.replicas == 1  # auto, with Sentinel
        report = press_through_kills(ring, store, kills=20, games=6)
    assert report.lost == []
    assert report.acknowledged > 100
    assert len(report.resumed) == 20 and max(report.resumed) < 10.0, report.resumed


def test_without_waiting_a_failover_loses_acknowledged_saves(tmp_path: Path) -> None:
    """What WAIT prevents, and the proof that the check above can fail."""
    with (
        SentinelSet(_exe(), tmp_path, lag=0.25) as ring,
        ring.store(WaitSettings(replicas=0)) as store,
    ):
        assert store.replication.asked() == 0
        report = press_through_kills(ring, store, kills=3, games=6)
    assert len(report.lost) >= 1, report
    assert max(report.resumed) < 10.0, report.resumed


def test_cluster_failovers_lose_no_acknowledged_save(tmp_path: Path) -> None:
    """Three masters with a replica each; a master (any of them) killed 20 times."""
    with ClusterSet(_exe(), tmp_path, lag=0.25) as ring, ring.store(WaitSettings()) as store:
        assert store.replication.replicas == 1  # auto: the masters have replicas
        report = press_through_kills(ring, store, kills=20, games=6)
    assert report.lost == []
    assert report.acknowledged > 100
    assert len(report.resumed) == 20 and max(report.resumed) < 10.0, report.resumed
