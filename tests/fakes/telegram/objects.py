"""What the fake Bot API knows of Telegram: its limits, its HTML, and the objects it
keeps (a call the bot made, a message with its earlier versions, a user)."""

from __future__ import annotations

import html
import json
import re
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any

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
    "result",
    "results",
    "button",
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
    "is_personal",
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
        """The chat the call acts in (an inline message's: the chat it was posted in)."""
        return self.params.get("chat_id", self.params.get("_inline_chat"))

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
    #: posted through the bot's inline mode ("via @bot"), and its inline_message_id
    #: (None: a message of the chat's own)
    via_bot: bool = False
    inline_id: str | None = None
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
