"""``GET /api/ws``: a page's websocket.  Its first message is ``hello`` with its
session; it then gets the game's ``state`` each time the game changes (from the
hub), and may send ``press`` messages (a player's), each answered ``ack`` or
``refused``.  Messages are JSON text of at most :data:`MAX_MESSAGE` bytes;
anything else closes the socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from typing import Any

from aiohttp import WSMsgType, web

from ..present.buttons import parse_press
from ..service import Outcome
from .auth import PLAYER, Refused, Session
from .board import Board
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
#: close codes: the session is refused or expired; the message was not understood
REFUSED, GARBAGE = 4401, 4400


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
        await _end(ws, words(r.key, r.lang), r.key.encode())
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
            answer = await press(board, session, message, seen)
            if not viewer.offer(_dumps(answer)):
                break
    finally:
        board.hub.remove(viewer)
    return ws


async def _end(ws: web.WebSocketResponse, text: str, why: bytes) -> None:
    """Tell the page ``text`` (a refusal), then close its socket (4401)."""
    with contextlib.suppress(Exception):
        await ws.send_str(_dumps({"type": "refused", "text": text}))
    await ws.close(code=REFUSED, message=why)


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
    nonce, lang = message.get("id"), session.language

    def refused(text: str) -> dict[str, Any]:
        return {"type": "refused", "id": nonce, "text": text}

    if not isinstance(nonce, str) or not 1 <= len(nonce) <= 64:
        return refused(words("web.bad_request", lang)) | {"id": None}
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
