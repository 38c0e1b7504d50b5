"""Failover with presses in flight: a real Sentinel set (or Redis Cluster with a replica
per master) whose replication links lag behind a TCP proxy, its master killed again
and again while workers keep saving moves; what was acknowledged and what was lost.

Shared by tests/test_failover.py and bench/failover.py::

    with SentinelSet(exe, workdir, lag=0.25) as ring:      # or ClusterSet(...)
        store = ring.store(wait)                            # a RedisStore on it
        report = press_through_kills(ring, store_factory, kills=20, games=6)
        report.lost        # acknowledged saves missing afterwards
        report.resumed     # seconds from each kill to the next acknowledged save

Every node has a proxy in front of it and announces the proxy's port, so that
everything (the workers, the sentinels, and the replication stream) passes through
it; the proxy lags only what a master streams to its replica (``replication_lag``).
"""

from __future__ import annotations

import random
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from bot.store import RedisStore, StoreError
from bot.store.buckets import new_game_id
from bot.store.redis.wait import WaitSettings

if TYPE_CHECKING:
    from tests.helpers.failover_cluster import ClusterSet
from tests.helpers.local_redis import (
    _free_port,
    kill_redis,
    server_port,
    start_redis,
    stop_redis,
)
from tests.helpers.tcp_proxy import TcpProxy


