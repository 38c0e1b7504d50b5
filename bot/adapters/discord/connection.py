"""The connection to Discord as operators see it: the errors that end it for good, in
one line saying what to fix, whether it is connected (the rate limits it hits:
:mod:`.weather`), and its outages: discord.py reconnects on its own, and would log a
traceback each time; :class:`ReconnectFilter` makes that one warning when it begins
and one when it ends (:class:`~bot.adapters.reach.Reach`)."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import discord

from ...ops.metrics import PLATFORM_UP
from ..faults import AdapterError, one_line
from ..reach import Reach

PLATFORM = "discord"

#: the gateway's close codes that no reconnection can mend, and what to do about them
CLOSE_CODES = {
    4004: "Discord refused DISCORD_TOKEN at the gateway (4004 authentication failed): "
    "copy the bot's current token from the Developer Portal (Bot, Reset Token)",
    4010: "Discord refused the shard (4010 invalid shard): "
    "every DISCORD_SHARD_IDS must be below DISCORD_SHARD_COUNT",
    4011: "Discord requires more shards for this bot (4011 sharding required): "
    "raise DISCORD_SHARD_COUNT, or unset it to use Discord's recommended count",
    4012: "Discord refused the gateway version (4012 invalid API version): upgrade discord.py",
    4013: "Discord refused the gateway intents (4013 invalid intents): upgrade discord.py",
    4014: "Discord refused the gateway intents (4014 disallowed intents): enable the "
    "privileged intents the bot asks for in the Developer Portal (Bot, Privileged Gateway "
    "Intents)",
}


def fatal_error(error: BaseException | None) -> AdapterError:
    """Why the connection to Discord ended for good, as one line for the operator."""
    if isinstance(error, discord.PrivilegedIntentsRequired):
        return AdapterError(CLOSE_CODES[4014])
    if isinstance(error, discord.LoginFailure):
        return AdapterError(CLOSE_CODES[4004])
    if isinstance(error, discord.ConnectionClosed):
        if error.code in CLOSE_CODES:
            return AdapterError(CLOSE_CODES[error.code])
        return AdapterError(f"Discord closed the gateway connection (code {error.code})")
    if error is None:
        return AdapterError("the connection to Discord ended")
    return AdapterError(one_line(f"the connection to Discord ended: {error}") or "?")


async def check_token(token: str) -> None:
    """Ask Discord who the bot is (``GET /users/@me``), before anything is made:
    AdapterError saying what to fix if it cannot be asked.  (The REST root is the
    one :func:`~.client.point_to` set.)"""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
    except discord.LoginFailure:
        raise AdapterError("Discord refused DISCORD_TOKEN (improper token)") from None
    except (discord.HTTPException, aiohttp.ClientError, OSError) as e:
        raise AdapterError(one_line(f"cannot reach Discord: {e}"), later=True) from None
    finally:
        await http.close()


def account(user: discord.ClientUser | None) -> str:
    """The bot's account on Discord, for the start line: ``name#1234 (id ...)``
    (``name (id ...)`` for a user without a discriminator)."""
    if user is None:
        return "Discord"
    tag = "" if user.discriminator in ("0", "0000") else f"#{user.discriminator}"
    return f"Discord {user.name}{tag} (id {user.id})"


def connected(up: bool) -> None:
    """Discord is connected now (ready or resumed), or not (disconnected, stopped)."""
    PLATFORM_UP.labels(PLATFORM).set(1 if up else 0)


#: the loggers of discord.py's reconnections (a shard's, and an unsharded client's)
RECONNECTING = ("discord.shard", "discord.client")
#: the errors discord.py reconnects after: Discord (or the network) does not answer
UNANSWERED = (
    OSError,
    aiohttp.ClientError,
    TimeoutError,
    discord.GatewayNotFound,
    discord.ConnectionClosed,
)


class ReconnectFilter(logging.Filter):
    """discord.py's tracebacks of a reconnection (Discord unreachable) become one
    warning when the outage begins (``reach``); the others pass."""

    def __init__(self, reach: Reach) -> None:
        super().__init__()
        self.reach = reach

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, UNANSWERED):
            self.reach.lost(error)
            return False
        return True

    def install(self) -> None:
        for name in RECONNECTING:
            logging.getLogger(name).addFilter(self)

    def remove(self) -> None:
        for name in RECONNECTING:
            logging.getLogger(name).removeFilter(self)
