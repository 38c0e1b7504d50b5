"""The fake Bot API's server: the HTTP endpoint ``/bot<token>/<method>``, each call
recorded with its answer, faults and a group's limit, and waiting for the bot."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import socket
import time
from collections.abc import Callable
from typing import Any, Self

from aiohttp import web

from tests.fakes.telegram.objects import (
    BOOL_FIELDS,
    BOT_ID,
    BOT_USERNAME,
    GROUP_LIMITED,
    INT_FIELDS,
    JSON_FIELDS,
    TOKEN,
    ApiError,
    Call,
    FakeMessage,
    bad,
)


class Server:
    """The HTTP side of the fake: serving, recording every call and its answer, the
    faults and limits a test asks for, waiting for the bot (see :mod:`tests.fakes.telegram`)."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token
        self.bot_user = {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Ludo Test Bot",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
        self.calls: list[Call] = []
        self.chats: dict[int, dict[str, Any]] = {}
        self.topics: dict[int, dict[int, str]] = {}
        self.messages: dict[tuple[int, int], FakeMessage] = {}
        #: chat id -> user id -> "creator" / "administrator" / "member"
        self.members: dict[int, dict[int, str]] = {}
        #: the default command menu (setMyCommands without a language code)
        self.commands: list[dict[str, Any]] | None = None
        #: every command menu: language code ("" the default) -> its commands
        self.command_menus: dict[str, list[dict[str, Any]]] = {}
        self.webhook: dict[str, Any] | None = None
        self.files: dict[str, bytes] = {}
        self.queries: dict[str, dict[str, Any]] = {}
        #: inline mode (BotFather's /setinline) and its feedback (/setinlinefeedback)
        self.inline_mode = False
        self.inline_feedback = False
        self.inline_queries: dict[str, dict[str, Any]] = {}
        self.inline_answers: dict[str, Call] = {}
        #: guest mode: the mentions of the bot where it is no member, and their answers
        self.guest_queries: dict[str, dict[str, Any]] = {}
        self.guest_answers: dict[str, Call] = {}
        #: inline_message_id -> the message posted "via @bot"
        self.inline_messages: dict[str, FakeMessage] = {}
        #: the photo URLs Telegram fetched, and the HTTP status it got (0: none)
        self.fetched: list[tuple[str, int]] = []
        #: chats the bot is no member of (it reaches them through inline messages only)
        self.outsiders: set[int] = set()
        #: people who blocked the bot: every call in their private chat is answered 403
        self.blocked: set[int] = set()
        #: the kinds of update the bot asked for (None: Telegram's default, all but a few)
        self.allowed_updates: list[str] | None = None
        self.answered: dict[str, Call] = {}
        self.updates: list[dict[str, Any]] = []
        #: updates below this id were confirmed by an offset
        self.confirmed = 0
        self._update_ids = itertools.count(1000)
        self._ids = itertools.count(5000)
        self._next_message: dict[int, int] = {}
        self._faults: dict[str, list[ApiError]] = {}
        #: storms of errors, the calls made before a 429's wait, the waits (.storms)
        self.storms: list[Any] = []
        self.early: list[Call] = []
        self.waits: dict[Any, tuple[float, float]] = {}
        self._delays: dict[str, list[float]] = {}
        #: Telegram's limit in a group: at most this many messages or edits in any
        #: this many seconds (None: not kept); a call over it is answered 429
        self.group_limit: tuple[int, float] | None = None
        #: Telegram's limits of a private chat (about one message a second, short bursts
        #: allowed) and of the whole bot (about 30 a second): at most this many in any
        #: this many seconds (None: not kept); a call over either is answered 429
        self.private_limit: tuple[int, float] | None = None
        self.overall_limit: tuple[int, float] | None = None
        self._poll_generation = 0
        self._activity = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self.port = 0

    # -- the server -------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, port: int = 0) -> int:
        """Serve on ``port`` (0: a free one); again after :meth:`close`, on the same
        port: Telegram unreachable for a while."""
        self._closing = False
        app = web.Application(client_max_size=50 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = int(sock.getsockname()[1])
        site = web.SockSite(self._runner, sock)
        await site.start()
        return self.port

    async def close(self) -> None:
        self._closing = True
        self._notify()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _notify(self) -> None:
        """Wake whoever waits (long polls, tests waiting for a condition)."""
        self._activity.set()
        self._activity = asyncio.Event()

    async def _params(self, request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        params: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        if request.can_read_body and request.content_type == "application/json":
            body = await request.json()
            if not isinstance(body, dict):
                raise bad("request body must be a JSON object")
            return dict(body), files
        form: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            posted = await request.post()
            for name, value in posted.items():
                if isinstance(value, web.FileField):
                    files[name] = value.file.read()
                    params.setdefault("_file_names", {})[name] = value.filename
                else:
                    form[name] = value
        for name, raw in form.items():
            value: Any = raw
            if isinstance(raw, bytes):
                raw = value = raw.decode()
            if name in JSON_FIELDS:
                try:
                    value = json.loads(raw)
                except ValueError:
                    raise bad(f"can't parse {name} JSON object") from None
            elif name in INT_FIELDS and re.fullmatch(r"-?\d+", raw):
                value = int(raw)
            elif name in BOOL_FIELDS:
                value = raw.lower() in ("true", "1")
            params[name] = value
        return params, files

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method = request.match_info["method"]
        try:
            params, files = await self._params(request)
        except ApiError as e:
            params, files = {}, {}
            call = self._record(method, params, files, token)
            return self._finish(call, e)
        inline = self.inline_messages.get(str(params.get("inline_message_id", "")))
        if inline is not None:
            params["_inline_chat"] = inline.chat_id
        call = self._record(method, params, files, token)
        try:
            if token != self.token:
                raise ApiError(401, "Unauthorized")
            weather = await self._weather(method, params, files, call)
            if weather is not None:
                return weather
            fault = self._take_fault(method) or self._over_limit(method, params)
            if fault is not None:
                raise fault
            delays = self._delays.get(method.lower())
            if delays:
                # a slow network path: calls made meanwhile overtake this one
                await asyncio.sleep(delays.pop(0))
            handler = getattr(self, "api_" + method.lower(), None)
            if handler is None:
                raise ApiError(404, "Not Found")
            result = await handler(params, files, call)
        except ApiError as e:
            return self._finish(call, e)
        return self._finish(call, None, result)

    def _record(
        self, method: str, params: dict[str, Any], files: dict[str, bytes], token: str
    ) -> Call:
        call = Call(len(self.calls), method, params, files, token)
        self.calls.append(call)
        return call

    def _finish(self, call: Call, error: ApiError | None, result: Any = None) -> web.Response:
        if error is None:
            call.status, call.result = 200, result
            body: dict[str, Any] = {"ok": True, "result": result}
        else:
            call.status, call.description = error.code, error.description
            body = {"ok": False, "error_code": error.code, "description": error.description}
            if error.parameters:
                body["parameters"] = error.parameters
        self._notify()
        return web.json_response(body, status=call.status)

    # -- faults -----------------------------------------------------------

    def group_calls(self, chat_id: int) -> list[Call]:
        """The messages and edits that took effect in a group, in order."""
        return [
            c
            for c in self.calls
            if c.method.lower() in GROUP_LIMITED and c.ok and c.chat_id == chat_id
        ]

    def busiest(self, chat_id: int, period: float) -> int:
        """The most messages and edits in the group within any ``period`` seconds."""
        times = [c.at for c in self.group_calls(chat_id)]
        most, first = 0, 0
        for last, t in enumerate(times):
            while times[first] <= t - period:
                first += 1
            most = max(most, last - first + 1)
        return most

    def _over_limit(self, method: str, params: dict[str, Any]) -> ApiError | None:
        chat_id = params.get("chat_id", params.get("_inline_chat"))
        if method.lower() not in GROUP_LIMITED:
            return None
        now = time.monotonic()
        chat_limit = None
        if isinstance(chat_id, int):
            chat_limit = self.group_limit if chat_id < 0 else self.private_limit
        for limit, chat in ((self.overall_limit, None), (chat_limit, chat_id)):
            if limit is None:
                continue
            rate, period = limit
            recent = self._recent(now - period, chat)
            if len(recent) >= rate:
                wait = max(1, int(recent[rate - 1] + period - now + 0.999))
                return ApiError(
                    429, f"Too Many Requests: retry after {wait}", {"retry_after": wait}
                )
        return None

    def _recent(self, since: float, chat: Any = None) -> list[float]:
        """When the messages and edits that took effect after ``since`` were made (in
        ``chat``, or in all), the newest first."""
        found = []
        for c in reversed(self.calls):
            if c.at <= since:
                break
            if c.method.lower() in GROUP_LIMITED and c.ok and (chat is None or c.chat_id == chat):
                found.append(c.at)
        return found

    def fail_next(self, method: str, times: int = 1, retry_after: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with 429 Too Many Requests.

        A long poll already waiting counts as the next getUpdates: it is answered at once.
        """
        err = ApiError(
            429,
            f"Too Many Requests: retry after {retry_after}",
            {"retry_after": retry_after},
        )
        self._faults.setdefault(method.lower(), []).extend([err] * times)
        self._notify()

    def refuse_next(self, method: str, code: int, description: str, times: int = 1) -> None:
        """Answer the next ``times`` calls of ``method`` with this error (e.g. 400, "query is
        too old": a callback query answered after Telegram stopped waiting)."""
        self._faults.setdefault(method.lower(), []).extend([ApiError(code, description)] * times)
        self._notify()

    def revoke(self) -> None:
        """The bot's token is revoked in @BotFather: from now on every call with it is
        answered 401 Unauthorized, the long poll waiting now too."""
        self.token = f"{BOT_ID}:revoked-{next(self._ids)}"
        self._notify()

    def delay_next(self, method: str, seconds: float, times: int = 1) -> None:
        """Hold the next ``times`` calls of ``method`` for ``seconds`` before they take effect."""
        self._delays.setdefault(method.lower(), []).extend([seconds] * times)

    async def _weather(
        self, method: str, params: dict[str, Any], files: dict[str, bytes], call: Call
    ) -> web.Response | None:
        """A storm's answer (see :mod:`tests.fakes.telegram.storms`); None: no storm."""
        return None

    def _take_fault(self, method: str) -> ApiError | None:
        pending = self._faults.get(method.lower())
        return pending.pop(0) if pending else None

    # -- looking at calls -------------------------------------------------

    def mark(self) -> int:
        """A position in :attr:`calls`: pass it as ``since`` to look at later calls only."""
        return len(self.calls)

    def calls_of(
        self,
        *methods: str,
        since: int = 0,
        where: Callable[[Call], bool] | None = None,
        ok: bool | None = None,
    ) -> list[Call]:
        wanted = {m.lower() for m in methods}
        return [
            c
            for c in self.calls[since:]
            if (not wanted or c.method.lower() in wanted)
            and (ok is None or c.ok == ok)
            and (where is None or where(c))
        ]

    def answer_of(self, query_id: str) -> Call | None:
        """The (successful) answerCallbackQuery call for ``query_id``."""
        return self.answered.get(query_id)

    async def wait_for(
        self, condition: Callable[[], Any], timeout: float = 10.0, what: str = "a condition"
    ) -> Any:
        """Wait until ``condition()`` is true (checked after every call, and often); return it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            got = condition()
            if got:
                return got
            left = deadline - loop.time()
            if left <= 0:
                recent = "\n  ".join(repr(c) for c in self.calls[-12:])
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}; last calls:\n  {recent}"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._activity.wait(), min(left, 0.02))

    async def wait_call(
        self,
        *methods: str,
        since: int = 0,
        where: Callable[[Call], bool] | None = None,
        ok: bool | None = True,
        count: int = 1,
        timeout: float = 10.0,
    ) -> Call:
        """Wait for the ``count``-th finished call of ``methods`` after ``since``; return it."""

        def found() -> Call | None:
            got = [
                c
                for c in self.calls_of(*methods, since=since, where=where, ok=ok)
                if c.status is not None
            ]
            return got[count - 1] if len(got) >= count else None

        result: Call = await self.wait_for(found, timeout, f"{count} x {'/'.join(methods)}")
        return result
