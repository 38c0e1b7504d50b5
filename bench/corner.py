"""Turn cards in the players' private chats, measured: from a press to the next person's
card, in a group game played from the cards alone.

    python bench/corner.py [--period 60] [--games 1] [--presses 2000]

One process: the real :class:`TelegramAdapter` (python-telegram-bot) against the fake
Bot API of the tests, games in a real SQLite file, Telegram's limits kept by the fake and
by the bot (a group's 20 messages or edits in ``--period`` seconds, one message a second
in a private chat, 30 a second in all).  Two people who started the bot play each game
with two computers, each pressing on their card as soon as it offers them play.

Printed: presses, cards sent, and the time from a press that passes the turn to the
next person's card (p50, p95), which waits behind the table in the group (the card
follows its table, and reuses its upload).  ``--period 60`` is Telegram's minute; the
CI runs a short game in a tiny window (``--period 0.5 --presses 8``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench/engine.py is named like the engine package: keep this folder off the path,
# and put the repository root on it for the fake Telegram of the tests
ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bot.hosting import PLAYING  # noqa: E402
from bot.store import SqliteStore  # noqa: E402
from tests.fakes.telegram import FakeMessage, FakeTelegram, make_user  # noqa: E402
from tests.helpers.telegram import Bot, game_id_of, running  # noqa: E402

RATE = 20
SENDS = ("sendMessage", "sendPhoto")


def live_card(fake: FakeTelegram, user: dict[str, Any]) -> FakeMessage | None:
    """The card in ``user``'s private chat that offers play, if any."""
    for m in fake.chat_messages(user["id"]):
        data = [b.get("callback_data", "").split(":") for b in m.buttons]
        if any(d[0] == "g" and len(d) == 4 and d[3][:1] in "rm" for d in data):
            return m
    return None


async def one_game(
    bot: Bot, fake: FakeTelegram, n: int, rng: random.Random, presses: int
) -> list[float]:
    """A game played from the cards; the seconds from each press that passed the turn
    to the next person to the card it sent them."""
    ana, ben = make_user(700 + 2 * n, f"Ana{n}"), make_user(701 + 2 * n, f"Ben{n}")
    people = {ana["id"]: ana, ben["id"]: ben}
    for user in people.values():
        fake.send_text(fake.private(user), user, "/start")
    group = fake.group(f"Table {n}")
    fake.send_text(group, ana, "/ludo")
    await bot.settle(60)
    chooser = fake.latest(group["id"], buttons=True)
    await bot.click(chooser, ana, label="Classic")
    lobby = fake.message(group["id"], chooser.message_id)
    game_id = game_id_of(lobby)
    await bot.click(lobby, ben, label="Join")
    for _ in range(2):
        await bot.click(lobby, ana, label="Add computer")
    await bot.click(lobby, ben, label="Start")
    waits: list[float] = []
    for _ in range(presses):
        if bot.game(game_id).status != PLAYING:
            break
        turn = bot.on_turn(game_id)
        user = people[int(turn or 0)]
        card = live_card(fake, user)
        if card is None:  # their own Start: the table is theirs to press
            card = fake.latest(group["id"], buttons=True)
        labels = [b["text"] for b in card.buttons if b.get("callback_data", "").startswith("g:")]
        mark, pressed = fake.mark(), time.monotonic()
        await bot.click(card, user, label="Roll" if "Roll" in labels else rng.choice(labels))
        now = bot.on_turn(game_id)
        if now is not None and now != turn:
            sent = [c for c in fake.calls[mark:] if c.method in SENDS and c.chat_id == int(now)]
            if sent:
                waits.append(sent[0].at - pressed)
    return waits


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--period", type=float, default=60.0)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--presses", type=int, default=2000, help="at most this many a game")
    args = parser.parse_args()
    fake = FakeTelegram()
    await fake.start()
    fake.group_limit = (RATE, args.period)
    # Telegram's other limits, kept by the fake: about one message a second in a private
    # chat (a short burst allowed), about 30 a second in all; a call over them: 429
    fake.private_limit, fake.overall_limit = (4, 2.0), (30, 1.0)
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteStore(str(Path(folder) / "corner.sqlite3"))
        kw: dict[str, Any] = {"group_rate": RATE, "group_period": args.period, "max_retries": 3}
        kw |= {"private_interval": 1.0, "overall_rate": 30}
        try:
            async with running(fake, store, time.time, first=0, **kw) as bot:
                rng, waits = random.Random(4), []
                for n in range(args.games):
                    waits += await one_game(bot, fake, n, rng, args.presses)
        finally:
            store.close()
            await fake.close()
    presses = len(fake.calls_of("answerCallbackQuery"))
    cards = len([c for c in fake.calls if c.method in SENDS and c.ok and c.chat_id > 0])
    p50 = statistics.median(waits) if waits else float("nan")
    p95 = statistics.quantiles(waits, n=20, method="inclusive")[18] if len(waits) > 1 else p50
    print(
        f"corner (window {args.period:g} s, {time.monotonic() - began:.0f} s): "
        f"{args.games} game(s), {presses} presses, {cards} cards sent, "
        f"press to the next person's card: p50 {p50:.2f} s, p95 {p95:.2f} s "
        f"({len(waits)} turns passed); answered 429: {sum(c.status == 429 for c in fake.calls)}",
        flush=True,
    )


if __name__ == "__main__":
    asyncio.run(main())
