"""``/ludo`` without arguments: the rule chooser, asked only where no game is open.

Where a game is open or running, the answer is the one ``/ludo classic`` gets there
(a game is already running here), gone after a while like every refusal in a
group; ``/board`` brings that game's board back.  A chooser nobody presses goes
after a while too (:attr:`Notices.chooser_seconds`); one pressed becomes the lobby
and stays.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, Message, Update

from ...hosting import LOBBY, PLAYING, Game, Refusal, User
from ...present import refusal_text
from ...service.game import GameService
from ...service.outcome import Outcome
from .commands import chooser
from .notices import Notices
from .outbox import Outboxes, Turn
from .screen import TelegramScreen, target
from .updates import language, title


class RuleChooser:
    """Asks for the rules of a new game, once per chat at a time."""

    def __init__(
        self,
        service: GameService,
        bot: Bot,
        outboxes: Outboxes,
        notices: Notices,
        call: Callable[..., Awaitable[Any]],
    ) -> None:
        self.service = service
        self.bot = bot
        self.outboxes = outboxes
        self.notices = notices
        self.call = call

    async def ask(self, update: Update, channel: str) -> None:
        """The chooser in ``channel``; or, a game open there, why no other can open."""
        live: Game | None = await self.call(self.service.game_in, channel)
        if live is not None and live.status in (LOBBY, PLAYING):
            await self.notices.tell(update, refusal_text(Refusal("refuse.game_running")))
            return
        question, buttons = chooser(language(update))

        async def send(turn: Turn) -> None:
            sent = await TelegramScreen(self.bot, channel, turn).say(question, buttons)
            if isinstance(sent, Message):
                self.notices.expire(sent, self.notices.chooser_seconds)

        self.outboxes.send(target(channel)[0], send, key=f"chooser {channel}")

    async def chosen(
        self, message: Message, channel: str, user: User, rules: tuple[str, bool], lang: str
    ) -> Outcome:
        """The chooser ``message`` was pressed for ``rules`` (rule set, teams): the game
        opened; if it did, the chooser stays (it becomes the lobby)."""
        name, teams = rules
        options = {"teams": True} if teams else {}
        outcome: Outcome = await self.call(
            self.service.open, channel, user, name, options, lang=lang, place=title(message.chat)
        )
        if outcome.refusal is None and outcome.game is not None:
            self.notices.keep(message.chat.id, message.message_id)
        return outcome
