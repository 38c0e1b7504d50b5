"""``/healthz`` and ``/metrics``: what operators ask the bot's web server (:mod:`.web`).

``/metrics`` is the Prometheus text format of :data:`bot.ops.metrics.REGISTRY`;
``/healthz`` runs the checks it was given (the runner decides which: the store
answers, every platform is connected) and answers 200 with
``{"status": "ok", "checks": {"store": "ok", ...}}``, or 503 with
``"status": "failing"`` and, for each check that failed, what is wrong.  With
the store's kind given, ``"store_kind": "redis"`` (or ``"sqlite"``) says which
store it is; never where it is: the store check says only ``"unreachable"``,
``"no answer in time"`` or ``"failing"`` (no host, port, database or password), or,
when an SQLite store reads but cannot write, ``"cannot be written: the disk is full"``.
What works, but less surely than it should, is told under ``"warnings"`` with the
status still 200: ``{"store": "writes not confirmed by 1 replica(s) within 500 ms
for 12 s"}`` (:func:`store_warnings`), and ``{"discord": "612 requests answered 401, 403
or 429 in the last 10 minutes..."}`` (:mod:`bot.ops.invalid`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from ..ops.invalid import warnings as discord_warnings
from ..ops.metrics import REGISTRY, STORE_UP
from ..store import Store, StoreError, StoreUnavailable
from ..store.redis.ops import redact_text
from .config import Settings

log = logging.getLogger(__name__)

#: a health check: True when all is well; False, or an exception saying what is
#: wrong, when not.  A plain function runs in a thread (it may block: a store
#: call); a coroutine function is awaited in the loop.
Check = Callable[[], bool] | Callable[[], Awaitable[bool]]

#: seconds a check may take before it counts as failed
CHECK_TIMEOUT = 2.0
#: the channel the store check looks up (no game is ever there)
PROBE_CHANNEL = "ludo-bot:healthz"


class StoreDown(Exception):
    """What the store check says when the store does not answer: its state only."""


def health_routes(
    checks: Mapping[str, Check],
    *,
    registry: CollectorRegistry = REGISTRY,
    timeout: float = CHECK_TIMEOUT,
    store_kind: str | None = None,
    warnings: Callable[[], Mapping[str, str]] | None = None,
) -> list[web.RouteDef]:
    """``GET /healthz`` (running ``checks``) and ``GET /metrics`` (``registry``);
    HEAD too, other methods 405."""
    checks = dict(checks)

    async def healthz(request: web.Request) -> web.Response:
        results = await run_checks(checks, timeout)
        ok = all(r == "ok" for r in results.values())
        answer: dict[str, object] = {"status": "ok" if ok else "failing", "checks": results}
        if store_kind is not None:
            answer["store_kind"] = store_kind
        if warnings is not None and (told := dict(warnings())):
            answer["warnings"] = told  # all works, less surely than it should: still 200
        return web.Response(
            status=200 if ok else 503,
            body=(json.dumps(answer) + "\n").encode(),
            content_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    async def metrics(request: web.Request) -> web.Response:
        body = generate_latest(registry)
        response = web.Response(body=body, headers={"Cache-Control": "no-store"})
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    return [web.get("/healthz", healthz), web.get("/metrics", metrics)]


def store_warnings(store: Store) -> dict[str, str]:
    """What ``/healthz`` warns of the store without failing: writes that the replicas
    do not confirm (see :mod:`bot.store.redis.wait`)."""
    replication = getattr(store, "replication", None)
    said = replication.status() if replication is not None else None
    return {"store": said} if said else {}


def health_warnings(store: Store) -> dict[str, str]:
    """Everything ``/healthz`` warns of without failing: the store's unconfirmed writes,
    and Discord's invalid requests nearing its limit (:mod:`bot.ops.invalid`)."""
    return {**store_warnings(store), **discord_warnings()}


def store_kind(store: Store) -> str:
    """The store's kind for ``/healthz``: ``redis``, ``sqlite`` (never its address)."""
    name = type(store).__name__.lower()
    return name.removesuffix("store") or name


async def run_checks(checks: Mapping[str, Check], timeout: float = CHECK_TIMEOUT) -> dict[str, str]:
    """Every check's result, run at once: ``"ok"``, or what is wrong."""
    names = list(checks)
    results = await asyncio.gather(*(_run(checks[n], timeout) for n in names))
    return dict(zip(names, results, strict=True))


async def _run(check: Check, timeout: float) -> str:
    try:
        ok = await asyncio.wait_for(_call(check), timeout)
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except Exception as e:  # a URL in it is told without its password
        return redact_text(str(e)) or type(e).__name__
    return "ok" if ok else "failing"


async def _call(check: Check) -> object:
    if inspect.iscoroutinefunction(check):
        result: object = check()
    else:  # it may block: not in the loop
        result = await asyncio.to_thread(check)
    if inspect.isawaitable(result):
        result = await result
    return result


class Outage(Protocol):
    """What hears of the store's answers (``GameService.outage``)."""

    def failed(self, error: BaseException) -> None: ...

    def answered(self) -> None: ...


def store_check(store: Store, outage: Outage | None = None) -> Callable[[], bool]:
    """A check that the store answers a cheap read.  Its result goes to ``outage``
    if given (which logs an outage's start and end and sets ``ludo_store_reachable``),
    else straight to ``ludo_store_reachable``."""

    trouble: Callable[[], str | None] = getattr(store, "write_trouble", lambda: None)

    def check() -> bool:
        try:
            store.channel_game(PROBE_CHANNEL)
        except Exception as e:
            if outage is not None:
                outage.failed(e)
            else:
                STORE_UP.set(0)
            raise StoreDown(_state(e)) from None
        if outage is not None:
            outage.answered()
        else:
            STORE_UP.set(1)
        if (said := trouble()) is not None:  # it reads, but cannot write (a full disk)
            raise StoreDown(said)
        return True

    return check


def _state(error: Exception) -> str:
    """The store's state for ``/healthz``: never the error's text (it names the server)."""
    if isinstance(error, StoreUnavailable):
        return "no answer in time" if error.kind == "timeout" else "unreachable"
    return "failing" if isinstance(error, StoreError) else "unreachable"


def platform_check(platform: str, registry: CollectorRegistry = REGISTRY) -> Callable[[], bool]:
    """A check that ``ludo_platform_connected{platform=...}`` is 1 (the adapters set it)."""

    def check() -> bool:
        value = registry.get_sample_value("ludo_platform_connected", {"platform": platform})
        if value != 1:
            raise ConnectionError("not connected")
        return True

    return check


def health_checks(
    settings: Settings, store: Store, outage: Outage | None = None
) -> dict[str, Check]:
    """The checks of ``/healthz`` for these settings: ``store`` answers, and each
    configured platform is connected (``ludo_platform_connected``)."""
    checks: dict[str, Check] = {"store": store_check(store, outage)}
    if settings.telegram_token:
        checks["telegram"] = platform_check("telegram")
    if settings.discord_token:
        checks["discord"] = platform_check("discord")
    return checks
