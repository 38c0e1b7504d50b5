"""The Bot API as operators see it: every HTTP answer watched.

python-telegram-bot's HTTP client (:class:`WatchedRequest`, one for the bot's calls
and one for ``getUpdates``) tells a :class:`Watch` the status of every answer:
429 (Telegram telling the bot to slow down, waited out by the rate limiter or
the polling loop) is counted in ``RATE_LIMITED``; a token Telegram no longer
takes (401, or 404 to ``getUpdates``) ends the adapter for good (its
:class:`~bot.adapters.faults.Fatal`); and the bot counts as connected while
``getUpdates`` is answered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from telegram.error import InvalidToken, NetworkError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from ...metrics import PLATFORM_UP, RATE_LIMITED
from ..faults import AdapterError, Fatal
from .updates import PLATFORM

#: updates handled at once: a handler never waits for a chat's send limit (it puts
#: the chat's work in its outbox), only for the store
CONCURRENT = 32
#: the one line a token Telegram stopped taking ends the bot with
REVOKED = (
    "Telegram no longer accepts TELEGRAM_TOKEN (revoked or replaced in @BotFather): "
    "set TELEGRAM_TOKEN to the bot's current token"
)


def connected(up: bool) -> None:
    """Telegram is reachable now (updates arrive), or not."""
    PLATFORM_UP.labels(PLATFORM).set(1 if up else 0)


class WatchedRequest(HTTPXRequest):
    """python-telegram-bot's HTTP client, telling ``seen`` the status of every answer
    (None: no answer, the network failed)."""

    __slots__ = ("_seen",)

    def __init__(self, seen: Callable[[int | None], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._seen = seen

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        try:
            code, payload = await super().do_request(
                url,
                method,
                request_data,
                read_timeout=read_timeout,
                write_timeout=write_timeout,
                connect_timeout=connect_timeout,
                pool_timeout=pool_timeout,
            )
        except NetworkError:
            self._seen(None)
            raise
        self._seen(code)
        return code, payload


class Watch:
    """What the answers of the Bot API say about the bot (see the module's doc)."""

    def __init__(self, fatal: Fatal) -> None:
        self.fatal = fatal
        #: the adapter is running (a token refused at start is start's to report)
        self.running = False

    def application(
        self, token: str, api_url: str | None, overall_rate: float, max_retries: int
    ) -> Application[Any, Any, Any, Any, Any, Any]:
        """python-telegram-bot's ``Application`` for ``token``, its calls watched, at most
        ``overall_rate`` calls a second (a 429 retried ``max_retries`` times)."""
        builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
            Application.builder()
            .token(token)
            .concurrent_updates(CONCURRENT)
            .request(self.request(polling=False))
            .get_updates_request(self.request(polling=True))
        )
        if api_url:
            root = api_url.rstrip("/")
            builder = builder.base_url(f"{root}/bot").base_file_url(f"{root}/file/bot")
        builder = builder.rate_limiter(
            AIORateLimiter(overall_max_rate=overall_rate, group_max_rate=0, max_retries=max_retries)
        )
        quiet_revoked_token()
        return builder.build()

    def request(self, *, polling: bool) -> WatchedRequest:
        """The HTTP client for the bot's calls, or (``polling``) for ``getUpdates``:
        python-telegram-bot's defaults (256 connections; 1 for ``getUpdates``)."""
        return WatchedRequest(
            partial(self.seen, polling), connection_pool_size=1 if polling else 256
        )

    def seen(self, polling: bool, status: int | None) -> None:
        """A call was answered with ``status`` (None: not at all)."""
        if status == 429:
            RATE_LIMITED.labels(PLATFORM).inc()
        if not self.running:
            return
        if status == 401 or (polling and status == 404):
            connected(False)
            self.fatal.set(AdapterError(REVOKED))
        elif polling:
            connected(status == 200)


class RevokedTokenFilter(logging.Filter):
    """Keeps python-telegram-bot's polling loop from logging a traceback when Telegram
    refuses the token: the adapter reports that itself, in one line (:data:`REVOKED`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], InvalidToken))


def quiet_revoked_token() -> None:
    """Install :class:`RevokedTokenFilter` on the polling loop's logger (once)."""
    logger = logging.getLogger("telegram.ext")
    if not any(isinstance(f, RevokedTokenFilter) for f in logger.filters):
        logger.addFilter(RevokedTokenFilter())
