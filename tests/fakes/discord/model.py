"""What the fake Discord knows and keeps: API constants (permission bits, flags, close
codes, limits), members, messages with their attachments, interactions with their
responses, REST calls, failures asked for, gateway connections, Activity instances,
and Discord's error bodies."""

from __future__ import annotations

import itertools
import json
import re
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

API = "/api/v10"
DISCORD_EPOCH = 1420070400000

# permission bits
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
MEMBER_PERMISSIONS = (
    VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | READ_MESSAGE_HISTORY
) | USE_APPLICATION_COMMANDS
CREATE_PUBLIC_THREADS = 1 << 35
SEND_MESSAGES_IN_THREADS = 1 << 38
#: the bot's permissions: a member's, and starting threads (the invite asks for it)
BOT_PERMISSIONS = MEMBER_PERMISSIONS | CREATE_PUBLIC_THREADS | SEND_MESSAGES_IN_THREADS
#: how long a thread stays open without a message, as Discord allows (minutes)
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)

# application flags: an application with an Activity (APPLICATION_EMBEDDED)
EMBEDDED = 1 << 17

# message flags
EPHEMERAL = 1 << 6
LOADING = 1 << 7
CREATE_FLAGS = 4 | EPHEMERAL | 4096 | 32768

# privileged gateway intents
PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15)

#: the gateway's close codes and reasons, as Discord sends them
CLOSE_REASONS = {
    4000: "Unknown error.",
    4001: "Unknown opcode.",
    4002: "Error while decoding payload.",
    4004: "Authentication failed.",
    4005: "Already authenticated.",
    4010: "Invalid shard.",
    4011: "Sharding required.",
    4013: "Invalid intent(s).",
    4014: "Disallowed intent(s).",
}

#: Discord's first response deadline and the token's lifetime
FIRST_RESPONSE = 3.0
TOKEN_LIFETIME = 15 * 60.0
ATTACHMENT_LIMIT = 10 * 1024 * 1024
#: the longest description (alt text) of an attachment
ATTACHMENT_DESCRIPTION_LIMIT = 1024

OPTION_TYPES = {"subcommand": 1, "group": 2, "string": 3, "integer": 4, "boolean": 5, "user": 6}
COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
_LOCALE_CODES = (
    "id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el bg "
    "ru uk hi th zh-CN ja zh-TW ko"
)
#: the locales Discord takes in ``name_localizations`` and ``description_localizations``
LOCALES = frozenset(_LOCALE_CODES.split())


def json_response(data: Any, status: int = 200) -> web.Response:
    """A JSON response as Discord sends it (discord.py wants exactly ``application/json``)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


class Snowflakes:
    """Ids as Discord makes them, from the time (``clock``: the fake's, in Unix seconds)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._seq = itertools.count(1)
        self.clock = clock

    def __call__(self) -> int:
        ms = int(self.clock() * 1000) - DISCORD_EPOCH
        return (ms << 22) | (next(self._seq) & 0x3FFFFF)


@dataclass
class Member:
    """A person in the fake guild, as interactions carry them."""

    id: int
    username: str
    global_name: str | None = None
    nick: str | None = None
    permissions: int = MEMBER_PERMISSIONS
    #: the language of their Discord client (interactions carry it)
    locale: str = "en-US"

    @property
    def display_name(self) -> str:
        return self.nick or self.global_name or self.username

    def user_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
        }

    def member_json(self) -> dict[str, Any]:
        return {
            "user": self.user_json(),
            "nick": self.nick,
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "avatar": None,
            "communication_disabled_until": None,
            "permissions": str(self.permissions),
        }

    def with_permissions(self, permissions: int) -> Member:
        return replace(self, permissions=permissions)


@dataclass
class Attachment:
    id: int
    filename: str
    data: bytes
    content_type: str
    url: str
    #: its alt text (``attachments[n].description`` of the request), if it was given one
    description: str | None = None

    def json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            d["description"] = self.description
        size = png_size(self.data)
        if size is not None:
            d["width"], d["height"] = size
        return d


