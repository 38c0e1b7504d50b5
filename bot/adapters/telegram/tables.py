"""Each chat's tables (and the bot's other messages there) on their way through the
chat's outbox: a handler hands an outcome over and returns; the chat's sender brings
the chat to the newest view when the chat's pace allows (see :mod:`.outbox`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from telegram import Bot, InlineKeyboardMarkup

from ...hosting import Game
from ...present import TableView, Text, table_view
from ...service.game import GameService
from ...service.outcome import Outcome
from ...store.pace import MemoryPacer, Pacer
from ..reconcile import Reconciler
from .board_button import BoardButton
from .outbox import Outboxes, Pace, Pending, Turn
from .screen import PREFIX, TEXT_LIMIT, TelegramScreen, caption, target


class Tables:
    """The tables of every chat of one adapter; ``finished`` is told of each game whose
    standings this worker put up (the replay follows them)."""

    def __init__(
        self,
        bot: Bot,
        service: GameService,
        pacer: Pacer,
        image_size: int,
        finished: Callable[[Game], None],
        board: BoardButton | None = None,
    ) -> None:
        """``board``: the tables' "Open the board" button (None: no Mini App)."""
        self.bot = bot
        self.board = board
        self.image_size = image_size
        self.reconciler = Reconciler(service)
        threaded = not isinstance(pacer, MemoryPacer)  # a shared pacer asks the store
        self.outboxes = Outboxes(Pace(pacer, threaded), self._show)
        self.finished = finished

    def show(
        self,
        outcome: Outcome,
        *,
        fresh: bool = False,
        pressed: str | None = None,
        view: TableView | None = None,
        lang: str | None = None,
    ) -> None:
        """Bring the chat of the outcome's game to its newest view, as soon as the chat's
        pace allows (a newer view meanwhile replaces this one); or tell it, in ``lang``,
        that its damaged game is gone (the pressed buttons taken off)."""
        game = outcome.game
        if game is None:
            freed = outcome.freed
            if freed is not None and freed.startswith(PREFIX):
                text = caption([Text("game.damaged")], limit=TEXT_LIMIT, lang=lang)
                self.say(freed, text, key=f"damaged {freed}", retire=pressed)
            return
        if not game.channel.startswith(PREFIX):
            return
        view = view or table_view(game, outcome.happened, size=self.image_size)
        refused = outcome.refusal is not None
        pending = Pending(view, outcome.shown, fresh, pressed, refused)
        self.outboxes.table(target(game.channel)[0], pending)

    def say(
        self,
        channel: str,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        key: str | None = None,
        retire: str | None = None,
        then: Sequence[Outcome] = (),
    ) -> None:
        """A plain message in ``channel`` (not a table), then the buttons of message
        ``retire`` taken off, then the games ``then`` shown (their tables wait for it,
        though the outbox puts tables first); an identical ``key`` waiting absorbs it."""

        async def send(turn: Turn) -> None:
            screen = TelegramScreen(self.bot, channel, turn)
            await screen.say(text, markup)
            if retire is not None:
                await screen.retire(retire)
            for outcome in then:
                self.show(outcome)

        self.outboxes.send(target(channel)[0], send, key=key)

    def retire(self, channel: str, msg: str) -> None:
        """Take the buttons off message ``msg`` of ``channel``."""

        async def send(turn: Turn) -> None:
            await TelegramScreen(self.bot, channel, turn).retire(msg)

        self.outboxes.send(target(channel)[0], send)

    async def _show(self, pending: Pending, turn: Turn) -> None:
        """A table's turn in its chat: what the chat shows read again, then reconciled."""
        view = pending.view
        screen = TelegramScreen(self.bot, view.channel, turn, self.board)
        put_up = await self.reconciler.reconcile(
            view,
            pending.shown,
            screen,
            fresh=pending.fresh,
            pressed=pending.pressed,
            refused=pending.refused,
            reread=True,
        )
        if put_up and view.picture == "standings":
            self.finished(view.game)  # played to the end: the whole game again
