"""Redis for production, against real redis-servers: the warnings about
settings that lose games, Redis Sentinel (with a real failover), the keys on
a Redis Cluster node, and games written under the key names of earlier
versions."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from bot.store import Kept, RedisStore, Shown, Stored, StoreError, StoreUnavailable
from bot.store.buckets import new_game_id
from tests.helpers.local_redis import LocalRedis, redis_binary, start_sentinel, stop_redis
from tests.helpers.stores import StoreFactory


@pytest.fixture
def exe() -> str:
    found = redis_binary()
    assert found is not None, "no redis-server binary (see tests/plugin.py)"
    return found


def _dir(tmp_path: Path, name: str) -> Path:
    made = tmp_path / name
    made.mkdir()
    return made


# -- warnings about settings that lose games ----------------------------------------


def test_production_warnings_follow_the_settings(exe: str, tmp_path: Path) -> None:
    with LocalRedis(exe, tmp_path) as server, RedisStore(server.url) as s:
        raw = server.client()
        try:
            (line,) = s.production_warnings()  # started with save "" and appendonly no
            assert "no persistence" in line and "appendonly yes" in line
            assert server.url in line
            raw.config_set("save", "3600 1 300 100")
            (line,) = s.production_warnings()
            assert "only snapshots" in line and "3600 1 300 100" in line
            raw.config_set("appendonly", "yes")
            assert s.production_warnings() == []
            raw.config_set("maxmemory", "100mb")
            for policy in ("allkeys-lru", "allkeys-random", "volatile-lru", "volatile-ttl"):
                raw.config_set("maxmemory-policy", policy)
                (line,) = s.production_warnings()
                assert f"maxmemory-policy {policy}" in line and "noeviction" in line
                assert str(100 * 1024 * 1024) in line
                assert ("every game key has an expiry" in line) == policy.startswith("volatile")
            raw.config_set("maxmemory-policy", "noeviction")
            assert s.production_warnings() == []
            raw.config_set("maxmemory-policy", "allkeys-lru")
            raw.config_set("maxmemory", "0")  # no limit: nothing is evicted
            assert s.production_warnings() == []
            raw.config_set("appendonly", "no")
            raw.config_set("save", "")
            lines = s.production_warnings()
            assert len(lines) == 1 and all("\n" not in line for line in lines)
        finally:
            raw.close()


def test_production_warnings_without_config(exe: str, tmp_path: Path) -> None:
    # managed Redis: CONFIG renamed away; INFO still tells appendonly and maxmemory
    args = ["--rename-command", "CONFIG", "", "--maxmemory", "50mb"]
    args += ["--maxmemory-policy", "allkeys-lru"]
    with LocalRedis(exe, tmp_path, args=args) as server:
        with RedisStore(server.url) as s:
            snapshots, eviction = s.production_warnings()
            assert "cannot check the snapshot settings" in snapshots
            assert "CONFIG is not allowed" in snapshots and "appendonly yes" in snapshots
            assert "maxmemory-policy allkeys-lru" in eviction
        raw = server.client()
        try:  # a user that may not even run INFO (nor SCAN)
            raw.execute_command("ACL", "SETUSER", "bot", "on", ">pw", "~*", "&*", "+@all")
            raw.execute_command("ACL", "SETUSER", "bot", "-info", "-scan")
        finally:
            raw.close()
        url = server.url.replace("redis://", "redis://bot:pw@")
        with RedisStore(url, prefix=f"acl-{uuid.uuid4().hex[:8]}:") as s:
            assert s.create("g", b"x", channel="c")  # the store works all the same
            cannot, old_keys, replicas = s.production_warnings()
            assert "cannot check the persistence and eviction settings" in cannot
            assert "CONFIG and INFO are not allowed" in cannot
            assert "pw" not in cannot and "bot:***@" in cannot
            assert "could not look for games stored by an older ludo-bot" in old_keys
            assert "cannot tell whether Redis at redis://bot:***@" in replicas
            assert "REDIS_WAIT_REPLICAS=1" in replicas and "pw" not in replicas
            assert s.replication.replicas == 0  # so writes do not wait


# -- Redis Sentinel -------------------------------------------------------------------


def _wait(check: object, what: str, within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_sentinel_finds_the_master(exe: str, tmp_path: Path) -> None:
    with LocalRedis(exe, _dir(tmp_path, "master"), args=["--requirepass", "sekrit"]) as master:
        sentinel, port = start_sentinel(exe, tmp_path, master.url, "games", auth_pass="sekrit")
        try:
            with pytest.raises(StoreError, match="refused to log in"):
                RedisStore.from_sentinel([("127.0.0.1", port)], "games")  # no password
            s = RedisStore.from_sentinel([("127.0.0.1", port)], "games", password="sekrit")
            with s:
                assert s.create("g", b"x", channel="c", due=5.0)
                assert s.load_in("c") == Stored(b"x", 1)
                assert s.claim_due(5.0, lease=1) == ["g"]
                assert "no persistence" in s.production_warnings()[0]
                assert "games" in s.url and str(port) in s.url
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                RedisStore.from_sentinel([("127.0.0.1", port)], "nobody-by-that-name")
            assert time.monotonic() - started < 2.5
        finally:
            stop_redis(sentinel)
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):  # no sentinel answers at all
        RedisStore.from_sentinel([("127.0.0.1", port)], "games", password="sekrit")
    assert time.monotonic() - started < 2.5


def test_sentinel_failover_keeps_the_games(exe: str, tmp_path: Path) -> None:
    with (
        LocalRedis(exe, _dir(tmp_path, "a")) as first,
        LocalRedis(exe, _dir(tmp_path, "b")) as second,
    ):
        raw_second = second.client()
        raw_second.replicaof("127.0.0.1", first.port)
        _wait(
            lambda: raw_second.info("replication").get("master_link_status") == "up",
            "the replica to sync",
        )
        sentinel, port = start_sentinel(
            exe, tmp_path, first.url, "games", down_after_ms=400, failover_timeout_ms=2000
        )
        try:
            watch = redis.Redis(port=port, socket_timeout=1)
            _wait(lambda: watch.sentinel_slaves("games"), "the sentinel to see the replica")
            s = RedisStore.from_sentinel([("127.0.0.1", port)], "games")
            assert s.create("g", b"before", channel="c", due=5.0)
            assert s.save("g", b"moved", 1)
            raw_first = first.client()
            assert raw_first.wait(1, 2000) == 1  # the replica has it
            raw_first.close()
            first.kill()  # the master crashes

            def back() -> bool:
                try:
                    return s.load("g") is not None
                except StoreUnavailable:
                    return False

            _wait(back, "the failover", within=30)
            assert s.load("g") == Stored(b"moved", 2)
            assert s.save("g", b"after", 2)  # the new master takes writes
            assert s.load_in("c") == Stored(b"after", 3)
            assert s.claim_due(5.0, lease=1) == ["g"]
            _host, new_port = watch.sentinel_get_master_addr_by_name("games")
            assert int(new_port) == second.port
            s.close()
            watch.close()
        finally:
            raw_second.close()
            stop_redis(sentinel)


# -- Redis Cluster: every script touches one slot ---------------------------------------


@pytest.fixture
def cluster_node(exe: str, tmp_path: Path) -> Iterator[LocalRedis]:
    """A one-node Redis Cluster holding every slot: a plain client works on it,
    and the node still refuses any command whose keys are in different slots."""
    args = ["--cluster-enabled", "yes", "--cluster-config-file", str(tmp_path / "nodes.conf")]
    with LocalRedis(exe, tmp_path, args=args) as node:
        raw = node.client()
        try:
            raw.execute_command("CLUSTER", "ADDSLOTS", *range(16384))
            _wait(lambda: raw.cluster("info")["cluster_state"] == "ok", "the cluster to be ok")
        finally:
            raw.close()
        yield node


def test_the_scripts_run_on_a_cluster_node(cluster_node: LocalRedis) -> None:
    raw = cluster_node.client()
    try:
        with pytest.raises(redis.exceptions.ClusterCrossSlotError):
            raw.eval("return 1", 2, "a", "b")  # the node checks: this test can fail
        prefix = "ludo:"
        g, h, k = new_game_id("c"), new_game_id("d"), new_game_id("c")
        s = RedisStore(cluster_node.url, prefix=prefix, cluster=True)
        with s:
            assert s.create(g, b"x", channel="c", due=5.0)
            assert s.create(h, b"y", channel="d")
            assert s.create(k, b"z", channel="c") is False
            assert s.load_in("c") == Stored(b"x", 1)
            assert s.save(g, b"x2", 1, due=6.0)
            assert s.save_shown(g, b"n", 0)
            assert s.channel_game("c") == g
            s.schedule(h, 4.0)
            assert s.claim_due(10.0, lease=1) == [h, g]
            s.unschedule(h)
            assert s.save(g, b"over", 2, due=None, release=True)
            s.release_channel("d", h)
            s.discard(h, "d")
            assert s.create(k, b"z", channel="c")
            assert s.load(g) is not None and s.load(h) is None
            assert s.migrate_old_keys() == 0
            with pytest.raises(StoreError, match="not in the bucket"):
                s.create("x", b"z", channel="free")  # an id outside the channel's bucket
        keys = list(raw.scan_iter(count=1000))
        assert len(keys) >= 4
        slots = {raw.cluster("keyslot", key) for key in keys}
        assert len(slots) == 2, keys  # the bot-wide layout key, and the bucket of c
        assert all(key.startswith(b"ludo:{ludo") for key in keys)
    finally:
        raw.close()


# -- games under the key names of earlier versions ----------------------------------------


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    made = f"old-{uuid.uuid4().hex[:12]}:"
    factory = StoreFactory("redis", redis_url, made, time.time)
    try:
        yield made
    finally:
        factory.close_all()


def _old_game(
    raw: redis.Redis, prefix: str, game_id: str, channel: str, *, bound: bool = True, **more: str
) -> None:
    """A game as ludo-bot wrote it before hash tags."""
    key = f"{prefix}game:{game_id}"
    fields = {"rev": "3", "data": f"old {game_id}", "channel": channel, "tok": "t"}
    fields["exp"] = repr(time.time() + 500)
    raw.hset(key, mapping={**fields, **more})
    raw.pexpire(key, 500_000)
    if bound:
        raw.set(f"{prefix}chan:{channel}", game_id, px=500_000)


@pytest.mark.parametrize("layout", ["before hash tags", "one hash tag"])
def test_games_under_the_old_key_names_are_moved(redis_url: str, prefix: str, layout: str) -> None:
    # layout "2" (every key under the one hash tag {ludo}) moves to the buckets like
    # the names before hash tags did
    old = prefix if layout == "before hash tags" else f"{prefix}{{{prefix.strip(':')}}}:"
    raw = redis.Redis.from_url(redis_url)
    try:
        _old_game(raw, old, "g", "c", shown="board", srev="2")
        _old_game(raw, old, "h", "d", bound=False)  # its channel was released
        _old_game(raw, old, "k", "e")
        raw.zadd(f"{old}due", {"g": 5.0, "k": 6.0, "ghost": 1.0})
        with RedisStore(redis_url, prefix=prefix) as s:
            assert s.migrated == 3
            assert s.load("g") == Stored(b"old g", 3, Shown(b"board", 2))
            assert s.load_in("c") == Stored(b"old g", 3, Shown(b"board", 2))
            assert s.load("h") == Stored(b"old h", 3)
            assert s.channel_game("d") is None
            assert s.claim_due(10.0, lease=100) == ["g", "k"]  # the ghost's deadline is gone
            assert s.save("g", b"new g", 3) and s.save_shown("g", b"b2", 2)
            assert 0 < raw.pttl(f"{s.bucket_base('h')}game:h") <= 500_000  # the expiry came along
            assert 0 < raw.pttl(f"{s.bucket_base('e')}chan:e") <= 500_000
            assert list(raw.scan_iter(match=f"{old}game:*")) == []
            assert not raw.exists(f"{old}due", f"{old}chan:c", f"{old}chan:e")
            assert raw.get(f"{s.base}layout") == b"3"
            assert s.create("new", b"x", channel="c") is False  # c is still g's
        # the next store finds the layout key and does not look again ...
        _old_game(raw, old, "late", "f")
        with RedisStore(redis_url, prefix=prefix) as s:
            assert s.migrated == 0
            assert s.load("late") is None
            assert s.migrate_old_keys() == 1  # ... unless asked to
            assert s.load_in("f") == Stored(b"old late", 3)
    finally:
        raw.close()


def test_an_old_game_whose_id_is_taken_under_the_new_names_goes(
    redis_url: str, prefix: str
) -> None:
    raw = redis.Redis.from_url(redis_url)
    try:
        with RedisStore(redis_url, prefix=prefix) as s:
            assert s.create("g", b"new", channel="c")
            _old_game(raw, prefix, "g", "old-channel")
            raw.zadd(f"{prefix}due", {"g": 1.0})
            assert s.migrate_old_keys() == 0
            assert s.load("g") == Stored(b"new", 1)
            assert s.claim_due(10.0, lease=1) == []
            assert not raw.exists(f"{prefix}game:g", f"{prefix}chan:old-channel")
    finally:
        raw.close()


def test_kept_games_of_layout_2_are_moved_to_their_chats_buckets(
    redis_url: str, prefix: str
) -> None:
    old = f"{prefix}{{{prefix.strip(':')}}}:"
    raw = redis.Redis.from_url(redis_url)
    try:
        # two games kept in chat tg:1 (the second its channel's last), one in tg:2
        for key, chat, when in (("k1", "tg:1", 10.0), ("k2", "tg:1", 20.0), ("k3", "tg:2", 5.0)):
            raw.hset(f"{old}kept", key, "tok")
            raw.hset(f"{old}stats:{key}", mapping={"telegram:1": f"{key}/ana"})
            raw.zadd(f"{old}chat:{chat}", {key: when})
            raw.sadd(f"{old}person:telegram:1", key)
        raw.hset(f"{old}last:tg:1", mapping={"finished": "20.0", "key": "k2", "game": "g2"})
        raw.sadd(f"{old}named:telegram:1", "tg:1")
        with RedisStore(redis_url, prefix=prefix) as s:
            assert s.entries("tg:1") == [("telegram:1", b"k1/ana"), ("telegram:1", b"k2/ana")]
            assert s.entries("tg:2") == [("telegram:1", b"k3/ana")]
            assert s.last_game("tg:1") == b"g2"
            assert not s.keep(Kept("k1", "tg:9", "tg:9", 1.0, b"x", {}))  # kept before
            left = {f"{old}{name}".encode() for name in ("kept", "layout")}  # bot-wide
            assert set(raw.scan_iter(match=f"{old}*")) == left
            assert s.forget("telegram:1", lambda game: b"scrubbed") == 3
            assert s.entries("tg:1") == [] and s.last_game("tg:1") == b"scrubbed"
    finally:
        raw.close()


def test_a_prefix_with_braces_is_refused(redis_url: str) -> None:
    with pytest.raises(ValueError, match="must not contain"):
        RedisStore(redis_url, prefix="{ludo}:")
