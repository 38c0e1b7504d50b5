"""A Telegram chat as the reconciler drives it: the table message as a photo or text."""

from __future__ import annotations

import html
import logging
from typing import Any

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

from ...hosting import User
from ...present import TableView, Text, say
from ..reconcile import CHAT, Powers
from .board_button import BoardButton
from .doubts import Doubts
from .outbox import Turn
from .units import fit_html, units
from .uploads import Uploads
from .weather import transient

log = logging.getLogger(__name__)

PREFIX = "tg:"
CAPTION_LIMIT = 1024
TEXT_LIMIT = 4096


def target(channel: str) -> tuple[int, int | None]:
    """(chat id, forum topic id) of a channel key."""
    parts = channel[len(PREFIX) :].split(":")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else None


def mention(user: User) -> str:
    return f'<a href="tg://user?id={html.escape(user.id)}">{html.escape(user.name)}</a>'


def caption(
    lines: tuple[Text, ...] | list[Text],
    ping: User | None = None,
    limit: int = CAPTION_LIMIT,
    *,
    links: bool = True,
    lang: str | None = None,
    call: tuple[User, ...] = (),
) -> str:
    """The lines as HTML in ``lang``, the person to notify linked, cut to ``limit``
    UTF-16 units as Telegram counts them (latest lines kept)."""
    out = []
    for t in lines:
        if links and ping is not None and t.key.startswith("turn.") and t.params.get("who"):
            params = {k: html.escape(v) if isinstance(v, str) else v for k, v in t.params.items()}
            params["who"] = mention(ping)
            out.append(say(Text(t.key, params), lang=lang))
        elif links and call and t.params.get("players"):  # those called, by name
            params = {k: html.escape(v) if isinstance(v, str) else v for k, v in t.params.items()}
            params["players"] = ", ".join(mention(u) for u in call)
            out.append(say(Text(t.key, params), lang=lang))
        else:
            out.append(say(t, html.escape, lang))
    text = "\n".join(out)
    while units(text) > limit and len(out) > 1:
        # a long run of computer moves: keep the latest lines
        out = out[1:] if out[0] != "…" else out[2:]
        out.insert(0, "…")
        text = "\n".join(out)
    if units(text) <= limit:
        return text
    if links:  # one line too long even alone: cut without the link
        return caption(lines, ping, limit, links=False, lang=lang, call=call)
    return fit_html(text, limit)  # never half an entity like "&am", nor half a tag


def keyboard(
    view: TableView, last: list[InlineKeyboardButton] | None = None
) -> InlineKeyboardMarkup | None:
    """The view's buttons, and the row ``last`` below them (the board's, if any)."""
    rows = [
        [InlineKeyboardButton(say(b.label, lang=view.lang), callback_data=b.data) for b in row]
        for row in view.buttons
    ]
    if last:
        rows.append(last)
    return InlineKeyboardMarkup(rows) if rows else None


