"""The fake Discord's server: its state, the HTTP app and its routes (each handled in
the module of its concept), waiting for a change, looking at what the bot did,
requests failed on purpose, planted messages, the guild's channels, and the REST
plumbing (every call recorded, refusals as Discord's error bodies)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import (
    API,
    CALL,
    ActivityInstance,
    Connection,
    DiscordError,
    Failure,
    Interaction,
    Member,
    Message,
    RestCall,
    Snowflakes,
    json_response,
)
from tests.fakes.discord.places import MISSING_ACCESS
from tests.fakes.discord.routelimits import ROUTE_RATES, RouteBucket


class Server:
    """The fake's state and plumbing: serving, waiting for a change, looking at what
    the bot did, failing requests on purpose, the guild and its channels (see
    :mod:`tests.fakes.discord`)."""

    def __init__(
        self, token: str = "fake-bot-token", *, bot_gateway_path: str = "/gateway"
    ) -> None:
        self.token = token
        #: ids carry the fake's clock (:meth:`~tests.fakes.discord.places.Places.advance`)
        self.snowflake = Snowflakes(lambda: time.time() + self.clock_offset)
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
        #: storms of errors, the requests made before a 429's wait, the waits, and the
        #: messages posted with a nonce (see :mod:`tests.fakes.discord.storms`)
        self.storms: list[Any] = []
        self.early: list[RestCall] = []
        self.waits: dict[str, tuple[float, float]] = {}
        self.nonces: dict[tuple[int, str], Message] = {}
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
        self.token_expiry: dict[str, float] = {}
        #: the sign-in's routes' rate limits (:mod:`tests.fakes.discord.routelimits`)
        self.route_rates: dict[str, tuple[int, float]] = dict(ROUTE_RATES)
        self.route_buckets: dict[str, RouteBucket] = {}
        self.route_early: list[RestCall] = []
        #: the Activity instances running, by id
        self.instances: dict[str, ActivityInstance] = {}
        #: places reached through interactions only (a user install): channel -> what
        #: they are (:mod:`tests.fakes.discord.places`)
        self.user_only: dict[int, dict[str, Any]] = {}
        #: how far the fake's clock is ahead of this machine's (tokens' lifetime)
        self.clock_offset = 0.0
        #: the people Discord knows (those who used the app), by id; their DMs with the
        #: bot (person -> channel), those whose DMs are closed to the bot, and those who
        #: installed the app to their account (:mod:`tests.fakes.discord.dms`)
        self.users: dict[int, Member] = {}
        self.dms: dict[int, int] = {}
        self.closed_dms: set[int] = set()
        self.installed: set[int] = set()

    # ------------------------------------------------------------------
    # life

    async def start(self, port: int = 0) -> None:
        """Serve on ``port`` (0: a free one); again after :meth:`close`, on the same
        port: Discord unreachable for a while."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        # every route of the fake: the handlers are in the modules of their concept
        # (rest, activity, gateway, interactions), put together in FakeDiscord
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
        r.add_post(API + "/users/@me/channels", self._post_dm_channel)
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

    def guild_of(self, channel_id: int) -> int | None:
        """The server of channel ``channel_id`` as its messages name it (None: a DM or a
        group DM)."""
        channel = self.channels.get(channel_id)
        if channel is None:
            return self.guild_id
        guild = channel.get("guild_id")
        return int(guild) if guild is not None else None

    def add_channel(self, name: str) -> int:
        """A new text channel of the guild (before the bot connects, it is in the guild the
        bot is sent; later only interactions from it tell the bot of it); its id."""
        cid = self.snowflake()
        self.channels[cid] = dict(self.channels[self.channel_id], id=str(cid), name=name)
        return cid

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
                return json_response(e.body(), status=e.status)
        channel = re.match(API + r"/channels/(\d+)", request.path)
        if channel is not None and int(channel.group(1)) in self.user_only:
            status, code, words = MISSING_ACCESS  # the bot cannot see the channel
            auth = request.headers.get("Authorization")
            call = RestCall(request.method, request.path, dict(request.query), None, [], auth)
            call.status = status
            self.calls.append(call)
            return json_response({"message": words, "code": code}, status=status)
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
            weather = await self._weather(call, request, handler)
            if weather is not None:
                return weather
            rule = next((f for f in self.failures if f.matches(call)), None)
            if rule is not None and rule.retry_after is not None:
                rule.hits.append(call)
                call.status = 429
                await self.changed()
                body = {"message": rule.message, "retry_after": rule.retry_after, "global": False}
                limited = json_response(body | {"code": 0}, status=429)
                limited.headers["Via"] = "1.1 google"
                limited.headers["Retry-After"] = str(max(1, round(rule.retry_after)))
                return limited
            if rule is not None:
                rule.hits.append(call)
                raise DiscordError(rule.status, rule.code, rule.message)
            response = await handler(request)
        except DiscordError as e:
            response = json_response(e.body(), status=e.status)
            self.errors.append((call, e.body()))
        call.status = response.status
        await self.changed()
        return response

    async def _weather(
        self,
        call: RestCall,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse | None:
        """A storm's answer (see :mod:`tests.fakes.discord.storms`); None: no storm."""
        return None

    def nonced(self, channel_id: int, body: dict[str, Any]) -> Message | None:
        return None

    def _route(
        self, request: web.Request, route: str, key: str = ""
    ) -> web.Response | dict[str, str]:
        return {}  # the routes' limits: tests.fakes.discord.routelimits

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
        if auth.startswith("Bearer "):  # an OAuth2 access token: its user, per token's limit
            token = auth[len("Bearer ") :]
            limited = self._route(request, "me", token)
            if isinstance(limited, web.Response):
                return limited
            user = self.oauth_tokens.get(token)
            if user is None or self.token_expiry.get(token, 0.0) <= time.monotonic():
                raise DiscordError(401, 0, "401: Unauthorized")
            response = json_response(user)
            response.headers.update(limited)
            return response
        self._bot_auth(request)
        return json_response(self.bot_user)
