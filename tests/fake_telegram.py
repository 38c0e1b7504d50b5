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

Faults: :meth:`FakeTelegram.fail_next` makes the next calls of a method
answer 429 with ``retry_after``; :meth:`FakeTelegram.delay_next` holds the next
calls of a method a while (later calls overtake them, as on a real network);
:meth:`FakeTelegram.revoke` revokes the token (every call with it answered 401,
the long poll waiting then too).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import json
import re
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

TOKEN = "123456:TEST-fake-token"
BOT_ID = 123456
#: the colours a forum topic's icon may have (Bot API: createForumTopic)
TOPIC_COLOURS = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)
BOT_USERNAME = "ludo_test_bot"

CAPTION_LIMIT = 1024
#: the largest file a bot may upload (sendAnimation, sendDocument)
ANIMATION_LIMIT = 50 * 1024 * 1024
TEXT_LIMIT = 4096
TOAST_LIMIT = 200
CALLBACK_DATA_LIMIT = 64
#: the kinds of an inline keyboard button (each button is of exactly one)
BUTTON_KINDS = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)

#: the methods Telegram counts in a group's limit of messages a minute
GROUP_LIMITED = {
    "sendmessage",
    "sendphoto",
    "editmessagetext",
    "editmessagemedia",
    "editmessagecaption",
    "editmessagereplymarkup",
}

#: form fields that carry JSON (python-telegram-bot encodes non-strings as JSON)
JSON_FIELDS = {
    "reply_markup",
    "media",
    "commands",
    "allowed_updates",
    "scope",
    "entities",
    "caption_entities",
    "reply_parameters",
    "link_preview_options",
}
INT_FIELDS = {
    "chat_id",
    "message_id",
    "message_thread_id",
    "offset",
    "limit",
    "timeout",
    "user_id",
    "cache_time",
    "max_connections",
}
BOOL_FIELDS = {
    "show_alert",
    "drop_pending_updates",
    "disable_notification",
    "protect_content",
    "has_spoiler",
    "show_caption_above_media",
    "allow_sending_without_reply",
}

#: the tags Telegram's HTML parse mode supports
HTML_TAGS = {
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "a",
    "code",
    "pre",
    "span",
    "tg-spoiler",
    "tg-emoji",
    "blockquote",
}
_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)"
    r"((?:\s+[a-zA-Z_-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>\"']+))?)*)\s*>"
)
_ATTR = re.compile(r"([a-zA-Z_-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+)))?")
_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")