class Node:
    """One redis-server behind its own proxy (which it announces)."""

    def __init__(self, exe: str, workdir: Path, lag: float, extra: list[str]) -> None:
        self.exe, self.workdir, self.extra = exe, workdir, extra
        self.port = server_port()  # free again whenever it restarts
        self.proxy = TcpProxy(self.port)
        self.proxy.replication_lag = lag
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, replica_of: int | None = None) -> None:
        (self.workdir / "dump.rdb").unlink(missing_ok=True)  # no stale copy to serve
        args = ["--replica-announce-ip", "127.0.0.1", "--replica-announce-port"]
        args += [str(self.proxy.port), *self.extra]
        if replica_of is not None:
            args += ["--replicaof", "127.0.0.1", str(replica_of)]
        self.proc = start_redis(self.exe, self.workdir, port=self.port, args=args)[0]

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            kill_redis(self.proc)
        self.proxy.reset()

    def up(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def client(self) -> redis.Redis:
        """A client of the node itself, past its proxy; one try (redis-py's default
        retries a refused connection for seconds)."""
        return redis.Redis(
            port=self.port, socket_timeout=2, socket_connect_timeout=2, retry=Retry(NoBackoff(), 0)
        )

    def synced(self) -> bool:
        try:
            with self.client() as c:
                info = c.info("replication")
        except redis.exceptions.RedisError:
            return False
        return info.get("role") == "slave" and info.get("master_link_status") == "up"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            stop_redis(self.proc)
        self.proxy.close()


def _until(check: Callable[[], bool], what: str, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {within:g} s")
        time.sleep(0.05)


class SentinelSet:
    """A master and a replica (each behind a proxy) watched by three sentinels
    (quorum 2), on loopback; ``name`` is the master's name."""

    name = "ludo"

    def __init__(self, exe: str, workdir: Path, *, lag: float = 0.25) -> None:
        self.exe, self.workdir = exe, workdir
        self.nodes = [Node(exe, workdir / f"n{i}", lag, []) for i in range(2)]
        self.sentinels: list[tuple[subprocess.Popen[bytes], int]] = []
        try:
            for node in self.nodes:
                node.workdir.mkdir(parents=True, exist_ok=True)
            self.nodes[0].start()
            self.nodes[1].start(replica_of=self.nodes[0].proxy.port)
            _until(self.nodes[1].synced, "the replica did not sync")
            for i in range(3):
                self.sentinels.append(self._sentinel(i))
            _until(lambda: self._seen_well(self.nodes[1]), "the sentinels did not see the replica")
        except BaseException:
            self.close()
            raise

    def _sentinel(self, i: int) -> tuple[subprocess.Popen[bytes], int]:
        port = _free_port()
        conf = self.workdir / f"sentinel-{i}.conf"
        master = self.nodes[0].proxy.port
        conf.write_text(
            f"port {port}\nbind 127.0.0.1\n"
            f"sentinel monitor {self.name} 127.0.0.1 {master} 2\n"
            f"sentinel down-after-milliseconds {self.name} 600\n"
            f"sentinel failover-timeout {self.name} 2000\n"
        )
        log = self.workdir / f"sentinel-{i}.log"
        argv = [self.exe, str(conf), "--sentinel", "--daemonize", "no", "--logfile", str(log)]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1) as c:
            _until(lambda: _asks(c, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.name), "sentinel")
        return proc, port

    def _ask(self, *command: str) -> object:
        for _, port in self.sentinels:
            with redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1) as c:
                answer = _asks(c, *command)
                if answer:
                    return answer
        return None

    def master(self) -> Node:
        """The node the sentinels name master now."""
        found = self._ask("SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.name)
        assert isinstance(found, list | tuple), found
        port = int(found[1])
        return next(n for n in self.nodes if n.proxy.port == port)

    def store(self, wait: WaitSettings, prefix: str = "fo:") -> RedisStore:
        sentinels = [("127.0.0.1", port) for _, port in self.sentinels]
        return RedisStore.from_sentinel(sentinels, self.name, prefix=prefix, wait=wait)

    def kill_master(self, pick: int = 0) -> Node:
        dead = self.master()
        dead.kill()
        return dead

    def recover(self, dead: Node) -> None:
        """After a failover: the dead node back, as the new master's replica, and the
        set whole again (:meth:`_whole`)."""
        _until(lambda: self.master() is not dead, "no failover")
        new = self.master()
        dead.start(replica_of=new.proxy.port)
        try:
            _until(self._whole, "the set was not whole again")
        except AssertionError as e:
            raise AssertionError(f"{e}: {self._views()}") from None

    def _whole(self) -> bool:
        """Whether the node the sentinels name master has the other as a synced replica
        that every sentinel sees well, whichever is which: a sentinel that learnt of a
        failover late may turn the new master back into a replica (it waits only
        failover-timeout, 2 s here, for the news), and a second failover follows."""
        try:
            master = self.master()
        except AssertionError:  # no answer from the sentinels yet
            return False
        replica = next(n for n in self.nodes if n is not master)
        return replica.synced() and self._seen_well(replica)

    def _replicas(self, port: int) -> list[dict[str, str]] | None:
        """The replicas the sentinel on ``port`` knows (None: no answer)."""
        with redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1) as c:
            found = _asks(c, "SENTINEL", "REPLICAS", self.name)
        return [_fields(entry) for entry in found] if isinstance(found, list) else None

    def _seen_well(self, replica: Node) -> bool:
        """Whether every sentinel sees ``replica`` up, linked to its master (so that
        each could promote it): the set is whole again, ready for the next kill."""
        for _, port in self.sentinels:
            if not any(
                f.get("port") == str(replica.proxy.port)
                and f.get("flags") == "slave"
                and f.get("master-link-status") == "ok"
                for f in self._replicas(port) or []
            ):
                return False
        return True

    def _views(self) -> str:
        """What each sentinel says of the master and its replicas (for a failure)."""
        keys = ("port", "flags", "master-link-status", "master-port")
        said = []
        for _, port in self.sentinels:
            with redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1) as c:
                master = _asks(c, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.name)
            seen = [{k: f.get(k) for k in keys} for f in self._replicas(port) or []]
            said.append(f"sentinel {port}: master {master!r}, replicas {seen}")
        ports = {n.proxy.port: n.port for n in self.nodes}
        return f"nodes (proxy: port) {ports}; " + "; ".join(said)

    def close(self) -> None:
        for proc, _ in self.sentinels:
            stop_redis(proc)
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> SentinelSet:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _asks(client: redis.Redis, *command: str) -> object:
    try:
        return client.execute_command(*command)
    except redis.exceptions.RedisError:
        return None


