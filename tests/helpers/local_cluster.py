"""A throwaway local Redis Cluster of three masters for the tests (not for production).

The same ``redis-server`` binary as :mod:`tests.helpers.local_redis`, each node with
``--cluster-enabled yes`` on a free loopback port; the 16,384 slots are split in
three ranges (CLUSTER ADDSLOTS), the nodes meet (CLUSTER MEET), and the cluster
is ready once every node says ``cluster_state:ok``::

    with LocalCluster(exe, workdir) as cluster:
        cluster.url          # redis://127.0.0.1:port/0 of the first node
        cluster.nodes        # the three nodes' URLs
        cluster.owner(slot)  # the URL of the node that holds ``slot``
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from types import TracebackType

import redis

from tests.helpers.local_redis import port_of, start_redis, stop_redis

#: the slots of Redis Cluster
SLOTS = 16384


class LocalCluster:
    """Three masters sharing every slot (no replicas), started at once."""

    def __init__(self, exe: str, workdir: Path, masters: int = 3) -> None:
        self.procs: list[subprocess.Popen[bytes]] = []
        self.nodes: list[str] = []
        try:
            for i in range(masters):
                conf = workdir / f"nodes-{i}.conf"
                args = ["--cluster-enabled", "yes", "--cluster-config-file", str(conf)]
                args += ["--cluster-node-timeout", "5000"]
                proc, url = start_redis(exe, workdir, args=args)
                self.procs.append(proc)
                self.nodes.append(url)
            self._form()
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return self.nodes[0]

    def _form(self) -> None:
        clients = [redis.Redis.from_url(url) for url in self.nodes]
        try:
            share = SLOTS // len(clients)
            for i, client in enumerate(clients):
                last = SLOTS if i == len(clients) - 1 else (i + 1) * share
                client.execute_command("CLUSTER", "ADDSLOTS", *range(i * share, last))
            for url in self.nodes[1:]:
                clients[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port_of(url))
            deadline = time.monotonic() + 30
            while not all(c.cluster("info")["cluster_state"] == "ok" for c in clients):
                if time.monotonic() > deadline:
                    raise RuntimeError("the local Redis Cluster did not become ok in 30 s")
                time.sleep(0.1)
            # every node knows every other one (else a client may be sent astray)
            while not all(len(c.cluster("nodes")) == len(clients) for c in clients):
                if time.monotonic() > deadline:
                    raise RuntimeError("the local Redis Cluster's nodes did not meet in 30 s")
                time.sleep(0.1)
        finally:
            for client in clients:
                client.close()

    def owner(self, slot: int) -> str:
        """The URL of the node holding ``slot``."""
        share = SLOTS // len(self.nodes)
        return self.nodes[min(slot // share, len(self.nodes) - 1)]

    def stop(self) -> None:
        for proc in self.procs:
            stop_redis(proc)
        self.procs.clear()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