class TelegramScreen:
    """The messages of one chat (or forum topic), through the Bot API."""

    #: a chat the bot is a member of: it may post, edit and delete
    powers: Powers = CHAT

    def __init__(
        self,
        bot: Bot,
        channel: str,
        turn: Turn | None = None,
        board: BoardButton | None = None,
        doubts: Doubts | None = None,
        uploads: Uploads | None = None,
    ) -> None:
        self.bot = bot
        self.channel = channel
        self.chat_id, self.thread = target(channel)
        #: waits for the chat's send pace before each message or edit (None: no wait)
        self.turn = turn
        #: the tables' "Open the board" button (None: no Mini App)
        self.board = board
        #: the tables sent in doubt (a 5xx hid whether they arrived; None: not kept)
        self.doubts = doubts
        #: the file ids of the pictures uploaded, for the cards (None: not kept)
        self.uploads = uploads

    def _keyboard(self, view: TableView) -> InlineKeyboardMarkup | None:
        last = self.board.row(view, self.chat_id) if self.board is not None else None
        return keyboard(view, last)

    async def _turn(self) -> None:
        """Wait for the chat's pace, and take it."""
        if self.turn is not None:
            await self.turn()

    def _caption(self, view: TableView) -> str:
        # only the person to notify is linked (a link in a new message notifies them)
        limit = CAPTION_LIMIT if view.picture else TEXT_LIMIT
        return caption(view.lines, view.ping, limit, lang=view.lang, call=view.call)

    async def edit(self, msg: str, view: TableView) -> bool:
        photo = await self._photo(view)
        await self._turn()
        try:
            if photo is not None:
                edited: Any = None
                try:
                    edited = await self.bot.edit_message_media(
                        InputMediaPhoto(
                            photo, caption=self._caption(view), parse_mode=ParseMode.HTML
                        ),
                        chat_id=self.chat_id,
                        message_id=int(msg),
                        reply_markup=self._keyboard(view),
                    )
                finally:
                    if self.uploads is not None:
                        self.uploads.saw(view, edited)
            else:
                await self.bot.edit_message_text(
                    self._caption(view),
                    chat_id=self.chat_id,
                    message_id=int(msg),
                    parse_mode=ParseMode.HTML,
                    reply_markup=self._keyboard(view),
                )
        except BadRequest as e:
            if "not modified" in str(e).lower():
                return True
            log.info("message %s not edited (%s): posting a new one", msg, e)
            return False
        except Forbidden as e:
            log.warning("cannot edit in %s: %s", self.channel, e)
            return False
        return True

    async def _photo(self, view: TableView) -> str | bytes | None:
        """The picture to send: by the file id of its upload, if this worker made one
        (a card of the game, say), else the PNG."""
        if self.uploads is None:
            return view.image
        return await self.uploads.photo(view)

    async def post(self, view: TableView) -> str | None:
        """Post ``view``; a table of the game sent in doubt before is looked for first,
        and if it is there, edited into ``view`` instead (see :mod:`.doubts`)."""
        doubts, game = self.doubts, view.game_id
        if doubts is not None and doubts.pending(self.chat_id, game):
            found = await doubts.find(self.bot, self.chat_id, game, self._turn)
            if found is not None and await self.edit(str(found), view):
                return str(found)
        floor = doubts.floor(self.chat_id) if doubts is not None else None
        markup = self._keyboard(view)
        photo = await self._photo(view)
        await self._turn()
        sent: Any = None
        try:
            if photo is not None:
                sent = await self.bot.send_photo(
                    self.chat_id,
                    photo,
                    caption=self._caption(view),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=self.thread,
                )
            else:
                sent = await self.bot.send_message(
                    self.chat_id,
                    self._caption(view),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=self.thread,
                )
        except (Forbidden, BadRequest) as e:
            log.warning("cannot post in %s: %s", self.channel, e)
            return None
        except TelegramError as e:
            if doubts is not None and transient(e) and not isinstance(e, RetryAfter):
                doubts.doubt(self.chat_id, game, floor, markup)  # it may be there all the same
            raise
        finally:
            if self.uploads is not None:
                self.uploads.saw(view, sent)
        if doubts is not None:
            doubts.saw(self.chat_id, sent.message_id)
        return str(sent.message_id)

    async def retire(self, msg: str) -> None:
        await self._turn()
        await quietly(
            self.bot.edit_message_reply_markup(
                chat_id=self.chat_id, message_id=int(msg), reply_markup=None
            )
        )

    async def remove(self, msg: str) -> bool:
        """Delete a message; False if Telegram will not (a bot may delete its own
        messages in a group for 48 hours only)."""
        try:
            await self.bot.delete_message(self.chat_id, int(msg))
        except BadRequest as e:
            if "not found" in str(e).lower():
                return True  # gone already
            log.info("message %s not deleted (%s)", msg, e)
            return False
        except Forbidden as e:
            log.info("message %s not deleted (%s)", msg, e)
            return False
        return True

    async def say(self, text: str, markup: InlineKeyboardMarkup | None = None) -> Any:
        """A plain message in this chat (not the table): the rule chooser."""
        await self._turn()
        try:
            return await self.bot.send_message(
                self.chat_id,
                fit_html(text, TEXT_LIMIT),
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                message_thread_id=self.thread,
            )
        except (Forbidden, BadRequest) as e:
            log.warning("cannot post in %s: %s", self.channel, e)
            return None


async def quietly(call: Any) -> None:
    """A call whose failure (message gone, not modified) changes nothing for anyone."""
    try:
        await call
    except (BadRequest, Forbidden) as e:
        log.debug("ignored: %s", e)
