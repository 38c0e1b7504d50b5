"""Connections to Redis that never hand a late reply to the next command.

A command whose answer does not come within the socket timeout (a Redis paused by
a fork or a slow disk, a WAIT longer than the timeout, a network that holds the
packets) may still be answered later, on that same connection.  If the connection
went back to the pool, the next command would read that answer as its own (a
number where a game was expected).  redis-py closes such a connection by default,
but not on every path: a caller may pass ``disconnect_on_error=False`` (Sentinel's
connection did in earlier versions), and the default is the library's, not ours.

:func:`discarding` makes, of any redis-py connection class (plain, SSL, Unix socket,
Sentinel's), one whose failed read always closes the connection, whatever the
caller asked.  Every client of the store uses such a class
(:func:`bot.store.redis.layout.open_client`).  It also tells the thread whether the
last command of the store may have been carried out without its answer reaching
us (:func:`answer_lost`): a write whose answer was lost is sent again with its
token (see :mod:`bot.store.redis.store`), one that never left is simply refused.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import redis
import redis.exceptions

#: per thread: whether a read failed since :func:`watch_answers` was called
_lost = threading.local()


def watch_answers() -> None:
    """Start watching, in this thread, for a command whose answer is lost."""
    _lost.answer = False


def answer_lost() -> bool:
    """Whether, in this thread, a command was sent and its answer was lost (a
    read that failed) since :func:`watch_answers`."""
    return bool(getattr(_lost, "answer", False))


class _Discarding:
    """The mixin: a failed read closes the connection, always; a failed read or
    send (after connecting) is a command whose answer may be lost."""

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if getattr(self, "_sock", None) is None:
            self.connect()  # type: ignore[attr-defined]  # failing here, nothing left
        try:
            super().send_packed_command(command, check_health)  # type: ignore[misc]
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            _lost.answer = True  # part of it, or all, may have reached Redis
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["disconnect_on_error"] = True
        try:
            return super().read_response(*args, **kwargs)  # type: ignore[misc]
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError):
            _lost.answer = True
            self.disconnect()  # type: ignore[attr-defined]
            raise


@cache
def discarding(base: type[Any]) -> type[Any]:
    """``base`` (a redis-py connection class) whose failed reads close it."""
    if issubclass(base, _Discarding):
        return base
    return type(f"Discarding{base.__name__}", (_Discarding, base), {})


def guard_pool(pool: Any) -> None:
    """Make the connections ``pool`` opens from now on discarding ones (and close
    those it has: they were opened with the old class)."""
    pool.connection_class = discarding(pool.connection_class)
    pool.disconnect()


def cluster_class(url: str) -> type[Any]:
    """The connection class for the nodes of the Redis Cluster at ``url``."""
    base = redis.SSLConnection if url.startswith("rediss://") else redis.Connection
    return discarding(base)
