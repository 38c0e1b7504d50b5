"""Telegram refusing calls for a while, as the adapter tells it apart from the rest.

A call answered 429 (python-telegram-bot's ``RetryAfter``, which says how long to wait),
a 5xx, or not at all (a ``NetworkError`` other than ``BadRequest``) may work later: the
work is kept and tried again (see :mod:`.outbox`).  Only a 429 says for sure that
nothing was done; after a 5xx or no answer, a message sent may be in the chat all the
same (see :mod:`.doubts`).

python-telegram-bot logs such calls itself, with a traceback: the rate limiter when it
gives up on a 429, and the request when a 502 comes as the proxy's HTML page instead
of JSON.  :class:`RefusalFilter` drops both: the adapter's :class:`~..storm.Storm` says
it in one line per storm.
"""

from __future__ import annotations

import datetime as dtm
import logging
import warnings

from telegram.error import BadRequest, NetworkError, RetryAfter

#: python-telegram-bot's loggers that log a refused call with a traceback
LOGGERS = ("telegram.ext.AIORateLimiter", "telegram.request.BaseRequest")


def transient(error: BaseException) -> bool:
    """Whether ``error`` is Telegram refusing a call for a while (429, 5xx) or not
    answering it: the call may work later."""
    if isinstance(error, RetryAfter):
        return True
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest)


def retry_after(error: BaseException) -> float | None:
    """How long Telegram asked to wait (a 429), in seconds; None if it did not say."""
    if not isinstance(error, RetryAfter):
        return None
    with warnings.catch_warnings():  # its type changes in a later version: either is read
        warnings.simplefilter("ignore")
        value = error.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


class RefusalFilter(logging.Filter):
    """Drops python-telegram-bot's tracebacks of a call Telegram refused (see the
    module's doc); everything else passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, RetryAfter):
            return False  # the rate limiter gave up waiting: the outbox waits on
        if record.msg == 'Can not load invalid JSON data: "%s"' and record.args:
            page = str(record.args[0] if isinstance(record.args, tuple) else record.args)
            return "<html" not in page.lower()  # a proxy's error page (502 Bad Gateway)
        return True


def quiet_refusals() -> None:
    """Install :class:`RefusalFilter` on python-telegram-bot's loggers (once)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RefusalFilter) for f in logger.filters):
            logger.addFilter(RefusalFilter())
