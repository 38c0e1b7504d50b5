"""How ``ludo-bot run`` logs: LOG_LEVEL, and LOG_FORMAT ``text`` (for people) or
``json`` (one JSON object a line, for log collectors).

The standard library's :mod:`logging` and :mod:`json` do all of it: a JSON
line is a dozen lines of formatter, not worth a dependency.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import TextIO

#: the format of a text line
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: the libraries that say too much below WARNING: they log at LOG_LEVEL only if it is higher
NOISY = ("httpx", "httpcore", "telegram", "apscheduler", "discord", "websockets", "aiohttp")


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: ``time`` (ISO 8601, UTC), ``level``,
    ``logger``, ``message``, and ``exc_info`` (the traceback, as text) and
    ``stack_info`` when the record has them."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, str] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc_info"] = record.exc_text
        if record.stack_info:
            line["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "text", stream: TextIO | None = None) -> None:
    """Log records of ``level`` and above to ``stream`` (default: standard error)
    in the format ``fmt`` (``text`` or ``json``), replacing any handler the
    root logger had.  Call it once, first thing (``cmd_run`` does)."""
    if fmt not in ("text", "json"):
        raise ValueError(f"unknown log format {fmt!r}")
    number = logging.getLevelName(level.upper())
    if not isinstance(number, int):
        raise ValueError(f"unknown log level {level!r}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(number)
    for name in NOISY:
        logging.getLogger(name).setLevel(max(number, logging.WARNING))
    logging.captureWarnings(True)
