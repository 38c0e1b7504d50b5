"""A small fake Telegram Bot API server (aiohttp) for end-to-end tests.

It answers ``/bot<token>/<method>`` the way the real Bot API does, closely
enough for python-telegram-bot: JSON, url-encoded and multipart bodies are
read (files such as sendPhoto's photo arrive as multipart parts, and JSON
fields such as ``reply_markup`` or ``media`` as JSON strings inside the form),
and every answer is ``{"ok": true, "result": ...}`` or an error object with
the HTTP status of its ``error_code``.

What it keeps:

* every call, in order (:attr:`FakeTelegram.calls`): method, parsed params,
  uploaded files, the answer;
* the chats and their messages, with their current text or caption,
  keyboard and photo bytes (and the earlier versions), so a test can find
  "the latest message with buttons" and press one of them;
* a queue of updates, served by ``getUpdates`` (long polling: ``offset``
  confirms, ``timeout`` waits; an answer goes out as soon as there are
  updates).

What it checks, like Telegram: the token (401), chats and forum topics,
HTML captions and texts (well-formed, supported tags and entities), the lengths
of captions, texts and answers to button presses (in UTF-16 code units, after the
HTML is parsed, as Telegram counts them), callback data of at most 64 bytes, edits
of messages that exist ("message is not modified" too), each callback query
answered once.

Limits: with :attr:`FakeTelegram.group_limit` set, a message or edit over a
group's limit is answered 429 with ``retry_after``, as Telegram does.

Inline mode (:mod:`~tests.fakes.telegram.inline`): inline queries answered once, a
chosen result posted "via @bot" in a chat the bot need not be in, presses on it without a
message, edits by ``inline_message_id`` answered ``true`` and taking no upload.  Updates
of a kind the bot did not ask for (``allowed_updates``) are never sent.

Faults: :meth:`FakeTelegram.fail_next` makes the next calls of a method
answer 429 with ``retry_after``; :meth:`FakeTelegram.delay_next` holds the next
calls of a method a while (later calls overtake them, as on a real network);
:meth:`FakeTelegram.revoke` revokes the token (every call with it answered 401,
the long poll waiting then too); :meth:`FakeTelegram.storm` answers every call (or a
method's) 429 with ``retry_after``, 500 or 502 (nginx's HTML page) for a while, a 5xx
maybe after doing the call, and keeps the calls that did not wait as a 429 asked
(:mod:`~tests.fakes.telegram.storms`).

The fake is one class, :class:`FakeTelegram`, put together from a module per concept:
:mod:`~tests.fakes.telegram.objects` (Telegram's limits, its HTML, the objects kept),
:mod:`~tests.fakes.telegram.server` (the HTTP endpoint, calls, faults, waiting),
:mod:`~tests.fakes.telegram.chats` (chats, topics, people's updates) and
:mod:`~tests.fakes.telegram.methods` (the Bot API methods).  Tests import everything
from this package.
"""

from __future__ import annotations

from tests.fakes.telegram.chats import Chats
from tests.fakes.telegram.inline import Inline
from tests.fakes.telegram.methods import BotApi
from tests.fakes.telegram.objects import (
    ANIMATION_LIMIT,
    BOT_ID,
    BOT_USERNAME,
    BUTTON_KINDS,
    CALLBACK_DATA_LIMIT,
    CAPTION_LIMIT,
    CHANNEL_BOT,
    GROUP_ANONYMOUS_BOT,
    GROUP_LIMITED,
    HTML_TAGS,
    TEXT_LIMIT,
    TOAST_LIMIT,
    TOKEN,
    TOPIC_COLOURS,
    Call,
    FakeMessage,
    Version,
    free_port,
    make_user,
    parse_html,
    png_size,
    utf16_len,
)
from tests.fakes.telegram.server import Server
from tests.fakes.telegram.storms import GRACE, NGINX_502, Storm, Storms


class FakeTelegram(Storms, BotApi, Inline, Chats, Server):
    """The fake Bot API server; see the package docstring."""


__all__ = [
    "ANIMATION_LIMIT",
    "BOT_ID",
    "BOT_USERNAME",
    "BUTTON_KINDS",
    "CALLBACK_DATA_LIMIT",
    "CAPTION_LIMIT",
    "CHANNEL_BOT",
    "GRACE",
    "GROUP_ANONYMOUS_BOT",
    "GROUP_LIMITED",
    "HTML_TAGS",
    "NGINX_502",
    "TEXT_LIMIT",
    "TOAST_LIMIT",
    "TOKEN",
    "TOPIC_COLOURS",
    "Call",
    "FakeMessage",
    "FakeTelegram",
    "Storm",
    "Version",
    "free_port",
    "make_user",
    "parse_html",
    "png_size",
    "utf16_len",
]
