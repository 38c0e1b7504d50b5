"""A Redis store's connection (see :mod:`bot.store.redis.store`): opened from a URL, through
Sentinel or to Redis Cluster; its scripts registered; games under older key names
moved by the first store opened; redis-py's errors turned into :class:`StoreError`;
the keys of a game, a channel and a bucket's deadlines named."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, Self

import redis
import redis.exceptions

from bot.store.base import DEFAULT_TTL, StoreError, StoreUnavailable, unavailable
from bot.store.buckets import bucket
from bot.store.redis import layout, ops
from bot.store.redis import scripts as lua
from bot.store.redis.kept import KeptGames
from bot.store.redis.ops import SOCKET_TIMEOUT, redact
from bot.store.redis.sockets import answer_lost, watch_answers
from bot.store.redis.wait import Replication, WaitSettings, replicas_of, waited_write

#: seconds a write whose answer was lost is sent again (with its token) for, until
#: Redis answers whether it was done
RESEND_FOR = 3.0


class RedisConnection:
    """The connection a :class:`~bot.store.redis.store.RedisStore` works through."""

    def __init__(
        self,
        url: str,
        *,
        ttl: float = DEFAULT_TTL,
        prefix: str = "ludo:",
        clock: Callable[[], float] = time.time,
        cluster: bool = False,
        wait: WaitSettings | None = None,
    ) -> None:
        self._setup(ttl, prefix, clock, wait)
        self.url = redact(url)
        try:
            client = layout.open_client(url, cluster)
        except ValueError as exc:
            raise StoreError(f"bad Redis URL {self.url!r}: {exc}") from exc
        except redis.exceptions.RedisError as exc:  # the cluster client asks at once
            raise ops.translate(exc, self.url, SOCKET_TIMEOUT) from exc
        self.cluster = cluster
        self._connect(client, sentinel=False)

    @classmethod
    def from_sentinel(
        cls,
        sentinels: list[tuple[str, int]],
        master: str,
        *,
        password: str | None = None,
        username: str | None = None,
        sentinel_password: str | None = None,
        db: int = 0,
        ttl: float = DEFAULT_TTL,
        prefix: str = "ludo:",
        clock: Callable[[], float] = time.time,
        wait: WaitSettings | None = None,
    ) -> Self:
        """The store on the master that Redis Sentinel names ``master``: the
        sentinels at ``sentinels`` (host, port) are asked where it is, and
        again after a failover.  ``password`` (and ``username``) log in to
        Redis itself, ``sentinel_password`` to the sentinels.  Raises
        StoreError (StoreUnavailable if no sentinel knows a reachable master)."""
        if not sentinels:
            raise StoreError("Redis Sentinel: no sentinel given")
        self = cls.__new__(cls)
        self._setup(ttl, prefix, clock, wait)
        hosts = ", ".join(f"{host}:{port}" for host, port in sentinels)
        self.url = f"master {master!r} of Sentinel {hosts}"
        client, self._sentinels = layout.sentinel_client(
            sentinels, master, password, username, sentinel_password, db
        )
        self._connect(client, sentinel=True)
        return self

    def _setup(
        self, ttl: float, prefix: str, clock: Callable[[], float], wait: WaitSettings | None
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl must be positive, not {ttl!r}")
        if "{" in prefix or "}" in prefix or "%" in prefix:
            raise ValueError(f"the key prefix {prefix!r} must not contain {{, }} or %")
        self.ttl = ttl
        self.prefix = prefix
        tag = prefix.strip(":") or "ludo"
        #: what the bot-wide keys start with: the prefix and the bot-wide hash tag
        self.base = f"{prefix}{{{tag}}}:"
        #: what the keys of a bucket start with, ``%d`` standing for the bucket
        self.tmpl = f"{prefix}{{{tag}.%d}}:"
        #: whether the client is redis-py's Redis Cluster client
        self.cluster = False
        #: games moved from the older key names when this store opened
        self.migrated = 0
        self._clock = clock
        self._notes: list[str] = []
        self._sentinels: list[redis.Redis] = []
        self._wait = wait or WaitSettings()
        #: how writes wait for replicas (decided when connected: see _connect)
        self.replication = Replication(0, self._wait.timeout_ms, "")
        #: Redis's clock minus ours, in ms (measured when connected)
        self._skew_ms = 0.0

    def _connect(self, client: redis.Redis, *, sentinel: bool) -> None:
        #: the Redis client (shared by what keeps limits in this store's server)
        self._client = self.client = client
        reg = client.register_script
        self._create, self._save, self._save_shown = (
            reg(lua.CREATE),
            reg(lua.SAVE),
            reg(lua.SAVE_SHOWN),
        )
        self._load_in, self._channel_game = reg(lua.LOAD_IN), reg(lua.CHANNEL_GAME)
        self._release, self._discard = reg(lua.RELEASE), reg(lua.DISCARD)
        self._schedule, self._claim = reg(lua.SCHEDULE), reg(lua.CLAIM)
        self._migrate = reg(lua.MIGRATE_GAME)
        self._kept = KeptGames(client, self.base, self.tmpl, self.url)
        try:
            with self._errors():  # fail at start-up, not at the first move
                client.ping()
                if client.get(self._key("layout")) != layout.LAYOUT:
                    self._migrate_once()
                replicas = self._wait.replicas
                if replicas is None:  # auto: Sentinel is there for its replicas
                    replicas = int(sentinel or self._has_replicas())
                self.replication = Replication(replicas, self._wait.timeout_ms, self.url)
                self._skew_ms = _skew_ms(client)
        except StoreError:
            self.close()
            raise

    def _has_replicas(self) -> bool:
        try:
            return replicas_of(self._client, self.cluster) > 0
        except redis.exceptions.ResponseError as exc:  # INFO or CLUSTER not allowed (an ACL)
            self._notes.append(
                f"cannot tell whether Redis at {self.url} has replicas ({exc}), so writes "
                "do not wait for one; if it has, set REDIS_WAIT_REPLICAS=1"
            )
            return False

    def _migrate_once(self) -> None:
        try:
            self.migrated = layout.migrate_old_keys(self._client, self, self._migrate)
        except redis.exceptions.ResponseError as exc:  # SCAN not allowed (an ACL)
            self._notes.append(
                f"could not look for games stored by an older ludo-bot under "
                f"{self.prefix}game:* at Redis {self.url} ({exc})"
            )
            return
        self._client.set(self._key("layout"), layout.LAYOUT)

    # -- plumbing ----------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Redis errors as StoreError, with a message an operator understands."""
        try:
            yield
        except redis.exceptions.RedisError as exc:
            raise ops.translate(exc, self.url, SOCKET_TIMEOUT) from exc
        except redis.exceptions.RedisClusterException as exc:  # no node answers
            raise unavailable(f"Redis Cluster at {self.url}: {exc}") from exc

    def _key(self, kind: str, name: str = "") -> str:
        return f"{self.base}{kind}{name}"

    def bucket_base(self, name: str) -> str:
        """What the keys of the bucket of ``name`` (a channel or game id) start with."""
        return self.tmpl % bucket(name)

    def _game(self, game_id: str) -> str:
        return f"{self.bucket_base(game_id)}game:{game_id}"

    def _chan(self, channel: str) -> str:
        return f"{self.bucket_base(channel)}chan:{channel}"

    def _due(self, game_id: str) -> str:
        return f"{self.bucket_base(game_id)}due"

    def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        with self._errors():
            return script(keys=keys, args=args)

    def _write(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """The answer of a write ``script`` (create, save, save_shown: each marked by
        its token), once the replicas confirmed it or the wait timed out (see
        :mod:`bot.store.redis.wait`).  If its answer was lost (a timeout, a reset),
        the same script is sent again, with the same token, until Redis tells
        whether it was done: either way it is done at most once.  Each carries the
        time (by Redis's clock) after which it is not done, :data:`RESEND_FOR` from
        the first: raises StoreUnavailable if none was answered by then (``unsure``
        if one may have been done before)."""
        deadline, pause, lost = time.monotonic() + RESEND_FOR, 0.05, False
        args = [*args, str(round((time.time() + RESEND_FOR) * 1000 + self._skew_ms))]
        while True:
            watch_answers()
            try:
                with self._errors():
                    answer = self._write_once(script, keys, args)
            except StoreUnavailable as exc:
                self._renew_map()
                lost = lost or answer_lost()
                if not lost or time.monotonic() + pause > deadline:
                    exc.unsure = lost
                    raise
            else:
                if answer == -1:  # it reached Redis after the time it was given
                    raise unavailable(
                        f"Redis at {self.url} did not answer within {RESEND_FOR:g} s",
                        kind="timeout",
                    )
                return answer
            time.sleep(pause)
            pause = min(2 * pause, 0.4)

    def _write_once(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        place, conn = self._place(keys[0])
        asked = self.replication.asked()
        timeout = self.replication.timeout_ms
        answer, confirmed = waited_write(conn, script, keys, args, asked, timeout)
        if isinstance(answer, redis.exceptions.ResponseError):  # MOVED, ASK: the slot moved
            script(keys=keys, args=args, client=self._client)  # followed, the map renewed
            place, conn = self._place(keys[0])
            answer, confirmed = waited_write(conn, script, keys, args, asked, timeout)
            if isinstance(answer, redis.exceptions.ResponseError):
                raise answer
        if confirmed is not None:
            self.replication.heard(place, confirmed)
        return answer

    def _renew_map(self) -> None:
        """On Redis Cluster, ask again which node holds which slots (a master may
        have failed over: the writes go to its node directly)."""
        if self.cluster:
            with suppress(redis.exceptions.RedisError, redis.exceptions.RedisClusterException):
                self._client.nodes_manager.initialize()  # type: ignore[attr-defined]

    def _place(self, key: str) -> tuple[str, Any]:
        """Where a write of ``key`` goes: the name of its master, and the client of
        that master alone (one connection for the write and its WAIT)."""
        if not self.cluster:
            return self.url, self._client
        node = self._client.get_node_from_key(key)  # type: ignore[attr-defined]
        return str(node.name), node.redis_connection

    def close(self) -> None:
        self.replication.close()
        for client in [self._client, *self._sentinels]:
            with suppress(redis.exceptions.RedisError):  # a broken connection: nothing to do
                client.close()

    # -- operations --------------------------------------------------------

    def production_warnings(self) -> list[str]:
        """One plain line for each reason this Redis may lose games (see
        :func:`bot.store.redis.ops.production_warnings`), and one if older keys
        could not be looked for.  Raises StoreUnavailable if Redis cannot be reached."""
        with self._errors():
            return ops.production_warnings(self._client, self.url) + self._notes

    def migrate_old_keys(self) -> int:
        """Move the games under older key names to the buckets; the number moved
        (see :func:`bot.store.redis.layout.migrate_old_keys`)."""
        with self._errors():
            return layout.migrate_old_keys(self._client, self, self._migrate)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _skew_ms(client: Any) -> float:
    """Redis's clock minus this host's, in ms, within the round trip's length."""
    before = time.time()
    seconds, micros = client.time()
    after = time.time()
    return float(seconds * 1000 + micros / 1000 - (before + after) * 500)
