"""Faults between a worker and Redis, through a TCP proxy (issue 37): latency, dropped
connections, resets in the middle of a script (before and after Redis ran it), and
partitions that heal, while games are pressed and turn timers fire.

Every press appends its own mark to its game, so the game's data is the list of the
presses applied, in order.  Afterwards: every press answered as done is there once,
every press refused is not there, a press whose answer was lost (``unsure``) is
there at most once, and every turn timer fired exactly once."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.store import RedisStore, StoreUnavailable
from bot.store.buckets import new_game_id
from tests.helpers.local_redis import LocalRedis
from tests.helpers.tcp_proxy import TcpProxy

#: turn timers each game has, one after the other
TIMERS = 12


class Table:
    def __init__(self, store: RedisStore, games: int) -> None:
        self.store = store
        self.ids = [new_game_id(f"net-{i}") for i in range(games)]
        self.answers: dict[str, str] = {}  # press mark -> done, refused, unsure, lost race
        self.lock = threading.Lock()
        self.stop = threading.Event()
        for i, game_id in enumerate(self.ids):
            assert store.create(game_id, b"start", channel=f"net-{i}", due=time.time() + 0.3)

    def press(self, game_id: str, mark: str) -> None:
        try:
            got = self.store.load(game_id)
            assert got is not None
            done = self.store.save(game_id, got.data + b"," + mark.encode(), got.rev)
            answer = "done" if done else "lost race"
        except StoreUnavailable as exc:
            answer = "unsure" if exc.unsure else "refused"
        with self.lock:
            self.answers[mark] = answer

    def player(self, n: int) -> None:
        game_id, i = self.ids[n], 0
        while not self.stop.is_set():
            self.press(game_id, f"p{n}.{i}")
            i += 1
            time.sleep(0.02)

    def timers_done(self) -> bool:
        """Every game's timers have fired (as far as a load through the proxy tells)."""
        try:
            found = [self.store.load(game_id) for game_id in self.ids]
        except StoreUnavailable:
            return False
        return all(g is not None and g.data.count(b",T") >= TIMERS for g in found)

    def timers(self) -> None:
        """A worker's turn timers: each deadline claimed fires once (a mark T<k>)."""
        while not self.stop.is_set():
            try:
                due = self.store.claim_due(time.time(), lease=2.0)
            except StoreUnavailable:
                time.sleep(0.1)
                continue
            for game_id in due:
                try:
                    got = self.store.load(game_id)
                    assert got is not None
                    fired = got.data.count(b",T")
                    nxt = time.time() + 0.3 if fired + 1 < TIMERS else None
                    mark = f",T{fired}".encode()
                    self.store.save(game_id, got.data + mark, got.rev, due=nxt)
                except StoreUnavailable:
                    pass  # claimed again once the lease is over
            time.sleep(0.05)


def test_every_press_is_accounted_for_and_timers_fire_once(
    own_redis: LocalRedis, tmp_path: Path
) -> None:
    with TcpProxy(own_redis.port) as proxy:
        store = RedisStore(proxy.url, prefix="net:")
        table = Table(store, games=4)
        threads = [threading.Thread(target=table.player, args=(n,)) for n in range(4)]
        threads.append(threading.Thread(target=table.timers))
        for t in threads:
            t.start()
        try:
            time.sleep(0.5)
            proxy.latency = 0.3  # a slow network: everything still answered
            time.sleep(1.5)
            proxy.latency = 0.0
            for fault in (proxy.drop, proxy.reset):  # every connection closed, then reset
                fault()
                time.sleep(0.4)
            for where in ("request", "reply") * 3:  # in the middle of a script
                proxy.cut(where)
                time.sleep(0.3)
            for hold in (1.5, 4.5):  # partitions that heal, shorter and longer than the resends
                proxy.partition()
                time.sleep(hold)
                proxy.heal()
                time.sleep(1.0)
            # the timers' chain, set back by every fault (a claim whose save failed waits
            # out its lease), runs to its end: on a busy machine that may take a while
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not table.timers_done():
                time.sleep(0.3)
        finally:
            table.stop.set()
            for t in threads:
                t.join(30)
        counts = dict(proxy.counts)
        with RedisStore(own_redis.url, prefix="net:") as direct:
            final = {g: direct.load(g) for g in table.ids}
        store.close()

    applied = Counter()
    for game_id, got in final.items():
        assert got is not None
        marks = got.data.decode().split(",")[1:]
        timers = [m for m in marks if m.startswith("T")]
        assert timers == [f"T{k}" for k in range(TIMERS)], (game_id, timers)  # each once
        presses = [m for m in marks if not m.startswith("T")]
        applied.update(presses)
    assert not [m for m, n in applied.items() if n > 1]  # no press applied twice
    told = Counter(table.answers.values())
    for mark, answer in table.answers.items():
        if answer == "done":
            assert applied[mark] == 1, mark  # answered as done: kept
        elif answer in ("refused", "lost race"):
            assert applied[mark] == 0, (mark, answer)  # refused: never done
    assert told["done"] > 100 and told["refused"] + told["unsure"] > 0, told
    assert counts["cut request"] == 3 and counts["cut reply"] == 3, counts
    print(f"\npresses: {dict(told)}; proxy: {counts}")  # the figures for the note


pytestmark = pytest.mark.slow
