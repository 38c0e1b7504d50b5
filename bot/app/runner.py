"""``ludo-bot run``: the configured chat platforms and the turn timers, in one process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Sequence
from typing import Protocol

from ..service import GameService, Outcome
from ..store import Store
from .config import Settings

log = logging.getLogger(__name__)

#: how often the turn timers are looked at, in seconds
TIMER_TICK = 1.0


class Adapter(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def owns(self, channel: str | None) -> bool: ...

    async def show(self, outcome: Outcome) -> None: ...


class NoPlatform(Exception):
    """No chat platform is configured."""


def build_adapters(settings: Settings, service: GameService) -> list[Adapter]:
    adapters: list[Adapter] = []
    if settings.telegram_token:
        from ..adapters.telegram import TelegramAdapter, WebhookSettings

        webhook = None
        if settings.telegram_webhook_url:
            webhook = WebhookSettings(
                url=settings.telegram_webhook_url,
                listen=settings.telegram_webhook_listen,
                port=settings.telegram_webhook_port,
                secret=settings.telegram_webhook_secret,
            )
        adapters.append(
            TelegramAdapter(
                service,
                settings.telegram_token,
                api_url=settings.telegram_api_url,
                webhook=webhook,
                image_size=settings.image_size,
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
                ),
                image_size=settings.image_size,
            )
        )
    if not adapters:
        raise NoPlatform("no chat platform is configured: set TELEGRAM_TOKEN or DISCORD_TOKEN")
    return adapters


async def run_timers(
    service: GameService, adapters: Sequence[Adapter], stop: asyncio.Event, tick: float = TIMER_TICK
) -> None:
    """Fire the due turn timers and show what happened, until ``stop`` is set."""
    while not stop.is_set():
        try:
            outcomes = await asyncio.to_thread(service.fire_due)
        except Exception:  # a store hiccup must not stop the timers for good
            log.exception("turn timers failed; trying again")
            outcomes = []
        for outcome in outcomes:
            channel = outcome.game.channel if outcome.game is not None else None
            for adapter in adapters:
                if adapter.owns(channel):
                    try:
                        await adapter.show(outcome)
                    except Exception:
                        log.exception("could not show a timer's move in %s", channel)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), tick)


async def serve(settings: Settings, store: Store, stop: asyncio.Event | None = None) -> None:
    """Run until SIGINT/SIGTERM (or ``stop`` is set).  Adapter errors propagate at start."""
    service = GameService(store, default_timer=settings.turn_seconds)
    adapters = build_adapters(settings, service)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    started: list[Adapter] = []
    try:
        for adapter in adapters:
            await adapter.start()
            started.append(adapter)
        log.info("ludo-bot is running (%d platform(s))", len(started))
        await run_timers(service, started, stop)
    finally:
        for adapter in reversed(started):
            with contextlib.suppress(Exception):
                await adapter.stop()
