"""The viewers of each game in this process, and the news that a game changed.

The service tells the hub after every save that succeeded
(:attr:`bot.service.game.GameService.listeners`, in the saving thread).  Without
Redis (one process) the hub hears it directly; with Redis the news (the game's
id and revision) is published on one pub/sub channel, and every worker's hub
(this one too) hears it there, so a press on one worker reaches the viewers on
all of them.  A worker with viewers of that game loads it once and sends each
viewer its own view (:func:`bot.web.view.game_json`: what they may press).

A rematch takes its table's viewers along: when a game opens in a channel whose
last game has viewers here, and it is that game's rematch, each of them is given
a session for the new game (a ``session`` message) and its state.

Each viewer has a bounded queue of messages to send and a task sending them: a
viewer that cannot keep up (its queue full) is dropped (its socket closed, the
page connects again), never slowing the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aiohttp import web

from ..hosting import Game, User
from ..service.game import GameService
from .auth import Session

log = logging.getLogger(__name__)

#: messages waiting for one viewer; one more drops the viewer
QUEUE = 16
#: the pub/sub channel's name after the store's base (the key prefix and hash tag)
CHANNEL = "board"
#: seconds between tries to subscribe again after Redis failed
RESUBSCRIBE = 1.0

Render = Callable[[Game, User | None, str], dict[str, Any]]
#: a session signed into its token (:meth:`bot.web.auth.Keys.session`)
Sign = Callable[[Session], str]


def default_render() -> Render:
    """The page's view of a game: :func:`bot.web.view.game_json`."""
    from .view import game_json

    return game_json


