"""``GET /api/ws``: a page's websocket.  Its first message is ``hello`` with its
session; it then gets the game's ``state`` each time the game changes (from the
hub), and may send ``press`` messages (a player's), each answered ``ack`` or
``refused``.  Messages are JSON text of at most :data:`MAX_MESSAGE` bytes;
anything else closes the socket.

Limits: a hello counts against the client's address and, a player's, against
that person (:meth:`bot.limits.rate.Limiter.check_web`; over them: told, closed with
:data:`SLOW`).  Each socket then has its own bucket of messages
(:data:`MESSAGE_BURST`, :data:`MESSAGES_PER_SECOND`): a message over it is
refused and does nothing, and after :data:`FLOODING` of those in a row the
socket is told once more and closed (:data:`SLOW`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from ..limits.rate import Rate
from ..ops.metrics import WEB_LIMITED
from ..present.buttons import parse_press
from ..service.outcome import Outcome
from ..store.limits import gcra
from .address import client_address
from .auth import PLAYER, Refused, Session
from .board import Board, limit_words
from .hub import Viewer
from .words import refusal_words, words

log = logging.getLogger(__name__)

#: the largest message taken, in bytes
MAX_MESSAGE = 4096
#: seconds a socket may take to say hello
HELLO_SECONDS = 10.0
#: seconds between pings (aiohttp's heartbeat; a page that does not answer is closed)
HEARTBEAT = 25.0
#: press nonces remembered per socket (a nonce seen before is refused)
NONCES = 256
#: close codes: the session is refused or expired; the message was not understood;
#: too fast (a hello over its address's or person's limit, or a flood of messages)
REFUSED, GARBAGE, SLOW = 4401, 4400, 4429
#: each socket's own bucket: this many messages at once, then this many a second
MESSAGE_BURST, MESSAGES_PER_SECOND = 20, 10.0
MESSAGES = Rate(MESSAGE_BURST, MESSAGES_PER_SECOND)
#: messages refused in a row (over the socket's bucket) that close it
FLOODING = 3 * MESSAGE_BURST
#: seconds early a message is still taken (a clock's rounding, not a page's haste)
EARLY = 0.001


def ws_route(board: Board) -> web.RouteDef:
    async def handler(request: web.Request) -> web.StreamResponse:
        return await live(board, request)

    return web.get("/api/ws", handler)


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


async def live(board: Board, request: web.Request) -> web.StreamResponse:
    ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    try:
        msg = await ws.receive(timeout=HELLO_SECONDS)
    except TimeoutError:
        await ws.close(code=REFUSED, message=b"no hello")
        return ws
    hello = _message(msg)
    if hello is None or hello.get("type") != "hello":
        await ws.close(code=GARBAGE, message=b"hello first")
        return ws
    try:
        session = board.keys.read_session(hello.get("session"), board.clock())
    except Refused as r:
        if board.limiter is not None:  # a forged hello costs its address too
            await board.limiter.admit_web(_address(board, request))
        await _end(ws, words(r.key, r.lang), r.key.encode())
        return ws
    if board.limiter is not None:
        user = session.user
        person = f"{user.platform}:{user.id}" if user is not None else None
        verdict = await board.limiter.admit_web(_address(board, request), person)
        if not verdict.allowed:
            WEB_LIMITED.labels("socket").inc()
            told = {"retry_after": verdict.seconds}
            await _end(ws, words(limit_words(verdict), session.language), b"slow down", SLOW, told)
            return ws
    viewer = Viewer(ws, session)
    board.hub.add(viewer)  # first: a change from now on reaches it
    try:
        game = await asyncio.to_thread(board.service.get, session.game)
        if game is None:
            board.hub.remove(viewer)
            await _end(ws, words("web.no_game", session.language), b"no game")
            return ws
        viewer.offer(board.hub.state(game, session))
        seen: OrderedDict[str, None] = OrderedDict()
        pace = Pace(board.clock)
        while True:
            left = session.expires - board.clock()
            if left <= 0:  # told, then closed: the page asks for a new session
                board.hub.remove(viewer)
                await _end(ws, words("web.expired", session.language), b"expired")
                break
            try:
                msg = await ws.receive(timeout=left)
            except TimeoutError:
                continue
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                break
            message = _message(msg)
            if message is None or message.get("type") != "press":
                await ws.close(code=GARBAGE, message=b"not understood")
                break
            if pace.take():
                answer = await press(board, session, message, seen)
            else:
                WEB_LIMITED.labels("message").inc()
                answer = _refused(_nonce(message), words("web.slow_down", session.language))
                if pace.refused >= FLOODING:  # told (this last one at once), then closed
                    board.hub.remove(viewer)
                    if viewer.task is not None:
                        await asyncio.wait({viewer.task})
                    await _end(ws, answer["text"], b"flooding", SLOW, {"id": answer["id"]})
                    break
            if not viewer.offer(_dumps(answer)):
                break
            await asyncio.sleep(0)  # this socket's sender and the others run before more
    finally:
        board.hub.remove(viewer)
    return ws


class Pace:
    """A socket's own bucket of messages (GCRA on ``clock``: nothing to share), and
    how many it refused in a row."""

    def __init__(self, clock: Callable[[], float], rate: Rate = MESSAGES) -> None:
        self.clock, self.rate = clock, rate
        self.tat = clock()
        self.refused = 0

    def take(self) -> bool:
        """One message: True if within the bucket (then counted), else refused."""
        now = self.clock()
        new, wait = gcra(self.tat, now, self.rate)
        if wait > EARLY:
            self.refused += 1
            return False
        self.tat, self.refused = new, 0
        return True


def _address(board: Board, request: web.BaseRequest) -> str:
    assert board.limiter is not None
    return client_address(request, board.limiter.settings.trusted_proxies)


async def _end(
    ws: web.WebSocketResponse,
    text: str,
    why: bytes,
    code: int = REFUSED,
    more: dict[str, Any] | None = None,
) -> None:
    """Tell the page ``text`` (a refusal, with ``more``), then close its socket
    (``code``: 4401 unless said)."""
    with contextlib.suppress(Exception):
        await ws.send_str(_dumps({"type": "refused", **(more or {}), "text": text}))
    await ws.close(code=code, message=why)


def _nonce(message: dict[str, Any]) -> str | None:
    """A message's ``id`` if it is one (1 to 64 characters), else None."""
    nonce = message.get("id")
    return nonce if isinstance(nonce, str) and 1 <= len(nonce) <= 64 else None


