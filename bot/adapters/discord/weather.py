"""Discord refusing calls for a while, as the adapter tells it apart and as operators
read it.

discord.py waits out a 429 itself (as long as Discord says in ``retry_after``, the
whole bot at a global limit, one route at a route's) and tries a 500, 502, 504 or 524
again a few times (after 1, 3, 5, 7 and 9 s) before it raises; the adapter then keeps
the table to show and tries again later (:mod:`.retries`).  What :func:`transient`
calls Discord refusing for a while: a 429 or a 5xx that discord.py gave up on, or no
answer at all.

discord.py logs a warning at every 429 ("We are being rate limited..."): during a
storm, one per call and per try.  :class:`RateLimitFilter` drops those; the trace of
discord.py's HTTP session (:func:`answers_trace`) sees every answer instead, counts
the 429s (``RATE_LIMITED``) and tells the client's :class:`~..storm.Storm`, which says
a storm in at most three lines.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

import aiohttp
import discord

from ...ops.invalid import answered as invalid_or_not
from ...ops.metrics import RATE_LIMITED
from ..storm import Storm, refusal

PLATFORM = "discord"
#: how many requests' 5xx in a row are remembered
KEPT = 1024
#: the beginnings of discord.py's warnings about a 429 (its logger: ``discord.http``)
RATE_LIMIT_WARNINGS = ("We are being rate limited.", "Global rate limit has been hit.")


def transient(error: BaseException) -> bool:
    """Whether ``error`` is Discord refusing a call for a while (a 429 or a 5xx that
    discord.py gave up on) or not answering it: the call may work later."""
    if isinstance(error, discord.RateLimited):
        return True
    if isinstance(error, discord.HTTPException):
        return refusal(error.status)
    return isinstance(error, aiohttp.ClientError | OSError | TimeoutError)


def retry_after(error: BaseException) -> float | None:
    """How long Discord asked to wait (a 429), in seconds; None if it did not say."""
    if isinstance(error, discord.RateLimited):
        return float(error.retry_after)
    if isinstance(error, discord.HTTPException) and error.status == 429:
        return _seconds(getattr(error.response, "headers", {}).get("Retry-After"))
    return None


def answers_trace(storm: Storm) -> aiohttp.TraceConfig:
    """A trace of discord.py's REST calls (its ``http_trace``): every 429 counted in
    ``RATE_LIMITED``, every 401, 403 and 429 in Discord's invalid requests
    (:mod:`bot.ops.invalid`), every 429 or 5xx told to ``storm`` (with Discord's
    ``Retry-After``), every success too (the end of a storm)."""

    #: the 5xx in a row of each request (discord.py waits 1, 3, 5... s before each retry)
    tries: dict[str, int] = {}

    async def answered(
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        status = params.response.status
        request = f"{params.method} {params.url.path}"
        invalid_or_not(status, "bot")
        if status == 429:
            RATE_LIMITED.labels(PLATFORM).inc()
            storm.refused(status, request, _seconds(params.response.headers.get("Retry-After")))
        elif refusal(status):
            storm.refused(status, request)
            if len(tries) > KEPT:
                tries.clear()
            n = tries[request] = tries.get(request, 0) + 1
            storm.waiting(2.0 * n - 1)  # the storm is not over before discord.py tried again
        elif 200 <= status < 300:
            tries.pop(request, None)
            storm.answered()

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(answered)
    return trace


def _seconds(header: str | None) -> float | None:
    try:
        return float(header) if header is not None else None
    except ValueError:
        return None


class RateLimitFilter(logging.Filter):
    """Drops discord.py's warning at each 429 (the client's storm says it once)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(RATE_LIMIT_WARNINGS))

    def install(self) -> None:
        logging.getLogger("discord.http").addFilter(self)

    def remove(self) -> None:
        logging.getLogger("discord.http").removeFilter(self)
