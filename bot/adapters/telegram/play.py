"""The game's commands on Telegram: ``/ludo`` (a game opened at once with arguments,
or the rules chosen first; ``/ludo language``, ``/ludo tournament``, ``/ludo stats``...
handed on), ``/join``, ``/leave``, ``/roll``, ``/move N``, ``/board``, ``/rules``,
``/end``, ``/language``, and ``/start`` and ``/help``.  Each becomes one service call;
a refusal is a short answer (gone after a while in a group), the rest the table tells."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from ...hosting import Intent
from ...present import Text, refusal_text
from ...service.game import GameService
from ...service.outcome import Outcome
from .after import WORDS, AfterGame
from .chooser import RuleChooser
from .commands import help_text, parse_ludo_args, piece_of, say_language, wanted_language
from .corner_commands import CornerCommands
from .notices import Notices
from .tour_args import WORDS as TOUR_WORDS
from .tours import TelegramTours
from .updates import is_admin, language, title, user_of, where_of


class Show(Protocol):
    """Bring the chat of an outcome's game to its newest view (the adapter's ``show``)."""

    def __call__(
        self, outcome: Outcome, *, fresh: bool = False, lang: str | None = None
    ) -> Awaitable[None]: ...


class PlayCommands:
    """The game's commands of one adapter (registered as ``cmd_<name>``)."""

    def __init__(
        self,
        service: GameService,
        notices: Notices,
        chooser: RuleChooser,
        after: AfterGame,
        tours: TelegramTours,
        call: Callable[..., Awaitable[Any]],
        show: Show,
        corner: CornerCommands,
    ) -> None:
        self.service, self.notices, self.chooser = service, notices, chooser
        self.after, self.tours = after, tours
        #: the person's own corner: /ludo notify, their cards
        self.corner = corner
        #: runs a service call off the event loop
        self.call = call
        self.show = show

    async def cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat = update.effective_chat  # a greeting in a private chat; how to play in a group
        private = chat is not None and chat.type == ChatType.PRIVATE
        if private and update.effective_user is not None:  # their consent to hear from the bot
            await self.corner.opened(update, user_of(update.effective_user))
        await self.notices.say(update, help_text(language(update), greeting=private))

    async def cmd_help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self.notices.say(update, help_text(language(update)))  # how to play

    async def cmd_ludo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Open a game: with arguments at once, without them by choosing the rules;
        ``/ludo language it`` changes the language of the game here."""
        where = where_of(update)
        if where is None:
            return
        channel, user = where
        args = context.args or []
        await self.corner.opened(update, user)  # a private /ludo opens their corner too
        if args and args[0].lower() == "language":
            await self._change_language(update, args[1:])
            return
        if args and args[0].lower() == "notify":
            await self.corner.notify(update, channel, user, args[1:])
            return
        if args and args[0].lower() == "games":
            await self.corner.games(update, user)
            return
        if args and args[0].lower() in TOUR_WORDS:
            await self.tours.command(update, channel, user, args[1:])
            return
        if args and args[0].lower() in WORDS:
            await self.after.command(update, channel, user, args)
            return
        if not args:
            await self.chooser.ask(update, channel)
            return
        asked = parse_ludo_args(args)
        if asked.error is not None:
            await self.notices.tell(update, asked.error)
            return
        lang = asked.lang or language(update)
        outcome = await self.call(
            self.service.open,
            channel,
            user,
            asked.rules,
            asked.options,
            timer=asked.timer,
            lang=lang,
            theme=asked.theme,
            level=asked.level,
            place=title(update.effective_chat),
        )
        await self.answer(update, outcome)

    async def cmd_join(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._act(update, Intent("join"))

    async def cmd_leave(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._act(update, Intent("leave"))

    async def cmd_roll(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._act(update, Intent("roll"))

    async def cmd_move(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Move piece N."""
        piece = piece_of(context.args or [])
        if piece is None:
            await self.notices.tell(update, Text("tg.say_piece"))
            return
        await self._act(update, Intent("move", piece))

    async def cmd_board(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self.board(update, context.args or [])

    async def board(self, update: Update, args: list[str]) -> None:
        """The board as a new message with the buttons of the turn; ``text``: in words."""
        where = where_of(update)
        if where is None:
            return
        if args and args[0].lower() == "text":
            await self.after.board_text(update, where[0])
            return
        outcome = await self.call(self.service.look, where[0])
        if outcome.refusal is not None:
            await self.notices.tell(update, refusal_text(outcome.refusal))
        await self.show(outcome, fresh=True, lang=language(update))

    async def cmd_rules(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        where = where_of(update)
        if where is not None:  # the rules of the game here, or of the rule set named
            await self.after.rules(update, where[0], context.args or [])

    async def cmd_end(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """End the game: its creator, or a chat admin."""
        await self._act(update, Intent("end", can_manage=await is_admin(update)))

    async def cmd_language(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Change the language of the table here: ``/language pt``, ``/language italiano``."""
        args = context.args or []
        if not args:
            await self.notices.tell(update, say_language())
            return
        await self._change_language(update, args)

    async def _change_language(self, update: Update, words: list[str]) -> None:
        """The table speaks the language named from now on: its creator, or a chat admin,
        decides; a language the bot does not speak is refused by hosting ("")."""
        manage = await is_admin(update)
        await self._act(update, Intent("language", lang=wanted_language(words), can_manage=manage))

    async def _act(self, update: Update, intent: Intent) -> None:
        where = where_of(update)
        if where is None:
            return
        outcome = await self.call(self.service.act, *where, intent)
        await self.answer(update, outcome)

    async def answer(self, update: Update, outcome: Outcome) -> None:
        """A command's outcome: refused, a short answer (gone after a while in a group);
        done, the table tells it."""
        if outcome.refusal is not None:
            await self.notices.tell(update, refusal_text(outcome.refusal))
        await self.show(outcome, lang=language(update))
