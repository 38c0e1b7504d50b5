"""How the Redis store's keys spread over buckets (see :mod:`bot.store.redis.store`): the
client (one server or Redis Cluster), deadlines claimed bucket by bucket, the
bound channels counted over every bucket, and games moved from the key names
of earlier versions.

Older layouts: ``{prefix}game:{id}`` (before hash tags) and
``{prefix}{{{tag}}}:game:{id}`` (layout "2", one hash tag).  The first store
opened on a Redis without layout "3" moves every such game to its bucket (its
expiry, binding and deadline with it); :meth:`RedisStore.migrate_old_keys` does
it again on demand.  Stop every worker of the older version before starting the
new one."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Protocol

import redis
import redis.exceptions
import redis.sentinel
from redis.backoff import NoBackoff
from redis.retry import Retry

from bot.store.buckets import BUCKETS, bucket
from bot.store.redis.kept_move import move_kept
from bot.store.redis.ops import (
    CONNECT_TIMEOUT,
    SOCKET_TIMEOUT,
    client_options,
    glob_escape,
    report_claim,
)
from bot.store.redis.sockets import cluster_class, guard_pool

#: the value of the ``layout`` key once older key names were looked for: "2" was one
#: hash tag for every key, "3" a hash tag per bucket
LAYOUT = b"3"


def open_client(url: str, cluster: bool) -> Any:
    """A redis-py client for ``url``: Redis Cluster's (which asks the node named in
    ``url`` for the others at once) if ``cluster``, else one server's; either way
    with connections that close when an answer is late (:mod:`.sockets`)."""
    if cluster:
        return redis.RedisCluster.from_url(
            url, connection_class=cluster_class(url), **client_options()
        )
    client = redis.Redis.from_url(url, **client_options())
    guard_pool(client.connection_pool)
    return client


def sentinel_client(
    sentinels: list[tuple[str, int]],
    master: str,
    password: str | None,
    username: str | None,
    sentinel_password: str | None,
    db: int,
) -> tuple[redis.Redis, list[redis.Redis]]:
    """A client of the master that Redis Sentinel names ``master`` (asked again after a
    failover), and the clients of the sentinels (to close with it)."""
    sentinel_kwargs = {
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "socket_timeout": SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), 0),
        "password": sentinel_password,
    }
    watch = redis.sentinel.Sentinel(  # type: ignore[no-untyped-call,unused-ignore]
        list(sentinels), sentinel_kwargs=sentinel_kwargs
    )
    client: redis.Redis = watch.master_for(  # type: ignore[no-untyped-call,unused-ignore]
        master, password=password, username=username, db=db, **client_options()
    )
    guard_pool(client.connection_pool)
    return client, list(watch.sentinels)


def claim_due(
    client: Any,
    claim: Callable[..., Any],
    tmpl: str,
    now: float,
    clock: float,
    lease: float,
    limit: int,
) -> list[str]:
    """The ids of at most ``limit`` games whose deadline is at or before ``now``,
    each leased until ``now + lease`` (see :meth:`bot.store.base.Store.claim_due`),
    earliest first.

    One pipeline asks every bucket how many deadlines are due there and the
    earliest (one round trip per node); the buckets whose earliest is earliest
    are each given a share of ``limit`` (as many as are due there), and the CLAIM
    script runs in each of them, in one pipeline per node.  Deadlines of games
    that are gone are dropped on the way: then the buckets are asked again."""
    out: list[tuple[float, bytes]] = []
    while len(out) < limit:
        got, asked = _claim_round(client, claim, tmpl, now, clock, lease, limit - len(out))
        out += got
        if len(got) >= asked:  # fewer: dead games' deadlines were dropped, look again
            break
    out.sort()  # by deadline, then id (as one sorted set would)
    return [i.decode(errors="replace") for _, i in out[:limit]]


def _claim_round(
    client: Any,
    claim: Callable[..., Any],
    tmpl: str,
    now: float,
    clock: float,
    lease: float,
    limit: int,
) -> tuple[list[tuple[float, bytes]], int]:
    """One look over every bucket: the (deadline, id) claimed, and how many were
    asked of the buckets (0: nothing was due)."""
    first = random.randrange(BUCKETS)  # ties: workers claiming together spread out
    order = [(first + i) % BUCKETS for i in range(BUCKETS)]
    pipe = client.pipeline(transaction=False)
    until = repr(float(now))
    for b in order:
        key = f"{tmpl % b}due"
        pipe.zrangebyscore(key, "-inf", until, start=0, num=1, withscores=True)
        pipe.zcount(key, "-inf", until)
    found = pipe.execute(raise_on_error=False)
    due: list[tuple[float, int, int]] = []  # (earliest deadline, bucket, how many)
    counts: dict[int, int] = {}
    for b, earliest, many in zip(order, found[::2], found[1::2], strict=True):
        if isinstance(earliest, list) and isinstance(many, int):
            if earliest:
                due.append((float(earliest[0][1]), b, many))
        else:
            counts[b] = 1  # no sorted set there: the script moves it aside
    due.sort(key=lambda d: d[0])
    left = limit
    for _, b, many in due:
        if left <= 0:
            break
        counts[b] = min(many, left)
        left -= counts[b]
    calls = []
    for b, n in counts.items():
        key = f"{tmpl % b}due"
        args = [until, repr(clock), repr(float(now + lease)), n, tmpl % b]
        calls.append(([key], args))
    out: list[tuple[float, bytes]] = []
    for (keys, _), answer in zip(calls, run_all(client, claim, calls), strict=True):
        ids, bad, moved, scores = answer
        report_claim(keys[0], list(bad), bool(moved))
        out += [(float(score), bytes(i)) for i, score in zip(ids, scores, strict=True)]
    return out, sum(counts.values())


def run_all(client: Any, script: Any, calls: list[tuple[list[str], list[Any]]]) -> list[Any]:
    """The answers of the registered ``script`` run once for each (keys, args) of
    ``calls``: in one pipeline, or on Redis Cluster (whose client pipelines no
    scripts) one pipeline per node, each call sent to the node that holds its
    keys; a call that finds its slot moved meanwhile is sent again through the
    cluster client.  Raises the first error an answer holds."""
    if not isinstance(client, redis.RedisCluster):
        return _pipelined(client, script, calls)
    nodes: dict[str, tuple[Any, list[int]]] = {}
    for i, (keys, _) in enumerate(calls):
        node = client.get_node_from_key(keys[0])  # type: ignore[no-untyped-call,unused-ignore]
        nodes.setdefault(node.name, (node.redis_connection, []))[1].append(i)
    got: list[Any] = [None] * len(calls)
    for conn, todo in nodes.values():
        answers = _pipelined(conn, script, [calls[i] for i in todo], moved=True)
        for i, answer in zip(todo, answers, strict=True):
            if isinstance(answer, redis.exceptions.ResponseError):  # MOVED, ASK
                answer = script(keys=calls[i][0], args=calls[i][1], client=client)
            got[i] = answer
    return got


def _pipelined(
    client: Any, script: Any, calls: list[tuple[list[str], list[Any]]], moved: bool = False
) -> list[Any]:
    """``calls`` of ``script`` in one pipeline of ``client`` (one server); a script
    the server does not know yet is loaded and its calls sent again (they did
    nothing).  ``moved``: answers MOVED and ASK are given back, not raised."""
    got: list[Any] = [None] * len(calls)
    todo = list(range(len(calls)))
    for attempt in range(2):
        pipe = client.pipeline(transaction=False)
        for i in todo:
            keys, args = calls[i]
            pipe.evalsha(script.sha, len(keys), *keys, *args)
        answers = pipe.execute(raise_on_error=False) if todo else []
        missing = []
        for i, answer in zip(todo, answers, strict=True):
            if isinstance(answer, redis.exceptions.NoScriptError) and attempt == 0:
                missing.append(i)
            elif moved and str(answer).startswith(("MOVED", "ASK")):
                got[i] = answer
            elif isinstance(answer, Exception):
                raise answer
            else:
                got[i] = answer
        if not missing:
            break
        client.script_load(script.script)
        todo = missing
    return got


def count_bound(client: Any, tmpl: str) -> int:
    """How many channel keys there are, over every bucket (and every node)."""
    left, right = tmpl.split("%d")
    match = f"{glob_escape(left)}*{glob_escape(right)}chan:*"
    return sum(1 for _ in client.scan_iter(match=match, count=1000))


class Names(Protocol):
    """The key names of a store (see :class:`bot.store.redis.store.RedisStore`)."""

    prefix: str
    base: str
    tmpl: str
    cluster: bool


def migrate_old_keys(client: Any, store: Names, move: Callable[..., Any]) -> int:
    """Move the games stored under the key names of earlier versions to the
    buckets: ``{prefix}game:{id}`` (before hash tags) and ``{prefix}{{tag}}:game:{id}``
    (layout "2": one hash tag), each with its expiry, channel binding and deadline,
    and the finished games kept under layout "2" (see
    :mod:`bot.store.redis.kept_move`); the number of games moved.  ``move`` is the
    registered MIGRATE_GAME script.
    Deadlines left in an old sorted set belong to games that are gone, and go with
    it.  Nothing on Redis Cluster: no earlier version ran there (it had no cluster
    client), and a script cannot move a key to another slot."""
    if store.cluster:
        return 0
    moved = 0
    for old in (store.prefix, store.base):
        old_game = old.encode() + b"game:"
        for key in client.scan_iter(match=glob_escape(old) + "game:*", count=1000):
            game_id = bytes(key)[len(old_game) :]
            new = store.tmpl % bucket(game_id.decode(errors="replace"))
            moved += int(
                move(
                    keys=[key, new.encode() + b"game:" + game_id, f"{old}due", f"{new}due"],
                    args=[game_id, f"{old}chan:", store.tmpl],
                )
            )
        client.delete(f"{old}due")
    move_kept(client, store.base, store.tmpl)
    return moved
