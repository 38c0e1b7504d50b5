"""A local fake of Discord for the adapter's end-to-end tests: REST API and gateway.

The real discord.py client talks to it as it would to Discord (``DiscordSettings``
``api_base`` and ``gateway_url``), so the tests exercise the library's own
requests and parsing, not mocks of it.

REST (under ``/api/v10``)
    the bot user (401 for another token), application info, ``/gateway`` and
    ``/gateway/bot``, command sync (global and guild; names, descriptions, choices
    and their localizations checked as Discord checks them), interaction callbacks
    (JSON or multipart, types 4 to 8, and 12, LAUNCH_ACTIVITY, for an application
    with an Activity: :attr:`FakeDiscord.activities`; it starts an Activity instance in
    the interaction's channel with its user, or adds them to the one running there),
    the Activity instances (the bot's token, the application's id;
    :meth:`FakeDiscord.add_instance`, :meth:`FakeDiscord.join_instance`), followups
    and edits of interaction
    messages (``@original`` and followups), channel messages (post, get, edit,
    delete), channels, and the attachments' bytes.  Requests are checked as
    Discord checks them (message limits, attachment descriptions of at most 1024
    characters, components, allowed mentions, the three seconds for the first
    response, one response per interaction, a followup right after a deferred
    message edits the loading message and keeps its visibility); refusals are
    Discord's error bodies and are kept in :attr:`FakeDiscord.errors`.

Gateway (a websocket at ``/gateway``, zlib-stream compressed when asked)
    HELLO, IDENTIFY (token checked, 4004 otherwise; privileged intents not
    enabled for the bot, 4014; a bad shard, 4010), READY, GUILD_CREATE for
    the shard that owns the guild (its text channels, more with
    :meth:`FakeDiscord.add_channel`, a thread, the @everyone role, the bot's
    member), heartbeats answered.
    :attr:`FakeDiscord.refuse_identify` closes every IDENTIFY with a given code
    (Discord refusing a session whose token REST still takes), and
    :meth:`FakeDiscord.drop_sessions` closes the live sessions with a given code.

State
    channels with their messages (content, embeds, components, attachments
    with their bytes and descriptions, flags, allowed mentions, who was pinged;
    ephemeral messages are visible only to their user), every REST call, the synced
    commands, every interaction with its responses.

Tests inject interactions (:meth:`FakeDiscord.slash`, :meth:`FakeDiscord.click`,
:meth:`FakeDiscord.autocomplete`) from :class:`Member` s and wait for
conditions with :meth:`FakeDiscord.wait_for` (woken by every change, no sleeps).
A click can arrive late (every response refused with 10062, as Discord does
after three seconds) or reach every gateway session (two workers);
:meth:`FakeDiscord.fail` makes chosen requests fail the way Discord fails, and
:meth:`FakeDiscord.rate_limit` answers them 429 (discord.py waits and tries again).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import secrets
import socket
import struct
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import EllipsisType
from typing import Any

from aiohttp import WSMsgType, web

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
_NAME = re.compile(r"^[-_\w]{1,32}$")
_LOCALE_CODES = (
    "id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el bg "
    "ru uk hi th zh-CN ja zh-TW ko"
)
#: the locales Discord takes in ``name_localizations`` and ``description_localizations``
LOCALES = frozenset(_LOCALE_CODES.split())


def _json(data: Any, status: int = 200) -> web.Response:
    """A JSON response as Discord sends it (discord.py wants exactly ``application/json``)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


