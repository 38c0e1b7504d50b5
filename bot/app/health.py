"""An optional HTTP port for operators: ``/healthz`` and ``/metrics``.

``/metrics`` is the Prometheus text format of :data:`bot.metrics.REGISTRY`;
``/healthz`` runs the checks it was given (the runner decides which: the store
answers, every platform is connected) and answers 200 with
``{"status": "ok", "checks": {"store": "ok", ...}}``, or 503 with
``"status": "failing"`` and, for each check that failed, what is wrong.

The server is the standard library's asyncio streams, in the bot's own event
loop: two fixed GET paths need no web framework, and nothing here blocks the
loop (a check that may block runs in a thread, with a timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from ..metrics import REGISTRY, STORE_UP
from ..store import Store
from .config import Settings

log = logging.getLogger(__name__)

#: a health check: True when all is well; False, or an exception saying what is
#: wrong, when not.  A plain function runs in a thread (it may block: a store
#: call); a coroutine function is awaited in the loop.
Check = Callable[[], bool] | Callable[[], Awaitable[bool]]

#: seconds a check may take before it counts as failed
CHECK_TIMEOUT = 2.0
#: seconds a client has to send its request
READ_TIMEOUT = 5.0
#: the most header lines a request may have
MAX_HEADERS = 100
#: the channel the store check looks up (no game is ever there)
PROBE_CHANNEL = "ludo-bot:healthz"


class HealthError(Exception):
    """The health server cannot start (e.g. its port is taken); says which port."""


class HealthServer:
    """The running server: where it listens, and :meth:`close`."""

    def __init__(self, server: asyncio.Server, host: str, port: int) -> None:
        self.server = server
        self.host = host
        #: the port it listens on (the one given, or the one chosen for port 0)
        self.port = port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def close(self) -> None:
        """Stop listening and end the connections."""
        self.server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.server.wait_closed(), READ_TIMEOUT)


async def start_health(
    host: str,
    port: int,
    checks: Mapping[str, Check],
    *,
    registry: CollectorRegistry = REGISTRY,
    timeout: float = CHECK_TIMEOUT,
) -> HealthServer:
    """Serve ``/healthz`` (running ``checks``) and ``/metrics`` (``registry``) on
    ``host``:``port`` until the returned server is closed.  Port 0 picks a free
    port (see :attr:`HealthServer.port`).  Raises HealthError if it cannot listen."""
    checks = dict(checks)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _answer(reader, writer, checks, registry, timeout)
            await writer.drain()
        except (ConnectionError, TimeoutError, ValueError, asyncio.IncompleteReadError):
            pass  # a client that went away, was too slow, or sent too much
        except Exception:
            log.exception("the health server failed to answer a request")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    try:
        server = await asyncio.start_server(handle, host, port)
    except OSError as e:
        raise HealthError(
            f"cannot serve /healthz and /metrics on {host}:{port} (LUDO_HEALTH_HOST, "
            f"LUDO_HEALTH_PORT): {e.strerror or e}"
        ) from None
    bound = server.sockets[0].getsockname()[1] if server.sockets else port
    health = HealthServer(server, host, int(bound))
    log.info("health and metrics at %s/healthz and %s/metrics", health.url, health.url)
    return health


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
    except Exception as e:
        return str(e) or type(e).__name__
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

    def check() -> bool:
        try:
            store.channel_game(PROBE_CHANNEL)
        except Exception as e:
            if outage is not None:
                outage.failed(e)
            else:
                STORE_UP.set(0)
            raise
        if outage is not None:
            outage.answered()
        else:
            STORE_UP.set(1)
        return True

    return check


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


async def _answer(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    checks: Mapping[str, Check],
    registry: CollectorRegistry,
    timeout: float,
) -> None:
    request = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
    for _ in range(MAX_HEADERS + 1):
        line = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
        if line in (b"\r\n", b"\n", b""):
            break
    else:
        return _respond(writer, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, b"", "text/plain")
    parts = request.decode("latin-1").split()
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        return _respond(writer, HTTPStatus.BAD_REQUEST, b"bad request\n", "text/plain")
    method, target = parts[0], parts[1]
    path = target.split("?", 1)[0]
    if path not in ("/healthz", "/metrics"):
        return _respond(writer, HTTPStatus.NOT_FOUND, b"not found: try /healthz or /metrics\n")
    if method not in ("GET", "HEAD"):
        return _respond(writer, HTTPStatus.METHOD_NOT_ALLOWED, b"GET only\n", allow="GET, HEAD")
    if path == "/metrics":
        body = generate_latest(registry)
        return _respond(writer, HTTPStatus.OK, body, CONTENT_TYPE_LATEST, head=method == "HEAD")
    results = await run_checks(checks, timeout)
    ok = all(r == "ok" for r in results.values())
    answer = {"status": "ok" if ok else "failing", "checks": results}
    body = (json.dumps(answer) + "\n").encode()
    status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
    _respond(writer, status, body, "application/json", head=method == "HEAD")


def _respond(
    writer: asyncio.StreamWriter,
    status: HTTPStatus,
    body: bytes,
    content_type: str = "text/plain; charset=utf-8",
    *,
    head: bool = False,
    allow: str | None = None,
) -> None:
    headers = [
        f"HTTP/1.1 {status.value} {status.phrase}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
        "Cache-Control: no-store",
        "Connection: close",
    ]
    if allow:
        headers.append(f"Allow: {allow}")
    writer.write(("\r\n".join(headers) + "\r\n\r\n").encode("latin-1"))
    if not head:
        writer.write(body)
