"""The tables of one Discord adapter brought into their channels, and shown again once
Discord answers if it refused them for a while.

A table whose show failed because Discord refused calls (a 429 or a 5xx that
discord.py gave up on, or no answer: :func:`.weather.transient`) is kept for its
channel: the newest view of each game, a newer view replacing an older one (as in
Telegram's outbox), and shown through the channel's REST after a wait: Discord's
``retry_after`` for a 429, else a backoff with jitter that grows with each refusal in
a row (:class:`~bot.adapters.storm.Backoff`).  While a channel waits, a press there
calls Discord only for its own answer: its table joins the wait.  What the channel
shows is read again from the store before each try, so nothing is posted twice and
the newest view wins.  Places reached through interactions only cannot be reached
later through the channel: there the next press shows the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from ...present import TableView
from ...service.game import GameService
from ...service.outcome import Outcome
from ..faults import FaultLog
from ..reconcile import Reconciler
from ..storm import Storm
from .screen import ChannelScreen
from .weather import retry_after, transient

log = logging.getLogger(__name__)

#: how many games' locks are kept before the idle ones are forgotten
LOCKS = 2048
#: told of a table shown (put up by this call, or not) in a channel
Shown = Callable[[TableView, Outcome, bool, ChannelScreen], Awaitable[None]]


@dataclass
class Waiting:
    """A table to show once Discord answers."""

    view: TableView
    outcome: Outcome
    fresh: bool


class Tables:
    """Brings the channels to their tables' newest views (see the module's doc)."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        storm: Storm,
        faults: FaultLog,
        shown: Shown,
    ) -> None:
        self.client = client
        self.storm = storm
        self.faults = faults
        self.reconciler = Reconciler(service)
        self._shown = shown
        #: channel -> game -> the newest view waiting; the channel's task, its refusals
        self._waiting: dict[int, dict[str, Waiting]] = {}
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._tries: dict[int, int] = {}
        #: one show of a game at a time, from deciding to call Discord to its answer
        self._locks: dict[str, asyncio.Lock] = {}

    def waiting(self, channel_id: int) -> bool:
        """Whether the channel's tables wait for Discord to answer again."""
        return channel_id in self._waiting

    async def show(
        self,
        view: TableView,
        outcome: Outcome,
        screen: ChannelScreen,
        *,
        fresh: bool = False,
        pressed: str | None = None,
    ) -> None:
        """Bring ``screen``'s channel to ``view`` now, or once Discord answers again (a
        show waiting for the game's previous one joins the wait if that one was refused)."""
        chat = screen.powers.send and screen.powers.delete  # a channel the bot is in
        async with self._lock(view.game_id):
            if chat and self.waiting(screen.channel_id):
                self._later(screen.channel_id, view, outcome, fresh, None)
                return
            try:
                put_up = await self.reconciler.reconcile(
                    view,
                    outcome.shown,
                    screen,
                    fresh=fresh,
                    pressed=pressed,
                    refused=outcome.refusal is not None,
                )
                await self._shown(view, outcome, put_up, screen)
            except Exception as e:
                if chat and transient(e):
                    self._later(screen.channel_id, view, outcome, fresh, e)
                    return
                # the game is saved; the next press or look shows it
                self.faults.note(e, f"could not show game {view.game_id} in {view.channel}")

    def _lock(self, game_id: str) -> asyncio.Lock:
        if len(self._locks) > LOCKS:  # forget idle games' locks
            self._locks = {k: v for k, v in self._locks.items() if v.locked()}
        return self._locks.setdefault(game_id, asyncio.Lock())

    def _later(
        self,
        channel_id: int,
        view: TableView,
        outcome: Outcome,
        fresh: bool,
        error: BaseException | None,
    ) -> None:
        """Show ``view`` in the channel once Discord answers (``error``: why not now)."""
        if outcome.refusal is not None:
            view = view.quiet()  # a repair: nobody is notified
        games = self._waiting.setdefault(channel_id, {})
        older = games.get(view.game_id)
        if older is not None and older.view.rev > view.rev:
            older.fresh = older.fresh or fresh
        else:
            games[view.game_id] = Waiting(view, outcome, fresh or bool(older and older.fresh))
        if error is not None or channel_id not in self._tasks:
            tries = self._tries.get(channel_id, 0)
            wait = self.storm.wait(tries, retry_after(error) if error is not None else None)
            self._tries[channel_id] = tries + 1
            log.debug("channel %s: Discord refused (%s), again in %.1f s", channel_id, error, wait)
            if channel_id not in self._tasks:
                task = asyncio.create_task(self._again(channel_id, wait))
                self._tasks[channel_id] = task

    async def _again(self, channel_id: int, wait: float) -> None:
        """The channel's tables shown once the wait is over; again later if refused."""
        try:
            while self._waiting.get(channel_id):
                await asyncio.sleep(wait)
                games = self._waiting[channel_id]
                while games:
                    game_id, waiting = next(iter(games.items()))
                    del games[game_id]
                    screen = ChannelScreen(self.client, channel_id)
                    try:
                        await self._show(waiting, screen)
                    except Exception as e:
                        if not transient(e):
                            self.faults.note(e, f"could not show game {game_id} again")
                            continue
                        if game_id not in games:  # a newer view came meanwhile: it wins
                            games[game_id] = waiting
                        tries = self._tries.get(channel_id, 0)
                        wait = self.storm.wait(tries, retry_after(e))
                        self._tries[channel_id] = tries + 1
                        break
                    self._tries.pop(channel_id, None)
        finally:
            self._tasks.pop(channel_id, None)
            if not self._waiting.get(channel_id):
                self._waiting.pop(channel_id, None)
                self._tries.pop(channel_id, None)

    async def _show(self, waiting: Waiting, screen: ChannelScreen) -> None:
        view, outcome = waiting.view, waiting.outcome
        async with self._lock(view.game_id):
            put_up = await self.reconciler.reconcile(
                view, outcome.shown, screen, fresh=waiting.fresh, reread=True
            )
            await self._shown(view, outcome, put_up, screen)

    async def quiet(self) -> None:
        """Wait until no table waits for Discord."""
        while self._tasks:
            await asyncio.wait(set(self._tasks.values()))

    async def close(self) -> None:
        """Give up the tables still waiting (the games are saved: a press shows them)."""
        for task in list(self._tasks.values()):
            task.cancel()
        self._tasks.clear()
        self._waiting.clear()
        self._tries.clear()
