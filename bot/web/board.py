"""The board's server: what it needs (:class:`Board`) and its routes
(:func:`bot.app.board.board_routes`), added to the bot's one web server when ``settings.board``
is set.  The protocol is docs/web-protocol.md."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ..hosting import Game, User
from ..limits.rate import Limiter, Verdict
from ..ops.metrics import WEB_LIMITED
from ..present.catalog import language_of
from ..service.game import GameService
from ..service.outcome import Outcome
from .address import client_address
from .auth import PLAYER, SESSION_SECONDS, SPECTATOR, Keys, Refused, Session, telegram_user
from .discord import (
    INSTANCE,
    SNOWFLAKE,
    DiscordBusy,
    DiscordOAuth,
    DiscordRefused,
    DiscordUnavailable,
)
from .hub import Hub
from .words import words

log = logging.getLogger(__name__)

#: the largest API body taken, in bytes
MAX_JSON = 16 * 1024
#: the rules the geometry is asked for
RULES = ("classic", "tower", "italian", "super")

Show = Callable[[Outcome], Awaitable[None]]


async def _nothing(outcome: Outcome) -> None:
    return None


@dataclass
class Board:
    """Everything the board's routes use."""

    service: GameService
    keys: Keys
    hub: Hub
    #: the Telegram bot's token (None: no Telegram; initData refused)
    telegram_token: str | None = None
    #: the Discord Activity's OAuth2 client (None: no Activity)
    discord: DiscordOAuth | None = None
    #: the rate limits a press passes (as a chat's)
    limiter: Limiter | None = None
    #: shows an outcome in its chat, as a timer's is shown (the chat table in step)
    show: Show = _nothing
    clock: Callable[[], float] = time.time
    #: the shows running (kept so that they are not collected half-way)
    showing: set[asyncio.Task[None]] = field(default_factory=set)

    def session_of(self, user: User | None, game: Game, lang: str, role: str) -> Session:
        platform, uid, name = (user.platform, user.id, user.name) if user else ("", "", "")
        expires = self.clock() + SESSION_SECONDS
        return Session(platform, uid, name, lang, game.id, game.channel, role, expires)

    def answer(self, game: Game, session: Session, status: int = 200) -> web.Response:
        body: dict[str, Any] = {
            "session": self.keys.session(session),
            "role": session.role,
            "language": session.language,
            "game": self.hub.render(game, session.user, session.language),
        }
        if session.role == PLAYER:
            body["watch"] = self.keys.watch(game.id)
        if status != 200:
            body["error"] = words("web.not_playing", session.language)
        return web.json_response(body, status=status)

    def api_routes(self) -> list[web.RouteDef]:
        return [
            web.post("/api/session", self.post_session),
            web.post("/api/discord/token", self.post_discord_token),
            web.get("/api/discord/config", self.get_discord_config),
        ]

    async def close(self) -> None:
        for task in list(self.showing):
            task.cancel()
        await self.hub.close()
        if self.discord is not None:
            await self.discord.close()

    # -- POST /api/session ------------------------------------------------

    async def post_session(self, request: web.Request) -> web.Response:
        lang = language_of(request.headers.get("Accept-Language", "")[:40].split(",")[0])
        try:
            await self._admit_address(request, lang)
            body = await read_json(request)
            auth = request.headers.get("Authorization", "")
            if auth.startswith("tma "):
                return await self._telegram(auth[4:], body)
            if auth.startswith("discord "):
                return await self._discord(auth[8:], body)
            if auth:
                raise Refused("web.forged")
            return await self._spectator(body, lang)
        except Refused as r:
            status = 401 if r.key in ("web.forged", "web.expired", "web.discord_refused") else 400
            return error(r.key, r.lang or lang, status)
        except Failed as f:
            return error(f.key, f.lang or lang, f.status, f.retry)

    async def _telegram(self, init_data: str, body: dict[str, Any]) -> web.Response:
        if self.telegram_token is None:
            raise Refused("web.forged")
        login = telegram_user(init_data, self.telegram_token, self.clock())
        lang, start, named = login.language, login.start_param, body.get("game")
        await self._admit(login.user, lang)
        if start is not None and start.startswith("w"):  # a spectator link opened in Telegram
            game = await self._game(self.keys.read_watch(start), lang)
            return self.answer(game, self.session_of(None, game, lang, SPECTATOR))
        if start is not None:
            game = await self._game(self.keys.read_play(start), lang)
            return self.answer(game, self.session_of(login.user, game, lang, PLAYER))
        if not isinstance(named, str) or len(named) != 8:
            raise Failed("web.bad_request", 400, lang)
        game = await self._game(named, lang)
        seated = any(login.user.same(seat.user) for seat in game.seats)
        if not seated:  # not a player here: they may watch
            return self.answer(game, self.session_of(None, game, lang, SPECTATOR), 403)
        return self.answer(game, self.session_of(login.user, game, lang, PLAYER))

    async def _discord(self, token: str, body: dict[str, Any]) -> web.Response:
        """A session for the person an access token the bot issued is of (checked here:
        a token it never issued is refused with no call to Discord), in the channel of
        the Activity instance they are in (asked of Discord, under the budget)."""
        if self.discord is None:
            raise Failed("web.no_activity", 404)
        try:
            login = await self.discord.login(token)
        except DiscordBusy as b:
            raise busy(b, None) from None
        if login is None:
            raise Refused("web.discord_refused")
        lang = login.language
        await self._admit(login.user, lang)
        channel, instance = body.get("channel"), body.get("instance")
        if not isinstance(channel, str) or not SNOWFLAKE.fullmatch(channel):
            raise Failed("web.bad_request", 400, lang)
        if not isinstance(instance, str) or not INSTANCE.fullmatch(instance):
            raise Failed("web.bad_request", 400, lang)
        # the channel is theirs only if Discord runs the Activity there with them in it
        try:
            inside = await self.discord.in_activity(instance, channel, login.user.id)
        except DiscordUnavailable:
            raise Failed("web.discord_unavailable", 503, lang) from None
        except DiscordBusy as b:
            raise busy(b, lang) from None
        if not inside:
            raise Failed("web.not_in_activity", 403, lang)
        game = await asyncio.to_thread(self.service.game_in, f"dc:{channel}")
        if game is None:
            raise Failed("web.no_game", 404, lang)
        return self.answer(game, self.session_of(login.user, game, lang, PLAYER))

    async def _spectator(self, body: dict[str, Any], lang: str) -> web.Response:
        asked = body.get("language")
        lang = language_of(asked[:20]) if isinstance(asked, str) else lang
        game = await self._game(self.keys.read_watch(body.get("watch")), lang)
        return self.answer(game, self.session_of(None, game, lang, SPECTATOR))

    async def _admit_address(self, request: web.BaseRequest, lang: str) -> None:
        """Every session asked for, and every Discord code to exchange, counts against the
        client's address (before its body is read or its proof checked), a spectator's
        too."""
        if self.limiter is not None:
            trusted = self.limiter.settings.trusted_proxies
            verdict = await self.limiter.admit_web(client_address(request, trusted))
            if not verdict.allowed:
                raise limited(verdict, lang)

    async def _admit(self, user: User, lang: str) -> None:
        """A person's sessions count in their rate limit, as their presses do (a
        spectator is nobody: only their address counts)."""
        if self.limiter is not None:
            verdict = await self.limiter.admit(f"{user.platform}:{user.id}", None, False)
            if not verdict.allowed:
                raise limited(verdict, lang)

    async def _game(self, game_id: str, lang: str) -> Game:
        game = await asyncio.to_thread(self.service.get, game_id)
        if game is None:
            raise Failed("web.no_game", 404, lang)
        return game

    # -- GET /api/discord/config, POST /api/discord/token -----------------

    async def get_discord_config(self, request: web.Request) -> web.Response:
        """The Activity's application id, which the page's SDK needs (public, as in
        every invite link); 404 when the Activity is not set up."""
        if self.discord is None:
            lang = language_of(request.headers.get("Accept-Language", "")[:40].split(",")[0])
            return error("web.no_activity", lang, 404)
        return web.json_response({"client_id": str(self.discord.client_id)})

    async def post_discord_token(self, request: web.Request) -> web.Response:
        lang = language_of(request.headers.get("Accept-Language", "")[:40].split(",")[0])
        if self.discord is None:
            return error("web.no_activity", lang, 404)
        try:  # an exchange asks Discord: it counts against the address, as a session does
            await self._admit_address(request, lang)
            body = await read_json(request)
        except Failed as f:
            return error(f.key, f.lang or lang, f.status, f.retry)
        code = body.get("code")
        if not isinstance(code, str):
            return error("web.bad_request", lang, 400)
        try:
            token = await self.discord.exchange(code)
        except DiscordRefused:
            return error("web.discord_refused", lang, 401)
        except DiscordBusy as b:
            turned = busy(b, lang)
            return error(turned.key, lang, turned.status, turned.retry)
        return web.json_response({"access_token": token})


