"""The fake Discord's rate limits on the sign-in's routes, as Discord documents them
("Rate Limits"): every answer carries its bucket's headers (``X-RateLimit-Limit``,
``-Remaining``, ``-Reset``, ``-Reset-After``, ``-Bucket``), and a request past the
route's rate is answered **429** with ``retry_after`` in the body and the headers
``Retry-After`` (whole seconds, rounded up), ``X-RateLimit-Scope: user`` and ``Via``.

A bucket is the route's (``token``: the code exchange; ``instance``: the Activity
instances, the bot's) or, for ``me`` (who an access token is), each token's own, as
Discord counts per token.  A request in a bucket that was answered 429 less than its
``retry_after`` ago (beyond :data:`~tests.fakes.discord.storms.GRACE`, a request on its
way already) is answered 429 again and kept in :attr:`RouteLimits.route_early`: the
bot did not wait as Discord asked.

:meth:`RouteLimits.invalid` lists what Discord counts against an address: the requests
answered 401, 403 or 429.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import CALL, RestCall, json_response
from tests.fakes.discord.storms import GRACE

#: Discord's invalid requests
INVALID = frozenset({401, 403, 429})
#: each sign-in route's rate unless a test sets another: (requests, per seconds)
ROUTE_RATES: dict[str, tuple[int, float]] = {
    "token": (10, 1.0),
    "me": (5, 1.0),
    "instance": (10, 1.0),
}


@dataclass
class RouteBucket:
    """A bucket's window: ``used`` requests since ``began``; none before ``held``."""

    limit: int
    per: float
    began: float
    used: int = 0
    held: float = 0.0
    #: when the last 429 was answered
    told: float = 0.0


class RouteLimits:
    """The rate limits of the sign-in's routes (mixed into the fake)."""

    calls: list[RestCall]
    #: each route's rate: (requests, per seconds)
    route_rates: dict[str, tuple[int, float]]
    #: each bucket's window, by name (``route:key``)
    route_buckets: dict[str, RouteBucket]
    #: requests made in a bucket before the time its 429 gave
    route_early: list[RestCall]

    def route_limit(self, route: str, limit: int, per: float) -> None:
        """``route`` (``token``, ``me``, ``instance``) takes ``limit`` requests every
        ``per`` seconds from now on."""
        self.route_rates[route] = (limit, per)
        self.route_buckets.clear()

    def invalid(self, since: int = 0) -> list[RestCall]:
        """The requests (from ``calls[since]`` on) Discord counts as invalid."""
        return [c for c in self.calls[since:] if c.status in INVALID]

    def _route(
        self, request: web.Request, route: str, key: str = ""
    ) -> web.Response | dict[str, str]:
        """A request on ``route`` (its bucket ``key`` within it): its headers to add, or
        the 429 to answer."""
        limit, per = self.route_rates[route]
        name = f"{route}:{key}"
        now = time.monotonic()
        bucket = self.route_buckets.get(name)
        if bucket is None or now >= bucket.began + bucket.per:
            old = bucket
            bucket = self.route_buckets[name] = RouteBucket(limit, per, now)
            if old is not None:
                bucket.held, bucket.told = old.held, old.told
        if now < bucket.held:
            if now > bucket.told + GRACE:
                self.route_early.append(request[CALL])
            return self._route_refused(bucket, name, bucket.held - now)
        if bucket.used >= bucket.limit:
            wait = bucket.began + bucket.per - now
            bucket.held, bucket.told = now + wait, now
            return self._route_refused(bucket, name, wait)
        bucket.used += 1
        return self._route_headers(bucket, name, now)

    def _route_headers(self, bucket: RouteBucket, name: str, now: float) -> dict[str, str]:
        reset_after = max(0.0, bucket.began + bucket.per - now)
        return {
            "X-RateLimit-Limit": str(bucket.limit),
            "X-RateLimit-Remaining": str(max(0, bucket.limit - bucket.used)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": name.split(":")[0],
        }

    def _route_refused(self, bucket: RouteBucket, name: str, wait: float) -> web.Response:
        body: dict[str, Any] = {
            "message": "You are being rate limited.",
            "retry_after": round(wait, 3),
            "global": False,
            "code": 0,
        }
        response = json_response(body, status=429)
        bucket.used = bucket.limit
        response.headers.update(self._route_headers(bucket, name, time.monotonic()))
        response.headers["X-RateLimit-Remaining"] = "0"
        response.headers["Retry-After"] = str(max(1, math.ceil(wait)))
        response.headers["X-RateLimit-Scope"] = "user"
        response.headers["Via"] = "1.1 google"
        return response