def _fields(entry: object) -> dict[str, str]:
    """One entry of a sentinel's answer (a dict, or a flat [name, value, ...] list) as
    a dict of strings."""

    def text(x: object) -> str:
        return x.decode() if isinstance(x, bytes) else str(x)

    if isinstance(entry, dict):
        return {text(k): text(v) for k, v in entry.items()}
    items = [text(x) for x in entry] if isinstance(entry, list | tuple) else []
    return dict(zip(items[::2], items[1::2], strict=False))


@dataclass
class Report:
    """What the workers saw through the kills."""

    acknowledged: int = 0
    refused: int = 0
    lost: list[str] = field(default_factory=list)
    resumed: list[float] = field(default_factory=list)
    #: seconds from each kill until the set was whole again (the dead node back as a
    #: replica, writes confirmed)
    whole: list[float] = field(default_factory=list)


class Players:
    """``games`` games, each saved again and again by its own thread (a press: load,
    then a compare-and-set of the next revision), remembering what was acknowledged;
    a press that finds its game older than what was acknowledged is a lost save."""

    def __init__(self, store: RedisStore, games: int) -> None:
        self.store, self.report = store, Report()
        self.ids = [new_game_id(f"fo-chan-{i}") for i in range(games)]
        self._acked: dict[str, tuple[int, bytes]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.acks: dict[str, list[float]] = {g: [] for g in self.ids}
        for i, game_id in enumerate(self.ids):
            assert store.create(game_id, b"1", channel=f"fo-chan-{i}")
            self._acked[game_id] = (1, b"1")
        self._threads = [threading.Thread(target=self._play, args=(g,)) for g in self.ids]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> Report:
        self._stop.set()
        for t in self._threads:
            t.join(30)
        for game_id in self.ids:
            self._check(game_id)
        return self.report

    def first_ack(self, after: float) -> float:
        """When every game had a save acknowledged after ``after`` (0: not yet)."""
        with self._lock:
            firsts = [
                min((t for t in acks if t > after), default=0.0) for acks in self.acks.values()
            ]
        return 0.0 if 0.0 in firsts else max(firsts)

    def _check(self, game_id: str) -> int | None:
        """The game's revision now, after checking it kept what was acknowledged."""
        while True:
            try:
                got = self.store.load(game_id)
                break
            except StoreError:
                time.sleep(0.05)
        rev, data = self._acked[game_id]
        if got is None or got.rev < rev or (got.rev == rev and got.data != data):
            with self._lock:
                self.report.lost.append(f"{game_id} rev {rev} ({got!r}) at {time.monotonic():.1f}")
            self._acked[game_id] = (got.rev, got.data) if got is not None else (0, b"")
            return got.rev if got is not None else None
        return got.rev

    def _play(self, game_id: str) -> None:
        while not self._stop.is_set():
            rev = self._check(game_id)
            if rev is None:
                return
            data = f"{rev + 1} {random.random()}".encode()
            try:
                done = self.store.save(game_id, data, rev)
            except StoreError:
                with self._lock:
                    self.report.refused += 1
                time.sleep(0.05)
                continue
            if done:
                with self._lock:
                    self._acked[game_id] = (rev + 1, data)
                    self.report.acknowledged += 1
                    self.acks[game_id].append(time.monotonic())
            time.sleep(random.uniform(0.0, 0.03))


def press_through_kills(
    ring: SentinelSet | ClusterSet, store: RedisStore, *, kills: int, games: int = 6, seed: int = 7
) -> Report:
    """Kill the master ``kills`` times, each at a random moment while ``games`` are
    being played, and bring it back as a replica each time; the report."""
    rnd = random.Random(seed)
    players = Players(store, games)
    players.start()
    try:
        for _ in range(kills):
            time.sleep(rnd.uniform(0.2, 0.8))  # presses flow meanwhile (a few a game)
            killed_at = time.monotonic()
            dead = ring.kill_master(rnd.randrange(3))
            _until(lambda at=killed_at: players.first_ack(at) > 0, "play did not resume", 30)
            players.report.resumed.append(players.first_ack(killed_at) - killed_at)
            ring.recover(dead)
            # whole again (the replica confirms writes) before the next kill
            _until(lambda: not store.replication.in_episode(), "writes not confirmed again", 40)
            players.report.whole.append(time.monotonic() - killed_at)
    finally:
        report = players.stop()
    return report
