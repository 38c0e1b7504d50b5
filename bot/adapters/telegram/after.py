"""After the game on Telegram: ``/ludo rematch``, ``stats``, ``top``, ``forget``,
``replay`` and ``record``, and the replay sent when a game is played to its end.

Stats and the leaderboard count per chat (a group, or a forum topic): the
channel.  The replay is an animation (``sendAnimation``), the record a JSON
document anyone can check with ``ludo-bot verify``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

from ...hosting import Game, Refusal, User
from ...hosting.results import person_key
from ...hosting.tally import find_person
from ...present import Text, echoed, refusal_text, rules_lines
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
from ...present.alt import alt_lines
from ...present.animation import game_animation
from ...service.game import GameService
from ...service.outcome import Outcome
from ..drawing import Busy, Drawing
from .notices import Notices
from .outbox import Outboxes, Turn
from .screen import CAPTION_LIMIT, PREFIX, TEXT_LIMIT, caption, target
from .updates import language, user_of

log = logging.getLogger(__name__)

#: ``/ludo <word>``: what comes after a game, and ``/ludo board [text]``
WORDS = ("rematch", "stats", "top", "forget", "replay", "record", "board")
#: ``/ludo top month``, ``/ludo top week``: this month's or this week's leaderboard
MONTH = ("month", "monthly")
WEEK = ("week", "weekly")
#: ``/ludo top seasons``: the hall of fame, each ended month's podium
SEASONS = ("seasons", "season", "fame")

Call = Callable[..., Awaitable[Any]]


class AfterGame:
    """The after-game commands of one adapter."""

    def __init__(
        self,
        service: GameService,
        bot: Bot,
        outboxes: Outboxes,
        notices: Notices,
        call: Call,
        answer: Callable[[Update, Outcome], Awaitable[None]],
        board: Callable[[Update, list[str]], Awaitable[None]],
        drawing: Drawing,
    ) -> None:
        self.service = service
        self.bot = bot
        #: every message goes through its chat's outbox
        self.outboxes = outboxes
        self.notices = notices
        #: replays drawn in their own pool, one per chat or person at a time
        self.drawing = drawing
        self._tasks: set[asyncio.Task[None]] = set()
        #: runs a service call off the event loop
        self.call = call
        #: answers a command's outcome (refused: told; done: the table shown)
        self.answer = answer
        #: ``/board [text]``
        self.board = board

    async def command(self, update: Update, channel: str, user: User, words: list[str]) -> None:
        """``/ludo <word> [...]``, ``<word>`` one of :data:`WORDS`."""
        what, rest = words[0].lower(), words[1:]
        lang = language(update)
        if what == "board":
            await self.board(update, rest)
        elif what == "rematch":
            await self.answer(update, await self.call(self.service.rematch, channel, user))
        elif what == "stats":
            await self.stats(update, channel, user, rest)
        elif what == "top":
            period = rest[0].lower() if rest else ""
            if period in SEASONS:
                now = self.service.clock()
                ended = await self.call(self.service.records.seasons, channel, now)
                if isinstance(ended, Refusal):
                    await self.notices.tell(update, refusal_text(ended))
                    return
                lines = fame_lines(ended, lang)
                await self.notices.say(update, caption(lines, limit=TEXT_LIMIT, lang=lang))
                return
            week = period in WEEK
            since = this_month(time.time()) if period in MONTH else None
            start = this_week(time.time()) if week else since[1] if since else 0
            tallies = await self.call(self.service.records.tallies, channel, start)
            if isinstance(tallies, Refusal):
                await self.notices.tell(update, refusal_text(tallies))
                return
            lines = top_lines(tallies, since[0] if since else None, lang, week=week)
            await self.notices.say(update, caption(lines, limit=TEXT_LIMIT, lang=lang))
        elif what == "forget":
            count = await self.call(self.service.records.forget, user)
            if isinstance(count, Refusal):
                await self.notices.tell(update, refusal_text(count))
                return
            await self.notices.tell(update, forget_text(count))
        else:
            game = await self.call(self.service.records.last_game, channel)
            if isinstance(game, Refusal):
                await self.notices.tell(update, refusal_text(game))
            elif what == "replay":
                asker = f"person:{user.id}"
                if self.drawing.busy((f"chat:{channel}", asker)):
                    await self.notices.tell(update, Text("refuse.replay_busy"))
                    return
                self.replay_soon(game, lang, asker)
            else:
                await self.record(game, channel, lang)

    async def board_text(self, update: Update, channel: str) -> None:
        """``/board text``: the board of the game here in words (for a screen reader)."""
        game = await self.call(self.service.game_in, channel)
        if game is None or game.state is None:
            await self.notices.tell(
                update, Text("refuse.no_game" if game is None else "refuse.not_started")
            )
            return
        lines = alt_lines(game)
        await self.notices.say(update, caption(lines, limit=TEXT_LIMIT, lang=language(update)))

    async def rules(self, update: Update, channel: str, words: list[str]) -> None:
        """``/rules [name]``: the rules of the game here, or of the rule set named."""
        game = await self.call(self.service.game_in, channel)
        lines = rules_lines(words[0].lower() if words else None, game)
        await self.notices.say(update, caption(lines, limit=TEXT_LIMIT, lang=language(update)))

    async def stats(self, update: Update, channel: str, user: User, words: list[str]) -> None:
        """The stats of the asker, of the person whose message they answer, or of the
        person they name."""
        lang = language(update)
        tallies = await self.call(self.service.records.tallies, channel)
        if isinstance(tallies, Refusal):
            await self.notices.tell(update, refusal_text(tallies))
            return
        message = update.effective_message
        replied = message.reply_to_message if message is not None else None
        who, name = person_key(user), user.name
        if words:
            name = " ".join(words)
            found = find_person(tallies, name)
            if found is None:
                said = Text("refuse.unknown_person", {"name": echoed(name)})
                await self.notices.tell(update, said)
                return
            who = found
        elif replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
            other = user_of(replied.from_user)
            who, name = person_key(other), other.name
        rated = await self.call(self.service.records.across, (PREFIX,))
        across = None if isinstance(rated, Refusal) else rated  # this chat's still tell
        lines = stats_lines(tallies, who, name, lang, across, "Telegram")
        await self.notices.say(update, caption(lines, limit=TEXT_LIMIT, lang=lang))

    def replay_soon(self, game: Game, lang: str | None = None, asker: str | None = None) -> None:
        """Send the animation of ``game`` in its chat, drawn in the background."""
        task = asyncio.create_task(self.replay(game, lang, asker))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def idle(self) -> bool:
        """No replay is being drawn."""
        return not self._tasks

    async def quiet(self) -> None:
        """Wait until every replay asked for is drawn (and in its chat's outbox)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    async def replay(self, game: Game, lang: str | None = None, asker: str | None = None) -> None:
        """The animation of ``game`` in its chat: drawn once (in the drawing pool, one per
        chat and asker at a time), then sent by its file id."""
        lang = lang or game.lang
        key = f"tg {game.key} {lang}"
        replay = self.drawing.drawn(key)
        if replay is None:
            keys = [f"chat:{game.channel}"] + ([asker] if asker else [])
            try:
                replay = await self.drawing.run(keys, game_animation, game, lang)
            except Busy:
                return  # the same chat's replay is being drawn: it will be there
            except Exception:  # a game the animation cannot draw: the chat just goes without
                log.exception("the replay of game %s could not be drawn", game.id)
                return
        gif = replay
        chat_id, thread = target(game.channel)
        text = caption([replay_caption(game)], limit=CAPTION_LIMIT, lang=lang)

        async def send(turn: Turn) -> None:
            await turn()
            try:
                sent = await self.bot.send_animation(
                    chat_id,
                    gif,
                    caption=text,
                    parse_mode=ParseMode.HTML,
                    filename=f"ludo-{game.id}.gif",
                    message_thread_id=thread,
                )
            except (BadRequest, Forbidden) as e:
                log.warning("the replay of game %s was not sent: %s", game.id, e)
                return
            if sent.animation is not None:
                self.drawing.remember(key, sent.animation.file_id)

        self.outboxes.send(chat_id, send, key=f"replay {key}")

    async def record(self, game: Game, channel: str, lang: str) -> None:
        """The record of ``game`` as a JSON document (``ludo-bot verify`` checks it)."""
        data = json.dumps(game.record(), indent=2).encode()
        chat_id, thread = target(channel)
        text = caption([record_caption(game)], limit=CAPTION_LIMIT, lang=lang)

        async def send(turn: Turn) -> None:
            await turn()
            try:
                await self.bot.send_document(
                    chat_id,
                    data,
                    filename=f"ludo-{game.id}.json",
                    caption=text,
                    parse_mode=ParseMode.HTML,
                    message_thread_id=thread,
                )
            except (BadRequest, Forbidden) as e:
                log.warning("the record of game %s was not sent: %s", game.id, e)

        self.outboxes.send(chat_id, send, key=f"record {game.key}")