def embed_texts(embeds: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in embeds:
        out += [str(e.get(k) or "") for k in ("title", "description")]
        out += [f"{f.get('name', '')}\n{f.get('value', '')}" for f in e.get("fields", [])]
        out += [
            str((e.get(k) or {}).get(n) or "") for k, n in (("footer", "text"), ("author", "name"))
        ]
    return [t for t in out if t]


def content_type(data: bytes, filename: str) -> str:
    """The content type Discord gives an uploaded file (by its bytes, else its name)."""
    if png_size(data):
        return "image/png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if filename.endswith(".json"):
        return "application/json; charset=utf-8"
    return "application/octet-stream"


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@dataclass
class Message:
    """A message in a channel as the fake keeps it."""

    id: int
    channel_id: int
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    #: as last sent with the message (None: not sent, i.e. Discord's default: everything pings)
    allowed_mentions: dict[str, Any] | None = None
    #: user ids, role ids and @everyone that this message notified when it appeared, and
    #: the allowed mentions it appeared with
    pinged_users: set[int] = field(default_factory=set)
    pinged_roles: set[int] = field(default_factory=set)
    pinged_everyone: bool = False
    ping_allowed_mentions: dict[str, Any] | None = None
    #: for ephemeral messages: the only user who sees it
    visible_to: int | None = None
    #: the interaction this message answers (original response or followup), if any
    interaction_id: int | None = None
    webhook_id: int | None = None
    type: int = 0
    created: float = field(default_factory=time.monotonic)
    edits: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    deleted: bool = False
    #: when it was deleted (``time.monotonic()``), if it was
    deleted_at: float | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def buttons(self) -> list[dict[str, Any]]:
        return [c for row in self.components for c in row.get("components", []) if c["type"] == 2]

    def custom_ids(self) -> list[str]:
        return [b["custom_id"] for b in self.buttons() if "custom_id" in b]

    def button(self, label: str | None = None, custom_id: str | None = None) -> dict[str, Any]:
        for b in self.buttons():
            if (label is None or b.get("label") == label) and (
                custom_id is None or b.get("custom_id") == custom_id
            ):
                return b
        raise AssertionError(
            f"no button {label or custom_id!r} on message {self.id}: {self.labels()}"
        )

    def labels(self) -> list[str]:
        return [str(b.get("label")) for b in self.buttons()]

    @property
    def description(self) -> str:
        return "\n".join(str(e.get("description") or "") for e in self.embeds)

    def texts(self) -> list[str]:
        """The texts a person reads in this message now (content, embeds)."""
        return [self.content, *embed_texts(self.embeds)]

    def shown_texts(self) -> list[str]:
        """Every text this message ever showed (it may have been edited since)."""
        out = []
        for body in self.history:
            if body.get("content"):
                out.append(str(body["content"]))
            out += embed_texts(body.get("embeds") or [])
        return out

    def attachment(self, filename: str) -> Attachment | None:
        return next((a for a in self.attachments if a.filename == filename), None)

    def embed_image(self) -> tuple[str, bytes] | None:
        """The image the (first) embed shows: (filename, bytes of the attachment)."""
        for e in self.embeds:
            url = (e.get("image") or {}).get("url")
            if not url:
                continue
            for a in self.attachments:
                if a.url == url:
                    return a.filename, a.data
            raise AssertionError(f"embed image {url} of message {self.id} is no attachment of it")
        return None

    def json(self, guild_id: int | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author,
            "content": self.content,
            "timestamp": now_iso(),
            "edited_timestamp": now_iso() if self.edits else None,
            "tts": False,
            "mention_everyone": self.pinged_everyone,
            "mentions": [
                {"id": str(u), "username": str(u), "discriminator": "0", "avatar": None}
                for u in sorted(self.pinged_users)
            ],
            "mention_roles": [str(r) for r in sorted(self.pinged_roles)],
            "attachments": [a.json() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.webhook_id is not None:
            d["webhook_id"] = str(self.webhook_id)
            d["application_id"] = str(self.webhook_id)
        if guild_id is not None:
            d["guild_id"] = str(guild_id)
        return d


@dataclass
class Callback:
    type: int
    data: dict[str, Any]
    delay: float
    status: int


@dataclass
class Interaction:
    """One interaction sent to the bot, and how the bot answered it."""

    id: int
    token: str
    type: int
    member: Member
    channel_id: int
    payload: dict[str, Any]
    created: float
    #: every callback attempt (also refused ones: status != 200/204)
    callbacks: list[Callback] = field(default_factory=list)
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    #: the message a component sat on
    message_id: int | None = None
    #: a followup right after a DEFERRED_CHANNEL_MESSAGE edits the loading message instead
    deferred_loading: bool = False
    #: webhook requests with this interaction's token after the first response (followups,
    #: edits of the original response)
    webhook_calls: int = 0

    @property
    def answered(self) -> list[Callback]:
        return [c for c in self.callbacks if c.status in (200, 204)]

    @property
    def callback(self) -> Callback:
        assert self.answered, f"interaction {self.id} got no response"
        return self.answered[0]

    @property
    def choices(self) -> list[dict[str, Any]]:
        assert self.callback.type == 8, f"not an autocomplete answer: {self.callback}"
        return list(self.callback.data.get("choices", []))


@dataclass
class RestCall:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    files: list[tuple[str, str, bytes]]
    authorization: str | None
    status: int = 0
    at: float = field(default_factory=time.monotonic)


@dataclass
class Failure:
    """Requests to refuse on purpose (see :meth:`FakeDiscord.fail`)."""

    method: str
    pattern: re.Pattern[str]
    status: int
    code: int
    message: str
    times: int
    when: Callable[[RestCall], bool] | None = None
    hits: list[RestCall] = field(default_factory=list)
    #: a 429: how long Discord tells the client to wait, in seconds
    retry_after: float | None = None

    def matches(self, call: RestCall) -> bool:
        return (
            len(self.hits) < self.times
            and call.method == self.method
            and self.pattern.fullmatch(call.path) is not None
            and (self.when is None or self.when(call))
        )


@dataclass
class Connection:
    """One gateway websocket."""

    path: str
    query: dict[str, str]
    ws: web.WebSocketResponse
    compress: Any = None
    identify: dict[str, Any] | None = None
    shard: tuple[int, int] = (0, 1)
    session_id: str = ""
    ready: bool = False
    seq: int = 0
    heartbeats: int = 0
    closed: bool = False
    #: the code the session was closed with: the fake's own (4004, 4014...), else the
    #: client's
    close_code: int | None = None


@dataclass
class ActivityInstance:
    """A running Activity: where (a guild's channel, or a DM's: no guild) and who is in it."""

    id: str
    launch_id: int
    channel_id: int
    guild_id: int | None
    users: list[int]

    def json(self, app_id: int) -> dict[str, Any]:
        location: dict[str, Any] = {
            "id": f"{'gc' if self.guild_id else 'pc'}-{self.channel_id}",
            "kind": "gc" if self.guild_id else "pc",
            "channel_id": str(self.channel_id),
        }
        if self.guild_id:
            location["guild_id"] = str(self.guild_id)
        return {
            "application_id": str(app_id),
            "instance_id": self.id,
            "launch_id": str(self.launch_id),
            "location": location,
            "users": [str(u) for u in self.users],
        }


CALL = web.RequestKey("call", RestCall)


class DiscordError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: Any = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> dict[str, Any]:
        d: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            d["errors"] = self.errors
        return d


def form_error(problems: dict[str, str]) -> DiscordError:
    errors = {
        path: {"_errors": [{"code": "BASE_TYPE_INVALID", "message": msg}]}
        for path, msg in problems.items()
    }
    return DiscordError(400, 50035, "Invalid Form Body", errors)
