"""The people of ``bench/soak.py``: tables of people playing on the fake Telegram of the
tests, each in its group, one game after another, as people do.

:class:`SoakTelegram` is the fake Bot API (:class:`tests.fakes.telegram.FakeTelegram`) as a
long soak needs it: the updates people cause go out through a queue (bench/soak.py posts
them to the workers' webhooks, as Telegram does), every change in a chat wakes whoever
waits on that chat, the answer to a press (``answerCallbackQuery``) resolves the press,
and :meth:`SoakTelegram.prune` forgets what a test keeps for its asserts (every call,
every picture, every version of every message), which would grow for hours.

:class:`People` plays the tables.  A table is a group and its people (one to four; the
rest of the seats computers), a rule set and a turn timer.  Its host types ``/ludo
<rules> [timer=N]``; the others press Join, the host Add computer and Start, each
press on the lobby as shown; then whoever is on turn (as the store says, the way
the tests know it) presses Roll, or one of the pieces, on the board the group shows,
once it shows the turn, after a moment's thought.  At a table with a short turn timer
the person on turn now and then steps away, and the worker's timer plays for them.
Some games are ended by their host with ``/end`` part way; after a game played to its
end the people sometimes ask for a rematch (Rematch, then I'm in), else the host opens
the next game, now and then in a new group.  A press not answered within
:data:`ANSWER_WAIT` s, or a table not shown within :data:`SHOW_WAIT` s, is a game that
stopped progressing: :class:`Stuck`.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import web

from bot.hosting import LOBBY, OVER, PLAYING, Game
from bot.present import parse_press
from bot.store import Store
from tests.fakes.telegram import Call, FakeMessage, FakeTelegram, make_user
from tests.fakes.telegram.objects import ApiError

T = TypeVar("T")

RULES = ("classic", "tower", "italian", "super")
#: (people, computers) at each table, in turn
SEATINGS = ((2, 2), (1, 3), (3, 1), (2, 0), (4, 0), (2, 1))
#: each table's turn timer, in turn: none, the bot's default (LUDO_TURN_SECONDS), short
TIMERS = (0, None, 20)
#: seconds a person takes to press once the board shows their turn (uniform)
THINK = (0.5, 1.5)
#: at a table with a short timer: the chance the person on turn steps away
AWAY = 0.04
#: the chance a game is ended by its host part way (after 5 presses and a random number
#: more, 60 on average: most give up early)
END_EARLY = 0.25
#: after a game played to its end: the chance of a rematch; of the next game in a new group
REMATCH, NEW_GROUP = 0.35, 0.1
#: the longest waits: for the answer to a press; for the chat to show a table
ANSWER_WAIT, SHOW_WAIT = 30.0, 120.0
#: the tables start within this many seconds
START_SPREAD = 5.0
#: messages kept per chat when pruning (the bot only touches its newest ones)
KEEP = 30


class Stuck(Exception):
    """A game stopped progressing: what was waited for, and for how long."""


class SoakTelegram(FakeTelegram):
    """The fake Bot API for a soak (see the module's docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.outgoing: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.wakes: dict[int, asyncio.Event] = {}
        #: chat id -> ids of the bot's messages there, oldest first
        self.bot_messages: dict[int, list[int]] = {}
        #: query id -> (when pressed, the answer's delay once it comes)
        self.pending: dict[str, tuple[float, asyncio.Future[float]]] = {}

    def _enqueue(self, update: dict[str, Any]) -> int:
        update_id = next(self._update_ids)
        update["update_id"] = update_id
        self.outgoing.put_nowait(update)
        return update_id

    def _finish(self, call: Call, error: ApiError | None, result: Any = None) -> web.Response:
        response = super()._finish(call, error, result)
        if not call.ok:
            return response
        chat = call.chat_id
        if isinstance(chat, int):
            if isinstance(result, dict) and "message_id" in result:
                ids = self.bot_messages.setdefault(chat, [])
                if result["message_id"] not in ids:
                    ids.append(int(result["message_id"]))
            wake = self.wakes.get(chat)
            if wake is not None:
                wake.set()
        if call.method.lower() == "answercallbackquery":
            waiting = self.pending.pop(str(call.params.get("callback_query_id")), None)
            if waiting is not None and not waiting[1].done():
                waiting[1].set_result(time.monotonic() - waiting[0])
        return response

    def wake_of(self, chat_id: int) -> asyncio.Event:
        return self.wakes.setdefault(chat_id, asyncio.Event())

    async def click(self, message: FakeMessage, user: dict[str, Any], data: str) -> float:
        """``user`` presses the button ``data`` of ``message``: seconds to its answer."""
        began = time.monotonic()
        query_id = self.press(message, user, data)
        answer: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.pending[query_id] = (began, answer)
        try:
            return await asyncio.wait_for(answer, ANSWER_WAIT)
        except TimeoutError:
            raise Stuck(f"a press ({data}) was not answered within {ANSWER_WAIT:g} s") from None
        finally:
            self.pending.pop(query_id, None)

    def table_of(self, chat_id: int, game_id: str) -> tuple[FakeMessage, int] | None:
        """The newest message of the bot in the chat with buttons of the game, and their
        version."""
        for message_id in reversed(self.bot_messages.get(chat_id, [])):
            m = self.messages.get((chat_id, message_id))
            if m is None or m.deleted:
                continue
            for b in m.buttons:
                press = parse_press(b.get("callback_data"))
                if press is not None and press.game_id == game_id:
                    return m, press.version
        return None

    def newest_game(self, chat_id: int, kinds: set[str], old: set[str]) -> str | None:
        """The game of the newest message with a button of ``kinds`` in the chat, not one
        of ``old``."""
        for message_id in reversed(self.bot_messages.get(chat_id, [])):
            m = self.messages.get((chat_id, message_id))
            if m is None or m.deleted:
                continue
            for b in m.buttons:
                press = parse_press(b.get("callback_data"))
                if press is not None and press.intent.kind in kinds and press.game_id not in old:
                    return press.game_id
        return None

    def last_words(self, chat_id: int) -> str:
        """What the bot said last in the chat (for a message saying where a table stuck)."""
        for message_id in reversed(self.bot_messages.get(chat_id, [])):
            m = self.messages.get((chat_id, message_id))
            if m is not None and not m.deleted:
                return f"{m.content[:160]!r} {[b['text'] for b in m.buttons]}"
        return "nothing"

    def prune(self) -> None:
        """Forget what only a test's asserts need: the record of calls, the answered
        presses, all but the newest :data:`KEEP` messages of each chat, earlier versions
        of messages, the pictures of deleted messages, and the replays' bytes."""
        self.calls.clear()
        for query_id in list(self.answered):
            self.queries.pop(query_id, None)
        self.answered.clear()
        by_chat: dict[int, list[int]] = {}
        for chat_id, message_id in self.messages:
            by_chat.setdefault(chat_id, []).append(message_id)
        for chat_id, ids in by_chat.items():
            for message_id in sorted(ids)[:-KEEP]:
                del self.messages[(chat_id, message_id)]
        for chat_id, ids in self.bot_messages.items():
            ids[:] = [i for i in ids if (chat_id, i) in self.messages]
        for m in self.messages.values():
            del m.history[:-1]
            if m.deleted:
                m.photo = m.photo_id = None
            if m.animation is not None and len(m.animation) > 64:
                m.animation = m.animation[:64]  # the answers give its length only
            if m.document is not None and len(m.document) > 64:
                m.document = m.document[:64]
        live = {m.photo_id for m in self.messages.values() if m.photo_id}
        for file_id in [f for f in self.files if f not in live]:
            del self.files[file_id]


@dataclass
class Table:
    """A group and its people, their rules and turn timer."""

    n: int
    chat: dict[str, Any]
    people: list[dict[str, Any]]
    computers: int
    rules: str
    timer: int | None
    rng: random.Random

    @property
    def chat_id(self) -> int:
        return int(self.chat["id"])

    def person(self, user_id: str) -> dict[str, Any]:
        return next(p for p in self.people if str(p["id"]) == user_id)


@dataclass
class Tally:
    """What the people did, since the start (and the answers' delays since the last look)."""

    answered: int = 0
    delays: list[float] = field(default_factory=list)
    opened: int = 0
    finished: int = 0
    ended: int = 0
    rematches: int = 0
    away: int = 0
    playing: int = 0


class People:
    """The tables, played on ``fake`` until cancelled; ``store`` is read to know whose
    turn it is (as the tests do)."""

    def __init__(self, fake: SoakTelegram, store: Store, games: int, seed: int) -> None:
        self.fake = fake
        self.store = store
        self.tally = Tally()
        self.tables = [self._table(n, random.Random(seed * 1000 + n)) for n in range(games)]

    def _table(self, n: int, rng: random.Random) -> Table:
        people, computers = SEATINGS[n % len(SEATINGS)]
        users = [make_user(10_000 + 10 * n + k, f"P{n}-{k}") for k in range(people)]
        timer = TIMERS[n % len(TIMERS)]
        chat = self.fake.group(f"Soak {n}")
        return Table(n, chat, users, computers, RULES[n % len(RULES)], timer, rng)

    def game(self, game_id: str) -> Game:
        stored = self.store.load(game_id)
        if stored is None:
            raise Stuck(f"game {game_id} is not in the store")
        return Game.from_bytes(stored.data, stored.rev)

    async def until(self, t: Table, check: Callable[[], T | None], timeout: float, what: str) -> T:
        """Wait until ``check()`` says something (looked at on every change in the
        table's chat, and every few seconds); it."""
        wake = self.fake.wake_of(t.chat_id)
        deadline = time.monotonic() + timeout
        while True:
            wake.clear()
            got = check()
            if got is not None:
                return got
            left = deadline - time.monotonic()
            if left <= 0:
                raise Stuck(
                    f"table {t.n} waited {timeout:g} s for {what}; the group shows "
                    + self.fake.last_words(t.chat_id)
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), min(left, 5.0))

    async def shown(self, t: Table, game: Game) -> FakeMessage | None:
        """The message showing ``game`` as it is now, once the chat shows it (None: the
        chat shows a newer version: the game moved on meanwhile)."""

        def check() -> tuple[FakeMessage, int] | None:
            found = self.fake.table_of(t.chat_id, game.id)
            return found if found is not None and found[1] >= game.version else None

        what = f"game {game.id} ({game.status}) to show version {game.version}"
        message, version = await self.until(t, check, SHOW_WAIT, what)
        return message if version == game.version else None

    async def press(self, t: Table, message: FakeMessage, user_id: str, kinds: set[str]) -> None:
        """The person ``user_id`` thinks, then presses a button of ``kinds`` of ``message``."""
        datas = [
            str(b["callback_data"])
            for b in message.buttons
            if (p := parse_press(b.get("callback_data"))) is not None and p.intent.kind in kinds
        ]
        if not datas:
            labels = [b["text"] for b in message.buttons]
            raise Stuck(f"table {t.n}: no button of {sorted(kinds)} in {labels}")
        await asyncio.sleep(t.rng.uniform(*THINK))
        rolls = [d for d in datas if d.endswith(":r")]
        data = rolls[0] if rolls else t.rng.choice(datas)
        delay = await self.fake.click(message, t.person(user_id), data)
        self.tally.answered += 1
        self.tally.delays.append(delay)

    async def run(self, t: Table) -> None:
        """The table's games, one after another, until cancelled."""
        await asyncio.sleep(t.rng.uniform(0, START_SPREAD))
        last: Game | None = None
        seen: set[str] = set()
        while True:
            if last is not None and last.status == OVER and t.rng.random() < REMATCH:
                game_id = await self.rematch(t, last, seen)
            else:
                if last is not None and t.rng.random() < NEW_GROUP:
                    t.chat = self.fake.group(f"Soak {t.n} again")
                game_id = await self.open(t, seen)
            seen.add(game_id)
            await self.seat(t, game_id)
            self.tally.playing += 1
            try:
                last = await self.play(t, game_id)
            finally:
                self.tally.playing -= 1
            if last.status == OVER:
                self.tally.finished += 1
            else:
                self.tally.ended += 1

    async def open(self, t: Table, seen: set[str]) -> str:
        timer = "" if t.timer is None else f" timer={t.timer}"
        self.fake.send_text(t.chat, t.people[0], f"/ludo {t.rules}{timer}")
        self.tally.opened += 1
        return await self.until(
            t, lambda: self.fake.newest_game(t.chat_id, {"join", "start"}, seen), SHOW_WAIT,
            f"the lobby of /ludo {t.rules}{timer}",
        )  # fmt: skip

    async def rematch(self, t: Table, last: Game, seen: set[str]) -> str:
        """Someone who played presses Rematch under the standings: the new lobby's game."""
        message = await self.shown(t, last)
        if message is None:
            found = await self.until(t, lambda: self.fake.table_of(t.chat_id, last.id),
                                     SHOW_WAIT, "the standings")  # fmt: skip
            message = found[0]
        await self.press(t, message, str(t.rng.choice(t.people)["id"]), {"rematch"})
        self.tally.rematches += 1
        return await self.until(
            t, lambda: self.fake.newest_game(t.chat_id, {"join", "roll", "move"}, seen),
            SHOW_WAIT, "the rematch",
        )  # fmt: skip

    async def seat(self, t: Table, game_id: str) -> None:
        """The lobby pressed until the game is played: people join (or say they are in),
        the host adds the computers and starts."""
        host = str(t.people[0]["id"])
        while True:
            game = self.game(game_id)
            if game.status == PLAYING:
                return
            if game.status != LOBBY:
                raise Stuck(f"table {t.n}: the lobby of game {game_id} became {game.status}")
            message = await self.shown(t, game)
            if message is None:
                continue
            seated = {s.user.id for s in game.seats if s.user is not None and not s.waiting}
            missing = [str(p["id"]) for p in t.people if str(p["id"]) not in seated]
            if missing:
                await self.press(t, message, missing[0], {"join"})
            elif sum(s.user is None for s in game.seats) < t.computers:
                await self.press(t, message, host, {"add_computer"})
            else:
                await self.press(t, message, host, {"start"})

    async def play(self, t: Table, game_id: str) -> Game:
        """Whoever is on turn presses, until the game is over (or ended by its host)."""
        presses = 0
        end_after = 5 + int(t.rng.expovariate(1 / 60)) if t.rng.random() < END_EARLY else None
        while True:
            game = self.game(game_id)
            seat = game.on_turn()
            if game.status != PLAYING or seat is None or seat.user is None:
                if game.status != PLAYING:
                    return game
                await asyncio.sleep(0.5)  # a computer's turn: played at once by the worker
                continue
            message = await self.shown(t, game)
            if message is None:
                continue
            if t.timer and t.rng.random() < AWAY:
                self.tally.away += 1  # the timer plays the turn, and the chat shows it
                await self.moved(t, game, t.timer + SHOW_WAIT, "its turn timer")
                continue
            if end_after is not None and presses >= end_after:
                self.fake.send_text(t.chat, t.person(game.creator.id), "/end")
                await self.moved(t, game, SHOW_WAIT, "/end")
                continue
            await self.press(t, message, seat.user.id, {"roll", "move"})
            presses += 1

    async def moved(self, t: Table, game: Game, timeout: float, what: str) -> None:
        """Wait until the game is saved again (``game`` is as it was read)."""

        def saved() -> bool | None:
            stored = self.store.load(game.id)
            return True if stored is None or stored.rev != game.rev else None

        await self.until(t, saved, timeout, f"game {game.id} to move on ({what})")
