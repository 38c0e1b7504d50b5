"""Slow games on one worker, measured on a fast clock: many games with 1-hour turn
timers in which nobody moves, each person's turn reminded by a card and then played by
the computer when it runs out.

    python bench/slow_games.py [--games 500] [--hours 3] [--speed 20]

One process: the real :class:`TelegramAdapter` (python-telegram-bot) against the fake
Bot API of the tests, Telegram's limits kept (one message a second in a private chat,
30 a second in all, 20 a minute in a group), the games in a real SQLite file, and the
turn timers run as the bot runs them (``run_timers``).  Two people who started the bot
sit at each game (``--games`` games: twice as many people), opened one after another
over the first fake hour (as people come: their turns fall due spread over the hour);
nobody presses.  The service's clock runs ``--speed``
times as fast as the real one, so an hour takes ``3600 / speed`` seconds; everything
else (Telegram's limits, the outboxes) keeps real time.

Printed: cards sent a minute (real) and an hour of the games' own time; how late each
reminder card came after its due time (p50, p95, the worst; real seconds: from the
moment the clock reached the reminder to the card's send); the most calls counted by
Telegram that the bot let go in any second (its budget is 30), and the most the fake
received in a second (a busy event loop bunches them); and memory (the process's peak
RSS, and its growth over the run: the fake Telegram in the same process keeps every
message and picture it was sent).  Checked: each reminder sent once (one reminder a
turn), and each turn that ran out played once.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for the fake Telegram of the tests
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.app.runner import run_timers  # noqa: E402
from bot.hosting import Intent, Note, User  # noqa: E402
from bot.hosting.corner import Corner  # noqa: E402
from bot.service.outcome import Outcome  # noqa: E402
from bot.store import SqliteStore  # noqa: E402
from tests.fakes.telegram import FakeTelegram, make_user  # noqa: E402
from tests.helpers.telegram import Bot, running  # noqa: E402

TIMER = 3600
#: the calls Telegram counts against a bot's 30 a second
COUNTED = ("sendMessage", "sendPhoto", "editMessageText", "editMessageMedia", "sendAnimation")


class FastClock:
    """The service's clock: ``speed`` times as fast as the real one."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self.t0, self.m0 = 1_800_000_000.0, time.monotonic()

    def __call__(self) -> float:
        return self.t0 + (time.monotonic() - self.m0) * self.speed

    def real(self, when: float) -> float:
        """The real (monotonic) time the clock reaches ``when``."""
        return self.m0 + (when - self.t0) / self.speed


