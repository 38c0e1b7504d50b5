"""``ludo-bot run``: the chat bot started with the configured settings (checked first:
the tokens, the store, the web server's port), run until stopped, and its exit status
(0; 2 for a setting to fix; 75 for something that may be there later)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .inputs import TRY_LATER, WRONG_ARGUMENTS, CommandError

if TYPE_CHECKING:
    from .config import Settings

RUN_HELP = """Run the chat bot: on Telegram, on Discord, or both, until stopped (Ctrl-C, or
SIGTERM from systemd or docker).

It needs at least one token, from the environment or from a .env file:
  TELEGRAM_TOKEN   the token @BotFather gave you
  DISCORD_TOKEN    your application's bot token (Discord Developer Portal)
The .env file is read from the current folder, or from the file LUDO_ENV_FILE
names; a variable already set in the environment wins over the file. Every
other setting (LUDO_DATABASE, REDIS_URL, LUDO_WEB_PORT...) has a safe default:
see the README's Configuration.

Exit status:
  0   stopped when asked
  2   a setting is wrong (a token refused, a value out of range): fix it first
  75  something was not there yet (Redis, Telegram, Discord, a full disk): try
      again later; systemd, and docker with a restart policy, start it again
"""


def add_run(sub: argparse._SubParsersAction[Any], configured: Callable[[], Settings]) -> None:
    p = sub.add_parser(
        "run",
        help="run the chat bot (settings: the environment and .env)",
        description=RUN_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=lambda args: cmd_run(args, configured))


def cmd_run(args: argparse.Namespace, configured: Callable[[], Settings]) -> int:
    from .logs import setup_logging

    settings = configured()
    setup_logging(settings.log_level, settings.log_format)  # first: before any import logs

    import asyncio

    from ..adapters.discord import AdapterError as DiscordError
    from ..adapters.telegram import AdapterError
    from ..store import StoreError
    from .config import open_configured_store
    from .runner import NoPlatform, check_start, serve
    from .web import WebError

    if not (settings.telegram_token or settings.discord_token):  # before the store is made
        raise CommandError("no chat platform is configured: set TELEGRAM_TOKEN or DISCORD_TOKEN")
    store = None
    try:
        if settings.uses_redis:  # Redis creates nothing here: it is checked first
            store = open_configured_store(settings)
        asyncio.run(check_start(settings))  # the platforms and the port, before any file
        if store is None:
            store = open_configured_store(settings)
    except (AdapterError, DiscordError, StoreError, WebError) as e:
        if store is not None:
            store.close()
        raise CommandError(str(e), status=start_status(e)) from None
    try:
        asyncio.run(serve(settings, store))
    except (NoPlatform, AdapterError, DiscordError, StoreError, WebError) as e:
        raise CommandError(str(e), status=start_status(e)) from None
    finally:
        store.close()
    return 0


def start_status(error: Exception) -> int:
    """The exit status of a start that failed: :data:`TRY_LATER` if it may well work
    later by itself (a store or a platform that could not be reached, a disk with no
    room), which systemd starts again; else 2."""
    from ..adapters.faults import AdapterError
    from ..store import StoreUnavailable

    if isinstance(error, StoreUnavailable) or (isinstance(error, AdapterError) and error.later):
        return TRY_LATER
    return WRONG_ARGUMENTS
