"""Telegram answering errors for a while: a storm of 429s, 500s or 502s (:meth:`Storms.storm`).

What the fake answers, as Telegram does:

* **429** ``{"ok": false, "error_code": 429, "description": "Too Many Requests: retry
  after N", "parameters": {"retry_after": N}}`` (N whole seconds).  A 429 holds for the
  chat of the call (a call without a chat: for its method) until N seconds after the
  answer: a call there before is answered 429 again, for what is left, and kept in
  :attr:`Storms.early` (the bot did not wait as Telegram asked; a call that arrives
  within :data:`GRACE` of the 429 was on its way already and is not counted);
* **500** ``{"ok": false, "error_code": 500, "description": "Internal Server Error"}``;
* **502** the HTML page of Telegram's nginx, not JSON (``text/html``).

A 5xx storm may hide a success (``took_effect``): the call is done (a message sent,
edited, deleted), and answered 5xx all the same, as when the Bot API server answered
after the proxy in front of it gave up.  Every call a storm refused is in its
``refused``.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.telegram.objects import ApiError, Call

#: a call arriving this soon after a 429 was answered was on its way already
GRACE = 0.1
#: what Telegram's nginx answers when the Bot API server behind it does not
NGINX_502 = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n"
    b"</body>\r\n</html>\r\n"
)


@dataclass
class Storm:
    """Every call (or those of ``methods``) answered ``status`` from ``began`` to ``until``
    (``time.monotonic``)."""

    status: int
    began: float
    until: float
    retry_after: int = 1
    methods: frozenset[str] = frozenset()
    #: methods it leaves alone (``getUpdates``: updates keep coming, as by a webhook)
    spare: frozenset[str] = frozenset()
    took_effect: bool = False
    #: the calls it refused
    refused: list[Call] = field(default_factory=list)

    def covers(self, method: str, at: float) -> bool:
        if not self.began <= at < self.until or method in self.spare:
            return False
        return not self.methods or method in self.methods

    @property
    def over(self) -> bool:
        return time.monotonic() >= self.until


class Storms:
    """The storms of the fake, and the waits its 429s asked for (mixed into
    :class:`~tests.fakes.telegram.FakeTelegram`)."""

    storms: list[Storm]
    #: calls made before the retry_after of a 429 in their chat (or method) had passed
    early: list[Call]
    #: chat id or method -> (when the 429 was answered, until when it holds)
    waits: dict[Any, tuple[float, float]]

    def storm(
        self,
        status: int,
        seconds: float,
        *,
        retry_after: int = 1,
        methods: tuple[str, ...] = (),
        spare: tuple[str, ...] = (),
        took_effect: bool = False,
    ) -> Storm:
        """From now on for ``seconds``, answer every call (or those of ``methods``; not
        those of ``spare``) with ``status``: 429 (with ``retry_after``), 500 or 502;
        ``took_effect``: a 5xx after doing the call."""
        assert status in (429, 500, 502), status
        assert retry_after >= 1 and not (took_effect and status == 429)
        now = time.monotonic()
        storm = Storm(
            status,
            now,
            now + seconds,
            retry_after,
            frozenset(m.lower() for m in methods),
            frozenset(m.lower() for m in spare),
            took_effect,
        )
        self.storms.append(storm)
        return storm

    async def _weather(
        self, method: str, params: dict[str, Any], files: dict[str, bytes], call: Call
    ) -> web.Response | None:
        """The answer of a call made in a storm, or while a 429 holds; None: none of these."""
        name = method.lower()
        chat = params.get("chat_id", params.get("_inline_chat"))
        scope = chat if isinstance(chat, int) else name
        held = self.waits.get(scope)
        if held is not None and call.at < held[1]:
            if call.at > held[0] + GRACE:
                self.early.append(call)
            return self._too_many(call, scope, held[1] - call.at)
        storm = next((s for s in self.storms if s.covers(name, call.at)), None)
        if storm is None:
            return None
        storm.refused.append(call)
        if storm.status == 429:
            return self._too_many(call, scope, storm.retry_after)
        if storm.took_effect:
            handler = getattr(self, "api_" + name, None)
            if handler is not None:
                with contextlib.suppress(ApiError):  # done as far as it goes
                    call.result = await handler(params, files, call)  # kept, not answered
        if storm.status == 500:
            return self._finish(call, ApiError(500, "Internal Server Error"))
        call.status, call.description = 502, "Bad Gateway"
        self._notify()
        return web.Response(body=NGINX_502, status=502, content_type="text/html")

    def _too_many(self, call: Call, scope: Any, seconds: float) -> web.Response:
        wait = max(1, math.ceil(seconds))
        error = ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
        answer: web.Response = self._finish(call, error)
        answered = time.monotonic()
        self.waits[scope] = (answered, answered + wait)
        return answer
