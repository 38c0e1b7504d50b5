"""``ludo-bot run``: the configured chat platforms and the turn timers, in one process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..limits.quotas import Quotas
from ..limits.rate import Limiter, shared_parts
from ..ops.metrics import GAMES_ACTIVE
from ..service.game import GameService
from ..service.outcome import Outcome
from ..store import RedisStore, Store, StoreError
from ..store.pace import Limits, Pacer
from ..store.redis.pace import RedisPacer
from ..web.board import Board
from ..web.pictures import PictureServer
from .board import board_keys, board_routes, make_board, picture_links
from .config import Settings
from .health import health_checks, health_warnings, store_kind
from .web import MAX_CONNECTIONS, WebServer, check_port, start_web

if TYPE_CHECKING:
    from ..adapters.telegram import MiniApp

log = logging.getLogger(__name__)

#: how often the turn timers are looked at, in seconds
TIMER_TICK = 1.0
#: how often the active games are counted for the figures, in seconds
GAMES_TICK = 30.0
#: connections the web server takes at once when it serves the board (its websockets)
BOARD_CONNECTIONS = 5000
#: while the store cannot be reached: the first wait between timer rounds, and the longest
TIMER_BACKOFF = (1.0, 30.0)


class Adapter(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def owns(self, channel: str | None) -> bool: ...

    async def show(self, outcome: Outcome) -> None: ...


class NoPlatform(Exception):
    """No chat platform is configured."""


def build_adapters(
    settings: Settings, service: GameService, limiter: Limiter | None = None
) -> list[Adapter]:
    """The adapters of the platforms configured; ``limiter``: the rate limits every
    command and press passes first (None: none)."""
    from ..adapters.drawing import Drawing

    adapters: list[Adapter] = []
    #: one budget for expensive drawing, whatever platform asks
    drawing = Drawing()
    if settings.telegram_token:
        from ..adapters.telegram import TelegramAdapter, WebhookSettings

        webhook = None
        if settings.telegram_webhook_url:  # served by the web server (see serve)
            webhook = WebhookSettings(
                url=settings.telegram_webhook_url, secret=settings.telegram_webhook_secret
            )
        adapters.append(
            TelegramAdapter(
                service,
                settings.telegram_token,
                api_url=settings.telegram_api_url,
                webhook=webhook,
                image_size=settings.image_size,
                pacer=shared_pacer(service.store),
                drawing=drawing,
                limiter=limiter,
                miniapp=miniapp(settings),
                media_chat=settings.telegram_media_chat,
                pictures=picture_links(settings),
            )
        )
    if settings.discord_token:
        from ..adapters.discord import DiscordAdapter, DiscordSettings

        adapters.append(
            DiscordAdapter(
                service,
                DiscordSettings(
                    token=settings.discord_token,
                    guild_id=settings.discord_guild_id,
                    shard_count=settings.discord_shard_count,
                    shard_ids=settings.discord_shard_ids,
                    api_base=settings.discord_api_base,
                    gateway_url=settings.discord_gateway_url,
                    limiter=limiter,
                    activity=settings.board is not None and settings.board.activity,
                ),
                image_size=settings.image_size,
                drawing=drawing,
            )
        )
    if not adapters:
        raise NoPlatform("no chat platform is configured: set TELEGRAM_TOKEN or DISCORD_TOKEN")
    return adapters


def miniapp(settings: Settings) -> MiniApp | None:
    """The Telegram Mini App the tables open the live board in (None: none set up)."""
    from ..adapters.telegram import MiniApp

    board = settings.board
    if board is None or board.miniapp is None:
        return None
    return MiniApp(board.miniapp, board.board_url, board_keys(settings).play)


async def check_start(settings: Settings) -> None:
    """The start checks that need no store, made before the store is opened (and an
    SQLite file created): each platform asked who the bot is (its token and address),
    and the web server's port free.  AdapterError or WebError saying what to fix."""
    if settings.telegram_token:
        from ..adapters.telegram.watch import check_token

        await check_token(settings.telegram_token, settings.telegram_api_url)
    if settings.discord_token:
        from ..adapters.discord.client import DiscordSettings, point_to
        from ..adapters.discord.connection import check_token as check_discord

        point_to(
            DiscordSettings(
                token=settings.discord_token,
                api_base=settings.discord_api_base,
                gateway_url=settings.discord_gateway_url,
            )
        )
        await check_discord(settings.discord_token)
    if settings.web_port is not None:
        webhook = bool(settings.telegram_token and settings.telegram_webhook_url)
        await check_port(settings.web_host, settings.web_port, webhook=webhook)


