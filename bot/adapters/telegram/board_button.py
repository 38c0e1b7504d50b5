"""The table's "Open the board" button on Telegram (issue 23): the live board as a
Mini App, when one is set up (``LUDO_MINIAPP``).

In a group the button is a plain URL button with the Mini App's direct link,
``https://t.me/<bot>/<app>?startapp=<link>``: Telegram opens the Mini App
inside the chat and signs the ``startapp`` value into its init data.  The link
is the game's player link (:meth:`bot.web.auth.Keys.play`: the game id with a
tag only the bot can make), so a page may act only in a game a table of the
bot named.  In a
private chat it is a ``web_app`` button opening the board page with
``?game=<game id>`` (Telegram allows ``web_app`` buttons only there: elsewhere
it answers ``BUTTON_TYPE_INVALID``).  A finished game's tables carry none.
Without a Mini App no button is added and every table is as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote

from telegram import Bot, InlineKeyboardButton, WebAppInfo

from ...present import TableView, Text, say

#: what Telegram takes as a Mini App link's ``startapp`` (and our game ids are)
START_PARAM = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class MiniApp:
    """The Mini App: its short name (BotFather's ``/newapp``) and the board page."""

    #: the short name, as in ``t.me/<bot>/<name>``
    name: str
    #: the board page (``LUDO_PUBLIC_URL`` + ``/board/``), an https:// address
    board_url: str
    #: the ``startapp`` of a game: its player link (the game id itself in tests)
    start: Callable[[str], str] = field(default=str, compare=False)

    def link(self, bot_username: str, game_id: str) -> str:
        """The Mini App's direct link opening the board of ``game_id``."""
        return f"https://t.me/{bot_username}/{self.name}?startapp={quote(self.start(game_id))}"

    def page(self, game_id: str) -> str:
        """The board page of ``game_id``, for a ``web_app`` button."""
        return f"{self.board_url}?game={quote(game_id)}"


class BoardButton:
    """Makes the button row that opens the board of a table's game, if it may have one."""

    def __init__(self, bot: Bot, app: MiniApp) -> None:
        self.bot = bot
        self.app = app

    def username(self) -> str | None:
        """The bot's username, as getMe told it at start (None before that)."""
        try:
            name = self.bot.username
        except RuntimeError:  # not initialized yet
            return None
        return name or None

    def row(self, view: TableView, chat_id: int | None) -> list[InlineKeyboardButton] | None:
        """The row with "Open the board" for ``view`` in chat ``chat_id`` (a private
        chat's id is the person's, above 0; None: a message posted through inline mode,
        where only the direct link opens it), or None: the game is over, or its id is not
        one Telegram would pass on."""
        if view.finished or not START_PARAM.fullmatch(view.game_id):
            return None
        label = say(Text("btn.open_board"), lang=view.lang)
        if chat_id is not None and chat_id > 0:  # a private chat: a web app at once
            page = WebAppInfo(url=self.app.page(view.game_id))
            return [InlineKeyboardButton(label, web_app=page)]
        username = self.username()
        if username is None:
            return None
        return [InlineKeyboardButton(label, url=self.app.link(username, view.game_id))]