def _refused(nonce: str | None, text: str) -> dict[str, Any]:
    return {"type": "refused", "id": nonce, "text": text}


def _message(msg: Any) -> dict[str, Any] | None:
    """A text message's JSON object, or None (binary, too big, not JSON, closing)."""
    if msg.type != WSMsgType.TEXT or len(msg.data) > MAX_MESSAGE:
        return None
    try:
        data = json.loads(msg.data)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def press(
    board: Board, session: Session, message: dict[str, Any], seen: OrderedDict[str, None]
) -> dict[str, Any]:
    """A press from the page: ``ack`` or ``refused`` (nothing changed)."""
    nonce, lang = _nonce(message), session.language

    def refused(text: str) -> dict[str, Any]:
        return _refused(nonce, text)

    if nonce is None:
        return refused(words("web.bad_request", lang))
    if nonce in seen:
        return refused(words("web.replayed", lang))
    seen[nonce] = None
    if len(seen) > NONCES:
        seen.popitem(last=False)
    user = session.user
    if session.role != PLAYER or user is None:
        return refused(words("web.only_players", lang))
    asked = parse_press(message.get("data"))
    if asked is None:
        return refused(words("web.bad_request", lang))
    if board.limiter is not None:
        verdict = await board.limiter.admit(f"{user.platform}:{user.id}", session.channel, False)
        if not verdict.allowed:
            WEB_LIMITED.labels("press").inc()
            return refused(words("web.slow_down", lang))
    outcome = await asyncio.to_thread(
        board.service.press, session.channel, user, asked.game_id, asked.version, asked.intent
    )
    if outcome.refusal is not None:
        return refused(refusal_words(outcome.refusal, outcome.game, lang))
    _show(board, outcome)
    return {"type": "ack", "id": nonce}


def _show(board: Board, outcome: Outcome) -> None:
    """The outcome shown in its chat, as a timer's is (in the background)."""

    async def show() -> None:
        try:
            await board.show(outcome)
        except Exception:
            log.exception("could not show a move made on the board in %s", outcome.channel)

    task = asyncio.ensure_future(show())
    board.showing.add(task)
    task.add_done_callback(board.showing.discard)