class Viewer:
    """One page watching one game through one websocket."""

    __slots__ = ("closing", "queue", "session", "task", "ws")

    def __init__(self, ws: web.WebSocketResponse, session: Session) -> None:
        self.ws = ws
        self.session = session
        self.queue: asyncio.Queue[str] = asyncio.Queue(QUEUE)
        self.task: asyncio.Task[None] | None = None
        self.closing: asyncio.Future[None] | None = None

    @property
    def game(self) -> str:
        return self.session.game

    def offer(self, text: str) -> bool:
        """Queue ``text``; False (and the socket closed) if the viewer is too slow."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()
            return False
        return True

    def drop(self) -> None:
        """Stop sending, and close the socket (1013: the page may come back later)."""
        if self.task is not None:
            self.task.cancel()
        if not self.ws.closed and self.closing is None:
            self.closing = asyncio.ensure_future(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(code=1013, message=b"too slow")

    async def send_all(self) -> None:
        try:
            while True:
                text = await self.queue.get()
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            pass  # the page is gone


class Hub:
    """This process's viewers, told of every change of their games."""

    def __init__(
        self,
        service: GameService,
        render: Render | None = None,
        redis: Any = None,
        sign: Sign | None = None,
    ) -> None:
        """``redis``: the store's (synchronous) Redis client, or None (one process);
        ``sign``: how a session becomes a token (None: viewers stay on a finished
        game when it is played again)."""
        self.service = service
        self.render = render or default_render()
        self.redis = redis
        self.sign = sign
        #: the games watched here, by channel (a rematch there takes their viewers)
        self.channels: dict[str, set[str]] = {}
        base = getattr(service.store, "base", "ludo:")
        #: the pub/sub channel every worker of this bot listens on
        self.channel = f"{base}{CHANNEL}"
        self.games: dict[str, set[Viewer]] = {}
        self._pushed: dict[str, int] = {}
        self._dirty: set[str] = set()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- life -------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.service.listeners.append(self._saved)
        if self.redis is not None:
            self._thread = threading.Thread(target=self._listen, name="board-pubsub", daemon=True)
            self._thread.start()
            await asyncio.to_thread(self._ready.wait, 10.0)

    async def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.service.listeners.remove(self._saved)
        self._stop.set()
        for task in list(self._loading.values()):
            task.cancel()
        for viewers in list(self.games.values()):
            for viewer in list(viewers):
                if viewer.task is not None:
                    viewer.task.cancel()
                with contextlib.suppress(Exception):
                    await viewer.ws.close(code=1001, message=b"going away")
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 5.0)

    @property
    def viewers(self) -> int:
        return sum(len(v) for v in self.games.values())

    # -- viewers ----------------------------------------------------------

    def add(self, viewer: Viewer) -> None:
        self._enter(viewer)
        viewer.task = asyncio.ensure_future(viewer.send_all())

    def remove(self, viewer: Viewer) -> None:
        self._leave(viewer)
        if viewer.task is not None:
            viewer.task.cancel()

    def _enter(self, viewer: Viewer) -> None:
        self.games.setdefault(viewer.game, set()).add(viewer)
        self.channels.setdefault(viewer.session.channel, set()).add(viewer.game)

    def _leave(self, viewer: Viewer) -> None:
        viewers = self.games.get(viewer.game)
        if viewers is not None:
            viewers.discard(viewer)
            if not viewers:
                del self.games[viewer.game]
                self._pushed.pop(viewer.game, None)
                watched = self.channels.get(viewer.session.channel, set())
                watched.discard(viewer.game)
                if not watched:
                    self.channels.pop(viewer.session.channel, None)

    def state(self, game: Game, session: Session) -> str:
        """The state message for ``session``'s viewer."""
        view = self.render(game, session.user, session.language)
        return json.dumps({"type": "state", "game": view}, separators=(",", ":"))

    # -- news -------------------------------------------------------------

    def _saved(self, game_id: str, channel: str, rev: int) -> None:
        """The service saved ``game_id`` at ``rev`` (in the saving thread)."""
        if self.redis is not None:
            try:
                self.redis.publish(self.channel, f"{game_id}:{rev}:{channel}")
            except Exception as e:  # the viewers miss this one; the game is saved
                log.warning("could not publish a change of game %s: %s", game_id, e)
            return
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is closing
                self._loop.call_soon_threadsafe(self.changed, game_id, rev, channel)

    def changed(self, game_id: str, rev: int, channel: str = "") -> None:
        """Game ``game_id`` (of ``channel``) is now at ``rev``: its viewers here get it
        (loaded once); a game new to a watched channel may be a rematch to follow."""
        if game_id not in self.games and self.sign is not None and channel in self.channels:
            if game_id in self._loading:
                self._dirty.add(game_id)  # looked at again once followed
            else:
                self._loading[game_id] = asyncio.ensure_future(self._follow(game_id))
            return
        if game_id not in self.games or rev <= self._pushed.get(game_id, 0):
            return
        self._dirty.add(game_id)
        if game_id not in self._loading:
            self._loading[game_id] = asyncio.ensure_future(self._push(game_id))

    async def _push(self, game_id: str) -> None:
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                game = await asyncio.to_thread(self.service.get, game_id)
                viewers = self.games.get(game_id)
                if game is None or not viewers or game.rev <= self._pushed.get(game_id, 0):
                    continue
                self._pushed[game_id] = game.rev
                said: dict[tuple[str | None, str], str] = {}
                for viewer in list(viewers):
                    s = viewer.session
                    who = f"{s.platform}:{s.user_id}" if s.user is not None else None
                    text = said.get((who, s.language))
                    if text is None:
                        text = said[who, s.language] = self.state(game, s)
                    if not viewer.offer(text):
                        self.remove(viewer)
        except Exception:
            log.exception("could not send game %s to its viewers", game_id)
        finally:
            self._loading.pop(game_id, None)

    async def _follow(self, game_id: str) -> None:
        """Game ``game_id`` opened in a watched channel: if it is the rematch of a game
        watched here, its viewers move to it, each with a new session."""
        try:
            game = await asyncio.to_thread(self.service.get, game_id)
            before = game.after if game is not None else None
            if game is None or before is None or self.sign is None:
                return
            for viewer in list(self.games.get(before, ())):
                self._leave(viewer)
                viewer.session = replace(viewer.session, game=game.id)
                self._enter(viewer)
                token = self.sign(viewer.session)
                text = json.dumps({"type": "session", "session": token}, separators=(",", ":"))
                if not (viewer.offer(text) and viewer.offer(self.state(game, viewer.session))):
                    self.remove(viewer)
            self._pushed[game.id] = game.rev
        except Exception:
            log.exception("could not take the viewers of a game to its rematch %s", game_id)
        finally:
            self._loading.pop(game_id, None)
        if game_id in self._dirty:  # it changed again meanwhile
            self._dirty.discard(game_id)
            self.changed(game_id, self._pushed.get(game_id, 0) + 1)

    def _listen(self) -> None:
        """The pub/sub subscriber (its own thread): each message handed to the loop."""
        while not self._stop.is_set():
            pubsub = None
            try:
                pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=0.5)
                    self._ready.set()
                    if message is not None and message.get("type") == "message":
                        self._heard(message.get("data"))
            except Exception as e:
                self._ready.set()
                if not self._stop.is_set():
                    log.warning("the board's pub/sub failed (subscribing again): %s", e)
                    self._stop.wait(RESUBSCRIBE)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        pubsub.close()

    def _heard(self, data: object) -> None:
        text = data.decode("ascii", "replace") if isinstance(data, bytes) else str(data)
        game_id, _, rest = text.partition(":")
        rev, _, channel = rest.partition(":")
        if rev.isdigit() and len(game_id) == 8 and self._loop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self.changed, game_id, int(rev), channel[:100])
