"""Each board picture uploaded once by a Telegram worker: the table and its cards show
it by the file id of its first upload, whichever of them goes first (a card need not
wait behind its table in a busy group, nor a table behind a card)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from telegram import Message

from ...present import TableView

#: the pictures' file ids remembered (the newest)
UPLOADS = 512
#: how long a screen waits for another's upload of the same picture before it sends the
#: picture itself (a slow network: better twice than late)
UPLOAD_WAIT = 5.0
#: the pictures drawn lately kept for the other screens of their game (a few PNGs)
DRAWN = 16

Key = tuple[str, int, str]


class Uploads:
    """The file ids of the pictures this worker uploaded lately, by game, revision and
    picture, and the uploads on their way."""

    def __init__(self) -> None:
        self._ids: OrderedDict[Key, str] = OrderedDict()
        self._going: dict[Key, asyncio.Future[str | None]] = {}
        #: the pictures drawn lately (or being drawn), for the other screens of the game
        self._drawn: OrderedDict[Key, asyncio.Future[bytes | None]] = OrderedDict()

    async def drawn(self, view: TableView) -> TableView:
        """``view`` with its picture drawn: once for every screen of the game (a table
        and its cards share the drawing), off the event loop."""
        if view.picture is None or "image" in view.__dict__:
            return view
        key = self._key(view)
        drawing = self._drawn.get(key)
        if drawing is None:
            drawing = self._drawn[key] = asyncio.get_running_loop().create_future()
            while len(self._drawn) > DRAWN:
                self._drawn.popitem(last=False)
            try:
                drawing.set_result(await asyncio.to_thread(getattr, view, "image"))
            except BaseException:
                drawing.set_result(None)  # the others draw it themselves
                self._drawn.pop(key, None)
                raise
        image = await asyncio.shield(drawing)
        if image is not None and "image" not in view.__dict__:
            view.__dict__["image"] = image
        return view

    @staticmethod
    def _key(view: TableView) -> Key:
        return (view.game_id, view.rev, view.picture or "")

    async def photo(self, view: TableView, draw: bool = True) -> str | bytes | None:
        """What to send as ``view``'s picture: its file id if it was uploaded (or is being
        uploaded: awaited a while), else its PNG if ``draw`` (then the caller uploads it
        and tells :meth:`saw`); None: no picture (a card in words)."""
        if view.picture is None:
            return None
        key = self._key(view)
        found = self._ids.get(key)
        if found is not None:
            return found
        going = self._going.get(key)
        if going is not None:
            try:
                found = await asyncio.wait_for(asyncio.shield(going), UPLOAD_WAIT)
            except TimeoutError:
                found = None
            if found is not None:
                return found
        if not draw:
            return None
        if key not in self._going:
            self._going[key] = asyncio.get_running_loop().create_future()
        return (await self.drawn(view)).image

    def saw(self, view: TableView, sent: object) -> None:
        """``sent`` (a message after a send or an edit; anything else: the upload failed)
        shows ``view``'s picture: its file id is kept, and whoever waits for it told."""
        if view.picture is None:
            return
        key = self._key(view)
        file_id = None
        if isinstance(sent, Message) and sent.photo:
            file_id = sent.photo[-1].file_id
            self._ids[key] = file_id
            self._ids.move_to_end(key)
            while len(self._ids) > UPLOADS:
                self._ids.popitem(last=False)
        going = self._going.pop(key, None)
        if going is not None and not going.done():
            going.set_result(file_id)