def shared_pacer(store: Store) -> Pacer | None:
    """Telegram's send limits kept in Redis when the games are (every worker then keeps
    them together); None: kept in this process."""
    if isinstance(store, RedisStore):
        return RedisPacer(store.client, store.base, Limits())
    return None


async def run_timers(
    service: GameService,
    adapters: Sequence[Adapter],
    stop: asyncio.Event,
    tick: float = TIMER_TICK,
    *,
    backoff: tuple[float, float] = TIMER_BACKOFF,
) -> None:
    """Fire the due timers (turns, lobbies) and show what happened, until ``stop`` is set.

    While the store cannot be reached (the service logs that once), the rounds
    come further and further apart: ``backoff`` is the first wait and the
    longest (1 s, 2 s, 4 s ... 30 s).  They come every ``tick`` again as soon
    as the store answers the timers, or the outage is over (the store answers
    everyone's presses again).
    """
    failures = 0
    while not stop.is_set():
        try:
            outcomes = await asyncio.to_thread(service.fire_due)
        except Exception:  # the service does not raise; should it, the timers go on
            log.exception("turn timers failed; trying again")
            outcomes = []
        for outcome in outcomes:
            await _show(adapters, outcome)
        if service.store_answered:
            failures = 0
            wait = tick
        else:
            wait = max(tick, min(backoff[1], backoff[0] * 2**failures))
            failures = min(failures + 1, 30)
        await _pause(service, stop, tick, wait)


async def _show(adapters: Sequence[Adapter], outcome: Outcome) -> None:
    """A timer's outcome shown in its chat (a turn played, a lobby closed, a damaged
    game let go: see :attr:`Outcome.freed`)."""
    channel = outcome.channel
    for adapter in adapters:
        if adapter.owns(channel):
            try:
                await adapter.show(outcome)
            except Exception:
                log.exception("could not show a timer's move in %s", channel)


async def _pause(service: GameService, stop: asyncio.Event, tick: float, wait: float) -> None:
    """Wait ``wait`` seconds, or until ``stop`` is set; a longer wait (the store is down)
    ends at the next ``tick`` after the outage ended (the store answers everyone's
    presses again)."""
    end = asyncio.get_running_loop().time() + wait
    while not stop.is_set():
        left = end - asyncio.get_running_loop().time()
        if left <= 0:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), min(left, tick))
        if wait > tick and service.store_reachable:
            return


