"""A table posted through inline mode ("via @bot"): one message the bot can only edit.

Telegram gives the bot no chat there: the message is named by its ``inline_message_id``,
it cannot be deleted, nothing new can be posted beside it, and an edit takes no new
upload.  So the whole game is played in that one message (:class:`InlineScreen`, whose
:class:`~bot.adapters.reconcile.Powers` say so), and its picture goes by a name Telegram
can fetch (:class:`Pictures`): a ``file_id`` of the picture uploaded to a chat the
operator names (:class:`MediaChat`, ``TELEGRAM_MEDIA_CHAT``), or a signed URL of the
bot's web server (:class:`SignedPictures`, under ``LUDO_PUBLIC_URL``).  With neither,
the table is the board in words, with the same buttons.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Protocol

from telegram import Bot, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from ...present import TableView
from ...present.alt import alt_lines
from ..reconcile import Powers
from .board_button import BoardButton
from .outbox import Pace, Turn
from .screen import CAPTION_LIMIT, TEXT_LIMIT, caption, keyboard

log = logging.getLogger(__name__)

#: a game's channel in a message posted through inline mode: ``tgi:<inline_message_id>``
INLINE = "tgi:"


class Pictures(Protocol):
    """How an inline table's picture reaches Telegram without an upload in the edit."""

    async def name(self, view: TableView) -> str | None:
        """What the edit names the picture of ``view`` by (a file id, a URL); None: it
        cannot now (the table is shown in words this time)."""
        ...


class MediaChat:
    """Pictures uploaded to a chat of the operator's (``TELEGRAM_MEDIA_CHAT``), named by
    their ``file_id``; the upload is deleted at once (the file id stays good), and each
    one waits for that chat's pace like any other message there."""

    def __init__(self, bot: Bot, chat_id: int | str, pace: Pace) -> None:
        """``chat_id``: the chat's id, or a channel's @username."""
        self.bot = bot
        self.chat_id = chat_id
        self.pace = pace
        #: its pace: a group's, unless it is a private chat (an id above 0)
        self.pace_key = chat_id if isinstance(chat_id, int) else f"g:{chat_id}"

    async def name(self, view: TableView) -> str | None:
        image = view.image
        if image is None:
            return None
        await self.pace.take(self.pace_key)
        try:
            sent = await self.bot.send_photo(self.chat_id, image, disable_notification=True)
        except TelegramError as e:
            log.warning("cannot upload a picture to the media chat %s: %s", self.chat_id, e)
            return None
        with contextlib.suppress(TelegramError):
            await self.bot.delete_message(self.chat_id, sent.message_id)
        return sent.photo[-1].file_id if sent.photo else None


class SignedPictures:
    """Pictures served by the bot's web server: an unguessable signed URL for each
    version of each board (:mod:`bot.web.pictures`), which Telegram fetches."""

    def __init__(self, url: Callable[[TableView], str]) -> None:
        self.url = url

    async def name(self, view: TableView) -> str | None:
        return self.url(view) if view.picture is not None else None


def words(view: TableView) -> str:
    """The table in words (no picture): the board said as a screen reader hears it,
    then what happened and whose turn it is."""
    lines = [*alt_lines(view.game), *view.lines] if view.picture else list(view.lines)
    return caption(lines, limit=TEXT_LIMIT, lang=view.lang, links=False)


class InlineScreen:
    """The one message of a game posted through inline mode, edited through Telegram's
    ``inline_message_id``; each edit waits for the pace of its chat (``turn``)."""

    def __init__(
        self,
        bot: Bot,
        channel: str,
        turn: Turn | None = None,
        board: BoardButton | None = None,
        pictures: Pictures | None = None,
    ) -> None:
        self.bot = bot
        self.channel = channel
        self.inline_id = channel[len(INLINE) :]
        self.turn = turn
        #: the tables' "Open the board" button (None: no Mini App)
        self.board = board
        #: how pictures are named (None: the table is in words)
        self.pictures = pictures
        self.powers = Powers(send=False, delete=False, upload_on_edit=False, home=self.inline_id)

    async def _turn(self) -> None:
        if self.turn is not None:
            await self.turn()

    def _keyboard(self, view: TableView) -> object:
        last = self.board.row(view, None) if self.board is not None else None
        return keyboard(view, last)

    async def edit(self, msg: str, view: TableView) -> bool:
        picture = None
        if self.pictures is not None and view.picture is not None:
            picture = await self.pictures.name(view)
        await self._turn()
        markup = self._keyboard(view)
        try:
            if picture is not None:
                text = caption(view.lines, limit=CAPTION_LIMIT, lang=view.lang, links=False)
                media = InputMediaPhoto(picture, caption=text, parse_mode=ParseMode.HTML)
                await self.bot.edit_message_media(
                    media,
                    inline_message_id=msg,
                    reply_markup=markup,  # type: ignore[arg-type]
                )
            elif self.pictures is not None:
                await self._edit_words(msg, view, markup)
            else:
                await self.bot.edit_message_text(
                    words(view),
                    inline_message_id=msg,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,  # type: ignore[arg-type]
                )
        except BadRequest as e:
            if "not modified" in str(e).lower():
                return True
            log.info("inline message not edited (%s)", e)
            return False
        except Forbidden as e:
            log.warning("cannot edit an inline message: %s", e)
            return False
        return True

    async def _edit_words(self, msg: str, view: TableView, markup: object) -> None:
        """A table without a picture where pictures are shown (a lobby): its words as the
        message's text, or, if the message shows a picture already (a lobby after a
        game), as the caption under it."""
        try:
            await self.bot.edit_message_text(
                caption(view.lines, limit=TEXT_LIMIT, lang=view.lang, links=False),
                inline_message_id=msg,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,  # type: ignore[arg-type]
            )
        except BadRequest as e:
            if "there is no text" not in str(e).lower():
                raise
            await self.bot.edit_message_caption(
                inline_message_id=msg,
                caption=caption(view.lines, limit=CAPTION_LIMIT, lang=view.lang, links=False),
                parse_mode=ParseMode.HTML,
                reply_markup=markup,  # type: ignore[arg-type]
            )

    async def tell(self, text: str) -> None:
        """The message says ``text`` (HTML) instead of a table, with no button."""
        with contextlib.suppress(BadRequest, Forbidden):
            await self.bot.edit_message_text(
                text, inline_message_id=self.inline_id, parse_mode=ParseMode.HTML
            )

    async def post(self, view: TableView) -> str | None:
        return None  # a place that cannot post (its powers say so)

    async def retire(self, msg: str) -> None:
        await self._turn()
        with contextlib.suppress(BadRequest, Forbidden):
            await self.bot.edit_message_reply_markup(inline_message_id=msg, reply_markup=None)

    async def remove(self, msg: str) -> bool:
        return False  # an inline message cannot be deleted by the bot
