"""The pictures of tables posted through Telegram's inline mode, served to Telegram.

Telegram takes no new upload when an inline message is edited: it fetches the picture
from a URL instead.  Each version of each table's picture has its own URL,
``<LUDO_PUBLIC_URL>/pic/<name>.png``, whose name is signed by the bot
(:meth:`bot.web.auth.Keys.picture`): unguessable, the same from every worker, and
good until the game would expire.  The picture is drawn from the saved game, so any
worker serves it, while the game is at that revision (a newer one answers 410 Gone:
a newer edit follows); it is cached for good by whoever fetched it (the bytes of one
name never change).  A forged or expired name is 404, a game that is gone 404.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable

from aiohttp import web

from ..hosting import Game
from ..present import TableView
from ..present.pictures import board_png, standings_png
from ..service.game import GameService
from ..store.base import DEFAULT_TTL
from .auth import Keys, Picture, Refused

#: where the pictures are served
PATH = "/pic/"
#: pictures a worker keeps drawn (Telegram fetches each once or twice)
CACHED = 64
#: the kinds of picture a table shows
KINDS = ("board", "standings")


class PictureLinks:
    """The URL of each version of a table's picture."""

    def __init__(
        self,
        keys: Keys,
        public_url: str,
        ttl: float = DEFAULT_TTL,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.keys = keys
        self.public_url = public_url.rstrip("/")
        #: how long a URL is good: as long as an idle game is kept
        self.ttl = ttl
        self.clock = clock

    def url(self, view: TableView) -> str:
        """The URL of the picture ``view`` shows (it must show one)."""
        assert view.picture in KINDS
        picture = Picture(
            view.game_id, view.rev, view.picture, view.lang, view.size, self.clock() + self.ttl
        )
        return f"{self.public_url}{PATH}{self.keys.picture(picture)}.png"


def drawn(game: Game, picture: Picture) -> bytes:
    if picture.kind == "standings":
        return standings_png(game, picture.size, picture.lang)
    return board_png(game, picture.size, picture.lang)


class PictureServer:
    """``GET /pic/<name>.png``: a table's picture, drawn from its saved game."""

    def __init__(self, service: GameService, keys: Keys) -> None:
        self.service = service
        self.keys = keys
        self._drawn: OrderedDict[str, bytes] = OrderedDict()

    def routes(self) -> list[web.RouteDef]:
        return [web.get(PATH + "{name}.png", self.get)]

    async def get(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        try:
            picture = self.keys.read_picture(name)
        except Refused:
            raise web.HTTPNotFound() from None
        png = self._drawn.get(name)
        if png is None:
            if picture.kind not in KINDS or not 100 <= picture.size <= 2000:
                raise web.HTTPNotFound()
            game = await asyncio.to_thread(self.service.get, picture.game_id)
            if game is None or game.state is None:
                raise web.HTTPNotFound()
            if game.rev != picture.rev:
                raise web.HTTPGone()  # a newer picture replaced it
            png = await asyncio.to_thread(drawn, game, picture)
            self._drawn[name] = png
            while len(self._drawn) > CACHED:
                self._drawn.popitem(last=False)
        else:
            self._drawn.move_to_end(name)
        return web.Response(
            body=png,
            content_type="image/png",
            headers={"Cache-Control": "public, max-age=31536000, immutable"},
        )
