"""After the game on Discord: ``/ludo stats``, ``top``, ``forget``, ``rematch``, ``replay``
and ``record``, and the replay posted when a game is played to its end.

Stats and the leaderboard count per server (the chat a game was opened in:
:func:`.where.chat_key`); the replay is an animated GIF, the record a JSON file
anyone can check with ``ludo-bot verify``.  What everyone may see (stats, the
leaderboard, a replay) answers the command in the channel; a refusal, a
forgetting and a record are for the asker alone.  The store is read and the
replay drawn off the event loop, the command deferred when that is slow.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

import discord

from ...hosting import Game, Refusal, User
from ...hosting.results import person_key
from ...present import Text, refusal_text, say
from ...present.after import (
    fame_lines,
    forget_text,
    record_caption,
    replay_caption,
    stats_lines,
    this_month,
    this_week,
    top_lines,
)
from ...present.animation import game_animation
from ...service.game import GameService
from ...service.outcome import Outcome
from ...service.records import Records
from ..drawing import Busy, Drawing
from ..faults import Handling
from .screen import CONTENT_LIMIT, NO_MENTIONS, clean, describe, quietly
from .translator import asker_language as language
from .weather import transient
from .where import (
    GUILD_PREFIX,
    PLATFORM,
    PREFIX,
    channel_id_of,
    channel_key,
    chat_key,
    user_of,
)

log = logging.getLogger(__name__)

#: the chats of Discord (servers, private channels): a rating across them all
PLATFORM_CHATS = (GUILD_PREFIX, PREFIX)

T = TypeVar("T")

#: answer directly if the work is this quick, else defer first (Discord allows 3 s)
QUICK = 2.0

#: the adapter's frame of one command (counted, its failure told privately)
Frame = Callable[[discord.Interaction[Any]], AbstractAsyncContextManager[Handling]]
#: the adapter's way of running a command on the game here (the table shown after)
Command = Callable[[discord.Interaction[Any], Callable[[str, User], Outcome]], Awaitable[object]]


class Answer:
    """The answer to one command: for everyone in the channel or for the asker alone,
    deferred (with the visibility it will most likely have) when the work is slow."""

    def __init__(self, interaction: discord.Interaction[Any]) -> None:
        self.interaction = interaction
        #: how the command was deferred: None (not), True (for everyone), False (privately)
        self.deferred: bool | None = None
        #: the asker was told why nothing was done
        self.refused = False

    async def defer(self, public: bool) -> None:
        if self.interaction.response.is_done():
            return
        try:
            await self.interaction.response.defer(ephemeral=not public, thinking=True)
        except discord.HTTPException as e:  # Discord refusing for a while: said once (.weather)
            log.log(_level(e), "a command could not be deferred: %s", e)
        else:
            self.deferred = public

    async def work(self, call: Callable[[], T], *, public: bool) -> T:
        """``call`` off the event loop, the command deferred if it takes long."""
        task = asyncio.ensure_future(asyncio.to_thread(call))
        try:
            return await asyncio.wait_for(asyncio.shield(task), QUICK)
        except TimeoutError:
            await self.defer(public)
            return await task

    async def send(
        self,
        text: str,
        *,
        public: bool = False,
        file: discord.File | None = None,
        view: discord.ui.View | None = None,
    ) -> None:
        """The answer, with ``file`` attached and ``view``'s buttons; private unless
        ``public``."""
        kwargs: dict[str, Any] = {
            "content": text[:CONTENT_LIMIT] or "…",
            "ephemeral": not public,
            "allowed_mentions": NO_MENTIONS,
        }
        if file is not None:
            kwargs["file"] = file
        if view is not None:
            kwargs["view"] = view
        response = self.interaction.response
        try:
            if not response.is_done():
                await response.send_message(**kwargs)
                return
            if self.deferred is not None and self.deferred != public:
                # the "thinking…" has the other visibility: it goes, the answer comes anew
                await quietly(self.interaction.delete_original_response(), "un-deferring")
            await self.interaction.followup.send(**kwargs)
        except discord.HTTPException as e:
            log.log(_level(e), "a command's answer was refused: %s", e)

    async def refuse(self, refusal: Refusal | Text) -> None:
        """Tell the asker alone why nothing was done."""
        self.refused = True
        text = refusal_text(refusal) if isinstance(refusal, Refusal) else refusal
        await self.send(say(text, clean, language(self.interaction)))


class AfterGame:
    """The after-game commands of the Discord adapter, and the replays it posts."""

    def __init__(
        self,
        service: GameService,
        client: discord.Client,
        frame: Frame,
        command: Command,
        drawing: Drawing,
    ) -> None:
        self.service = service
        self.client = client
        self.frame = frame
        self.command = command
        #: replays drawn in a pool of their own, one per channel or person at a time
        self.drawing = drawing
        #: replays being drawn and posted
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def records(self) -> Records:
        return self.service.records

    async def quiet(self) -> None:
        """Wait until every replay being drawn is posted."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    # -- the replay of a game played to its end ---------------------------

    def replay_soon(self, game: Game) -> None:
        """Post the replay of ``game`` in its channel, drawn in the background."""
        task = asyncio.create_task(self._post_replay(game))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post_replay(self, game: Game) -> None:
        channel_id = channel_id_of(game.channel)
        file = await self.animation(game, game.lang)
        if channel_id is None or file is None:
            return
        channel = self.client.get_partial_messageable(channel_id)
        text = say(replay_caption(game), clean, game.lang)
        try:
            await channel.send(
                content=text[:CONTENT_LIMIT], file=file, allowed_mentions=NO_MENTIONS
            )
        except Exception as e:  # no permission, the bot stopping: the chat goes without
            level = logging.DEBUG if transient(e) else logging.WARNING
            log.log(level, "the replay of game %s was not posted: %s", game.id, e)

    async def animation(
        self, game: Game, lang: str, asker: str | None = None
    ) -> discord.File | None:
        """The replay of ``game`` as a GIF file: drawn once (in the drawing pool, one per
        channel and asker at a time) and remembered; None if it could not be drawn
        (logged) or the channel's replay is being drawn already."""
        key = f"dc {game.key} {lang}"
        gif = self.drawing.drawn(key)
        if not isinstance(gif, bytes):
            keys = [f"chat:{game.channel}"] + ([asker] if asker else [])
            try:
                gif = await self.drawing.run(keys, game_animation, game, lang)
            except Busy:
                return None
            except Exception:  # the game stays shown and kept; only its replay is missing
                log.exception("the replay of game %s could not be drawn", game.id)
                return None
            self.drawing.remember(key, gif)
        return discord.File(io.BytesIO(gif), filename=f"ludo-{game.id}.gif")

    # -- commands ---------------------------------------------------------

    async def rematch(self, interaction: discord.Interaction[Any]) -> None:
        """``/ludo rematch``: the last game of this channel again, its lobby posted here."""
        await self.command(interaction, lambda channel, user: self.service.rematch(channel, user))

    async def stats(
        self, interaction: discord.Interaction[Any], player: discord.abc.Snowflake | None
    ) -> None:
        """``/ludo stats [member]``: a person's stats in this server, for everyone."""
        async with self._answering(interaction) as answer:
            lang = language(interaction)
            who = person_of(player) if player is not None else user_of(interaction.user)
            chat = chat_key(interaction)
            tallies = await answer.work(lambda: self.records.tallies(chat), public=True)
            if isinstance(tallies, Refusal):
                await answer.refuse(tallies)
                return
            key = person_key(who)
            if key not in tallies or not tallies[key].games:
                await answer.refuse(Text("stats.none", {"who": who.name}))
                return
            rated = await answer.work(lambda: self.records.across(PLATFORM_CHATS), public=True)
            across = None if isinstance(rated, Refusal) else rated  # the server's still tell
            lines = stats_lines(tallies, key, who.name, lang, across, "Discord")
            await answer.send(describe(lines, CONTENT_LIMIT, lang), public=True)

    async def top(self, interaction: discord.Interaction[Any], period: str) -> None:
        """``/ludo top [period]``: this server's leaderboard (of all time, this month or
        this week: ``all``, ``month``, ``week``) or its hall of fame (``seasons``), for
        everyone."""
        async with self._answering(interaction) as answer:
            lang = language(interaction)
            chat = chat_key(interaction)
            if period == "seasons":
                now = self.service.clock()
                ended = await answer.work(lambda: self.records.seasons(chat, now), public=True)
                if isinstance(ended, Refusal):
                    await answer.refuse(ended)
                    return
                lines = fame_lines(ended, lang)
                await answer.send(describe(lines, CONTENT_LIMIT, lang), public=True)
                return
            day, since = this_month(time.time()) if period == "month" else (None, 0.0)
            if period == "week":
                since = this_week(time.time())
            tallies = await answer.work(lambda: self.records.tallies(chat, since), public=True)
            if isinstance(tallies, Refusal):
                await answer.refuse(tallies)
                return
            await answer.send(
                describe(top_lines(tallies, day, lang, week=period == "week"), CONTENT_LIMIT, lang),
                public=True,
            )

    async def forget(self, interaction: discord.Interaction[Any]) -> None:
        """``/ludo forget``: the asker's own stats deleted, in every server (privately)."""
        async with self._answering(interaction) as answer:
            user = user_of(interaction.user)
            count = await answer.work(lambda: self.records.forget(user), public=False)
            if isinstance(count, Refusal):
                await answer.refuse(count)
                return
            await answer.send(say(forget_text(count), clean, language(interaction)))

    async def replay(self, interaction: discord.Interaction[Any]) -> None:
        """``/ludo replay``: the animation of the last game finished here, for everyone."""
        async with self._answering(interaction) as answer:
            game = await self._last_game(answer, public=True)
            if game is None:
                return
            asker = f"person:{interaction.user.id}"
            if self.drawing.busy((f"chat:{game.channel}", asker)):
                await answer.refuse(Text("refuse.replay_busy"))
                return
            await answer.defer(public=True)  # drawing takes seconds
            lang = language(interaction)
            file = await self.animation(game, lang, asker)
            if file is None:
                await answer.refuse(Refusal("refuse.busy"))
                return
            await answer.send(say(replay_caption(game), clean, lang), public=True, file=file)

    async def record(self, interaction: discord.Interaction[Any]) -> None:
        """``/ludo record``: the record of the last game finished here, as a JSON file
        (``ludo-bot verify`` checks its dice), for the asker."""
        async with self._answering(interaction) as answer:
            game = await self._last_game(answer, public=False)
            if game is None:
                return
            data = json.dumps(game.record(), indent=2).encode()
            file = discord.File(io.BytesIO(data), filename=f"ludo-{game.id}.json")
            lang = language(interaction)
            await answer.send(say(record_caption(game), clean, lang), file=file)

    async def _last_game(self, answer: Answer, *, public: bool) -> Game | None:
        """The game finished last in the command's channel (None: the asker told why)."""
        channel = channel_key(answer.interaction.channel_id)
        game = await answer.work(lambda: self.records.last_game(channel), public=public)
        if isinstance(game, Refusal):
            await answer.refuse(game)
            return None
        return game

    def _answering(
        self, interaction: discord.Interaction[Any]
    ) -> AbstractAsyncContextManager[Answer]:
        return answering(self.frame, interaction)


def person_of(player: discord.abc.Snowflake) -> User:
    """The person a ``member`` option names (only their id, if Discord sent no more)."""
    if isinstance(player, (discord.User, discord.Member)):
        return user_of(player)
    return User(PLATFORM, str(player.id), str(player.id))


@contextlib.asynccontextmanager
async def answering(frame: Frame, interaction: discord.Interaction[Any]) -> AsyncIterator[Answer]:
    """One after-game command in the adapter's frame (counted; a failure told privately)."""
    async with frame(interaction) as handling:
        answer = Answer(interaction)
        yield answer
        if answer.refused:
            handling.result = "refused"


def _level(error: BaseException) -> int:
    """A refusal's log level: Discord refusing for a while is said once, by its storm."""
    return logging.DEBUG if transient(error) else logging.INFO