def busiest(times: list[float]) -> int:
    """The most of ``times`` (sorted) within any one second."""
    most, first = 0, 0
    for last, t in enumerate(times):
        while times[first] <= t - 1.0:
            first += 1
        most = max(most, last - first + 1)
    return most


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def open_games(bot: Bot, fake: FakeTelegram, games: int, over: float) -> None:
    """``games`` games of two people each (who started the bot), opened evenly over
    ``over`` real seconds, started at once, shown."""
    service = bot.service
    for i in range(games):
        people = [make_user(10_000 + 2 * i + k, f"P{2 * i + k}") for k in range(2)]
        users = [User("telegram", str(p["id"]), p["first_name"]) for p in people]
        for user in people:
            fake.private(user)
            await asyncio.to_thread(
                service.corners.change, f"telegram:{user['id']}", lambda c: Corner().opened("en")
            )
        group = fake.group(f"Table {i}")
        channel = f"tg:{group['id']}"
        call = asyncio.to_thread
        await call(service.open, channel, users[0], "classic", {}, timer=TIMER, place=f"T{i}")
        await call(service.act, channel, users[1], Intent("join"))
        await bot.adapter.show(await call(service.act, channel, users[0], Intent("start")))
        await asyncio.sleep(over / games)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    clock = FastClock(args.speed)
    fake = FakeTelegram()
    await fake.start()
    # Telegram's other limits, kept by the fake: about one message a second in a private
    # chat (a short burst allowed), about 30 a second in all; a call over them: 429
    fake.private_limit, fake.overall_limit = (4, 2.0), (30, 1.0)
    reminders: list[tuple[str, str, float]] = []  # game, person on turn, when due (real)
    expiries: Counter[tuple[str, float]] = Counter()
    grants: list[float] = []  # when the bot's pace let a counted call go
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(str(Path(folder) / "slow.sqlite3"), clock=clock)
        kw: dict[str, Any] = {"private_interval": 1.0, "overall_rate": 30, "group_rate": 20}
        try:
            async with running(fake, store, clock, seed=3, first=0, **kw) as bot:
                fire = bot.service.fire_due

                def counted(now: float | None = None) -> list[Outcome]:
                    outcomes = fire(now)
                    for o in outcomes:
                        game = o.game
                        if game is None or o.happened is None:
                            continue
                        seat = game.on_turn()
                        if o.happened.reminder and seat is not None and seat.user is not None:
                            due = (game.deadline or 0) - TIMER / 4
                            reminders.append((game.id, seat.user.id, clock.real(due)))
                        timed = [f for f in o.happened.facts if isinstance(f, Note)]
                        if any(f.key.startswith("timer.") for f in timed):
                            expiries[(game.id, round(clock(), -1))] += 1
                    return outcomes

                bot.service.fire_due = counted  # type: ignore[method-assign]
                take = bot.adapter.pacer.try_take

                def granted(chat: Any) -> float:
                    wait = take(chat)
                    if wait <= 0:
                        grants.append(time.monotonic())
                    return wait

                bot.adapter.pacer.try_take = granted  # type: ignore[method-assign]
                rss0 = rss_mb()
                began = time.monotonic()
                stop = asyncio.Event()
                timers = asyncio.create_task(run_timers(bot.service, [bot.adapter], stop, 0.05))
                await open_games(bot, fake, args.games, 3600 / args.speed)
                end = began + args.hours * 3600 / args.speed
                await asyncio.sleep(max(0.0, end - time.monotonic()))
                stop.set()
                await timers
                await bot.adapter.quiet()
                took = time.monotonic() - began
                rss1 = rss_mb()
        finally:
            store.close()
            await fake.close()
    cards = [c for c in fake.calls if c.method in ("sendPhoto", "sendMessage") and c.ok]
    cards = [c for c in cards if isinstance(c.chat_id, int) and c.chat_id > 0]
    late = []
    for _, person, due in reminders:
        sent = [c.at for c in cards if c.chat_id == int(person) and c.at >= due - 0.5]
        if sent:
            late.append(max(0.0, sent[0] - due))
    once = Counter((g, p, round(d)) for g, p, d in reminders)
    received = busiest(sorted(c.at for c in fake.calls if c.method in COUNTED and c.ok))
    return {
        "games": args.games,
        "real seconds": round(took),
        "cards": len(cards),
        "cards a minute (real)": round(len(cards) / took * 60),
        "cards an hour of the games' time": round(len(cards) / args.hours),
        "reminders": len(reminders),
        "reminders sent twice": sum(n > 1 for n in once.values()),
        "expiries": sum(expiries.values()),
        "expiries acted twice": sum(n > 1 for n in expiries.values()),
        "reminder lateness p50 s": round(statistics.median(late), 2) if late else None,
        "p95 s": round(statistics.quantiles(late, n=20, method="inclusive")[18], 2)
        if len(late) > 1
        else None,
        "worst s": round(max(late), 2) if late else None,
        "most calls let go in a second": busiest(sorted(grants)),
        "most received in a second": received,
        "answered 429": len([c for c in fake.calls if c.status == 429]),
        "peak RSS MB": round(rss1),
        "RSS growth MB": round(rss1 - rss0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--speed", type=float, default=20.0)
    figures = asyncio.run(run(parser.parse_args()))
    print("slow games: " + ", ".join(f"{k} {v}" for k, v in figures.items()), flush=True)


if __name__ == "__main__":
    main()
