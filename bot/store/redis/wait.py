"""A move acknowledged is a move kept: each write of a game waits for a replica.

Redis replicates asynchronously: a master that dies right after answering a write
may take it along, and the replica promoted in its place does not have it (Redis's
own documentation, and Jepsen's analyses, say so).  So each compare-and-set of the
store is followed, on the same connection and in the same round trip, by
``WAIT numreplicas timeout``: the write is answered (and the press with it) once
``numreplicas`` replicas have it, or the timeout passed.

If they do not confirm in time (a replica down, or far behind), the write is still
answered, so that play goes on; that is an *episode of unconfirmed writes*: logged
once when it begins and once when it ends, shown by ``/healthz`` and by the metrics
``ludo_store_replicated`` (0 during an episode) and
``ludo_store_unconfirmed_writes_total``.  During an episode every write still waits
(the timeout, when the replica is down): the first write once the replica is back
is confirmed again, with every write before it, and the episode ends there.  A
write that did not wait could be lost by a failover right after the replica came
back, while the store still believed it away.

Settings (``REDIS_WAIT_REPLICAS``, ``REDIS_WAIT_TIMEOUT_MS``): see
:class:`WaitSettings`.  On Redis Cluster each master's writes wait for its own
replicas (a place is a master node).
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis
import redis.exceptions
from prometheus_client import Counter, Gauge

from bot.ops.metrics import REGISTRY

log = logging.getLogger("bot.store.redis")

#: seconds after which a place no write went to is forgotten (with its episode)
IDLE = 30.0
#: the longest WAIT timeout allowed: its answer must come before the socket's
#: timeout (1 s), or the connection would be closed under a confirmed write
MAX_TIMEOUT_MS = 800

REPLICATED = Gauge(
    "ludo_store_replicated",
    "1 when the game store's last writes were confirmed by the replicas they wait for "
    "(Redis WAIT), 0 during an episode of unconfirmed writes (a failover would lose "
    "them); 1 when writes do not wait",
    registry=REGISTRY,
)
UNCONFIRMED = Counter(
    "ludo_store_unconfirmed_writes",
    "Writes of games answered without the replicas confirming them within the timeout",
    registry=REGISTRY,
)
#: the Replication of each open store: the gauge is 0 while one of them is in an
#: episode (a process has one store; tests open many, one after another)
_OPEN: weakref.WeakSet[Replication] = weakref.WeakSet()
REPLICATED.set_function(lambda: 0.0 if any(r.in_episode() for r in list(_OPEN)) else 1.0)


@dataclass(frozen=True)
class WaitSettings:
    """``replicas``: how many replicas must confirm each write (0: none, writes do
    not wait; None: "auto", 1 when the master has replicas, 0 on a lone Redis);
    ``timeout_ms``: how long a write waits for them at most."""

    replicas: int | None = None
    timeout_ms: int = 500

    def __post_init__(self) -> None:
        if self.replicas is not None and not 0 <= self.replicas <= 16:
            raise ValueError(f"replicas must be 0 to 16 (or auto), not {self.replicas!r}")
        if not 1 <= self.timeout_ms <= MAX_TIMEOUT_MS:
            raise ValueError(
                f"the WAIT timeout must be 1 to {MAX_TIMEOUT_MS} ms (less than the "
                f"store's 1 s socket timeout), not {self.timeout_ms!r}"
            )


class Replication:
    """Whether and how long the writes of one store wait for replicas, and the
    episodes of unconfirmed writes (see the module's doc).  Safe from any thread."""

    def __init__(
        self,
        replicas: int,
        timeout_ms: int,
        where: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.replicas, self.timeout_ms, self.where = replicas, timeout_ms, where
        self._clock = clock
        self._lock = threading.Lock()
        #: place -> when its episode of unconfirmed writes began
        self._since: dict[str, float] = {}
        #: place -> when a write there last waited (see IDLE)
        self._waited: dict[str, float] = {}
        _OPEN.add(self)

    def asked(self) -> int:
        """How many replicas each write waits for (0: it does not wait)."""
        return max(0, self.replicas)

    def heard(self, place: str, confirmed: int) -> None:
        """A write at ``place`` that waited was confirmed by ``confirmed`` replicas."""
        now = self._clock()
        with self._lock:
            self._waited[place] = now
            self._forget_idle(now)
            began = self._since.get(place)
            if confirmed >= self.replicas:
                if began is None:
                    return
                del self._since[place]
            else:
                UNCONFIRMED.inc()
                if began is not None:
                    return
                self._since[place] = now
        if began is None:
            log.warning(
                "writes to Redis at %s are not confirmed by %d replica(s) within %d ms "
                "(%d did): play goes on, but a failover now would lose the latest moves",
                place,
                self.replicas,
                self.timeout_ms,
                confirmed,
            )
        else:
            log.warning(
                "writes to Redis at %s are confirmed by the replicas again after %.0f s",
                place,
                max(0.0, now - began),
            )

    def in_episode(self) -> bool:
        """Whether writes at some place are not confirmed now (see :data:`IDLE`)."""
        with self._lock:
            self._forget_idle(self._clock())
            return bool(self._since)

    def close(self) -> None:
        """The store is closed: its episodes end with it."""
        with self._lock:
            self._since.clear()
        _OPEN.discard(self)

    def _forget_idle(self, now: float) -> None:
        """Forget the places no write went to for :data:`IDLE` seconds (a master that
        failed over, on Redis Cluster): their episode is over with them."""
        for place in [p for p, when in self._waited.items() if now - when > IDLE]:
            del self._waited[place]
            self._since.pop(place, None)

    def status(self) -> str | None:
        """What ``/healthz`` tells of an episode going on (None: none)."""
        with self._lock:
            self._forget_idle(self._clock())
            if not self._since:
                return None
            began = min(self._since.values())
            places = len(self._since)
        at = f" at {places} masters" if places > 1 else ""
        return (
            f"writes not confirmed by {self.replicas} replica(s) within "
            f"{self.timeout_ms} ms{at} for {max(0.0, self._clock() - began):.0f} s"
        )


def waited_write(
    conn: Any, script: Any, keys: list[str], args: list[Any], replicas: int, timeout_ms: int
) -> tuple[Any, int | None]:
    """The answer of ``script`` (registered) run on ``conn`` (one server's client),
    then, on the same connection in the same round trip, ``WAIT replicas timeout_ms``
    and its answer (None: no WAIT, ``replicas`` is 0).  A script the server does
    not know yet is loaded and sent again (it did nothing).  An error answer of the
    script is raised; a MOVED or ASK one is returned as it is (Redis Cluster)."""
    for attempt in range(2):
        pipe = conn.pipeline(transaction=False)
        pipe.evalsha(script.sha, len(keys), *keys, *args)
        if replicas > 0:
            pipe.execute_command("WAIT", replicas, timeout_ms)
        answers = pipe.execute(raise_on_error=False)
        first = answers[0]
        if isinstance(first, redis.exceptions.NoScriptError) and attempt == 0:
            conn.script_load(script.script)
            continue
        if isinstance(first, redis.exceptions.ResponseError) and str(first).startswith(
            ("MOVED", "ASK")
        ):
            return first, None
        if isinstance(first, Exception):
            raise first
        if replicas <= 0:
            return first, None
        confirmed = answers[1]
        if isinstance(confirmed, Exception):
            raise confirmed
        return first, int(confirmed)
    raise AssertionError("unreachable")  # pragma: no cover


def replicas_of(client: Any, cluster: bool) -> int:
    """How many replicas the master behind ``client`` has now (on Redis Cluster:
    the most of any master's: those without any then show as unconfirmed)."""
    if cluster:
        counts: dict[str, int] = {}
        nodes: dict[str, Any] = client.cluster_nodes()
        for node in nodes.values():
            if "master" in node["flags"]:
                counts.setdefault(node["node_id"], 0)
        for node in nodes.values():
            if "slave" in node["flags"] and node.get("master_id") in counts:
                counts[node["master_id"]] += 1
        return max(counts.values(), default=0)
    info: dict[str, Any] = client.info("replication")
    return int(info.get("connected_slaves", 0) or 0)
