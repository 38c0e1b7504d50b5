"""The requests to Discord that web requests cause, under one budget.

Every request the live board's sign-in makes (the code exchange, who a fresh token
belongs to, an Activity instance) goes through :meth:`Calls.request`:

* it first reserves a call and a possible refusal from the budget every worker shares
  (:mod:`bot.limits.budget`); while the budget is spent, or Discord asked to wait on
  that route (or on every route), nothing is sent and :class:`DiscordBusy` says how
  long to wait;
* Discord's answer settles it: a 4xx keeps its refusal in the budget (401, 403 and 429
  are Discord's invalid requests, counted by :mod:`bot.ops.invalid`), anything else
  gives it back; a 429's wait (``retry_after``, ``Retry-After``,
  ``X-RateLimit-Reset-After``; the whole API at ``X-RateLimit-Global``) and a bucket
  Discord says is empty (``X-RateLimit-Remaining: 0``) hold the route for every worker
  until Discord's time.

The bot's own work on Discord (the gateway and the tables, through discord.py) never
passes here: a spent budget only turns new sign-ins away.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from ..limits.budget import CallBudget
from ..ops.invalid import answered
from ..store import StoreError
from ..store.signin import GLOBAL

log = logging.getLogger(__name__)

#: seconds an exchange or a look-up may take
TIMEOUT = 10.0
#: seconds to come back after the budget's store did not answer
STORE_WAIT = 5.0
#: the longest hold taken from Discord's headers (a broken header holds no longer)
LONGEST_HOLD = 3600.0


class DiscordBusy(Exception):
    """No request may be sent to Discord now: come back in ``wait`` seconds."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"come back in {wait:.1f} s")
        self.wait = wait

    @property
    def seconds(self) -> int:
        """The wait in whole seconds, at least 1 (a ``Retry-After``)."""
        return max(1, math.ceil(self.wait))


class NoAnswer(Exception):
    """Discord could not be asked (unreachable, too slow, or an answer not JSON)."""


@dataclass(frozen=True)
class Answer:
    """Discord's answer: its status and its JSON body (None: not asked for, or none)."""

    status: int
    body: Any


class Calls:
    """The budgeted requests to Discord, on one aiohttp session (``close`` it)."""

    def __init__(self, budget: CallBudget) -> None:
        self.budget = budget
        self._http: aiohttp.ClientSession | None = None
        #: the store behind the budget or the tokens failed at the last ask (told once)
        self._store_failing = False
        #: a wait Discord asked for was told until then (``time.monotonic``)
        self._told_until = 0.0

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT))
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()

    async def request(
        self,
        route: str,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        data: Mapping[str, str] | None = None,
        json_when: tuple[int, ...] = (200,),
    ) -> Answer:
        """``method url`` on ``route`` (``token``, ``me``, ``instance``), once the
        budget lets it; the body read as JSON for the statuses ``json_when``.  Raises
        :class:`DiscordBusy` (nothing sent, or Discord answered 429: nothing done) or
        :class:`NoAnswer`."""
        wait = await self.ask(self.budget.shared, self.budget.reserve, route)
        if wait > 0:
            raise DiscordBusy(wait)
        status: int | None = None
        try:
            async with self._session().request(method, url, headers=headers, data=data) as r:
                status = r.status
                held = await self._settle(route, status, r.headers, await _json(r))
                if held is not None:  # a 429: Discord did nothing; come back after its wait
                    raise DiscordBusy(held)
                body = await r.json(content_type=None) if status in json_when else None
                return Answer(status, body)
        except (aiohttp.ClientError, TimeoutError, ValueError) as e:
            if status is None:  # never answered: Discord refused nothing
                await self.ask(self.budget.shared, self.budget.refund)
            raise NoAnswer(type(e).__name__) from None

    async def _settle(
        self, route: str, status: int, headers: Mapping[str, str], body: Any
    ) -> float | None:
        """Discord's answer told to the budget: its refusal kept or given back, its
        waits held; a 429's wait (None: not a 429)."""
        answered(status, "web")
        if not 400 <= status < 500:
            await self.ask(self.budget.shared, self.budget.refund)
        if status == 429:
            given = body.get("retry_after") if isinstance(body, dict) else None
            wait = max(
                _seconds(given),
                _seconds(headers.get("Retry-After")),
                _seconds(headers.get("X-RateLimit-Reset-After")),
                1.0,
            )
            every = headers.get("X-RateLimit-Global", "").lower() == "true" or (
                isinstance(body, dict) and body.get("global") is True
            )
            await self.ask(self.budget.shared, self.budget.hold, GLOBAL if every else route, wait)
            now = time.monotonic()
            if now >= self._told_until:  # once a wait, however many requests met it
                log.warning(
                    "Discord asked the live board's sign-in to wait %.1f s (%s)",
                    wait,
                    "every request" if every else route,
                )
            self._told_until = max(self._told_until, now + wait)
            return wait
        if headers.get("X-RateLimit-Remaining") == "0":
            reset = _seconds(headers.get("X-RateLimit-Reset-After"))
            if reset > 0:
                await self.ask(self.budget.shared, self.budget.hold, route, reset)
        return None

    async def ask(self, shared: bool, call: Any, *args: Any) -> Any:
        """``call(*args)`` on what the sign-in keeps (the budget, the issued tokens; from
        a thread when ``shared``: kept in a store); a store that fails makes the sign-in
        wait (:class:`DiscordBusy`): Discord is never asked without the budget's leave."""
        try:
            if shared:
                found = await asyncio.to_thread(call, *args)
            else:
                found = call(*args)
        except StoreError as e:
            if not self._store_failing:
                log.warning("the Discord sign-in's store cannot be asked: %s", e)
            self._store_failing = True
            raise DiscordBusy(STORE_WAIT) from None
        if self._store_failing:
            self._store_failing = False
            log.warning("the Discord sign-in's store answers again")
        return found


async def _json(response: aiohttp.ClientResponse) -> Any:
    """A 429's body (Discord's ``retry_after`` and ``global``); None for others."""
    if response.status != 429:
        return None
    try:
        return await response.json(content_type=None)
    except ValueError:
        return None


def _seconds(value: object) -> float:
    """A wait Discord gave (a header or a body's number), in seconds; 0 if none or
    unreadable."""
    if isinstance(value, bool) or value is None:
        return 0.0
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    if not math.isfinite(seconds) or seconds < 0:
        return 0.0
    return min(seconds, LONGEST_HOLD)
