"""Every chat's share of the bot on Telegram, measured: a flood in one group, twenty
replays in one chat, and a whole group game by buttons.

    python bench/chat.py [--period 60] [--only flood|replays|game]

One process: the real :class:`TelegramAdapter` (python-telegram-bot) against the
fake Bot API of the tests, games in a real SQLite file.  ``--period`` is the
length of Telegram's group window in seconds (20 messages or edits in 60 s): 60
measures the real thing (the whole game then takes about twenty minutes), the CI
runs a tenth of it.  Printed per scenario: answers to presses (p50, p99: never
scaled, a handler must answer at once), boards after their press (p50, p99, and
the p99 at Telegram's minute), messages and edits per press, and the busiest
window.  Targets: answers within 1 s at p99; boards within 10 s of Telegram's
minute at p99; at most 1.1 messages and edits per press.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for the fake Telegram of the tests
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.store import SqliteStore  # noqa: E402
from tests.fakes.telegram import FakeTelegram  # noqa: E402
from tests.helpers.chat_scenarios import (  # noqa: E402
    ASKERS,
    Figures,
    counted_calls,
    finished_game,
    flood,
    play_at_pace,
    start_group_game,
)
from tests.helpers.telegram import running  # noqa: E402

RATE = 20


async def scenario(name: str, period: float, folder: Path) -> dict[str, object]:
    fake = FakeTelegram()
    await fake.start()
    store = SqliteStore(str(folder / f"{name}.sqlite3"), ttl=3600)
    figures = Figures()
    try:
        if name == "replays":
            replays, playing = fake.group("Replays"), fake.group("Playing")
            finished_game(store, f"tg:{replays['id']}")
            async with running(fake, store, time.time) as bot:
                game_id = await start_group_game(bot, playing)
                for user in ASKERS:
                    fake.send_text(replays, user, "/ludo replay")
                await play_at_pace(
                    bot, playing["id"], game_id, random.Random(5), figures=figures,
                    until=time.monotonic() + 4.0,
                )  # fmt: skip
                await bot.settle(timeout=120)
            figures.extra["replays_drawn"] = len(
                [c for c in fake.calls_of("sendAnimation", ok=True) if "animation" in c.files]
            )
            return figures.summary(period)
        fake.group_limit = (RATE, period)
        kw = {"group_rate": RATE, "group_period": period, "max_retries": 3}
        async with running(fake, store, time.time, **kw) as bot:
            group = fake.group("Playing")
            mark = fake.mark()
            game_id = await start_group_game(bot, group)
            if name == "flood":
                flooded = fake.group("Flooded")
                flooding = asyncio.create_task(
                    flood(fake, flooded, per_second=60 / period, seconds=2 * period)
                )
                await fake.wait_for(
                    lambda: counted_calls(fake, flooded["id"]) >= RATE - 2, period, "A's limit"
                )
                await play_at_pace(
                    bot, group["id"], game_id, random.Random(3), figures=figures,
                    until=time.monotonic() + period, timeout=10 * period,
                )  # fmt: skip
                figures.extra["flood_commands"] = await flooding
            else:
                figures.presses = 4  # the lobby's
                await play_at_pace(
                    bot, group["id"], game_id, random.Random(8), figures=figures,
                    timeout=10 * period,
                )  # fmt: skip
                figures.counted = counted_calls(fake, group["id"], since=mark)
            await bot.settle(timeout=10 * period)
            figures.busiest = fake.busiest(group["id"], period)
        return figures.summary(period)
    finally:
        store.close()
        await fake.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--period", type=float, default=60.0)
    parser.add_argument("--only", choices=("flood", "replays", "game"))
    args = parser.parse_args()
    names = [args.only] if args.only else ["flood", "replays", "game"]
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            began = time.monotonic()
            figures = await scenario(name, args.period, Path(folder))
            took = time.monotonic() - began
            line = ", ".join(f"{k} {v}" for k, v in figures.items())
            print(f"{name} (window {args.period:g} s, {took:.0f} s): {line}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
