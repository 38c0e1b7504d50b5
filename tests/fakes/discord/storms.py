"""Discord answering errors for a while: a storm of 429s, 500s or 502s (:meth:`Storms.storm`).

What the fake answers, as Discord documents it ("Rate Limits"):

* **429** ``{"message": "You are being rate limited.", "retry_after": R, "global": G,
  "code": 0}`` with the headers ``Retry-After`` (whole seconds, rounded up),
  ``X-RateLimit-Global`` (a global limit), ``X-RateLimit-Scope`` (``global`` or
  ``user``) and ``Via`` (it comes through Discord's proxy; discord.py takes a 429
  without it for a Cloudflare ban).  A global limit holds every request of the bot but
  the interaction endpoints ("not bound to the bot's Global Rate Limit"); a route's
  limit, that method and path.  A request there before ``R`` seconds have passed since
  the 429 was answered is answered 429 again and kept in :attr:`Storms.early` (one that
  arrives within :data:`GRACE` of it was on its way already and is not counted);
* **500** ``{"message": "500: Internal Server Error", "code": 0}``;
* **502** an HTML page, as Discord's edge answers when the API behind it does not.

A 5xx storm may hide a success (``took_effect``): the request is done and answered 5xx
all the same.  Message nonces (``nonce`` with ``enforce_nonce``) make a post safe to
repeat: a second post with the nonce of a message the bot posted in the channel within
:data:`NONCE_SECONDS` answers that message and posts nothing.
"""

from __future__ import annotations

import contextlib
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import DiscordError, RestCall, json_response

#: a request arriving this soon after a 429 was answered was on its way already
GRACE = 0.1
#: how long Discord remembers a message's nonce ("the past few minutes")
NONCE_SECONDS = 120.0
#: the interaction endpoints: not bound to the global rate limit
INTERACTIONS = re.compile(r"/interactions/\d+/[^/]+/callback|/webhooks/\d+/[^/]+(/.*)?")
BAD_GATEWAY = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n"
    b"</body>\r\n</html>\r\n"
)


@dataclass
class Storm:
    """Requests (all, or ``method`` to a path matching ``pattern``) answered ``status``
    from ``began`` to ``until`` (``time.monotonic``)."""

    status: int
    began: float
    until: float
    retry_after: float = 1.0
    #: a 429: Discord's global limit (else the route's)
    is_global: bool = True
    method: str | None = None
    pattern: re.Pattern[str] | None = None
    took_effect: bool = False
    #: the requests it refused
    refused: list[RestCall] = field(default_factory=list)

    def covers(self, call: RestCall) -> bool:
        if not self.began <= call.at < self.until:
            return False
        if self.status == 429 and self.is_global and INTERACTIONS.fullmatch(call.path):
            return False
        if self.method is not None and call.method != self.method:
            return False
        return self.pattern is None or self.pattern.fullmatch(call.path) is not None

    @property
    def over(self) -> bool:
        return time.monotonic() >= self.until


class Storms:
    """The storms of the fake, and the waits its 429s asked for (mixed into
    :class:`~tests.fakes.discord.FakeDiscord`)."""

    storms: list[Storm]
    #: requests made before the retry_after of a 429 that holds them had passed
    early: list[RestCall]
    #: "global" or "METHOD path" -> (when the 429 was answered, until when it holds)
    waits: dict[str, tuple[float, float]]

    def storm(
        self,
        status: int,
        seconds: float,
        *,
        retry_after: float = 1.0,
        is_global: bool = True,
        method: str | None = None,
        pattern: str | None = None,
        took_effect: bool = False,
    ) -> Storm:
        """From now on for ``seconds``, answer requests (all, or ``method`` to a path
        matching ``pattern``) with ``status``: 429 (``retry_after``, a global limit or
        the route's), 500 or 502; ``took_effect``: a 5xx after doing the request."""
        assert status in (429, 500, 502), status
        assert not (took_effect and status == 429)
        now = time.monotonic()
        rx = re.compile(pattern) if pattern is not None else None
        storm = Storm(status, now, now + seconds, retry_after, is_global, method, rx, took_effect)
        self.storms.append(storm)
        return storm

    async def _weather(
        self,
        call: RestCall,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse | None:
        """The answer to a request in a storm, or while a 429 holds it; None: neither."""
        route = f"{call.method} {call.path}"
        exempt = INTERACTIONS.fullmatch(call.path) is not None
        for scope in (route,) if exempt else ("global", route):
            held = self.waits.get(scope)
            if held is not None and call.at < held[1]:
                if call.at > held[0] + GRACE:
                    self.early.append(call)
                return await self._too_many(call, scope, held[1] - call.at)
        storm = next((s for s in self.storms if s.covers(call)), None)
        if storm is None:
            return None
        storm.refused.append(call)
        if storm.status == 429:
            return await self._too_many(
                call, "global" if storm.is_global else route, storm.retry_after
            )
        if storm.took_effect:
            with contextlib.suppress(DiscordError):  # done as far as it goes
                await handler(request)
        call.status = storm.status
        await self.changed()
        if storm.status == 500:
            return json_response({"message": "500: Internal Server Error", "code": 0}, 500)
        return web.Response(body=BAD_GATEWAY, status=502, content_type="text/html")

    async def _too_many(self, call: RestCall, scope: str, seconds: float) -> web.Response:
        is_global = scope == "global"
        body = {
            "message": "You are being rate limited.",
            "retry_after": round(seconds, 3),
            "global": is_global,
            "code": 0,
        }
        answer = json_response(body, 429)
        answer.headers["Retry-After"] = str(max(1, math.ceil(seconds)))
        answer.headers["X-RateLimit-Scope"] = "global" if is_global else "user"
        if is_global:
            answer.headers["X-RateLimit-Global"] = "true"
        answer.headers["Via"] = "1.1 google"
        call.status = 429
        answered = time.monotonic()
        self.waits[scope] = (answered, answered + seconds)
        await self.changed()
        return answer

    def nonced(self, channel_id: int, body: dict[str, Any]) -> Any:
        """The message a post with ``body``'s nonce (enforced) made in the channel lately,
        if any (Discord answers it instead of posting again)."""
        nonce = body.get("nonce")
        if nonce is None:
            return None
        if len(str(nonce)) > 25:
            raise DiscordError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "nonce": {
                        "_errors": [
                            {
                                "code": "BASE_TYPE_MAX_LENGTH",
                                "message": "Must be 25 or fewer in length.",
                            }
                        ]
                    }
                },
            )
        key = (channel_id, str(nonce))
        prior = self.nonces.get(key) if body.get("enforce_nonce") else None
        if prior is not None and time.monotonic() - prior.created < NONCE_SECONDS:
            return prior
        return None