class ApiError(Exception):
    """An error answer: ``{"ok": false, "error_code": code, "description": ...}``."""

    def __init__(self, code: int, description: str, parameters: dict[str, Any] | None = None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def utf16_len(text: str) -> int:
    """A length as Telegram counts it: UTF-16 code units (an emoji such as 🎲 is two)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def bad(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


def parse_html(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Telegram's HTML parse mode: the plain text and its links; ValueError if malformed."""
    out: list[str] = []
    links: list[dict[str, Any]] = []
    stack: list[tuple[str, dict[str, str], int]] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "<":
            m = _TAG.match(text, i)
            if m is None:
                raise ValueError(
                    f"Unexpected character '<' at byte offset {len(text[:i].encode())}"
                )
            closing, name = m.group(1) == "/", m.group(2).lower()
            if name not in HTML_TAGS:
                raise ValueError(
                    f'Unsupported start tag "{name}" at byte offset {len(text[:i].encode())}'
                )
            if closing:
                if not stack or stack[-1][0] != name:
                    want = stack[-1][0] if stack else "nothing"
                    raise ValueError(f'Unmatched end tag "{name}", expected "</{want}>"')
                _, attrs, start = stack.pop()
                if name == "a":
                    links.append({"href": attrs.get("href", ""), "text": "".join(out)[start:]})
            else:
                attrs = {}
                for a in _ATTR.finditer(m.group(3)):
                    value = next((v for v in a.group(2, 3, 4) if v is not None), "")
                    attrs[a.group(1).lower()] = html.unescape(value)
                stack.append((name, attrs, len("".join(out))))
            i = m.end()
        elif c == "&":
            m = _ENTITY.match(text, i)
            if m is None:
                raise ValueError(
                    "Character '&' is reserved and must be escaped as &amp; "
                    f"(byte offset {len(text[:i].encode())})"
                )
            out.append(html.unescape(m.group()))
            i = m.end()
        else:
            out.append(c)
            i += 1
    if stack:
        raise ValueError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    return "".join(out), links


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    return None


def make_user(
    user_id: int,
    first_name: str,
    last_name: str | None = None,
    username: str | None = None,
    language_code: str = "en",
) -> dict[str, Any]:
    """A Telegram User object (a person, whose app speaks ``language_code``)."""
    u: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
    if last_name is not None:
        u["last_name"] = last_name
    if username is not None:
        u["username"] = username
    u["language_code"] = language_code
    return u


#: the accounts Telegram puts in ``from`` of a message sent on behalf of a chat (the
#: Bot API's Message.sender_chat): a channel's posts, and anonymous group admins'
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
GROUP_ANONYMOUS_BOT = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Call:
    """One request the bot made, and what it was answered."""

    n: int
    method: str
    params: dict[str, Any]
    #: uploaded files: form field name -> bytes
    files: dict[str, bytes]
    token: str
    #: HTTP status of the answer (None while a long poll is still waiting)
    status: int | None = None
    result: Any = None
    description: str | None = None
    at: float = field(default_factory=time.monotonic)

    @property
    def ok(self) -> bool:
        return self.status == 200

    @property
    def chat_id(self) -> Any:
        return self.params.get("chat_id")

    @property
    def caption(self) -> str | None:
        """The caption sent (HTML as it came): sendPhoto's, or editMessageMedia's media."""
        media = self.params.get("media")
        if isinstance(media, dict):
            return media.get("caption")
        return self.params.get("caption")

    @property
    def photo(self) -> bytes | None:
        """The photo uploaded by sendPhoto or editMessageMedia."""
        media = self.params.get("media")
        ref = media.get("media") if isinstance(media, dict) else self.params.get("photo")
        if isinstance(ref, str) and ref.startswith("attach://"):
            return self.files.get(ref[len("attach://") :])
        return self.files.get("photo")

    @property
    def message_id(self) -> int | None:
        """The id of the message sent or edited (from the answer), else of the params."""
        if isinstance(self.result, dict) and "message_id" in self.result:
            return int(self.result["message_id"])
        return self.params.get("message_id")

    def __repr__(self) -> str:
        shown = {
            k: (v if len(repr(v)) < 80 else repr(v)[:77] + "...") for k, v in self.params.items()
        }
        return f"<Call #{self.n} {self.method} {shown} -> {self.status} {self.description or ''}>"


@dataclass
class Version:
    """A message as it was at one time (a message keeps its earlier versions)."""

    text: str | None
    html: str | None
    caption: str | None
    caption_html: str | None
    keyboard: list[list[dict[str, Any]]]
    photo: bytes | None


@dataclass
class FakeMessage:
    chat_id: int
    message_id: int
    date: int
    #: the sender: the bot, or a user dict
    sender: dict[str, Any]
    thread_id: int | None = None
    text: str | None = None
    #: the HTML the bot sent (text/caption as it came in); None for plain text
    html: str | None = None
    caption: str | None = None
    caption_html: str | None = None
    photo: bytes | None = None
    photo_id: str | None = None
    #: an animation (sendAnimation) or a document (sendDocument): its bytes and file name
    animation: bytes | None = None
    document: bytes | None = None
    file_name: str | None = None
    keyboard: list[list[dict[str, Any]]] = field(default_factory=list)
    edit_date: int | None = None
    deleted: bool = False
    #: sent on behalf of this chat (a channel, or the group for an anonymous admin)
    sender_chat: dict[str, Any] | None = None
    history: list[Version] = field(default_factory=list)

    @property
    def from_bot(self) -> bool:
        return bool(self.sender.get("is_bot")) and self.sender.get("id") == BOT_ID

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """The inline buttons, row after row: dicts with "text" and "callback_data"."""
        return [b for row in self.keyboard for b in row]

    def button(self, label: str | None = None, *, data: str | None = None) -> dict[str, Any]:
        """The button whose text is (or starts with) ``label``, or whose data is ``data``."""
        for b in self.buttons:
            if data is not None and b.get("callback_data") == data:
                return b
            if label is not None and (b["text"] == label or b["text"].startswith(label)):
                return b
        raise AssertionError(
            f"no button {label or data!r} in message {self.message_id}: "
            f"{[b['text'] for b in self.buttons]}"
        )

    def snapshot(self) -> Version:
        return Version(
            self.text,
            self.html,
            self.caption,
            self.caption_html,
            json.loads(json.dumps(self.keyboard)),
            self.photo,
        )

    @property
    def content(self) -> str:
        """The visible text or caption (plain, entities resolved)."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def markup(self) -> str:
        """The text or caption as sent (HTML for the bot's messages)."""
        for value in (self.html, self.text, self.caption_html, self.caption):
            if value is not None:
                return value
        return ""


class FakeTelegram:
    """The fake Bot API server; see the module docstring."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.bot_user = {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Ludo Test Bot",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.calls: list[Call] = []
        self.chats: dict[int, dict[str, Any]] = {}
        self.topics: dict[int, dict[int, str]] = {}
        self.messages: dict[tuple[int, int], FakeMessage] = {}
        #: chat id -> user id -> "creator" / "administrator" / "member"
        self.members: dict[int, dict[int, str]] = {}
        #: the default command menu (setMyCommands without a language code)
        self.commands: list[dict[str, Any]] | None = None
        #: every command menu: language code ("" the default) -> its commands
        self.command_menus: dict[str, list[dict[str, Any]]] = {}
        self.webhook: dict[str, Any] | None = None
        self.files: dict[str, bytes] = {}
        self.queries: dict[str, dict[str, Any]] = {}
        self.answered: dict[str, Call] = {}
        self.updates: list[dict[str, Any]] = []
        #: updates below this id were confirmed by an offset
        self.confirmed = 0
        self._update_ids = itertools.count(1000)
        self._ids = itertools.count(5000)
        self._next_message: dict[int, int] = {}
        self._faults: dict[str, list[ApiError]] = {}
        self._delays: dict[str, list[float]] = {}
        #: Telegram's limit in a group: at most this many messages or edits in any
        #: this many seconds (None: not kept); a call over it is answered 429
        self.group_limit: tuple[int, float] | None = None
        self._poll_generation = 0
        self._activity = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- the server -------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, port: int = 0) -> int:
        """Serve on ``port`` (0: a free one); again after :meth:`close`, on the same
        port: Telegram unreachable for a while."""
        self._closing = False
        app = web.Application(client_max_size=50 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = int(sock.getsockname()[1])
        site = web.SockSite(self._runner, sock)
        await site.start()
        return self.port

    async def close(self) -> None:
        self._closing = True
        self._notify()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _notify(self) -> None:
        """Wake whoever waits (long polls, tests waiting for a condition)."""
        self._activity.set()
        self._activity = asyncio.Event()

    async def _params(self, request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        params: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        if request.can_read_body and request.content_type == "application/json":
            body = await request.json()
            if not isinstance(body, dict):
                raise bad("request body must be a JSON object")
            return dict(body), files
        form: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            posted = await request.post()
            for name, value in posted.items():
                if isinstance(value, web.FileField):
                    files[name] = value.file.read()
                    params.setdefault("_file_names", {})[name] = value.filename
                else:
                    form[name] = value
        for name, raw in form.items():
            value: Any = raw
            if isinstance(raw, bytes):
                raw = value = raw.decode()
            if name in JSON_FIELDS:
                try:
                    value = json.loads(raw)
                except ValueError:
                    raise bad(f"can't parse {name} JSON object") from None
            elif name in INT_FIELDS and re.fullmatch(r"-?\d+", raw):
                value = int(raw)
            elif name in BOOL_FIELDS:
                value = raw.lower() in ("true", "1")
            params[name] = value
        return params, files

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method = request.match_info["method"]
        try:
            params, files = await self._params(request)
        except ApiError as e:
            params, files = {}, {}
            call = self._record(method, params, files, token)
            return self._finish(call, e)
        call = self._record(method, params, files, token)
        try:
            if token != self.token:
                raise ApiError(401, "Unauthorized")
            fault = self._take_fault(method) or self._over_limit(method, params)
            if fault is not None:
                raise fault
            delays = self._delays.get(method.lower())
            if delays:
                # a slow network path: calls made meanwhile overtake this one
                await asyncio.sleep(delays.pop(0))
            handler = getattr(self, "api_" + method.lower(), None)
            if handler is None:
                raise ApiError(404, "Not Found")
            result = await handler(params, files, call)
        except ApiError as e:
            return self._finish(call, e)
        return self._finish(call, None, result)

    def _record(
        self, method: str, params: dict[str, Any], files: dict[str, bytes], token: str
    ) -> Call:
        call = Call(len(self.calls), method, params, files, token)
        self.calls.append(call)
        return call

    def _finish(self, call: Call, error: ApiError | None, result: Any = None) -> web.Response:
        if error is None:
            call.status, call.result = 200, result
            body: dict[str, Any] = {"ok": True, "result": result}
        else:
            call.status, call.description = error.code, error.description
            body = {"ok": False, "error_code": error.code, "description": error.description}
            if error.parameters:
                body["parameters"] = error.parameters
        self._notify()
        return web.json_response(body, status=call.status)

    # -- faults -----------------------------------------------------------

    def group_calls(self, chat_id: int) -> list[Call]:
        """The messages and edits that took effect in a group, in order."""
        return [
            c
            for c in self.calls
            if c.method.lower() in GROUP_LIMITED and c.ok and c.chat_id == chat_id
        ]

    def busiest(self, chat_id: int, period: float) -> int:
        """The most messages and edits in the group within any ``period`` seconds."""
        times = [c.at for c in self.group_calls(chat_id)]
        most, first = 0, 0
        for last, t in enumerate(times):
            while times[first] <= t - period:
                first += 1
            most = max(most, last - first + 1)
        return most

    def _over_limit(self, method: str, params: dict[str, Any]) -> ApiError | None:
        chat_id = params.get("chat_id")
        if (
            self.group_limit is None
            or method.lower() not in GROUP_LIMITED
            or not isinstance(chat_id, int)
            or chat_id >= 0
        ):
            return None
        rate, period = self.group_limit
        now = time.monotonic()
        recent = [c.at for c in self.group_calls(chat_id) if c.at > now - period]
        if len(recent) < rate:
            return None
        wait = max(1, int(recent[-rate] + period - now + 0.999))
        return ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})

    def fail_next(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 Too Many Requests.

        A long poll already waiting counts as the next getUpdates: it is answered at once.
        """
        err = ApiError(
            429,
            f"Too Many Requests: retry after {retry_after}",
            {"retry_after": retry_after},
        )
        self._faults.setdefault(method.lower(), []).extend([err] * times)
        self._notify()

    def refuse_next(self, method: str, code: int, description: str, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with this error (e.g. 400, "query is
        too old": a callback query answered after Telegram stopped waiting)."""
        self._faults.setdefault(method.lower(), []).extend([ApiError(code, description)] * times)
        self._notify()

    def revoke(self) -> None:
        """The bot's token is revoked in @BotFather: from now on every call with it is
        answered 401 Unauthorized, the long poll waiting now too."""
        self.token = f"{BOT_ID}:revoked-{next(self._ids)}"
        self._notify()

    def delay_next(self, method: str, seconds: float, times: int = 1) -> None:
        """Hold the next ``times`` calls of ``method`` for ``seconds`` before they take effect."""
        self._delays.setdefault(method.lower(), []).extend([seconds] * times)

    def _take_fault(self, method: str) -> ApiError | None:
        pending = self._faults.get(method.lower())
        return pending.pop(0) if pending else None

    # -- people, chats, topics ---------------------------------------------

    def group(self, title: str = "Ludo night", chat_id: int | None = None) -> dict[str, Any]:
        chat = {"id": chat_id or -next(self._ids), "type": "group", "title": title}
        self.chats[chat["id"]] = chat
        return chat

    def supergroup(self, title: str = "Ludo club", *, forum: bool = False) -> dict[str, Any]:
        chat: dict[str, Any] = {
            "id": -1_000_000_000_000 - next(self._ids),
            "type": "supergroup",
            "title": title,
        }
        if forum:
            chat["is_forum"] = True
        self.chats[chat["id"]] = chat
        self.topics[chat["id"]] = {}
        return chat

    def topic(self, chat: dict[str, Any], name: str) -> int:
        """Open a forum topic; its id (message_thread_id) is the id of its opening message."""
        assert chat.get("is_forum"), "topics exist only in forum supergroups"
        thread_id = self._message_id(chat["id"])
        self.topics[chat["id"]][thread_id] = name
        return thread_id

    def channel(self, title: str = "Ludo news") -> dict[str, Any]:
        """A channel, whose admins may post in groups as the channel."""
        chat = {"id": -1_000_000_000_000 - next(self._ids), "type": "channel", "title": title}
        self.chats[chat["id"]] = chat
        return chat

    def private(self, user: dict[str, Any]) -> dict[str, Any]:
        chat = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        for key in ("last_name", "username"):
            if key in user:
                chat[key] = user[key]
        self.chats[chat["id"]] = chat
        return chat

    def set_member(self, chat: dict[str, Any], user: dict[str, Any], status: str) -> None:
        self.members.setdefault(chat["id"], {})[user["id"]] = status

    def _chat(self, chat_id: Any) -> dict[str, Any]:
        if not isinstance(chat_id, int) or chat_id not in self.chats:
            raise bad("chat not found")
        return self.chats[chat_id]

    def _message_id(self, chat_id: int) -> int:
        n = self._next_message.get(chat_id, 1)
        self._next_message[chat_id] = n + 1
        return n

    # -- updates from people ----------------------------------------------

    def _enqueue(self, update: dict[str, Any]) -> int:
        update_id = next(self._update_ids)
        update["update_id"] = update_id
        self.updates.append(update)
        self._notify()
        return update_id

    def message_update(
        self,
        chat: dict[str, Any],
        user: dict[str, Any],
        text: str,
        thread_id: int | None = None,
        sender_chat: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The update (not queued) for ``user`` writing ``text`` in ``chat`` (on behalf
        of ``sender_chat``, if given)."""
        if thread_id is not None:
            assert thread_id in self.topics.get(chat["id"], {}), "no such topic"
        msg = FakeMessage(
            chat["id"],
            self._message_id(chat["id"]),
            int(time.time()),
            user,
            thread_id,
            text=text,
            sender_chat=sender_chat,
        )
        self.messages[(chat["id"], msg.message_id)] = msg
        data = self.message_json(msg)
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            data["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command[0])}]
        return {"message": data}

    def send_text(
        self,
        chat: dict[str, Any],
        user: dict[str, Any],
        text: str,
        thread_id: int | None = None,
    ) -> int:
        """``user`` writes ``text`` (a command like "/ludo classic" too) in ``chat``."""
        return self._enqueue(self.message_update(chat, user, text, thread_id))

    def send_as_chat(
        self, chat: dict[str, Any], text: str, channel: dict[str, Any] | None = None
    ) -> int:
        """``text`` sent in ``chat`` on behalf of a chat, as Telegram delivers it: as
        ``channel`` (from @Channel_Bot), or else by an anonymous admin of ``chat`` (from
        @GroupAnonymousBot, on behalf of the group itself)."""
        sender = CHANNEL_BOT if channel is not None else GROUP_ANONYMOUS_BOT
        update = self.message_update(chat, sender, text, sender_chat=channel or chat)
        return self._enqueue(update)

    def press(
        self,
        message: FakeMessage,
        user: dict[str, Any],
        data: str | None = None,
        *,
        label: str | None = None,
    ) -> str:
        """``user`` presses a button of ``message`` (by ``label``, or any ``data``).

        The callback query carries the message as it is now; returns the query id.
        """
        if data is None:
            data = message.button(label)["callback_data"]
        query_id = str(next(self._ids) * 1000 + 7)
        query = {
            "id": query_id,
            "from": user,
            "message": self.message_json(message),
            "chat_instance": str(-message.chat_id * 7 + 1),
            "data": data,
        }
        self.queries[query_id] = query
        self._enqueue({"callback_query": query})
        return query_id

    def delivered(self) -> bool:
        """Every queued update was fetched and confirmed (an offset past it)."""
        return not self.updates

    # -- looking at chats ---------------------------------------------------

    def chat_messages(
        self,
        chat_id: int,
        thread_id: int | EllipsisType | None = ...,
        *,
        from_bot: bool = True,
    ) -> list[FakeMessage]:
        """The messages of a chat (of one topic if ``thread_id`` is given), oldest first."""
        found = [
            m
            for (c, _), m in sorted(self.messages.items())
            if c == chat_id
            and not m.deleted
            and (thread_id is ... or m.thread_id == thread_id)
            and (m.from_bot or not from_bot)
        ]
        return found

    def latest(
        self,
        chat_id: int,
        thread_id: int | EllipsisType | None = ...,
        *,
        buttons: bool = False,
        photo: bool | None = None,
    ) -> FakeMessage:
        """The bot's latest message in the chat (with buttons / a photo if asked)."""
        for m in reversed(self.chat_messages(chat_id, thread_id)):
            if buttons and not m.keyboard:
                continue
            if photo is not None and (m.photo is not None) != photo:
                continue
            return m
        raise AssertionError(f"no message {'with buttons ' if buttons else ''}in chat {chat_id}")

    def delete(self, message: FakeMessage) -> None:
        """Someone (an admin, the sender) deletes a message in the app."""
        self.messages[(message.chat_id, message.message_id)].deleted = True

    def message(self, chat_id: int, message_id: int) -> FakeMessage:
        return self.messages[(chat_id, message_id)]

    def message_json(self, m: FakeMessage) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": m.message_id,
            "date": m.date,
            "chat": self.chats[m.chat_id],
            "from": m.sender,
        }
        if m.sender_chat is not None:
            data["sender_chat"] = m.sender_chat
        if m.thread_id is not None:
            data["message_thread_id"] = m.thread_id
            data["is_topic_message"] = True
        if m.text is not None:
            data["text"] = m.text
        if m.photo is not None:
            data["photo"] = self._photo_sizes(m)
        for kind, blob, mime in (
            ("animation", m.animation, "image/gif"),
            ("document", m.document, "application/json"),
        ):
            if blob is not None:
                data[kind] = {
                    "file_id": f"BQACAgQAAxk-{kind}-{m.message_id}",
                    "file_unique_id": f"{kind[:4]}{m.message_id}",
                    "file_name": m.file_name,
                    "mime_type": mime,
                    "file_size": len(blob),
                    **(
                        {"width": 480, "height": 480, "duration": 30} if kind == "animation" else {}
                    ),
                }
                if kind == "animation":
                    data["document"] = dict(data["animation"])
        if m.caption and (m.photo is not None or m.animation is not None or m.document is not None):
            data["caption"] = m.caption
        if m.keyboard:
            data["reply_markup"] = {"inline_keyboard": m.keyboard}
        if m.edit_date is not None:
            data["edit_date"] = m.edit_date
        return data

    def _photo_sizes(self, m: FakeMessage) -> list[dict[str, Any]]:
        assert m.photo is not None and m.photo_id is not None
        w, h = png_size(m.photo) or (320, 320)
        small = max(1, round(90 * min(w, h) / max(w, h)))
        thumb_w, thumb_h = (90, small) if w >= h else (small, 90)
        return [
            {
                "file_id": m.photo_id + "-s",
                "file_unique_id": m.photo_id[-8:] + "s",
                "width": thumb_w,
                "height": thumb_h,
                "file_size": max(1, len(m.photo) // 20),
            },
            {
                "file_id": m.photo_id,
                "file_unique_id": m.photo_id[-8:],
                "width": w,
                "height": h,
                "file_size": len(m.photo),
            },
        ]

    # -- looking at calls -------------------------------------------------

    def mark(self) -> int:
        """A position in :attr:`calls`: pass it as ``since`` to look at later calls only."""
        return len(self.calls)

    def calls_of(
        self,
        *methods: str,
        since: int = 0,
        where: Callable[[Call], bool] | None = None,
        ok: bool | None = None,
    ) -> list[Call]:
        wanted = {m.lower() for m in methods}
        return [
            c
            for c in self.calls[since:]
            if (not wanted or c.method.lower() in wanted)
            and (ok is None or c.ok == ok)
            and (where is None or where(c))
        ]

    def answer_of(self, query_id: str) -> Call | None:
        """The (successful) answerCallbackQuery call for ``query_id``."""
        return self.answered.get(query_id)

    async def wait_for(
        self, condition: Callable[[], Any], timeout: float = 10.0, what: str = "a condition"
    ) -> Any:
        """Wait until ``condition()`` is true (checked after every call, and often); return it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            got = condition()
            if got:
                return got
            left = deadline - loop.time()
            if left <= 0:
                recent = "\n  ".join(repr(c) for c in self.calls[-12:])
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}; last calls:\n  {recent}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._activity.wait(), min(left, 0.02))

    async def wait_call(
        self,
        *methods: str,
        since: int = 0,
        where: Callable[[Call], bool] | None = None,
        ok: bool | None = True,
        count: int = 1,
        timeout: float = 10.0,
    ) -> Call:
        """Wait for the ``count``-th finished call of ``methods`` after ``since``; return it."""

        def found() -> Call | None:
            got = [
                c
                for c in self.calls_of(*methods, since=since, where=where, ok=ok)
                if c.status is not None
            ]
            return got[count - 1] if len(got) >= count else None

        result: Call = await self.wait_for(found, timeout, f"{count} x {'/'.join(methods)}")
        return result

    # -- the methods ------------------------------------------------------

    async def api_getme(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return self.bot_user

    async def api_logout(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return True

    async def api_close(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return True

    async def api_setmycommands(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        commands = p.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad("commands must be an array of at most 100 BotCommand")
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(c.get("command", ""))):
                raise bad("BOT_COMMAND_INVALID")
            if not 1 <= utf16_len(str(c.get("description", ""))) <= 256:
                raise bad("command description must be 1-256 characters")
        code = self._language_code(p)
        self.command_menus[code] = commands
        if not code:
            self.commands = commands
        return True

    async def api_getmycommands(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return self.command_menus.get(self._language_code(p), [])

    @staticmethod
    def _language_code(p: dict[str, Any]) -> str:
        """A command menu's language: "" (everyone without a menu of their own) or a
        two-letter ISO 639-1 code, as Telegram takes it."""
        code = str(p.get("language_code") or "")
        if code and not re.fullmatch(r"[a-z]{2}", code):
            raise bad("language_code must be a two-letter ISO 639-1 language code")
        return code

    async def api_deletewebhook(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        self.webhook = None
        if p.get("drop_pending_updates"):
            self.updates.clear()
        return True

    async def api_setwebhook(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        url = str(p.get("url", ""))
        if not url:
            self.webhook = None
            return True
        if not url.startswith("https://"):
            raise bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = p.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad("secret token contains unallowed characters")
        self.webhook = dict(p)
        self._notify()  # a waiting long poll ends: updates go to the webhook now
        return True

    async def api_getwebhookinfo(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        info: dict[str, Any] = {
            "url": self.webhook["url"] if self.webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.updates),
        }
        if self.webhook and self.webhook.get("allowed_updates"):
            info["allowed_updates"] = self.webhook["allowed_updates"]
        return info

    async def api_getupdates(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = p.get("offset")
        if isinstance(offset, int) and offset > 0:
            self.confirmed = max(self.confirmed, offset)
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
            self._notify()
        limit = p.get("limit") or 100
        timeout = p.get("timeout") or 0
        self._poll_generation += 1
        generation = self._poll_generation
        loop = asyncio.get_running_loop()
        deadline = loop.time() + float(timeout)
        while True:
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            if call.token != self.token:
                raise ApiError(401, "Unauthorized")
            fault = self._take_fault("getUpdates")
            if fault is not None:
                raise fault
            if self.updates or self._closing or self.webhook is not None:
                return self.updates[:limit]
            left = deadline - loop.time()
            if left <= 0:
                return []
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._activity.wait(), left)

    # sending

    def _text(
        self, p: dict[str, Any], key: str, limit: int, required: bool
    ) -> tuple[str, str | None]:
        """(plain text, HTML as sent or None) of ``p[key]``; Telegram's checks."""
        raw = p.get(key)
        if raw is None or raw == "":
            if required:
                raise bad("message text is empty")
            return "", None
        raw = str(raw)
        mode = str(p.get("parse_mode") or "")
        if mode.lower() == "html":
            try:
                plain, _ = parse_html(raw)
            except ValueError as e:
                raise bad(f"can't parse entities: {e}") from None
            markup: str | None = raw
        elif mode:
            raise bad(f"unsupported parse_mode {mode!r} in this fake")
        else:
            plain, markup = raw, None
        plain = plain.strip()
        if required and not plain:
            raise bad("message text is empty")
        if utf16_len(plain) > limit:
            raise bad("message caption is too long" if key == "caption" else "message is too long")
        return plain, markup

    def _keyboard(self, p: dict[str, Any]) -> list[list[dict[str, Any]]]:
        markup = p.get("reply_markup")
        if markup is None:
            return []
        rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
        if not isinstance(rows, list):
            raise bad("only inline keyboards are supported by this fake")
        for row in rows:
            for b in row:
                if not str(b.get("text", "")).strip():
                    raise bad("BUTTON_TEXT_EMPTY")
                self._button_kind(p, b)
                data = b.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= CALLBACK_DATA_LIMIT:
                    raise bad("BUTTON_DATA_INVALID")
        return [[dict(b) for b in row] for row in rows if row]

    def _button_kind(self, p: dict[str, Any], b: dict[str, Any]) -> None:
        """An inline button has exactly one kind; a ``url`` one opens http(s):// or tg://
        only, a ``web_app`` one an https:// page, in a private chat only (elsewhere
        Telegram answers BUTTON_TYPE_INVALID)."""
        kinds = [k for k in BUTTON_KINDS if b.get(k) is not None]
        if not kinds:
            raise bad(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if len(kinds) > 1:
            raise bad(
                "can't parse inline keyboard button: "
                "exactly one of the optional fields must be used"
            )
        if kinds == ["url"]:
            url = b["url"]
            if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https", "tg"):
                raise bad("BUTTON_URL_INVALID")
        if kinds == ["web_app"]:
            page = b["web_app"].get("url") if isinstance(b["web_app"], dict) else None
            if not isinstance(page, str) or urlsplit(page).scheme != "https":
                raise bad(
                    f"inline keyboard button Web App URL '{page}' is invalid: "
                    "Only HTTPS links are allowed"
                )
            if self._chat(p.get("chat_id")).get("type") != "private":
                raise bad("BUTTON_TYPE_INVALID")

    def _thread(self, chat: dict[str, Any], p: dict[str, Any]) -> int | None:
        thread = p.get("message_thread_id")
        if thread is None:
            return None
        if not chat.get("is_forum"):
            # outside forums Telegram ignores it (reply threads of comments aside)
            return None
        if thread not in self.topics.get(chat["id"], {}):
            raise bad("message thread not found")
        return int(thread)

    def _reply_to(self, chat: dict[str, Any], p: dict[str, Any]) -> None:
        reply = p.get("reply_parameters")
        if isinstance(reply, dict) and "message_id" in reply:
            target = self.messages.get((chat["id"], reply["message_id"]))
            if (target is None or target.deleted) and not reply.get("allow_sending_without_reply"):
                raise bad("message to be replied not found")

    def _photo(self, p: dict[str, Any], f: dict[str, bytes], key: str, value: Any) -> bytes:
        if isinstance(value, str) and value.startswith("attach://"):
            name = value[len("attach://") :]
            if name not in f:
                raise bad(f"file {name} not found in the request")
            data = f[name]
        elif value is None and key in f:
            data = f[key]
        elif isinstance(value, str) and value in self.files:
            data = self.files[value]
        else:
            raise bad("there is no photo in the request")
        if png_size(data) is None and data[:3] != b"\xff\xd8\xff":
            raise bad("IMAGE_PROCESS_FAILED")
        return data

    def _store_photo(self, data: bytes) -> str:
        file_id = f"AgACAgQAAxk-photo-{next(self._ids)}"
        self.files[file_id] = data
        return file_id

    def _new_message(self, chat: dict[str, Any], p: dict[str, Any]) -> FakeMessage:
        thread = self._thread(chat, p)
        self._reply_to(chat, p)
        return FakeMessage(
            chat["id"], self._message_id(chat["id"]), int(time.time()), self.bot_user, thread
        )

    async def api_sendmessage(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        plain, markup = self._text(p, "text", TEXT_LIMIT, required=True)
        keyboard = self._keyboard(p)
        msg = self._new_message(chat, p)
        msg.text, msg.html, msg.keyboard = plain, markup, keyboard
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        return self.message_json(msg)

    async def api_sendphoto(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        photo = self._photo(p, f, "photo", p.get("photo"))
        plain, markup = self._text(p, "caption", CAPTION_LIMIT, required=False)
        keyboard = self._keyboard(p)
        msg = self._new_message(chat, p)
        msg.photo, msg.photo_id = photo, self._store_photo(photo)
        msg.caption, msg.caption_html, msg.keyboard = plain, markup, keyboard
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        return self.message_json(msg)

    async def api_sendanimation(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        """An animation upload: a GIF (or MP4) of at most :data:`ANIMATION_LIMIT` bytes."""
        return self._send_file(p, f, "animation", lambda d: d[:6] in (b"GIF87a", b"GIF89a"))

    async def api_senddocument(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return self._send_file(p, f, "document", lambda d: True)

    def _send_file(
        self, p: dict[str, Any], f: dict[str, bytes], kind: str, valid: Callable[[bytes], bool]
    ) -> Any:
        chat = self._chat(p.get("chat_id"))
        data = f.get(kind)
        if data is None and isinstance(p.get(kind), str):
            # a file sent before, by its file_id (it must be one of this kind)
            data = self.files.get(p[kind]) if f"-{kind}-" in p[kind] else None
            if data is None:
                raise bad("wrong file identifier/HTTP URL specified")
        if data is None:
            raise bad(f"there is no {kind} in the request")
        if len(data) > ANIMATION_LIMIT:
            raise ApiError(413, "Request Entity Too Large")
        if not valid(data):
            raise bad("wrong file type of the " + kind)
        plain, markup = self._text(p, "caption", CAPTION_LIMIT, required=False)
        msg = self._new_message(chat, p)
        setattr(msg, kind, data)
        msg.file_name = p.get("_file_names", {}).get(kind)
        msg.caption, msg.caption_html = plain, markup
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        self.files[f"BQACAgQAAxk-{kind}-{msg.message_id}"] = data
        return self.message_json(msg)

    def _target(self, p: dict[str, Any]) -> FakeMessage:
        if "inline_message_id" in p:
            raise bad("inline messages are not supported by this fake")
        chat = self._chat(p.get("chat_id"))
        msg = self.messages.get((chat["id"], p.get("message_id")))  # type: ignore[arg-type]
        if msg is None or msg.deleted:
            raise bad("message to edit not found")
        if not msg.from_bot:
            raise bad("message can't be edited")
        return msg

    def _edited(self, msg: FakeMessage) -> Any:
        msg.edit_date = int(time.time())
        msg.history.append(msg.snapshot())
        return self.message_json(msg)

    @staticmethod
    def _not_modified() -> ApiError:
        return bad(
            "message is not modified: specified new message content and reply markup are "
            "exactly the same as a current content and reply markup of the message"
        )

    async def api_editmessagetext(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        msg = self._target(p)
        if msg.text is None:
            raise bad("there is no text in the message to edit")
        plain, markup = self._text(p, "text", TEXT_LIMIT, required=True)
        keyboard = self._keyboard(p)
        if (plain, markup, keyboard) == (msg.text, msg.html, msg.keyboard):
            raise self._not_modified()
        msg.text, msg.html, msg.keyboard = plain, markup, keyboard
        return self._edited(msg)

    async def api_editmessagecaption(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        msg = self._target(p)
        if msg.photo is None:
            raise bad("there is no caption in the message to edit")
        plain, markup = self._text(p, "caption", CAPTION_LIMIT, required=False)
        keyboard = self._keyboard(p)
        if (plain, markup, keyboard) == (msg.caption, msg.caption_html, msg.keyboard):
            raise self._not_modified()
        msg.caption, msg.caption_html, msg.keyboard = plain, markup, keyboard
        return self._edited(msg)

    async def api_editmessagemedia(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        msg = self._target(p)
        if msg.photo is None:
            raise bad("there is no media in the message to edit")
        media = p.get("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise bad("this fake edits photos only")
        photo = self._photo(p, f, "media", media.get("media"))
        plain, markup = self._text(media, "caption", CAPTION_LIMIT, required=False)
        keyboard = self._keyboard(p)
        msg.photo, msg.photo_id = photo, self._store_photo(photo)
        msg.caption, msg.caption_html, msg.keyboard = plain, markup, keyboard
        return self._edited(msg)

    async def api_editmessagereplymarkup(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        msg = self._target(p)
        keyboard = self._keyboard(p)
        if keyboard == msg.keyboard:
            raise self._not_modified()
        msg.keyboard = keyboard
        return self._edited(msg)

    async def api_deletemessage(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        msg = self.messages.get((chat["id"], p.get("message_id")))  # type: ignore[arg-type]
        if msg is None or msg.deleted:
            raise bad("message to delete not found")
        msg.deleted = True
        return True

    async def api_answercallbackquery(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        query_id = str(p.get("callback_query_id", ""))
        if query_id not in self.queries or query_id in self.answered:
            raise bad("query is too old and response timeout expired or query ID is invalid")
        text = p.get("text")
        if text is not None and utf16_len(str(text)) > TOAST_LIMIT:
            raise bad("MESSAGE_TOO_LONG")
        self.answered[query_id] = call
        return True

    async def api_createforumtopic(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        """A new topic of a forum supergroup, as Telegram makes it: the bot must be an
        administrator who may manage topics; the name 1 to 128 characters; a colour, if
        given, one of the six Telegram offers."""
        chat = self._chat(p.get("chat_id"))
        if not chat.get("is_forum"):
            raise bad("the chat is not a forum")
        if self.members.get(chat["id"], {}).get(BOT_ID) not in ("administrator", "creator"):
            raise bad("not enough rights to create a topic")
        name = p.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 128:
            raise bad("TOPIC_NAME_INVALID")
        colour = p.get("icon_color", TOPIC_COLOURS[0])
        if colour not in TOPIC_COLOURS:
            raise bad("TOPIC_ICON_COLOR_INVALID")
        thread_id = self.topic(chat, name)
        return {"message_thread_id": thread_id, "name": name, "icon_color": colour}

    async def api_getchatmember(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        user_id = p.get("user_id")
        status = self.members.get(chat["id"], {}).get(user_id, "member")  # type: ignore[arg-type]
        user = next(
            (q["from"] for q in self.queries.values() if q["from"]["id"] == user_id),
            None,
        ) or next(
            (m.sender for m in self.messages.values() if m.sender.get("id") == user_id),
            {"id": user_id, "is_bot": False, "first_name": f"user {user_id}"},
        )
        member: dict[str, Any] = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member |= {
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
            }
        return member
