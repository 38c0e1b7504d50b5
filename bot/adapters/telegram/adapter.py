"""Telegram: commands and inline buttons in, the table reconciled out.

An update becomes (channel, user, intent); the service's outcome becomes a
private word for the asker (a toast, a reply) and a table view, which the
reconciler brings into the chat (the game's commands: :mod:`.play`; the buttons:
:mod:`.presses`; each person's corner: :mod:`.corners`).  No rule and no game state
lives here.  The rate limits come first (:mod:`.limited`).  A command or press that
fails (the store unreachable) is still answered (a toast, a short notice); a token
Telegram stops taking while the bot runs is reported by :meth:`TelegramAdapter.failed`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import (
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from ...hosting import Game
from ...present import TableView
from ...service.game import GameService
from ...service.outcome import Outcome
from ...service.tournaments import tournaments_of
from ...store.pace import Limits, MemoryPacer, Pacer
from ..drawing import Drawing
from ..faults import AdapterError, Fatal, FaultLog, settle
from ..reach import within
from .after import AfterGame
from .board_button import BoardButton, MiniApp
from .chooser import RuleChooser
from .commands import COMMANDS, set_commands
from .corner_commands import CornerCommands
from .guard import bounded, guarded
from .inline import InlineTables
from .inline_screen import INLINE, MediaChat, Pictures
from .limited import Entrance, Limiter
from .notices import Notices
from .play import PlayCommands
from .presses import Presses
from .screen import PREFIX
from .tables import Tables
from .tours import TelegramTours
from .updates import WebhookSettings
from .watch import Watch, connected, refused_at_start
from .webhook import ALLOWED, set_webhook, webhook_route

log = logging.getLogger(__name__)

#: Telegram's limit of messages sent or edited in one group: this many a minute
GROUP_RATE = 20
#: a refused command's answer in a group is deleted after this many seconds
NOTICE_SECONDS = 15.0
#: how long ``stop`` lets tables still waiting be shown and each of its steps take; while
#: Telegram does not answer: no tables, and the second for each step
DRAIN, STOP_GRACE = 5.0, 0.4


class TelegramAdapter:
    """The game service on Telegram (python-telegram-bot's ``Application``)."""

    def __init__(
        self,
        service: GameService,
        token: str,
        *,
        api_url: str | None = None,
        webhook: WebhookSettings | None = None,
        image_size: int = 600,
        group_rate: int = GROUP_RATE,
        group_period: float = 60.0,
        overall_rate: float = 30,
        private_interval: float = 1.0,
        max_retries: int = 5,
        notice_seconds: float = NOTICE_SECONDS,
        pacer: Pacer | None = None,
        drawing: Drawing | None = None,
        limiter: Limiter | None = None,
        miniapp: MiniApp | None = None,
        media_chat: int | str | None = None,
        pictures: Pictures | None = None,
    ) -> None:
        """``group_rate`` messages or edits in any ``group_period`` seconds in one group
        (0: no limit), one every ``private_interval`` seconds in a private chat,
        ``overall_rate`` a second in all: kept by ``pacer`` (shared by every worker:
        :class:`~bot.store.redis.pace.RedisPacer`), or in this process; ``limiter``:
        the rate limits at the entrance (None: none); ``miniapp``: the live board's Mini
        App, opened by a button on each table (None: no such button).  A table posted
        through inline mode shows its pictures by the file id of an upload to
        ``media_chat``, or else as ``pictures`` names them (a signed URL of the bot's web
        server); with neither, in words."""
        self.service = service
        self.webhook = webhook
        self.image_size = image_size
        #: the send limits, spent evenly (see :mod:`bot.store.pace`)
        self.limits = Limits(group_rate, group_period, private_interval, overall_rate)
        self.pacer = pacer if pacer is not None else MemoryPacer(self.limits)
        #: the error that ended the bot for good (see :meth:`failed`)
        self.fatal = Fatal()
        self.faults = FaultLog(log, (NetworkError,))
        #: every answer of the Bot API watched (429s, a token no longer taken)
        self.watch = Watch(self.fatal)
        self.app = self.watch.application(token, api_url, overall_rate, max_retries)
        #: every chat's tables and messages, through its outbox: a handler returns at once
        board = BoardButton(self.app.bot, miniapp) if miniapp is not None else None
        self.tables = Tables(
            self.app.bot,
            service,
            self.pacer,
            image_size,
            self._finished,
            board,
            pictures,
            storm=self.watch.storm,
            doubts=self.watch.doubts,
        )
        self.outboxes = self.tables.outboxes
        if media_chat is not None:
            self.tables.pictures = MediaChat(self.app.bot, media_chat, self.outboxes.pace)
        #: tables posted through inline mode (and guest mode)
        self.inline = InlineTables(service, self._call, self.tables.say_in)
        self.notices = Notices(self.app.bot, self.outboxes, notice_seconds)
        self.chooser = RuleChooser(service, self.app.bot, self.outboxes, self.notices, self._call)
        #: replays drawn in a pool of their own, one per chat or person at a time
        self.drawing = drawing if drawing is not None else Drawing()
        #: rematch, stats, the leaderboard, the replay and the record
        self.after = AfterGame(
            service,
            self.app.bot,
            self.outboxes,
            self.notices,
            self._call,
            lambda update, outcome: self.play.answer(update, outcome),
            lambda update, args: self.play.board(update, args),
            self.drawing,
        )
        tours = tournaments_of(service)
        self.tours = TelegramTours(tours, self.tables, self.notices, self._call, self.show)
        #: each person's corner: /ludo notify, the cards' own buttons and presses
        self.corner = CornerCommands(
            service, self.notices, self.tables.corners, self._call, self.show
        )
        #: the game's commands: /ludo, /join, /roll, /move, /board...
        self.play = PlayCommands(
            service,
            self.notices,
            self.chooser,
            self.after,
            self.tours,
            self._call,
            self.show,
            self.corner,
        )
        #: the button presses: tables, choosers, tournaments, cards, inline tables
        self.presses = Presses(
            service,
            self.tables,
            self.tours,
            self.chooser,
            self.corner,
            self._call,
            self.show,
            image_size,
        )
        guards = self.faults, self.notices.sorry, Entrance(limiter, self.notices).admit
        for name in ("start", *COMMANDS):
            handler = getattr(self.play, f"cmd_{name}")
            command = bounded(handler, self.notices.tell)  # far too many words: refused
            self.app.add_handler(CommandHandler(name, guarded(command, *guards)))
        self.app.add_handler(CallbackQueryHandler(guarded(self.presses.on_button, *guards)))
        self.app.add_handler(InlineQueryHandler(guarded(self.inline.on_query, *guards)))
        self.app.add_handler(ChosenInlineResultHandler(guarded(self.inline.on_chosen, *guards)))
        guests = filters.UpdateType.GUEST_MESSAGE
        self.app.add_handler(MessageHandler(guests, guarded(self.inline.on_guest, *guards)))
        self.app.add_error_handler(self.on_error)
        # first, every message an update tells of (see .doubts)
        self.app.add_handler(TypeHandler(Update, self._saw), group=-1)

    # -- running ----------------------------------------------------------

    async def start(self) -> None:
        """Connect (checking the token), register the commands, start receiving updates."""
        try:
            await self.app.initialize()
        except (InvalidToken, NetworkError) as e:
            raise refused_at_start(e) from None
        await set_commands(self.app.bot)
        await self.app.start()
        assert self.app.updater is not None
        if self.webhook is None:
            await self.app.updater.start_polling(  # failed polls retried quietly (Watch)
                allowed_updates=ALLOWED, error_callback=self.watch.polling_failed
            )
        else:  # the bot's web server takes the updates (routes())
            await set_webhook(self.app.bot, self.webhook)
        self.watch.running = True
        connected(True)

    def account(self) -> str:
        """The bot's account, for the start line: ``Telegram @name (polling)``."""
        return f"Telegram @{self.app.bot.username} ({'webhook' if self.webhook else 'polling'})"

    def routes(self) -> list[web.RouteDef]:
        """What the bot's web server serves for Telegram: the webhook, if one is set."""
        return [] if self.webhook is None else [webhook_route(self.app, self.webhook)]

    async def failed(self) -> AdapterError:
        """Wait until Telegram stopped taking the token; why, in one line."""
        return await self.fatal.wait()

    async def stop(self) -> None:
        """Stop receiving; show the tables still waiting and delete the refused commands'
        answers still up (a little while: not at all while Telegram does not answer).
        Each step is bounded: the bot stops within a second or two, whatever happens."""
        self.watch.running = False
        self.watch.reach.stopping()
        connected(False)
        down = self.watch.reach.down
        grace = STOP_GRACE if down else DRAIN
        if self.app.updater is not None and self.app.updater.running:
            # a long poll ends at once; a wait between two failed polls is cut short
            await within(self.app.updater.stop(), grace / 4, "stopping the polling", log)
        if self.app.running:
            await within(self.app.stop(), grace, "stopping the handlers", log)
        await self.outboxes.close(0.0 if down else DRAIN, give_up=self.watch.unanswered)
        self.watch.storm.stopping()  # a storm going on, said once
        await within(self.notices.close(delete=not down), grace, "deleting notices", log)
        await within(self.app.shutdown(), grace, "closing the connections", log)

    async def quiet(self) -> None:
        """Wait until every chat's outbox is sent (and every replay asked for drawn)."""
        while True:
            await self.after.quiet()
            await self.tables.corners.quiet()
            await self.outboxes.quiet()
            if self.after.idle():
                return

    def owns(self, channel: str | None) -> bool:
        return bool(channel) and str(channel).startswith((PREFIX, INLINE))

    async def show(
        self,
        outcome: Outcome,
        *,
        fresh: bool = False,
        pressed: str | None = None,
        view: TableView | None = None,
        lang: str | None = None,
    ) -> None:
        """Bring the chat of the outcome's game to its newest view (see :class:`.Tables`)."""
        self.tables.show(outcome, fresh=fresh, pressed=pressed, view=view, lang=lang)
        await self.tours.news(outcome.game)  # a tournament's next table, its word

    def _finished(self, game: Game) -> None:
        self.after.replay_soon(game)  # a game played to its end: the whole game again

    # -- helpers ----------------------------------------------------------

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        # the service does blocking store I/O: keep the loop free
        result = await asyncio.to_thread(fn, *args, **kwargs)
        if isinstance(result, Outcome):
            settle(result)
        return result

    async def _saw(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is not None:
            self.watch.doubts.saw(message.chat.id, message.message_id)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("error while handling an update: %s", context.error, exc_info=context.error)
