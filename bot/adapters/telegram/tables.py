"""Each chat's tables (and the bot's other messages there) on their way through the
chat's outbox: a handler hands an outcome over and returns; the chat's sender brings
the chat to the newest view when the chat's pace allows (see :mod:`.outbox`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from telegram import Bot, InlineKeyboardMarkup

from ...hosting import Game
from ...present import TableView, Text, table_view
from ...service.game import GameService
from ...service.outcome import Outcome
from ...store.pace import MemoryPacer, PaceKey, Pacer
from ..reconcile import Reconciler, Screen
from ..storm import Storm
from .board_button import BoardButton
from .corners import TelegramCorners
from .doubts import Doubts
from .inline import pace_key
from .inline_screen import INLINE, InlineScreen, Pictures
from .outbox import Outboxes, Pace, Pending, Turn
from .screen import PREFIX, TEXT_LIMIT, TelegramScreen, caption, target


def outbox_of(channel: str, chat: str = "") -> PaceKey:
    """The outbox, and pace, of a table in ``channel`` (its results counting in
    ``chat``): the chat's; an inline message's, its chat's as its presses name it."""
    if channel.startswith(INLINE):
        return pace_key(chat) if chat.startswith("tgc:") else f"g:{channel[len(INLINE) :]}"
    return target(channel)[0]


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
        pictures: Pictures | None = None,
        *,
        storm: Storm | None = None,
        doubts: Doubts | None = None,
    ) -> None:
        """``board``: the tables' "Open the board" button (None: no Mini App);
        ``pictures``: how an inline table's pictures reach Telegram (None: in words);
        ``storm``: Telegram refusing calls (how long to wait, and the log lines);
        ``doubts``: the tables sent in doubt (see :mod:`.doubts`)."""
        self.bot = bot
        self.board = board
        self.pictures = pictures
        self.image_size = image_size
        self.reconciler = Reconciler(service)
        self.doubts = doubts if doubts is not None else Doubts()
        threaded = not isinstance(pacer, MemoryPacer)  # a shared pacer asks the store
        self.outboxes = Outboxes(Pace(pacer, threaded), self._show, storm)
        self.finished = finished
        #: the cards of each game in its people's private chats
        self.corners = TelegramCorners(bot, service, self.outboxes)

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
            elif freed is not None and freed.startswith(INLINE):
                self.say_in(freed, caption([Text("game.damaged")], lang=lang))
            return
        if not game.channel.startswith((PREFIX, INLINE)):
            return
        view = view or table_view(game, outcome.happened, size=self.image_size)
        refused = outcome.refusal is not None
        opened = outcome.happened is not None and any(
            getattr(f, "key", None) == "lobby.opened" for f in outcome.happened.facts
        )
        if opened and not refused and game.channel.startswith(PREFIX):
            self.corners.announce(game)  # to those who asked to hear of this chat's games
        if not refused:  # the cards go at once: they need not wait behind a busy group
            self.corners.soon(view, outbox_of(game.channel, game.chat))
        pending = Pending(view, outcome.shown, fresh, pressed, refused)
        self.outboxes.table(outbox_of(game.channel, game.chat), pending)

    def say_in(self, channel: str, text: str) -> None:
        """The one message of an inline table says ``text`` (HTML), with no button (the
        table could not open, or its game is gone)."""

        async def send(turn: Turn) -> None:
            await turn()
            await InlineScreen(self.bot, channel).tell(text)

        self.outboxes.send(outbox_of(channel), send)

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

    def screen(self, channel: str, turn: Turn) -> Screen:
        """The place of ``channel``, as the reconciler drives it."""
        if channel.startswith(INLINE):
            return InlineScreen(self.bot, channel, turn, self.board, self.pictures)
        uploads = self.corners.uploads
        return TelegramScreen(self.bot, channel, turn, self.board, self.doubts, uploads)

    async def _show(self, pending: Pending, turn: Turn) -> None:
        """A table's turn in its chat: what the chat shows read again, then reconciled;
        then the cards of its game in its people's private chats (a card's turn: that
        card brought to the newest view)."""
        if pending.card is not None:
            await self.corners.show(pending, turn)
            return
        view = await self.corners.uploads.drawn(pending.view)  # once for its cards too
        screen = self.screen(view.channel, turn)
        people = await self.corners.people(view)
        chat = outbox_of(view.channel, view.game.chat)
        if self.corners.carded(view, people, chat):
            # the person on turn is told by their card: no mention, no reminder here
            quiet = view.quiet()
            view = replace(quiet, remind=False)
            view.__dict__.update({k: v for k, v in quiet.__dict__.items() if k == "image"})
        put_up = await self.reconciler.reconcile(
            view,
            pending.shown,
            screen,
            fresh=pending.fresh,
            pressed=pending.pressed,
            refused=pending.refused,
            reread=True,
        )
        if put_up and view.picture == "standings" and screen.powers.send:
            self.finished(view.game)  # played to the end: the whole game again
