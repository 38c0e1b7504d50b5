"""The bot's one web server (``aiohttp.web``): ``/healthz`` and ``/metrics``
(:mod:`.health`) and whatever routes the adapters give (the Telegram webhook)
and the live board's (:mod:`bot.web`), on one port.

What it holds against a client that misbehaves:

* a body over :data:`MAX_BODY` is refused (``client_max_size``; a route may
  refuse it sooner, before reading it); a refused body is never drained
  (``lingering_time`` 0): the connection is closed;
* a connection that sends no whole request within :data:`IDLE_SECONDS`
  (nothing, part of its headers, or nothing more after an answer) is closed
  (aiohttp's keep-alive timer runs from the connection's start);
* at most :data:`MAX_CONNECTIONS` connections at once: one more is closed as it
  comes (counted when accepted; a burst accepted in one go may pass by a few).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from prometheus_client import CollectorRegistry

from ..ops.metrics import REGISTRY
from ..web.pages import accepts_gzip
from .health import CHECK_TIMEOUT, Check, health_routes

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: the largest request body taken, in bytes
MAX_BODY = 1024 * 1024
#: seconds a connection may wait for a whole request (idle, or its headers still coming)
IDLE_SECONDS = 5.0
#: connections served at once; more are closed at once
MAX_CONNECTIONS = 100
#: seconds ``close`` lets the requests being answered finish
CLOSE_SECONDS = 5.0


#: answers at least this long are gzipped for a client that takes it (JSON, text)
COMPRESS_FROM = 1024
#: the types worth compressing
COMPRESSIBLE = ("application/json", "text/")


@web.middleware
async def compress(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A long JSON or text answer made by a route (the board's game, its errors,
    /metrics) gzipped when the client takes gzip (aiohttp's own compression).  An
    answer whose route chose its encoding itself (it says ``Vary: Accept-Encoding``:
    the board's files, gzipped once), and sockets, pass as they are."""
    response = await handler(request)
    if (
        type(response) is web.Response
        and isinstance(response.body, bytes)
        and len(response.body) >= COMPRESS_FROM
        and "Accept-Encoding" not in response.headers.get("Vary", "")
        and "Content-Encoding" not in response.headers
        and response.content_type.startswith(COMPRESSIBLE)
    ):
        response.headers.add("Vary", "Accept-Encoding")
        if accepts_gzip(request.headers.get("Accept-Encoding", "")):
            response.enable_compression(web.ContentCoding.gzip)
    return response


class WebError(Exception):
    """The web server cannot start (e.g. its port is taken); says which port."""


class WebServer:
    """The running server: where it listens, and :meth:`close`."""

    def __init__(self, runner: web.AppRunner, host: str, port: int) -> None:
        self.runner = runner
        self.host = host
        #: the port it listens on (the one given, or the one chosen for port 0)
        self.port = port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def close(self) -> None:
        """Stop listening and end the connections."""
        await self.runner.cleanup()


class _Refused(asyncio.Protocol):
    """A connection over the cap: closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


class _CappedSite(web.TCPSite):
    """A TCP site that closes a connection beyond ``cap`` at once."""

    __slots__ = ("_cap",)

    def __init__(self, runner: web.AppRunner, host: str, port: int, cap: int) -> None:
        super().__init__(runner, host, port)
        self._cap = cap

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner
        server = self._runner.server
        assert server is not None

        def protocol() -> asyncio.BaseProtocol:
            if len(server.connections) >= self._cap:
                return _Refused()
            return server()

        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            protocol, self._host, self._port, backlog=self._backlog, reuse_address=True
        )
        self._bound_port = self._server.sockets[0].getsockname()[1]


class _OneLine(logging.Filter):
    """aiohttp's log of a request it could not parse: one short warning, no traceback
    (a bug of a route still logs its traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):  # a client's fault, not the bot's
            record.msg = f"{record.msg}: %.120s"
            record.args = (*(record.args or ()), f"{type(error).__name__}: {error}")
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_HTTP_LOG = logging.getLogger("bot.app.web.http")
_HTTP_LOG.addFilter(_OneLine())


async def start_web(
    host: str,
    port: int,
    checks: Mapping[str, Check],
    *,
    routes: Sequence[web.RouteDef] = (),
    registry: CollectorRegistry = REGISTRY,
    timeout: float = CHECK_TIMEOUT,
    store_kind: str | None = None,
    warnings: Callable[[], Mapping[str, str]] | None = None,
    max_connections: int = MAX_CONNECTIONS,
    idle: float = IDLE_SECONDS,
) -> WebServer:
    """Serve ``/healthz`` (running ``checks``), ``/metrics`` (``registry``) and
    ``routes`` on ``host``:``port`` until the returned server is closed.  Port 0
    picks a free port (see :attr:`WebServer.port`).  Raises WebError if it
    cannot listen."""
    app = web.Application(client_max_size=MAX_BODY, middlewares=[compress])
    app.add_routes(
        health_routes(
            checks, registry=registry, timeout=timeout, store_kind=store_kind, warnings=warnings
        )
    )
    app.add_routes(list(routes))
    runner = web.AppRunner(
        app,
        access_log=None,
        shutdown_timeout=CLOSE_SECONDS,
        handler_cancellation=True,
        keepalive_timeout=idle,
        lingering_time=0,
        logger=_HTTP_LOG,
    )
    await runner.setup()
    site = _CappedSite(runner, host, port, max_connections)
    board = any(getattr(r, "path", "").startswith("/board") for r in routes)
    hook = any(not getattr(r, "path", "/").startswith(("/board", "/api/")) for r in routes)
    served = _served(hook, board)
    try:
        await site.start()
    except OSError as e:
        await runner.cleanup()
        raise _cannot_serve(host, port, served, e) from None
    server = WebServer(runner, host, site.port)
    log.info("serving %s at %s", served, server.url)
    return server


def _served(webhook: bool, board: bool = False) -> str:
    parts = ["/healthz", "/metrics"] + ["the Telegram webhook"] * webhook + ["the board"] * board
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _cannot_serve(host: str, port: int, served: str, e: OSError) -> WebError:
    return WebError(
        f"cannot serve {served} on {host}:{port} (LUDO_WEB_HOST, LUDO_WEB_PORT): {e.strerror or e}"
    )


async def check_port(host: str, port: int, *, webhook: bool = False) -> None:
    """Refuse, before anything is made, a port the web server could not listen on
    (taken, or not allowed): the WebError :func:`start_web` would raise."""
    try:
        server = await asyncio.get_running_loop().create_server(
            asyncio.Protocol, host, port, reuse_address=True
        )
    except OSError as e:
        raise _cannot_serve(host, port, _served(webhook), e) from None
    server.close()
    await server.wait_closed()
