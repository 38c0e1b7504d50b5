"""One group game three ways (issues 23, 36): played by the chat's buttons, by the buttons
of one message posted through inline mode in a group the bot is no member of, and on
the live board (the Telegram Mini App's websocket); presses per minute, and the time
from a press to the other player's screen.

    python bench/board_vs_chat.py [--period 60] [--board-window 60] [--only chat|inline|board]
                                  [--seed 8] [--unlimited]

Both games alike: classic Ludo, Ana and Ben and two computer players, no turn timer,
played to its end; one process, the real :class:`TelegramAdapter`
(python-telegram-bot) against the fake Bot API of the tests, whose groups take 20
messages or edits in any ``--period`` seconds (Telegram: 20 a minute; 60 is the real
thing, the CI runs 6, a tenth), games in a real SQLite file, the rate limits of
``ludo-bot run`` (its defaults: 3 presses a second in a chat, 2 per person, after a
burst) on every press (``--unlimited``: none, to see what the board itself takes).

By chat buttons (as ``bench/chat.py game``): the person on turn presses a button as
soon as the group's board shows their turn; a press is timed to the board showing its
result in the group (both players' screen).  Its figures are printed as measured and
at Telegram's real minute (times and the game's length scaled by 60 / period).  By an
inline table: the same, the game chosen from ``@bot classic timer=0`` in a group the bot
is no member of and played in that one message (its edits at the group's pace).

On the board: the game opened in a group by chat buttons (the chat table follows it,
at the group's limit), the board served as ``ludo-bot run`` serves it (the bot's
aiohttp server, :func:`bot.app.board.board_routes`; a move made there shown in the
chat by the adapter), Ana's and Ben's pages each a websocket from a session of
Telegram-signed initData.  The person on turn presses (roll, or one of the pieces
they may move) as soon as their page shows their turn (a press the rate limits turn
away is made again 0.25 s later); a press is timed to the OTHER player's page
receiving the new state.  At the end: when the group's table showed the final
standings, after the last press.  This game does not depend on ``--period``: its
group's window is ``--board-window`` (default Telegram's real minute).

Presses per minute count the game's presses from the first roll to the last move
(not the lobby's), over the time from the first press to the last one's result.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.app.board import board_routes  # noqa: E402
from bot.app.web import start_web  # noqa: E402
from bot.hosting import OVER, User  # noqa: E402
from bot.limits.rate import Limiter, LimitSettings  # noqa: E402
from bot.store import SqliteStore  # noqa: E402
from bot.store.limits import MemoryBuckets  # noqa: E402
from bot.web.auth import Keys  # noqa: E402
from bot.web.board import Board  # noqa: E402
from bot.web.hub import Hub  # noqa: E402
from bot.web.words import words  # noqa: E402
from tests.fakes.telegram import FakeTelegram  # noqa: E402
from tests.helpers.chat_scenarios import (  # noqa: E402
    ANA,
    BEN,
    Figures,
    counted_calls,
    pct,
    play_at_pace,
    start_group_game,
    start_inline_game,
)
from tests.helpers.telegram import init_data, running  # noqa: E402

RATE = 20
#: the longest wait for anything, in Telegram windows
WINDOWS = 10


def limiter(unlimited: bool) -> Limiter | None:
    """The rate limits ``ludo-bot run`` puts on every press (its defaults, in this
    process); None with ``--unlimited``."""
    return None if unlimited else Limiter(MemoryBuckets(), LimitSettings())


def per_minute(presses: int, seconds: float) -> float:
    return presses / seconds * 60 if seconds > 0 else 0.0


async def chat_game(
    period: float, folder: Path, seed: int, unlimited: bool, *, inline: bool = False
) -> dict[str, Any]:
    """The game by chat buttons: presses, seconds, press→board latencies.  ``inline``: in
    a group the bot is no member of, in the one message posted through inline mode."""
    fake = FakeTelegram()
    await fake.start()
    store = SqliteStore(str(folder / "chat.sqlite3"), ttl=3600)
    fake.group_limit = (RATE, period)
    kw: dict[str, Any] = {"group_rate": RATE, "group_period": period, "max_retries": 3}
    kw["limiter"] = limiter(unlimited)
    figures = Figures()
    try:
        async with running(fake, store, time.time, **kw) as bot:
            group = fake.group("Chat buttons")
            inline_id = None
            if inline:
                game_id, inline_id = await start_inline_game(bot, group)
            else:
                game_id = await start_group_game(bot, group)
            began = time.monotonic()
            await play_at_pace(
                bot, group["id"], game_id, random.Random(seed), figures=figures,
                timeout=WINDOWS * period, inline_id=inline_id,
            )  # fmt: skip
            took = time.monotonic() - began
            assert bot.game(game_id).status == OVER
            await bot.settle(timeout=WINDOWS * period)
            busiest = fake.busiest(group["id"], period)
    finally:
        store.close()
        await fake.close()
    return {"presses": figures.presses, "seconds": took, "latencies": figures.boards,
            "busiest": busiest}  # fmt: skip


class Page:
    """A player's page: its websocket, the states it received (revision, when)."""

    def __init__(self, name: str, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.name = name
        self.ws = ws
        self.arrivals: list[tuple[int, float]] = []
        self.latest: dict[str, Any] = {}
        self.answers: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.reader: asyncio.Task[None] | None = None

    async def read(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.monotonic()
            data = json.loads(msg.data)
            if data["type"] == "state":
                if data["game"]["rev"] > self.latest.get("rev", -1):
                    self.arrivals.append((data["game"]["rev"], now))
                    self.latest = data["game"]
                self.changed.set()
            else:
                self.answers.put_nowait(data)

    async def past(self, rev: int, timeout: float) -> float:
        """When this page first received a state newer than ``rev``."""
        async with asyncio.timeout(timeout):
            while self.latest.get("rev", -1) <= rev:
                self.changed.clear()
                await self.changed.wait()
        return next(t for r, t in self.arrivals if r > rev)

    def press(self, rng: random.Random) -> str | None:
        """What this player presses now (None: not their turn)."""
        game = self.latest
        turn = game.get("turn")
        if game.get("status") != "playing" or not turn or not turn.get("yours"):
            return None
        rolls = [a["data"] for a in game.get("actions", []) if a.get("kind") == "roll"]
        if rolls:
            return str(rolls[0])
        moves = [m["data"] for m in game.get("moves", [])]
        return str(rng.choice(moves)) if moves else None


async def open_page(
    http: aiohttp.ClientSession, url: str, user: User, start: str, token: str
) -> Page:
    """``user``'s Mini App page: a session from their signed initData, its websocket."""
    auth = "tma " + init_data(user, start, token=token)
    async with http.post(f"{url}/api/session", json={}, headers={"Authorization": auth}) as r:
        body = await r.json()
        assert r.status == 200 and body["role"] == "player", body
    ws = await http.ws_connect(f"{url}/api/ws")
    await ws.send_json({"type": "hello", "session": body["session"]})
    page = Page(user.name, ws)
    page.reader = asyncio.create_task(page.read())
    await page.past(-1, 30)
    return page


async def play_pages(
    pages: list[Page], rng: random.Random, timeout: float
) -> tuple[list[float], int, float]:
    """The person on turn presses as soon as their page shows it, until the game is
    over: each press's latency to the other page, the refusals, the last press's result."""
    latencies: list[float] = []
    refused = 0
    last = time.monotonic()
    n = 0
    while pages[0].latest.get("status") != "over":
        chosen = [(p, d) for p in pages if (d := p.press(rng)) is not None]
        if not chosen:  # between states: wait for the next one
            for p in pages:
                p.changed.clear()
            waits = [asyncio.ensure_future(p.changed.wait()) for p in pages]
            done, rest = await asyncio.wait(waits, timeout=timeout, return_when="FIRST_COMPLETED")
            for w in rest:
                w.cancel()
            if not done:
                raise TimeoutError("no page showed anyone's turn")
            continue
        page, data = chosen[0]
        other = next(p for p in pages if p is not page)
        rev = page.latest["rev"]
        n += 1
        began = time.monotonic()
        await page.ws.send_json({"type": "press", "data": data, "id": str(n)})
        answer = await asyncio.wait_for(page.answers.get(), timeout)
        if answer["type"] != "ack":  # the rate limits: press again a moment later
            if answer.get("text") != words("web.slow_down", "en"):
                raise AssertionError(f"{page.name}'s press refused: {answer}")
            refused += 1
            await asyncio.sleep(0.25)
            continue
        latencies.append(await other.past(rev, timeout) - began)
        last = max(await page.past(rev, timeout), other.arrivals[-1][1])
    return latencies, refused, last


async def board_game(period: float, folder: Path, seed: int, unlimited: bool) -> dict[str, Any]:
    """The game on the live board, the group's table following it (its group's window
    ``period`` seconds: Telegram's minute, whatever ``--period``)."""
    fake = FakeTelegram()
    await fake.start()
    store = SqliteStore(str(folder / "board.sqlite3"), ttl=3600)
    fake.group_limit = (RATE, period)
    limits = limiter(unlimited)
    kw: dict[str, Any] = {"group_rate": RATE, "group_period": period, "max_retries": 3}
    kw["limiter"] = limits
    try:
        async with running(fake, store, time.time, **kw) as bot:
            group = fake.group("Live board")
            game_id = await start_group_game(bot, group)
            # as ``ludo-bot run`` makes it (bot.app.board.make_board): keys from the token
            board = Board(
                bot.service,
                Keys([fake.token]),
                Hub(bot.service),
                telegram_token=fake.token,
                limiter=limits,
                show=bot.adapter.show,
            )
            await board.hub.start()
            server = await start_web("127.0.0.1", 0, {}, routes=board_routes(board))
            try:
                start = board.keys.play(game_id)
                async with aiohttp.ClientSession() as http:
                    pages = [
                        await open_page(http, server.url, User("telegram", str(u["id"]), name),
                                        start, fake.token)
                        for u, name in ((ANA, "Ana"), (BEN, "Ben"))
                    ]  # fmt: skip
                    mark = fake.mark()
                    began = time.monotonic()
                    latencies, refused, last = await play_pages(
                        pages, random.Random(seed), WINDOWS * period
                    )
                    took = last - began
                    for p in pages:
                        await p.ws.close()
                assert bot.game(game_id).status == OVER
                await fake.wait_for(
                    lambda: any(b["text"] == "Rematch"
                                for m in fake.chat_messages(group["id"]) for b in m.buttons),
                    WINDOWS * period, "the group's final standings",
                )  # fmt: skip
                caught_up = time.monotonic() - last
                await asyncio.wait_for(bot.adapter.quiet(), WINDOWS * period)
                counted = counted_calls(fake, group["id"], since=mark)
            finally:
                await board.close()
                await server.close()
    finally:
        store.close()
        await fake.close()
    return {"presses": len(latencies), "seconds": took, "latencies": latencies,
            "refused": refused, "caught_up": caught_up, "chat_calls": counted}  # fmt: skip


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--period", type=float, default=60.0, help="Telegram's window (s)")
    parser.add_argument("--only", choices=("chat", "inline", "board"))
    parser.add_argument("--seed", type=int, default=8, help="the players' choices")
    parser.add_argument(
        "--board-window", type=float, default=60.0,
        help="the group's window while the board is played (s; default Telegram's minute)",
    )  # fmt: skip
    parser.add_argument(
        "--unlimited", action="store_true", help="no rate limits on presses (ludo-bot run has)"
    )
    args = parser.parse_args()
    scale = 60.0 / args.period
    rows: dict[str, tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, inline in (("chat buttons", False), ("inline table", True)):
            if args.only not in (None, "inline" if inline else "chat"):
                continue
            folder_of = Path(folder) / ("inline" if inline else "chat")
            folder_of.mkdir()
            c = await chat_game(args.period, folder_of, args.seed, args.unlimited, inline=inline)
            lat = c["latencies"]
            ppm = per_minute(c["presses"], c["seconds"])
            p50, p95 = pct(lat, 0.5), pct(lat, 0.95)
            print(
                f"{name} (window {args.period:g} s): {c['presses']} presses in "
                f"{c['seconds']:.1f} s, {ppm:.1f}/min; press -> board in the group "
                f"p50 {p50:.2f} s, p95 {p95:.2f} s, max {max(lat):.2f} s; "
                f"busiest window {c['busiest']} calls",
                flush=True,
            )
            rows[name] = (ppm / scale, p50 * scale, p95 * scale)
            print(
                f"  at Telegram's 60 s minute: game {c['seconds'] * scale / 60:.1f} min, "
                f"{ppm / scale:.1f} presses/min, p50 {p50 * scale:.1f} s, "
                f"p95 {p95 * scale:.1f} s",
                flush=True,
            )
        if args.only in (None, "board"):
            b = await board_game(args.board_window, Path(folder), args.seed, args.unlimited)
            bscale = 60.0 / args.board_window
            lat = b["latencies"]
            ppm = per_minute(b["presses"], b["seconds"])
            p50, p95 = pct(lat, 0.5), pct(lat, 0.95)
            print(
                f"live board (group window {args.board_window:g} s): {b['presses']} presses "
                f"in {b['seconds']:.1f} s, {ppm:.0f}/min "
                f"({b['refused']} refused by the rate limits, pressed again 0.25 s later); "
                "press -> other "
                f"player's page p50 {ms(p50)}, p95 {ms(p95)}, max {ms(max(lat))}, "
                f"mean {ms(statistics.mean(lat))}",
                flush=True,
            )
            print(
                f"  the group's table showed the final standings {b['caught_up']:.1f} s after "
                f"the last press ({b['caught_up'] * bscale:.1f} s at Telegram's minute), "
                f"{b['chat_calls']} messages and edits in the group during the game",
                flush=True,
            )
            rows["live board"] = (ppm, p50, p95)
    print(f"\n{'':14}{'presses/min':>13}{'p50':>12}{'p95':>12}   (window scaled to 60 s)")
    for name, (ppm, p50, p95) in rows.items():
        print(f"{name:14}{ppm:13.1f}{ms(p50):>12}{ms(p95):>12}")
    if "chat buttons" in rows and "live board" in rows:
        (cp, c50, c95), (bp, b50, b95) = rows["chat buttons"], rows["live board"]
        print(
            f"{'board / chat':14}{bp / cp:12.1f}x{c50 / b50:11.0f}x{c95 / b95:11.0f}x"
            "   (presses: more; latencies: times faster)"
        )


if __name__ == "__main__":
    asyncio.run(main())