class Failed(Exception):
    """A request refused with ``status`` and the board's words ``key``; ``retry``: the
    seconds to wait (429's ``Retry-After``)."""

    def __init__(
        self, key: str, status: int, lang: str | None = None, retry: int | None = None
    ) -> None:
        super().__init__(key)
        self.key, self.status, self.lang, self.retry = key, status, lang, retry


def limited(verdict: Verdict, lang: str) -> Failed:
    """A session refused by the rate limits: 429, in ``lang``, and when to come back."""
    WEB_LIMITED.labels("session").inc()
    return Failed(limit_words(verdict), 429, lang, verdict.seconds)


def busy(b: DiscordBusy, lang: str | None) -> Failed:
    """A sign-in turned away while the budget of requests to Discord is spent (or
    Discord asked to wait): 503, and when to come back."""
    WEB_LIMITED.labels("discord").inc()
    return Failed("web.discord_busy", 503, lang, b.seconds)


def limit_words(verdict: Verdict) -> str:
    """The words of a refusal by the limits: a busy address (many people behind one
    network, often), or one person going too fast."""
    return "web.busy_network" if verdict.scope == "address" else "web.slow_down"


def error(key: str, lang: str, status: int, retry: int | None = None) -> web.Response:
    """``{"error": words}`` with ``status`` (and ``Retry-After: retry``)."""
    headers = {"Retry-After": str(retry)} if retry is not None else None
    return web.json_response({"error": words(key, lang)}, status=status, headers=headers)


async def read_json(request: web.Request) -> dict[str, Any]:
    """The request's JSON object ({} for no body), at most :data:`MAX_JSON` bytes."""
    if request.content_length is not None and request.content_length > MAX_JSON:
        raise Failed("web.too_big", 413)
    raw = await request.content.read(MAX_JSON + 1)
    if len(raw) > MAX_JSON:
        raise Failed("web.too_big", 413)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise Failed("web.bad_request", 400) from None
    if not isinstance(body, dict):
        raise Failed("web.bad_request", 400)
    return body
