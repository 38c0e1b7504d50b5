"""The Bot API as operators see it: every HTTP answer watched.

python-telegram-bot's HTTP client (:class:`WatchedRequest`, one for the bot's calls
and one for ``getUpdates``) tells a :class:`Watch` the status of every answer:
429 (Telegram telling the bot to slow down, waited out by the rate limiter or
the polling loop) is counted in ``RATE_LIMITED``; a token Telegram no longer
takes (401, or 404 to ``getUpdates``) ends the adapter for good (its
:class:`~bot.adapters.faults.Fatal`); and the bot counts as connected while
``getUpdates`` is answered.  While it is not (Telegram unreachable, or refusing
the polling), the polling loop retries quietly: one warning when it begins and
one when it ends (:class:`~bot.adapters.reach.Reach`), no traceback per retry
(:class:`PollingFilter`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from telegram import Bot
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder
from telegram.request import BaseRequest, HTTPXRequest, RequestData

from ...ops.metrics import PLATFORM_UP, RATE_LIMITED
from ..faults import AdapterError, Fatal
from ..reach import Reach
from .updates import PLATFORM

log = logging.getLogger("bot.adapters.telegram")

#: updates handled at once: a handler never waits for a chat's send limit (it puts
#: the chat's work in its outbox), only for the store
CONCURRENT = 32
#: the one line a token Telegram stopped taking ends the bot with
REVOKED = (
    "Telegram no longer accepts TELEGRAM_TOKEN (revoked or replaced in @BotFather): "
    "set TELEGRAM_TOKEN to the bot's current token"
)


def refused_at_start(error: InvalidToken | NetworkError) -> AdapterError:
    """What to fix when Telegram refuses the token at start, or cannot be reached."""
    if isinstance(error, InvalidToken):  # never echo the token itself: logs get shared
        return AdapterError(
            "Telegram refused TELEGRAM_TOKEN: check the token @BotFather gave you "
            "(and TELEGRAM_API_URL, if set)"
        )
    return AdapterError(f"cannot reach the Telegram Bot API: {error.message}")


async def check_token(token: str, api_url: str | None) -> None:
    """Ask Telegram who the bot is (``getMe``), before anything is made: AdapterError
    saying what to fix if it cannot be asked."""
    root = api_url.rstrip("/") if api_url else "https://api.telegram.org"
    try:
        async with Bot(token, base_url=f"{root}/bot", base_file_url=f"{root}/file/bot"):
            pass  # entering asks getMe
    except (InvalidToken, NetworkError) as e:
        raise refused_at_start(e) from None


def connected(up: bool) -> None:
    """Telegram is reachable now (updates arrive), or not."""
    PLATFORM_UP.labels(PLATFORM).set(1 if up else 0)


class WatchedRequest(HTTPXRequest):
    """python-telegram-bot's HTTP client, telling ``seen`` the status of every answer
    (None: no answer, the network failed, and why), and when the call began."""

    __slots__ = ("_seen",)

    def __init__(
        self, seen: Callable[[int | None, NetworkError | None, float], None], **kwargs: Any
    ) -> None:
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
        began = time.monotonic()
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
        except NetworkError as e:
            self._seen(None, e, began)
            raise
        self._seen(code, None, began)
        return code, payload


class Watch:
    """What the answers of the Bot API say about the bot (see the module's doc)."""

    def __init__(self, fatal: Fatal) -> None:
        self.fatal = fatal
        #: the adapter is running (a token refused at start is start's to report)
        self.running = False
        #: whether the polling gets answers (one warning when it stops, one when it is back)
        self.reach = Reach("Telegram", log)
        #: set while the last call of any kind got no answer (the bot's calls too)
        self.unanswered = asyncio.Event()

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
        quiet_polling()
        return builder.build()

    def request(self, *, polling: bool) -> WatchedRequest:
        """The HTTP client for the bot's calls, or (``polling``) for ``getUpdates``:
        python-telegram-bot's defaults (256 connections; 1 for ``getUpdates``)."""
        return WatchedRequest(
            partial(self.seen, polling), connection_pool_size=1 if polling else 256
        )

    def seen(
        self,
        polling: bool,
        status: int | None,
        error: NetworkError | None = None,
        began: float | None = None,
    ) -> None:
        """A call begun at ``began`` (``time.monotonic``) was answered with ``status``
        (None: not at all, because of ``error``)."""
        if status == 429:
            RATE_LIMITED.labels(PLATFORM).inc()
        if status is None:
            self.unanswered.set()
        else:
            self.unanswered.clear()
        if not self.running:
            return
        if status == 401 or (polling and status == 404):
            connected(False)
            self.fatal.set(AdapterError(REVOKED))
        elif polling:
            connected(status == 200)
            if status == 200:  # a long poll is answered late: Telegram was back when it began
                self.reach.answered(began)
            elif status is None:  # a timeout too, which the polling loop retries unsaid
                self.reach.lost(error or "no answer")

    def polling_failed(self, error: TelegramError) -> None:
        """The polling loop's error callback: it will try again (see :class:`Reach`)."""
        if self.running:
            self.reach.lost(error)


class PollingFilter(logging.Filter):
    """Keeps python-telegram-bot's polling loop and updater from logging a traceback
    when Telegram refuses the token or cannot be reached: the adapter reports both
    itself, in one line (:data:`REVOKED`; :class:`Reach`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, InvalidToken | NetworkError)


def quiet_polling() -> None:
    """Install :class:`PollingFilter` on the polling loop's and the updater's loggers
    (once)."""
    for name in ("telegram.ext", "telegram.ext.Updater"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, PollingFilter) for f in logger.filters):
            logger.addFilter(PollingFilter())