async def serve(settings: Settings, store: Store, stop: asyncio.Event | None = None) -> None:
    """Run until SIGINT/SIGTERM (or ``stop`` is set).

    Adapter errors propagate: at start, and while running when an adapter fails for
    good (a token refused, intents disallowed: its ``failed()`` returns the error, one
    line for the operator); then the timers finish their round and every platform is
    stopped before the error is raised.  Once running, the start is one line naming
    each platform's account, and the stop one line saying why (the signal, or the
    error) and how long stopping took.
    """
    # the limits count beside the games: in Redis for every worker, else in this process
    parts = shared_parts(store)
    service = GameService(
        store,
        default_timer=settings.turn_seconds,
        lobby_minutes=settings.lobby_minutes,
        quotas=Quotas(store, settings.limits, parts),
    )
    limiter = Limiter(parts[0], settings.limits)
    adapters = build_adapters(settings, service, limiter)
    for warning in production_warnings(store):
        log.warning("%s", warning)
    stop = stop or asyncio.Event()
    signalled: list[str] = []
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, _signalled, sig, signalled, stop)
    started: list[Adapter] = []
    timers: asyncio.Future[Any] | None = None
    failures: list[asyncio.Future[Any]] = []
    web: WebServer | None = None
    counting: asyncio.Future[Any] | None = None
    board: Board | None = None
    running = False
    why = "asked to stop"
    try:
        if settings.web_port is not None:
            # before the platforms: /healthz says 503 while they connect, and a
            # webhook update that comes early is refused (503: Telegram sends it again)
            routes = [r for adapter in adapters for r in getattr(adapter, "routes", list)()]
            if settings.board is not None:  # the live board: a move made there shows in chat
                board = make_board(settings, service, limiter, lambda o: _show(started, o))
                await board.hub.start()
                routes += board_routes(board)
                if settings.telegram_token:  # the pictures of inline tables
                    routes += PictureServer(service, board_keys(settings)).routes()
            checks = health_checks(settings, store, service.outage)
            web = await start_web(
                settings.web_host,
                settings.web_port,
                checks,
                routes=routes,
                store_kind=store_kind(store),
                warnings=lambda: health_warnings(store),
                max_connections=MAX_CONNECTIONS if board is None else BOARD_CONNECTIONS,
            )
        for adapter in adapters:
            await adapter.start()
            started.append(adapter)
        log.info("ludo-bot is running on %s", " and ".join(map(account, started)))
        running = True
        timers = asyncio.ensure_future(run_timers(service, started, stop))
        counting = asyncio.ensure_future(count_games(store, stop))
        # an adapter that can fail for good while running says so through failed()
        failed = [getattr(adapter, "failed", None) for adapter in started]
        failures = [asyncio.ensure_future(f()) for f in failed if f is not None]
        waiting: list[asyncio.Future[Any]] = [timers, *failures]
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        errors = [f.result() for f in failures if f in done]
        if errors:
            why = str(errors[0])
            stop.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(timers, 10.0)
            raise errors[0]
        await timers
        why = signalled[0] if signalled else why
    except asyncio.CancelledError:
        why = "cancelled"
        raise
    except Exception as e:
        why = str(e) if why == "asked to stop" else why
        raise
    finally:
        stopping = loop.time()
        for future in (timers, counting, *failures):
            if future is not None and not future.done():
                future.cancel()
        for adapter in reversed(started):
            with contextlib.suppress(Exception):
                await adapter.stop()
        if board is not None:  # first: its sockets closed, the server stops at once
            await board.close()
        if web is not None:
            await web.close()
        if running:
            log.info("ludo-bot stopped: %s (in %.1f s)", why, loop.time() - stopping)


def _signalled(sig: signal.Signals, signalled: list[str], stop: asyncio.Event) -> None:
    signalled.append(sig.name)
    stop.set()


def account(adapter: Adapter) -> str:
    """What the start line says of a platform: its name and the bot's account there."""
    named = getattr(adapter, "account", None)
    return named() if named is not None else type(adapter).__name__


async def count_games(store: Store, stop: asyncio.Event, every: float = GAMES_TICK) -> None:
    """Keep ``ludo_games_active`` up to date (the games holding a channel), until ``stop``."""
    while not stop.is_set():
        with contextlib.suppress(StoreError):  # an outage is told by the service
            GAMES_ACTIVE.set(await asyncio.to_thread(store.active_games))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every)


def production_warnings(store: Store) -> list[str]:
    """What the store says is risky for production (Redis without persistence, or
    allowed to evict games); nothing for a store that has no such check."""
    check = getattr(store, "production_warnings", None)
    if check is None:
        return []
    try:
        return list(check())
    except StoreError as e:
        return [f"could not check the Redis settings: {e}"]
