"""The life of the Discord connection: log in (checking the token), connect to the
gateway and wait until it is ready; an end for good reported (:meth:`Gateway.failed`);
and a stop that lets the interactions being handled finish first (:meth:`Gateway.busy`
counts them)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import discord

from ..faults import AdapterError, Fatal
from ..reach import within
from .client import LudoClient
from .connection import ReconnectFilter, connected, fatal_error
from .weather import RateLimitFilter

log = logging.getLogger(__name__)

#: how long ``stop`` lets the interactions being handled finish and each of its other
#: steps take (while Discord does not answer: the second)
DRAIN, STOP_GRACE = 5.0, 0.4


class Gateway:
    """The connection of one :class:`~.client.LudoClient`, from its start to its stop."""

    def __init__(self, client: LudoClient) -> None:
        self.client = client
        self.reconnects = ReconnectFilter(client.reach)
        self.rate_limits = RateLimitFilter()
        self._task: asyncio.Task[None] | None = None
        self._working = 0
        self._idle = asyncio.Event()
        self._idle.set()
        #: the error that ended the connection for good (see :meth:`failed`)
        self.fatal = Fatal()
        self._stopping = False

    async def start(
        self, token: str, ready_timeout: float, quiet: Callable[[], Awaitable[None]]
    ) -> None:
        """Log in (checking the token), sync the commands, connect to the gateway; not
        ready in time, stopped (``quiet``: as :meth:`stop`) and the reason raised."""
        try:
            await self.client.login(token)
        except discord.LoginFailure:
            await self.client.close()
            raise AdapterError("Discord refused DISCORD_TOKEN (improper token)") from None
        except (discord.HTTPException, OSError) as e:
            await self.client.close()
            raise AdapterError(f"cannot reach Discord: {e}", later=True) from None
        self.reconnects.install()  # discord.py's reconnections: a warning an outage
        self.rate_limits.install()  # and its 429s: the client's storm says them
        self._task = asyncio.create_task(self.client.connect())
        ready = asyncio.create_task(self.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._task, ready}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if self._task in done:
                error = fatal_error(self._task.exception())
            else:
                error = AdapterError(
                    f"Discord's gateway was not ready within {ready_timeout:g} s "
                    "(check DISCORD_GATEWAY_URL, if set, and the network)"
                )
            await self.stop(quiet)
            raise error from None
        self._task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """The connection ended: unless stopping, for good (:meth:`failed` says why)."""
        connected(False)
        if self._stopping:
            return
        error = None if task.cancelled() else task.exception()
        self.fatal.set(fatal_error(error))

    async def failed(self) -> AdapterError:
        """Wait until the connection to Discord ended for good; why, in one line."""
        return await self.fatal.wait()

    async def stop(self, quiet: Callable[[], Awaitable[None]]) -> None:
        """Let the work being done finish (``quiet``: a little while; hardly at all while
        Discord does not answer), then disconnect."""
        self._stopping = True
        self.client.reach.stopping()
        grace = STOP_GRACE if self.client.reach.down else DRAIN
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(quiet(), grace)
        await within(self.client.close(), grace, "closing the connection", log)
        if self._task is not None:  # closing anyway: a wait to reconnect is cut short
            await within(self._task, grace, "ending the gateway connection", log)
        connected(False)
        self.client.storm.stopping()  # a storm going on, said once
        self.reconnects.remove()
        self.rate_limits.remove()

    @contextlib.asynccontextmanager
    async def busy(self) -> AsyncIterator[None]:
        """One interaction (or a timer's move) being handled: :meth:`idle` waits for it."""
        self._working += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._working -= 1
            if not self._working:
                self._idle.set()

    async def idle(self) -> None:
        """Wait until no interaction (or timer's move) is being handled."""
        await self._idle.wait()