class _Snowflakes:
    def __init__(self) -> None:
        self._seq = itertools.count(1)

    def __call__(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH
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


def _embed_texts(embeds: list[dict[str, Any]]) -> list[str]:
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
        return [self.content, *_embed_texts(self.embeds)]

    def shown_texts(self) -> list[str]:
        """Every text this message ever showed (it may have been edited since)."""
        out = []
        for body in self.history:
            if body.get("content"):
                out.append(str(body["content"]))
            out += _embed_texts(body.get("embeds") or [])
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
            "timestamp": _now_iso(),
            "edited_timestamp": _now_iso() if self.edits else None,
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


def _form_error(problems: dict[str, str]) -> DiscordError:
    errors = {
        path: {"_errors": [{"code": "BASE_TYPE_INVALID", "message": msg}]}
        for path, msg in problems.items()
    }
    return DiscordError(400, 50035, "Invalid Form Body", errors)


class FakeDiscord:
    """Discord on 127.0.0.1: start it, point the adapter at it, inject interactions."""

    def __init__(
        self, token: str = "fake-bot-token", *, bot_gateway_path: str = "/gateway"
    ) -> None:
        self.token = token
        self.snowflake = _Snowflakes()
        self.app_id = 1_200_000_000_000_000_001
        self.bot_id = self.app_id
        self.guild_id = 1_200_000_000_000_000_100
        self.channel_id = 1_200_000_000_000_000_200
        self.thread_id = 1_200_000_000_000_000_300
        #: a thread the bot never got in GUILD_CREATE (made later, or private)
        self.late_thread_id = 1_200_000_000_000_000_400
        #: the bot may start threads (Create Public Threads); the threads it started
        self.threads_allowed = True
        self.made_threads: list[int] = []
        self.owner_id = 1_200_000_000_000_000_500
        self.bot_gateway_path = bot_gateway_path
        self.bot_user = {
            "id": str(self.bot_id),
            "username": "Ludo",
            "global_name": None,
            "discriminator": "0000",
            "avatar": None,
            "bot": True,
            "public_flags": 0,
            "flags": 0,
            "verified": True,
            "mfa_enabled": False,
        }
        self.channels: dict[int, dict[str, Any]] = {}
        self._add_channels()
        self.messages: dict[int, Message] = {}
        self.calls: list[RestCall] = []
        self.errors: list[tuple[RestCall, dict[str, Any]]] = []
        #: scope (None: global, else a guild id) -> the commands as last synced, with ids
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.command_syncs: list[tuple[int | None, list[dict[str, Any]]]] = []
        self.interactions: list[Interaction] = []
        #: the application has an Activity (Activities enabled in the Developer Portal)
        self.activities = False
        self._by_token: dict[str, Interaction] = {}
        self.connections: list[Connection] = []
        #: requests to refuse on purpose
        self.failures: list[Failure] = []
        #: close every IDENTIFY with this code (None: identify as Discord would)
        self.refuse_identify: int | None = None
        #: the privileged intents enabled for the bot in the Developer Portal
        self.privileged_intents = 0
        self._cond = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0
        #: the OAuth2 client secret (the app's id is :attr:`app_id`)
        self.client_secret = "fake-client-secret"
        #: OAuth2 codes not exchanged yet, and the access tokens given: -> the user
        self.oauth_codes: dict[str, dict[str, Any]] = {}
        self.oauth_tokens: dict[str, dict[str, Any]] = {}
        #: the Activity instances running, by id
        self.instances: dict[str, ActivityInstance] = {}

    # ------------------------------------------------------------------
    # life

    async def start(self, port: int = 0) -> None:
        """Serve on ``port`` (0: a free one); again after :meth:`close`, on the same
        port: Discord unreachable for a while."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        r = app.router
        r.add_get(API + "/users/@me", self._get_me)
        r.add_post(API + "/oauth2/token", self._post_oauth_token)
        r.add_get(API + "/oauth2/applications/@me", self._get_application)
        r.add_get(API + "/gateway", self._get_gateway)
        r.add_get(API + "/gateway/bot", self._get_gateway_bot)
        r.add_put(API + "/applications/{app}/commands", self._put_commands)
        r.add_get(API + "/applications/{app}/commands", self._get_commands)
        r.add_put(API + "/applications/{app}/guilds/{guild}/commands", self._put_commands)
        r.add_get(API + "/applications/{app}/guilds/{guild}/commands", self._get_commands)
        r.add_get(
            API + "/applications/{app}/activity-instances/{instance}", self._get_activity_instance
        )
        r.add_post(API + "/interactions/{iid}/{token}/callback", self._post_callback)
        r.add_post(API + "/webhooks/{app}/{token}", self._post_followup)
        r.add_get(API + "/webhooks/{app}/{token}/messages/{mid}", self._get_webhook_message)
        r.add_patch(API + "/webhooks/{app}/{token}/messages/{mid}", self._patch_webhook_message)
        r.add_delete(API + "/webhooks/{app}/{token}/messages/{mid}", self._delete_webhook_message)
        r.add_get(API + "/channels/{cid}", self._get_channel)
        r.add_post(API + "/channels/{cid}/messages", self._post_channel_message)
        r.add_post(API + "/channels/{cid}/threads", self._post_thread)
        r.add_get(API + "/channels/{cid}/messages/{mid}", self._get_channel_message)
        r.add_patch(API + "/channels/{cid}/messages/{mid}", self._patch_channel_message)
        r.add_delete(API + "/channels/{cid}/messages/{mid}", self._delete_channel_message)
        r.add_get("/attachments/{cid}/{aid}/{name}", self._get_attachment)
        r.add_get("/{path:gateway[-a-z]*}", self._gateway)
        r.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        for conn in self.connections:
            if not conn.ws.closed:
                with contextlib.suppress(Exception):
                    await conn.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.base + API

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ------------------------------------------------------------------
    # waiting

    async def changed(self) -> None:
        async with self._cond:
            self._cond.notify_all()

    async def wait_for(
        self, predicate: Callable[[], Any], timeout: float = 10.0, what: str = "a condition"
    ) -> Any:
        """The first truthy value of ``predicate()``, re-checked after every change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with self._cond:
            while True:
                value = predicate()
                if value:
                    return value
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._cond.wait(), remaining)

    async def wait_ready(self, timeout: float = 10.0) -> None:
        await self.wait_for(
            lambda: any(c.ready and not c.closed for c in self.connections),
            timeout,
            "the bot's gateway session",
        )

    # ------------------------------------------------------------------
    # looking

    def calls_to(self, method: str, pattern: str) -> list[RestCall]:
        rx = re.compile(pattern)
        return [c for c in self.calls if c.method == method and rx.fullmatch(c.path)]

    def channel_messages(
        self, channel_id: int | None = None, viewer: int | None = None, *, everyone: bool = False
    ) -> list[Message]:
        """Messages of a channel in order: public ones, plus the ephemeral ones ``viewer``
        sees (``everyone``: all, ephemeral or not)."""
        cid = self.channel_id if channel_id is None else channel_id
        return [
            m
            for m in self.messages.values()
            if m.channel_id == cid
            and not m.deleted
            and (everyone or m.visible_to is None or m.visible_to == viewer)
        ]

    def public_messages(self, channel_id: int | None = None) -> list[Message]:
        return [m for m in self.channel_messages(channel_id) if not m.ephemeral]

    def latest_with_buttons(self, channel_id: int | None = None) -> Message | None:
        found = [m for m in self.public_messages(channel_id) if m.buttons()]
        return found[-1] if found else None

    def all_messages(self) -> list[Message]:
        return [m for m in self.messages.values() if not m.deleted]

    def deleted_messages(self, channel_id: int | None = None) -> list[Message]:
        """The messages of a channel that were deleted, in the order they were sent."""
        cid = self.channel_id if channel_id is None else channel_id
        return [m for m in self.messages.values() if m.channel_id == cid and m.deleted]

    def call_counts(self, since: int = 0) -> dict[str, int]:
        """How many REST calls of each kind the bot made (from ``calls[since]`` on),
        e.g. ``{"POST message": 3, "PATCH message": 9, "callback 7": 9}``; refused
        calls count too."""
        kinds = (
            (r"/channels/\d+/messages", "message"),
            (r"/channels/\d+/messages/\d+", "message"),
            (r"/webhooks/\d+/[^/]+(/messages/[^/]+)?", "webhook"),
        )
        out: dict[str, int] = {}
        for call in self.calls[since:]:
            if re.fullmatch(r"/interactions/\d+/[^/]+/callback", call.path):
                kind = f"callback {(call.body or {}).get('type')}"
            else:
                what = next((k for rx, k in kinds if re.fullmatch(rx, call.path)), call.path)
                kind = f"{call.method} {what}"
            out[kind] = out.get(kind, 0) + 1
        return dict(sorted(out.items()))

    # ------------------------------------------------------------------
    # injecting interactions

    def _guild_command(self, name: str) -> tuple[dict[str, Any], int | None]:
        for scope in (self.guild_id, None):
            for cmd in self.commands.get(scope, []):
                if cmd["name"] == name:
                    return cmd, scope
        raise AssertionError(f"no command /{name} was synced: Discord would not offer it")

    def _interaction_base(
        self, type_: int, member: Member, channel_id: int | None
    ) -> dict[str, Any]:
        cid = self.channel_id if channel_id is None else channel_id
        channel = self.channels.get(cid)
        assert channel is not None, f"no channel {cid}"
        return {
            "id": str(self.snowflake()),
            "application_id": str(self.app_id),
            "type": type_,
            "token": "itok-" + secrets.token_urlsafe(24),
            "version": 1,
            "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": "en-US", "features": []},
            "channel_id": str(cid),
            "channel": dict(channel, permissions=str(member.permissions)),
            "member": member.member_json(),
            "app_permissions": str(BOT_PERMISSIONS),
            "locale": member.locale,
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
            "attachment_size_limit": ATTACHMENT_LIMIT,
        }

    def _command_options(
        self, cmd: dict[str, Any], sub: str, values: dict[str, Any], focused: str | None
    ) -> list[dict[str, Any]]:
        """The options of ``/cmd sub`` as the Discord client sends them (checked as it checks)."""
        subs = {o["name"]: o for o in cmd.get("options", []) if o["type"] == 1}
        assert sub in subs, f"/{cmd['name']} has no subcommand {sub!r} (has {sorted(subs)})"
        spec = {o["name"]: o for o in subs[sub].get("options", [])}
        out = []
        for name, value in values.items():
            assert name in spec, f"/{cmd['name']} {sub} has no option {name!r}"
            o = spec[name]
            if name == focused:
                assert o.get("autocomplete"), f"option {name} has no autocomplete"
                out.append({"name": name, "type": o["type"], "value": str(value), "focused": True})
                continue
            if o["type"] == 4:
                assert isinstance(value, int) and not isinstance(value, bool), (name, value)
                assert o.get("min_value") is None or value >= o["min_value"], (name, value)
                assert o.get("max_value") is None or value <= o["max_value"], (name, value)
            elif o["type"] == 5:
                assert isinstance(value, bool), (name, value)
            elif o["type"] == 3:
                assert isinstance(value, str), (name, value)
            elif o["type"] == 6:
                # a person picked from the member list: their id (resolved beside)
                assert isinstance(value, Member), (name, value)
                value = str(value.id)
            if o.get("choices"):
                assert value in [c["value"] for c in o["choices"]], (name, value)
            out.append({"name": name, "type": o["type"], "value": value})
        if focused is None:
            missing = [n for n, o in spec.items() if o.get("required") and n not in values]
            assert not missing, f"required options missing: {missing}"
        return out

    async def slash(
        self,
        member: Member,
        sub: str,
        /,
        *,
        channel_id: int | None = None,
        command: str = "ludo",
        **options: Any,
    ) -> Interaction:
        """``/command sub option:value ...`` typed by ``member``."""
        cmd, scope = self._guild_command(command)
        payload = self._interaction_base(2, member, channel_id)
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 1,
            "options": [
                {"name": sub, "type": 1, "options": self._command_options(cmd, sub, options, None)}
            ],
        }
        people = [v for v in options.values() if isinstance(v, Member)]
        if people:
            # Discord sends the users and members that options name
            members = {}
            for p in people:
                m = p.member_json()
                del m["user"]
                members[str(p.id)] = m
            data["resolved"] = {
                "users": {str(p.id): p.user_json() for p in people},
                "members": members,
            }
        if scope is not None:
            data["guild_id"] = str(scope)
        payload["data"] = data
        return await self._send_interaction(payload, member)

    async def autocomplete(
        self,
        member: Member,
        sub: str,
        focused: str,
        typed: str = "",
        *,
        channel_id: int | None = None,
        command: str = "ludo",
        **options: Any,
    ) -> Interaction:
        """``member`` typing ``typed`` into option ``focused`` of ``/command sub``."""
        cmd, scope = self._guild_command(command)
        payload = self._interaction_base(4, member, channel_id)
        values = dict(options)
        values[focused] = typed
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 1,
            "options": [
                {
                    "name": sub,
                    "type": 1,
                    "options": self._command_options(cmd, sub, values, focused),
                }
            ],
        }
        if scope is not None:
            data["guild_id"] = str(scope)
        payload["data"] = data
        return await self._send_interaction(payload, member)

    async def click(
        self,
        member: Member,
        message: Message,
        label: str | None = None,
        custom_id: str | None = None,
        *,
        age: float = 0.0,
        everywhere: bool = False,
    ) -> Interaction:
        """``member`` presses a button of ``message`` (by label or custom_id).

        Like Discord, only a button that is on the message can be pressed, and only on
        a message the bot's application sent.  ``age``: the interaction reaches the bot
        that many seconds late (over 3: every response is refused, 10062 Unknown
        interaction).  ``everywhere``: delivered to every gateway session of the guild's
        shard (two workers receiving the same press)."""
        assert label is not None or custom_id is not None
        current = self.messages.get(message.id)
        assert current is not None and not current.deleted, f"message {message.id} is gone"
        assert current.author["id"] == str(self.bot_id), "not a message of the bot"
        if current.visible_to is not None:
            assert current.visible_to == member.id, "that ephemeral message is not theirs"
        button = current.button(label, custom_id)
        assert not button.get("disabled"), "a disabled button cannot be pressed"
        payload = self._interaction_base(3, member, current.channel_id)
        payload["data"] = {"custom_id": button["custom_id"], "component_type": 2}
        payload["message"] = current.json(self.guild_id)
        return await self._send_interaction(
            payload, member, message_id=current.id, age=age, everywhere=everywhere
        )

    async def _send_interaction(
        self,
        payload: dict[str, Any],
        member: Member,
        message_id: int | None = None,
        *,
        age: float = 0.0,
        everywhere: bool = False,
    ) -> Interaction:
        conns = self._connections_for(self.guild_id)
        inter = Interaction(
            id=int(payload["id"]),
            token=payload["token"],
            type=payload["type"],
            member=member,
            channel_id=int(payload["channel_id"]),
            payload=payload,
            created=time.monotonic() - age,
            message_id=message_id,
        )
        self.interactions.append(inter)
        self._by_token[inter.token] = inter
        for conn in conns if everywhere else conns[:1]:
            await self._dispatch(conn, "INTERACTION_CREATE", payload)
        return inter

    async def answered(self, inter: Interaction, timeout: float = FIRST_RESPONSE + 1) -> Callback:
        """Wait for the interaction's first response (Discord allows three seconds); after a
        deferred message (type 5, "thinking…"), also for the bot's next request about it."""
        await self.wait_for(
            lambda: inter.answered, timeout, f"a response to interaction {inter.id}"
        )
        if inter.callback.type == 5:
            await self.wait_for(
                lambda: inter.webhook_calls, 15, f"the deferred answer to interaction {inter.id}"
            )
        return inter.callback

    # ------------------------------------------------------------------
    # failing on purpose

    def fail(
        self,
        method: str,
        pattern: str,
        *,
        status: int = 500,
        code: int = 0,
        message: str = "500: Internal Server Error",
        times: int = 1,
        when: Callable[[RestCall], bool] | None = None,
    ) -> Failure:
        """Refuse the next ``times`` requests ``method`` to a path matching ``pattern``
        (and ``when``, given the call) with Discord's error body; the request does
        nothing.  Returns the rule: ``rule.hits`` are the calls it refused."""
        rule = Failure(method, re.compile(pattern), status, code, message, times, when)
        self.failures.append(rule)
        return rule

    def rate_limit(
        self, method: str, pattern: str, *, retry_after: float = 0.3, times: int = 1
    ) -> Failure:
        """Answer the next ``times`` requests ``method`` to a path matching ``pattern`` with
        429 Too Many Requests, as Discord does (``retry_after`` in the body, through its
        proxy); the request does nothing, and discord.py tries it again after the wait."""
        rule = Failure(
            method,
            re.compile(pattern),
            429,
            0,
            "You are being rate limited.",
            times,
            retry_after=retry_after,
        )
        self.failures.append(rule)
        return rule

    async def drop_sessions(self, code: int = 4000) -> None:
        """Close every live gateway session with ``code`` (4000: the client may resume or
        identify again; 4004 or 4014: it may not)."""
        for conn in self.connections:
            if not conn.closed and not conn.ws.closed:
                with contextlib.suppress(Exception):
                    await self._close(conn, code)

    # ------------------------------------------------------------------
    # planting state

    def plant_message(
        self,
        channel_id: int,
        *,
        content: str = "",
        description: str = "",
        buttons: list[list[tuple[str, str]]] | None = None,
        author: Member | None = None,
    ) -> Message:
        """A message the bot's application sent earlier (e.g. by a process before this one),
        or, with ``author``, one a person wrote (chat between the game's messages)."""
        rows = [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 2, "label": label, "custom_id": cid} for label, cid in row
                ],
            }
            for row in buttons or []
        ]
        msg = Message(
            id=self.snowflake(),
            channel_id=channel_id,
            author=author.user_json() if author is not None else self.bot_user,
            content=content,
            embeds=[{"type": "rich", "description": description}] if description else [],
            components=rows,
            allowed_mentions={"parse": []},
        )
        self.messages[msg.id] = msg
        return msg

    def add_instance(
        self,
        channel_id: int,
        users: Iterable[int],
        *,
        guild_id: int | EllipsisType | None = ...,
        instance_id: str | None = None,
    ) -> str:
        """An Activity running in ``channel_id`` with ``users`` in it, as a launch starts
        one (``guild_id``: the channel's guild by default, None for a DM or a group DM);
        its id (``i-<launch id>-gc-...`` unless given)."""
        if isinstance(guild_id, EllipsisType):
            known = self.channels.get(channel_id, {}).get("guild_id")
            guild_id = int(known) if known else None
        launch = self.snowflake()
        kind = f"gc-{guild_id}-{channel_id}" if guild_id else f"pc-{channel_id}"
        iid = instance_id if instance_id is not None else f"i-{launch}-{kind}"
        self.instances[iid] = ActivityInstance(iid, launch, channel_id, guild_id, list(users))
        return iid

    def join_instance(self, instance_id: str, user_id: int) -> None:
        """``user_id`` opens the running Activity (Join Application)."""
        users = self.instances[instance_id].users
        if user_id not in users:
            users.append(user_id)

    # ------------------------------------------------------------------
    # guild

    def _add_channels(self) -> None:
        g = str(self.guild_id)
        self.channels[self.channel_id] = {
            "id": str(self.channel_id),
            "type": 0,
            "guild_id": g,
            "name": "ludo",
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
        }
        for tid, name in ((self.thread_id, "ludo-thread"), (self.late_thread_id, "late-thread")):
            self.channels[tid] = {
                "id": str(tid),
                "type": 11,
                "guild_id": g,
                "name": name,
                "parent_id": str(self.channel_id),
                "owner_id": str(self.owner_id),
                "message_count": 0,
                "member_count": 1,
                "total_message_sent": 0,
                "rate_limit_per_user": 0,
                "last_message_id": None,
                "flags": 0,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": "2024-01-01T00:00:00+00:00",
                    "locked": False,
                },
            }

    def add_channel(self, name: str) -> int:
        """A new text channel of the guild (before the bot connects, it is in the guild the
        bot is sent; later only interactions from it tell the bot of it); its id."""
        cid = self.snowflake()
        self.channels[cid] = dict(self.channels[self.channel_id], id=str(cid), name=name)
        return cid

    def guild_json(self) -> dict[str, Any]:
        g = str(self.guild_id)
        return {
            "id": g,
            "name": "Ludo Club",
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [
                {
                    "id": g,
                    "name": "@everyone",
                    "permissions": str(MEMBER_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "colors": {"primary_color": 0},
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "preferred_locale": "en-US",
            "premium_tier": 0,
            "nsfw_level": 0,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "member_count": 4,
            "voice_states": [],
            "members": [
                {
                    "user": self.bot_user,
                    "nick": None,
                    "roles": [],
                    "joined_at": "2024-01-01T00:00:00+00:00",
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                }
            ],
            "channels": [c for c in self.channels.values() if c["type"] == 0],
            "threads": [self.channels[self.thread_id]],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def shard_of(self, guild_id: int, shards: int) -> int:
        return (guild_id >> 22) % shards

    def _connections_for(self, guild_id: int) -> list[Connection]:
        found = [
            conn
            for conn in self.connections
            if conn.ready
            and not conn.closed
            and self.shard_of(guild_id, conn.shard[1]) == conn.shard[0]
        ]
        if not found:
            raise AssertionError("the bot has no gateway session for the guild's shard")
        return found

    # ------------------------------------------------------------------
    # gateway

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = Connection(path=request.path, query=dict(request.query), ws=ws)
        if conn.query.get("compress") == "zlib-stream":
            conn.compress = zlib.compressobj()
        self.connections.append(conn)
        await self.changed()
        try:
            await self._send(
                conn, {"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None}
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                await self._gateway_op(conn, data)
        finally:
            conn.closed = True
            if conn.close_code is None:
                conn.close_code = ws.close_code
            await self.changed()
        return ws

    async def _gateway_op(self, conn: Connection, data: dict[str, Any]) -> None:
        op = data.get("op")
        d = data.get("d")
        if op == 1:
            conn.heartbeats += 1
            await self._send(conn, {"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            if conn.identify is not None:
                await conn.ws.close(code=4005, message=b"Already authenticated.")
                return
            if not isinstance(d, dict) or d.get("token") != self.token:
                await self._close(conn, 4004)
                return
            if self.refuse_identify is not None:
                await self._close(conn, self.refuse_identify)
                return
            intents = d.get("intents")
            if not isinstance(intents, int) or intents < 0:
                await self._close(conn, 4013)
                return
            if intents & PRIVILEGED_INTENTS & ~self.privileged_intents:
                await self._close(conn, 4014)
                return
            shard = d.get("shard") or [0, 1]
            if not (isinstance(shard, list) and len(shard) == 2 and 0 <= shard[0] < shard[1]):
                await self._close(conn, 4010)
                return
            conn.identify = d
            conn.shard = (int(shard[0]), int(shard[1]))
            conn.session_id = secrets.token_hex(16)
            owns_guild = self.shard_of(self.guild_id, conn.shard[1]) == conn.shard[0]
            await self._dispatch(
                conn,
                "READY",
                {
                    "v": 10,
                    "user": self.bot_user,
                    "application": {"id": str(self.app_id), "flags": 0},
                    "guilds": [{"id": str(self.guild_id), "unavailable": True}]
                    if owns_guild
                    else [],
                    "session_id": conn.session_id,
                    "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
                    "shard": list(conn.shard),
                    "private_channels": [],
                    "user_settings": {},
                    "relationships": [],
                    "presences": [],
                    "guild_join_requests": [],
                    "geo_ordered_rtc_regions": [],
                },
            )
            if owns_guild:
                await self._dispatch(conn, "GUILD_CREATE", self.guild_json())
            conn.ready = True
            await self.changed()
        elif op == 6:
            # sessions are not kept: the client must identify again
            await self._send(conn, {"op": 9, "d": False, "s": None, "t": None})
        elif op in (3, 4, 8):
            pass  # presence, voice state, member requests: nothing to say
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode.")

    async def _close(self, conn: Connection, code: int) -> None:
        """Close a session with ``code`` (and Discord's reason for it)."""
        conn.close_code = code
        await conn.ws.close(code=code, message=CLOSE_REASONS.get(code, "Closed.").encode())

    async def _dispatch(self, conn: Connection, event: str, data: dict[str, Any]) -> None:
        conn.seq += 1
        await self._send(conn, {"op": 0, "d": data, "s": conn.seq, "t": event})

    async def _send(self, conn: Connection, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        if conn.compress is not None:
            blob = conn.compress.compress(text.encode()) + conn.compress.flush(zlib.Z_SYNC_FLUSH)
            await conn.ws.send_bytes(blob)
        else:
            await conn.ws.send_str(text)

    # ------------------------------------------------------------------
    # REST plumbing

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if not request.path.startswith(API):
            try:
                return await handler(request)
            except DiscordError as e:
                return _json(e.body(), status=e.status)
        body: Any = None
        files: list[tuple[str, str, bytes]] = []
        ctype = request.headers.get("Content-Type", "")
        if request.can_read_body:
            if ctype.startswith("multipart/form-data"):
                reader = await request.multipart()
                async for part in reader:
                    raw = await part.read()  # type: ignore[union-attr]
                    name = part.name or ""  # type: ignore[union-attr]
                    if name == "payload_json":
                        body = json.loads(raw)
                    elif name.startswith("files["):
                        files.append((name, part.filename or "", bytes(raw)))  # type: ignore[union-attr]
            elif ctype.startswith("application/x-www-form-urlencoded"):
                body = dict(await request.post())
            else:
                raw_text = await request.text()
                body = json.loads(raw_text) if raw_text else None
        call = RestCall(
            request.method,
            request.path[len(API) :],
            dict(request.query),
            body,
            files,
            request.headers.get("Authorization"),
        )
        self.calls.append(call)
        request[CALL] = call
        try:
            rule = next((f for f in self.failures if f.matches(call)), None)
            if rule is not None and rule.retry_after is not None:
                rule.hits.append(call)
                call.status = 429
                await self.changed()
                body = {"message": rule.message, "retry_after": rule.retry_after, "global": False}
                limited = _json(body | {"code": 0}, status=429)
                limited.headers["Via"] = "1.1 google"
                limited.headers["Retry-After"] = str(max(1, round(rule.retry_after)))
                return limited
            if rule is not None:
                rule.hits.append(call)
                raise DiscordError(rule.status, rule.code, rule.message)
            response = await handler(request)
        except DiscordError as e:
            response = _json(e.body(), status=e.status)
            self.errors.append((call, e.body()))
        call.status = response.status
        await self.changed()
        return response

    def _bot_auth(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")

    async def _unknown(self, request: web.Request) -> web.Response:
        raise DiscordError(404, 0, "404: Not Found")

    def _call(self, request: web.Request) -> RestCall:
        return request[CALL]

    # ------------------------------------------------------------------
    # REST: bot, application, gateway

    async def _get_me(self, request: web.Request) -> web.Response:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):  # an OAuth2 access token: its user
            user = self.oauth_tokens.get(auth[len("Bearer ") :])
            if user is None:
                raise DiscordError(401, 0, "401: Unauthorized")
            return _json(user)
        self._bot_auth(request)
        return _json(self.bot_user)

    # ------------------------------------------------------------------
    # OAuth2 (the Activity's sign-in)

    def mint_code(
        self, user_id: int, name: str = "Player", *, locale: str = "en-US", scope: str = "identify"
    ) -> str:
        """A code the Embedded App SDK's ``authorize`` would give ``user_id`` (one use)."""
        code = secrets.token_urlsafe(22)
        self.oauth_codes[code] = {
            "id": str(user_id),
            "username": name.lower().replace(" ", "_")[:32],
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "locale": locale,
            "_scope": scope,
        }
        return code

    async def _post_oauth_token(self, request: web.Request) -> web.Response:
        """``POST /oauth2/token``: form-encoded only; the client by id and secret in the
        body (or HTTP Basic); errors as OAuth2 says (``invalid_client``,
        ``invalid_grant``...)."""
        ctype = request.headers.get("Content-Type", "")
        call = request[CALL]
        if not ctype.startswith("application/x-www-form-urlencoded") or not isinstance(
            call.body, dict
        ):
            return _json({"error": "invalid_request"}, status=400)
        form: dict[str, Any] = call.body
        client_id, secret = form.get("client_id"), form.get("client_secret")
        basic = request.headers.get("Authorization", "")
        if basic.startswith("Basic "):
            import base64

            client_id, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
        if client_id != str(self.app_id) or secret != self.client_secret:
            return _json({"error": "invalid_client"}, status=401)
        if form.get("grant_type") != "authorization_code":
            return _json({"error": "unsupported_grant_type"}, status=400)
        user = self.oauth_codes.pop(str(form.get("code", "")), None)
        if user is None:
            return _json(
                {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'},
                status=400,
            )
        scope = user.pop("_scope")
        token = secrets.token_urlsafe(22)
        self.oauth_tokens[token] = user
        return _json(
            {
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": 604800,
                "refresh_token": secrets.token_urlsafe(22),
                "scope": scope,
            }
        )

    async def _get_application(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        return _json(
            {
                "id": str(self.app_id),
                "name": "Ludo",
                "icon": None,
                "description": "Ludo in your channels",
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": {
                    "id": str(self.owner_id),
                    "username": "owner",
                    "discriminator": "0",
                    "avatar": None,
                },
                "team": None,
                "verify_key": "0" * 64,
                "flags": EMBEDDED if self.activities else 0,
                "summary": "",
                "bot": self.bot_user,
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
            }
        )

    async def _get_activity_instance(self, request: web.Request) -> web.Response:
        """``GET /applications/{app}/activity-instances/{instance}``: the bot's own
        application only; 404 for an instance that is not running."""
        self._bot_auth(request)
        app = request.match_info["app"]
        if not app.isdigit():
            raise DiscordError(404, 0, "404: Not Found")
        if int(app) != self.app_id:
            raise DiscordError(403, 50001, "Missing Access")
        found = self.instances.get(request.match_info["instance"])
        if found is None:  # (the code is the fake's: Discord's list does not name one)
            raise DiscordError(404, 10070, "Unknown Activity Instance")
        return _json(found.json(self.app_id))

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return _json({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        return _json(
            {
                "url": f"ws://127.0.0.1:{self.port}{self.bot_gateway_path}",
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 14400000,
                    "max_concurrency": 1,
                },
            }
        )

    # ------------------------------------------------------------------
    # REST: commands

    @staticmethod
    def _check_name(name: Any, where: str, problems: dict[str, str]) -> None:
        if not isinstance(name, str) or not _NAME.match(name) or name != name.lower():
            problems[where] = f"invalid name {name!r}"

    @staticmethod
    def _localizations(obj: dict[str, Any], key: str, where: str, problems: dict[str, str]) -> None:
        """``name_localizations`` / ``description_localizations``: Discord's locales only."""
        given = obj.get(key)
        if given is None:
            return
        if not isinstance(given, dict):
            problems[f"{where}.{key}"] = "not an object"
            return
        for locale in given:
            if locale not in LOCALES:
                problems[f"{where}.{key}.{locale}"] = f"invalid locale {locale!r}"

    def _check_command(self, cmd: Any, where: str, problems: dict[str, str], top: bool) -> None:
        if not isinstance(cmd, dict):
            problems[where] = "not an object"
            return
        self._check_name(cmd.get("name"), where + ".name", problems)
        self._localizations(cmd, "name_localizations", where, problems)
        for locale, name in (cmd.get("name_localizations") or {}).items():
            self._check_name(name, f"{where}.name_localizations.{locale}", problems)
        desc = cmd.get("description")
        if not isinstance(desc, str) or not 1 <= len(desc) <= 100:
            problems[where + ".description"] = f"description must be 1-100 characters: {desc!r}"
        self._localizations(cmd, "description_localizations", where, problems)
        for locale, text in (cmd.get("description_localizations") or {}).items():
            if not isinstance(text, str) or not 1 <= len(text) <= 100:
                problems[f"{where}.description_localizations.{locale}"] = "1-100 characters"
        opts = cmd.get("options") or []
        if len(opts) > 25:
            problems[where + ".options"] = "more than 25 options"
        seen_optional = False
        names = set()
        for k, o in enumerate(opts):
            w = f"{where}.options.{k}"
            if not isinstance(o, dict):
                problems[w] = "not an object"
                continue
            if o.get("name") in names:
                problems[w + ".name"] = "duplicate option name"
            names.add(o.get("name"))
            t = o.get("type")
            if t in (1, 2):
                self._check_command(o, w, problems, top=False)
                continue
            self._check_command({**o, "options": []}, w, problems, top=False)
            if o.get("required"):
                if seen_optional:
                    problems[w + ".required"] = "required options must come before optional ones"
            else:
                seen_optional = True
            choices = o.get("choices") or []
            if len(choices) > 25:
                problems[w + ".choices"] = "more than 25 choices"
            if choices and o.get("autocomplete"):
                problems[w + ".autocomplete"] = "autocomplete cannot have choices"
            for j, c in enumerate(choices):
                cw = f"{w}.choices.{j}"
                self._localizations(c, "name_localizations", cw, problems)
                given = [c.get("name"), *(c.get("name_localizations") or {}).values()]
                if not all(isinstance(n, str) and 1 <= len(n) <= 100 for n in given):
                    problems[cw + ".name"] = "1-100 characters"
        # an option's name, in any locale, is one of its own among its siblings
        for locale in LOCALES:
            said = [(o.get("name_localizations") or {}).get(locale, o.get("name")) for o in opts]
            if len(set(said)) < len(said):
                problems[f"{where}.options.name_localizations.{locale}"] = "duplicate name"

    async def _put_commands(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        if int(request.match_info["app"]) != self.app_id:
            raise DiscordError(403, 50001, "Missing Access")
        guild = request.match_info.get("guild")
        scope = int(guild) if guild is not None else None
        if scope is not None and scope != self.guild_id:
            raise DiscordError(403, 50001, "Missing Access")
        body = self._call(request).body
        if not isinstance(body, list) or len(body) > 100:
            raise _form_error({"_": "a list of at most 100 commands"})
        problems: dict[str, str] = {}
        for k, cmd in enumerate(body):
            self._check_command(cmd, str(k), problems, top=True)
        if problems:
            raise _form_error(problems)
        old = {c["name"]: c for c in self.commands.get(scope, [])}
        out = []
        for cmd in body:
            prev = old.get(cmd["name"])
            stored = dict(cmd)
            stored.setdefault("type", 1)
            stored["id"] = prev["id"] if prev else str(self.snowflake())
            stored["application_id"] = str(self.app_id)
            stored["version"] = str(self.snowflake())
            stored["default_member_permissions"] = cmd.get("default_member_permissions")
            if scope is not None:
                stored["guild_id"] = str(scope)
            out.append(stored)
        self.commands[scope] = out
        self.command_syncs.append((scope, out))
        return _json(out)

    async def _get_commands(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        guild = request.match_info.get("guild")
        return _json(self.commands.get(int(guild) if guild else None, []))

    # ------------------------------------------------------------------
    # REST: messages

    def _resolve_files(
        self, channel_id: int, files: list[tuple[str, str, bytes]]
    ) -> dict[int, Attachment]:
        """files[n] -> new attachments (by n)."""
        out = {}
        for name, filename, data in files:
            m = re.fullmatch(r"files\[(\d+)\]", name)
            if m is None:
                raise _form_error({name: "unknown form field"})
            if len(data) > ATTACHMENT_LIMIT:
                raise DiscordError(413, 40005, "Request entity too large")
            aid = self.snowflake()
            ctype = content_type(data, filename)
            url = f"{self.base}/attachments/{channel_id}/{aid}/{filename}"
            out[int(m.group(1))] = Attachment(aid, filename, data, ctype, url)
        return out

    def _check_message(self, body: dict[str, Any], creating: bool, files: int) -> None:
        problems: dict[str, str] = {}
        content = body.get("content")
        if content is not None and (not isinstance(content, str) or len(content) > 2000):
            problems["content"] = "must be 2000 or fewer in length"
        embeds = body.get("embeds")
        if embeds is not None:
            if not isinstance(embeds, list) or len(embeds) > 10:
                problems["embeds"] = "at most 10 embeds"
            else:
                total = 0
                for k, e in enumerate(embeds):
                    desc = str(e.get("description") or "")
                    title = str(e.get("title") or "")
                    if len(desc) > 4096:
                        problems[f"embeds.{k}.description"] = "must be 4096 or fewer in length"
                    if len(title) > 256:
                        problems[f"embeds.{k}.title"] = "must be 256 or fewer in length"
                    colour = e.get("color")
                    if colour is not None and not 0 <= int(colour) <= 0xFFFFFF:
                        problems[f"embeds.{k}.color"] = "invalid colour"
                    total += len(desc) + len(title)
                if total > 6000:
                    problems["embeds"] = "embed size exceeds maximum size of 6000"
        comps = body.get("components")
        if comps is not None:
            if not isinstance(comps, list) or len(comps) > 5:
                problems["components"] = "at most 5 action rows"
            else:
                seen: set[str] = set()
                for r, row in enumerate(comps):
                    inner = row.get("components") or []
                    if row.get("type") != 1 or not 1 <= len(inner) <= 5:
                        problems[f"components.{r}"] = "an action row holds 1 to 5 buttons"
                        continue
                    for c, b in enumerate(inner):
                        w = f"components.{r}.components.{c}"
                        if b.get("type") != 2:
                            problems[w + ".type"] = "only buttons here"
                            continue
                        label = b.get("label")
                        if label is not None and len(str(label)) > 80:
                            problems[w + ".label"] = "must be 80 or fewer in length"
                        if b.get("style") in (1, 2, 3, 4):
                            cid = b.get("custom_id")
                            if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
                                problems[w + ".custom_id"] = "1 to 100 characters"
                            elif cid in seen:
                                problems[w + ".custom_id"] = "COMPONENT_CUSTOM_ID_DUPLICATED"
                            else:
                                seen.add(cid)
                        elif b.get("style") != 5:
                            problems[w + ".style"] = "invalid style"
        attachments = body.get("attachments")
        if attachments is not None:
            if not isinstance(attachments, list) or len(attachments) > 10:
                problems["attachments"] = "at most 10 attachments"
            else:
                for k, a in enumerate(attachments):
                    alt = a.get("description") if isinstance(a, dict) else None
                    if alt is not None and (
                        not isinstance(alt, str) or len(alt) > ATTACHMENT_DESCRIPTION_LIMIT
                    ):
                        problems[f"attachments.{k}.description"] = (
                            f"must be {ATTACHMENT_DESCRIPTION_LIMIT} or fewer in length"
                        )
        am = body.get("allowed_mentions")
        if am is not None:
            parse = am.get("parse", [])
            if any(p not in ("users", "roles", "everyone") for p in parse):
                problems["allowed_mentions.parse"] = "invalid"
            if "users" in parse and am.get("users"):
                problems["allowed_mentions"] = "parse:users and users are mutually exclusive"
            if "roles" in parse and am.get("roles"):
                problems["allowed_mentions"] = "parse:roles and roles are mutually exclusive"
            if len(am.get("users", [])) > 100:
                problems["allowed_mentions.users"] = "at most 100"
        flags = body.get("flags")
        if flags is not None and creating and int(flags) & ~CREATE_FLAGS:
            problems["flags"] = "only SUPPRESS_EMBEDS, EPHEMERAL, SUPPRESS_NOTIFICATIONS"
        if problems:
            raise _form_error(problems)
        if creating and not (content or embeds or comps or files or body.get("poll")):
            raise DiscordError(400, 50006, "Cannot send an empty message")

    def _pings(self, msg: Message) -> None:
        """Who the message's content notifies, under its allowed mentions (Discord's rules)."""
        am = msg.allowed_mentions
        msg.ping_allowed_mentions = am
        parse = {"users", "roles", "everyone"} if am is None else set(am.get("parse", []))
        users = None if "users" in parse else {int(u) for u in (am or {}).get("users", [])}
        roles = None if "roles" in parse else {int(r) for r in (am or {}).get("roles", [])}
        text = msg.content or ""
        unescaped = r"(?<!\\)"
        msg.pinged_users = {
            int(u)
            for u in re.findall(unescaped + r"<@!?(\d+)>", text)
            if users is None or int(u) in users
        }
        msg.pinged_roles = {
            int(r)
            for r in re.findall(unescaped + r"<@&(\d+)>", text)
            if roles is None or int(r) in roles
        }
        msg.pinged_everyone = "everyone" in parse and bool(
            re.search(unescaped + r"@(everyone|here)\b", text)
        )

    def _apply(
        self,
        msg: Message,
        body: dict[str, Any],
        new_files: dict[int, Attachment],
        *,
        creating: bool,
    ) -> None:
        """Apply a create or edit body to ``msg`` (Discord's edit semantics: absent keeps)."""
        if "content" in body:
            msg.content = body["content"] or ""
        if "components" in body:
            msg.components = body["components"] or []
        if "allowed_mentions" in body:
            msg.allowed_mentions = body["allowed_mentions"]
        if "attachments" in body and body["attachments"] is not None:
            keep = []
            for a in body["attachments"]:
                aid = int(a["id"])
                if aid in new_files:
                    new = new_files.pop(aid)
                    new.description = a.get("description")
                    keep.append(new)
                else:
                    old = next((x for x in msg.attachments if x.id == aid), None)
                    if old is None:
                        raise _form_error({"attachments": f"unknown attachment {aid}"})
                    keep.append(old)
            msg.attachments = keep + list(new_files.values())
        elif new_files:
            msg.attachments = msg.attachments + list(new_files.values())
        if "embeds" in body:
            # attachment:// references resolve once the attachments are known
            msg.embeds = [self._resolve_embed(msg, e) for e in body["embeds"] or []]
        if "flags" in body and body["flags"] is not None and not creating:
            # the ephemeral and loading states cannot change by an edit
            keep_bits = msg.flags & (EPHEMERAL | LOADING)
            msg.flags = (int(body["flags"]) & ~(EPHEMERAL | LOADING)) | keep_bits
        if not creating:
            msg.edits += 1
        msg.history.append(body)

    def _resolve_embed(self, msg: Message, embed: dict[str, Any]) -> dict[str, Any]:
        e = dict(embed)
        e.setdefault("type", "rich")
        for key in ("image", "thumbnail"):
            part = e.get(key)
            if isinstance(part, dict) and str(part.get("url", "")).startswith("attachment://"):
                name = part["url"][len("attachment://") :]
                att = next((a for a in msg.attachments if a.filename == name), None)
                if att is not None:
                    e[key] = {"url": att.url, "proxy_url": att.url}
                    size = png_size(att.data)
                    if size:
                        e[key]["width"], e[key]["height"] = size
        return e

    def _new_message(
        self,
        channel_id: int,
        body: dict[str, Any],
        files: list[tuple[str, str, bytes]],
        *,
        interaction: Interaction | None = None,
        loading: bool = False,
        type_: int = 0,
    ) -> Message:
        self._check_message(body, creating=not loading, files=len(files))
        flags = int(body.get("flags") or 0)
        msg = Message(
            id=self.snowflake(),
            channel_id=channel_id,
            author=self.bot_user,
            flags=(flags & CREATE_FLAGS) | (LOADING if loading else 0),
            interaction_id=interaction.id if interaction else None,
            webhook_id=self.app_id if interaction else None,
            type=type_,
        )
        if msg.ephemeral:
            assert interaction is not None
            msg.visible_to = interaction.member.id
        new_files = self._resolve_files(channel_id, files)
        self._apply(msg, body, new_files, creating=True)
        if not loading:
            self._pings(msg)
        self.messages[msg.id] = msg
        return msg

    def _edit_message(
        self, msg: Message, body: dict[str, Any], files: list[tuple[str, str, bytes]]
    ) -> None:
        self._check_message(body, creating=False, files=len(files))
        new_files = self._resolve_files(msg.channel_id, files)
        was_loading = msg.loading
        self._apply(msg, body, new_files, creating=False)
        if was_loading:
            # the deferred response is resolved: it appears now, and may ping like a new message
            msg.flags &= ~LOADING
            if not (msg.content or msg.embeds or msg.components or msg.attachments):
                raise DiscordError(400, 50006, "Cannot send an empty message")
            self._pings(msg)

    async def _post_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        cid = int(request.match_info["cid"])
        if cid not in self.channels:
            raise DiscordError(404, 10003, "Unknown Channel")
        call = self._call(request)
        body = call.body or {}
        if body.get("flags") and int(body["flags"]) & EPHEMERAL:
            raise _form_error({"flags": "ephemeral messages only answer interactions"})
        msg = self._new_message(cid, body, call.files)
        return _json(msg.json(self.guild_id))

    async def _post_thread(self, request: web.Request) -> web.Response:
        """Start Thread without Message: a public thread of a text channel (the bot needs
        Create Public Threads; a thread cannot have threads)."""
        self._bot_auth(request)
        cid = int(request.match_info["cid"])
        parent = self.channels.get(cid)
        if parent is None:
            raise DiscordError(404, 10003, "Unknown Channel")
        if parent["type"] not in (0, 5):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if not self.threads_allowed:
            raise DiscordError(403, 50013, "Missing Permissions")
        body = self._call(request).body or {}
        problems = {}
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems["name"] = "Must be between 1 and 100 in length."
        if body.get("auto_archive_duration", 4320) not in ARCHIVE_DURATIONS:
            problems["auto_archive_duration"] = "Value must be one of (60, 1440, 4320, 10080)."
        if body.get("type", 12) not in (11, 12):
            problems["type"] = "Value must be one of (11, 12)."
        if problems:
            raise _form_error(problems)
        tid = self.snowflake()
        thread = dict(self.channels[self.thread_id], id=str(tid), name=name, parent_id=str(cid))
        thread["type"] = body.get("type", 12)
        thread["thread_metadata"] = dict(
            thread["thread_metadata"], auto_archive_duration=body.get("auto_archive_duration", 4320)
        )
        self.channels[tid] = thread
        self.made_threads.append(tid)
        return _json(thread, status=201)

    def _message_in(self, cid: int, mid: int) -> Message:
        msg = self.messages.get(mid)
        if msg is None or msg.deleted or msg.channel_id != cid or msg.ephemeral:
            raise DiscordError(404, 10008, "Unknown Message")
        return msg

    async def _get_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        msg = self._message_in(int(request.match_info["cid"]), int(request.match_info["mid"]))
        return _json(msg.json(self.guild_id))

    async def _patch_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        msg = self._message_in(int(request.match_info["cid"]), int(request.match_info["mid"]))
        if msg.author["id"] != str(self.bot_id):
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        call = self._call(request)
        self._edit_message(msg, call.body or {}, call.files)
        return _json(msg.json(self.guild_id))

    async def _delete_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        msg = self._message_in(int(request.match_info["cid"]), int(request.match_info["mid"]))
        if msg.author["id"] != str(self.bot_id):
            raise DiscordError(403, 50013, "Missing Permissions")
        msg.deleted, msg.deleted_at = True, time.monotonic()
        return web.Response(status=204)

    async def _get_channel(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        channel = self.channels.get(int(request.match_info["cid"]))
        if channel is None:
            raise DiscordError(404, 10003, "Unknown Channel")
        return _json(channel)

    async def _get_attachment(self, request: web.Request) -> web.Response:
        aid = int(request.match_info["aid"])
        for m in self.messages.values():
            for a in m.attachments:
                if a.id == aid:
                    return web.Response(body=a.data, content_type=a.content_type)
        raise web.HTTPNotFound()

    # ------------------------------------------------------------------
    # REST: interactions

    def _interaction(self, token: str, *, app: str | None = None) -> Interaction:
        inter = self._by_token.get(token)
        if inter is None or (app is not None and int(app) != self.app_id):
            raise DiscordError(404, 10015, "Unknown Webhook")
        inter.webhook_calls += 1
        if time.monotonic() - inter.created > TOKEN_LIFETIME:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        return inter

    async def _post_callback(self, request: web.Request) -> web.Response:
        call = self._call(request)
        inter = self._by_token.get(request.match_info["token"])
        body = call.body or {}
        type_ = int(body.get("type", 0))
        data = body.get("data") or {}
        delay = 0.0
        try:
            if inter is None or inter.id != int(request.match_info["iid"]):
                raise DiscordError(404, 10062, "Unknown interaction")
            delay = time.monotonic() - inter.created
            if inter.answered:
                raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
            if delay > FIRST_RESPONSE:
                raise DiscordError(404, 10062, "Unknown interaction")
            resource = self._answer(inter, type_, data, call.files)
        except DiscordError as e:
            if inter is not None:
                inter.callbacks.append(Callback(type_, data, delay, e.status))
            raise
        inter.callbacks.append(Callback(type_, data, delay, 200))
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        original = self.messages.get(inter.original_id) if inter.original_id else None
        out: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "response_message_id": str(original.id) if original else None,
                "response_message_loading": bool(original and original.loading),
                "response_message_ephemeral": bool(original and original.ephemeral),
            }
        }
        if resource is not None:
            out["resource"] = resource
        return _json(out)

    def _answer(
        self,
        inter: Interaction,
        type_: int,
        data: dict[str, Any],
        files: list[tuple[str, str, bytes]],
    ) -> dict[str, Any] | None:
        component = inter.type == 3
        if type_ == 8:
            if inter.type != 4:
                raise _form_error({"type": "autocomplete results answer autocomplete only"})
            self._check_choices(inter, data.get("choices"))
            return None
        if inter.type == 4:
            raise _form_error({"type": "an autocomplete interaction needs choices (type 8)"})
        if type_ == 4:
            kind = 20 if inter.type == 2 else 0
            msg = self._new_message(inter.channel_id, data, files, interaction=inter, type_=kind)
            inter.original_id = msg.id
            return {"type": 4, "message": msg.json(self.guild_id)}
        if type_ == 5:
            flags = int(data.get("flags") or 0)
            if flags & ~EPHEMERAL:
                raise _form_error({"data.flags": "a deferred message may only be ephemeral"})
            kind = 20 if inter.type == 2 else 0
            msg = self._new_message(
                inter.channel_id,
                {"flags": flags},
                [],
                interaction=inter,
                loading=True,
                type_=kind,
            )
            inter.original_id = msg.id
            inter.deferred_loading = True
            return {"type": 5}
        if type_ in (6, 7):
            if not component:
                raise _form_error({"type": "only component interactions can update a message"})
            assert inter.message_id is not None
            msg = self.messages[inter.message_id]
            inter.original_id = msg.id
            if type_ == 6:
                return None
            if msg.deleted:
                raise DiscordError(404, 10008, "Unknown Message")
            self._edit_message(msg, data, files)
            return {"type": 7, "message": msg.json(self.guild_id)}
        if type_ == 12:  # LAUNCH_ACTIVITY: no data; a command's or a component's answer
            if not self.activities:
                raise _form_error({"type": "the application has no Activity to launch"})
            if data or inter.type not in (2, 3):
                raise _form_error({"type": "LAUNCH_ACTIVITY answers a command or a component"})
            # the channel's running Activity takes the presser in; else one starts
            running = [i for i in self.instances.values() if i.channel_id == inter.channel_id]
            if running:
                iid = running[0].id
                self.join_instance(iid, inter.member.id)
            else:
                iid = f"i-{inter.id}"
                self.add_instance(inter.channel_id, [inter.member.id], instance_id=iid)
            return {"type": 12, "activity_instance": {"id": iid}}
        raise _form_error({"type": f"invalid interaction callback type {type_}"})

    def _check_choices(self, inter: Interaction, choices: Any) -> None:
        if not isinstance(choices, list) or len(choices) > 25:
            raise _form_error({"data.choices": "a list of at most 25 choices"})
        sub = inter.payload["data"]["options"][0]
        focused = next(o for o in sub["options"] if o.get("focused"))
        for k, c in enumerate(choices):
            name, value = c.get("name"), c.get("value")
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                raise _form_error({f"data.choices.{k}.name": "1 to 100 characters"})
            if focused["type"] == 4 and (not isinstance(value, int) or isinstance(value, bool)):
                raise _form_error({f"data.choices.{k}.value": "must be an integer"})
            if focused["type"] == 3 and not isinstance(value, str):
                raise _form_error({f"data.choices.{k}.value": "must be a string"})

    async def _post_followup(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        if not inter.answered:
            raise DiscordError(404, 10015, "Unknown Webhook")
        call = self._call(request)
        body = call.body or {}
        if inter.deferred_loading:
            # Discord: the first followup after DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE edits the
            # loading message; its ephemeral flag is ignored, the defer's is kept
            inter.deferred_loading = False
            msg = self.messages[inter.original_id]  # type: ignore[index]
            self._edit_message(msg, {k: v for k, v in body.items() if k != "flags"}, call.files)
            return _json(msg.json(self.guild_id))
        msg = self._new_message(inter.channel_id, body, call.files, interaction=inter)
        inter.followup_ids.append(msg.id)
        return _json(msg.json(self.guild_id))

    def _webhook_message(self, inter: Interaction, mid: str) -> Message:
        if mid == "@original":
            if inter.original_id is None:
                raise DiscordError(404, 10008, "Unknown Message")
            return self.messages[inter.original_id]
        msg = self.messages.get(int(mid))
        if (
            msg is None
            or msg.deleted
            or (msg.id not in inter.followup_ids and msg.id != inter.original_id)
        ):
            raise DiscordError(404, 10008, "Unknown Message")
        return msg

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        msg = self._webhook_message(inter, request.match_info["mid"])
        return _json(msg.json(self.guild_id))

    async def _patch_webhook_message(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        msg = self._webhook_message(inter, request.match_info["mid"])
        call = self._call(request)
        if msg.loading:
            inter.deferred_loading = False
        self._edit_message(msg, call.body or {}, call.files)
        return _json(msg.json(self.guild_id))

    async def _delete_webhook_message(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        msg = self._webhook_message(inter, request.match_info["mid"])
        msg.deleted, msg.deleted_at = True, time.monotonic()
        if msg.id == inter.original_id:
            inter.deferred_loading = False
        return web.Response(status=204)
