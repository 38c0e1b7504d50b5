"""A real Redis Cluster of three masters, each with one replica, every node behind its
own proxy (announced as the node's address, so that the workers and the replication
streams pass through it; the cluster bus does not), for failovers with presses in
flight (see :mod:`tests.helpers.failover`)."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

import redis

from bot.store import RedisStore
from bot.store.redis.wait import WaitSettings
from tests.helpers.failover import Node, _until
from tests.helpers.local_cluster import SLOTS
from tests.helpers.local_redis import BUS_OFFSET


class ClusterNode(Node):
    def __init__(self, exe: str, workdir: Path, lag: float) -> None:
        super().__init__(exe, workdir, lag, [])  # its port's bus port is free too
        self.extra = [
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(workdir / f"nodes-{self.port}.conf"),
            "--cluster-node-timeout", "1000",
            "--cluster-announce-ip", "127.0.0.1",
            "--cluster-announce-port", str(self.proxy.port),
            "--cluster-announce-bus-port", str(self.port + BUS_OFFSET),
        ]  # fmt: skip

    def node_id(self) -> str:
        with self.client() as c:
            return str(c.execute_command("CLUSTER", "MYID").decode())

    def role(self) -> str:
        if not self.up():
            return "down"
        try:
            with self.client() as c:
                return str(c.info("replication").get("role"))
        except redis.exceptions.RedisError:
            return "down"


class ClusterSet:
    """Three masters sharing the slots, a replica each; ``store(wait)`` opens a
    :class:`RedisStore` on it."""

    def __init__(self, exe: str, workdir: Path, *, lag: float = 0.25) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.nodes = [ClusterNode(exe, workdir, lag) for _ in range(6)]
        try:
            for node in self.nodes:
                node.start()
            self._form()
        except BaseException:
            self.close()
            raise

    def _form(self) -> None:
        masters, replicas = self.nodes[:3], self.nodes[3:]
        share = SLOTS // 3
        with masters[0].client() as first:
            for i, node in enumerate(masters):
                last = SLOTS if i == 2 else (i + 1) * share
                with node.client() as c:
                    c.execute_command("CLUSTER", "ADDSLOTS", *range(i * share, last))
            for node in self.nodes[1:]:
                first.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port)
        _until(lambda: all(self._knows(n, 6) for n in self.nodes), "the nodes did not meet")
        for master, replica in zip(masters, replicas, strict=True):
            with replica.client() as c:
                c.execute_command("CLUSTER", "REPLICATE", master.node_id())
        _until(lambda: all(r.synced() for r in replicas), "the replicas did not sync")
        _until(self._ok, "the cluster did not become ok")

    @staticmethod
    def _knows(node: ClusterNode, count: int) -> bool:
        with node.client() as c:
            return len(c.execute_command("CLUSTER", "NODES").decode().splitlines()) == count

    def _ok(self) -> bool:
        for node in self.nodes:
            if node.role() == "down":
                continue
            with node.client() as c:
                info: dict[str, Any] = c.cluster("info")
                if info.get("cluster_state") != "ok":
                    return False
        return True

    def masters(self) -> list[ClusterNode]:
        return [n for n in self.nodes if n.role() == "master"]

    def store(self, wait: WaitSettings, prefix: str = "fo:") -> RedisStore:
        url = self.nodes[0].proxy.url
        return RedisStore(url, prefix=prefix, cluster=True, wait=wait)

    def kill_master(self, pick: int = 0) -> ClusterNode:
        masters = self.masters()
        dead = masters[pick % len(masters)]
        dead.kill()
        return dead

    def recover(self, dead: Node) -> None:
        """After the failover: the dead node back (it rejoins as its old replica's
        replica, from its nodes file), synced, and the cluster ok."""
        _until(lambda: len(self.masters()) == 3 and self._ok(), "no failover")
        dead.start()
        _until(dead.synced, "the old master did not sync as a replica")
        _until(self._ok, "the cluster did not become ok again")

    def close(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> ClusterSet:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
