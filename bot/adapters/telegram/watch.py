"""The Bot API as operators see it: every HTTP answer watched.

python-telegram-bot's HTTP client (:class:`WatchedRequest`, one for the bot's calls
and one for ``getUpdates``) tells a :class:`Watch` the status of every answer:
429 (Telegram telling the bot to slow down, waited out by the rate limiter or
the polling loop) is counted in ``RATE_LIMITED``; a 429 or a 5xx is told to the
adapter's :class:`~bot.adapters.storm.Storm` (one log line when Telegram begins
refusing calls, one when it answers again), and the message ids of what the bot
sent to :class:`~.doubts.Doubts`; a token Telegram no longer
takes (401, or 404 to ``getUpdates``) ends the adapter for good (its
:class:`~bot.adapters.faults.Fatal`); and the bot counts as connected while
``getUpdates`` is answered.  While it is not (Telegram unreachable, or refusing
the polling), the polling loop retries quietly: one warning when it begins and
one when it ends (:class:`~bot.adapters.reach.Reach`), no traceback per retry
(:class:`PollingFilter`).
"""

from __future__ import annotations

import asyncio
import json
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
from ..storm import Storm, refusal
from .doubts import Doubts
from .updates import PLATFORM
from .weather import quiet_refusals

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
    return AdapterError(f"cannot reach the Telegram Bot API: {error.message}", later=True)


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


#: what ``seen`` is told of a call: its method, its chat (if any) and the answer's body
Said = tuple[str, object, bytes]
#: the methods whose answer is a message the bot sent
SENDING = ("send", "copyMessage", "forwardMessage")


class WatchedRequest(HTTPXRequest):
    """python-telegram-bot's HTTP client, telling ``seen`` the status of every answer
    (None: no answer, the network failed, and why), when the call began, and what it
    was (:data:`Said`)."""

    __slots__ = ("_seen",)

    def __init__(
        self,
        seen: Callable[[int | None, NetworkError | None, float, Said | None], None],
        **kwargs: Any,
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
        params = request_data.parameters if request_data is not None else {}
        said = url.rsplit("/", 1)[-1], params.get("chat_id"), b""
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
            self._seen(None, e, began, said)
            raise
        self._seen(code, None, began, (said[0], said[1], payload))
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
        #: Telegram refusing calls (429, 5xx): one warning when it begins, one when it ends
        self.storm = Storm("Telegram", log)
        #: the highest message id known in each chat, and the tables sent in doubt
        self.doubts = Doubts()
        self._polled: int | None = 200

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
        quiet_refusals()
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
        said: Said | None = None,
    ) -> None:
        """A call begun at ``began`` (``time.monotonic``), ``said`` (its method, chat and
        answer), was answered with ``status`` (None: not at all, because of ``error``)."""
        if status == 429:
            RATE_LIMITED.labels(PLATFORM).inc()
        if said is not None and status is not None:
            self.told(status, *said)
        if polling:
            self._polled = status
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

    def told(self, status: int, method: str, chat: object, body: bytes) -> None:
        """Telegram answered ``method`` in ``chat`` with ``status`` and ``body``: a
        refusal told to the storm, a message sent to the doubts."""
        if refusal(status):
            where = f"{method} in chat {chat}" if chat is not None else method
            self.storm.refused(status, where, _field(body, "parameters", "retry_after"))
        elif 200 <= status < 300:
            self.storm.answered()
            if method.startswith(SENDING) and isinstance(chat, int):
                sent = _field(body, "result", "message_id")
                if sent is not None:
                    self.doubts.saw(chat, int(sent))

    def polling_failed(self, error: TelegramError) -> None:
        """The polling loop's error callback: it will try again (see :class:`Reach`); a
        refusal (a 5xx) is the storm's to say."""
        if self.running and not refusal(self._polled):
            self.reach.lost(error)


def _field(body: bytes, outer: str, inner: str) -> float | None:
    """The number ``body[outer][inner]`` of an answer's JSON (None: not there)."""
    try:
        value = json.loads(body)[outer][inner]
    except (ValueError, TypeError, KeyError):
        return None
    return float(value) if isinstance(value, int | float) else None


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
