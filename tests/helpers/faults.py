"""Faults the tests cause, and what they look like: a store taken down under a running
bot, the refusals of a store whose server is down, requests timed during an outage, and
a figure of :mod:`bot.ops.metrics`."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.ops.metrics import REGISTRY
from bot.store import Store, StoreError
from bot.store.base import StoreUnavailable


class DownStore:
    """A store that can be taken down: while :attr:`down`, every call raises StoreError
    (after :attr:`hang` seconds), as a Redis that stopped answering does."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.down = False
        self.hang = 0.0
        #: calls refused while down
        self.refused = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                self.refused += 1
                if self.hang:
                    time.sleep(self.hang)
                raise StoreError(
                    "Redis at redis://127.0.0.1:1/0 is unreachable: connection refused"
                )
            return attr(*args, **kwargs)

        return call


def sample(name: str, **labels: str) -> float:
    """A figure of :mod:`bot.ops.metrics` now (0 if never counted)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def refusals(calls: list[Callable[[], object]]) -> list[tuple[float, StoreUnavailable]]:
    """Each of ``calls`` made (to a store whose server is down) and refused: how long it
    took to be refused, and the refusal."""
    out = []
    for call in calls:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable) as err:
            call()
        out.append((time.monotonic() - started, err.value))
    return out


class Stopwatch:
    """Requests made for ``seconds``, and how long each took to be answered:
    ``while watch.going():`` repeats until then, ``with watch:`` times one request
    (kept in :attr:`took`)."""

    def __init__(self, seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.began = self.loop.time()
        self.seconds = seconds
        self.took: list[float] = []
        self._started = 0.0

    def going(self) -> bool:
        return self.loop.time() - self.began < self.seconds

    def __enter__(self) -> Stopwatch:
        self._started = self.loop.time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.took.append(self.loop.time() - self._started)
