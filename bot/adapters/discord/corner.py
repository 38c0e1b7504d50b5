"""A person's corner on Discord: their DM with the bot, where the cards of their games
come (see :mod:`bot.adapters.cards`).

A card is one message of the DM: an embed whose title says where the table is (and
links to that channel), the table's own lines, its picture, and the table's buttons,
with *Mute this game* below them on a live card.  The picture is the view's, drawn
once for the table; it is uploaded with each new version of the game, and an edit that
shows the version the message shows already keeps its attachment.  Discord refusing to
write to the person (50007: they share no server with the bot, or closed their DMs)
stops their cards (:class:`~bot.adapters.cards.Unreachable`); anything else misses
this card only (discord.py waits out the DM's rate limits itself).

The note of a game opened in a channel the person hears of (``/ludo notify here``) is a
message of the DM too: who opened which game where, and a **Join** button.
"""

from __future__ import annotations

import io
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from ...hosting import Game
from ...present import TableView, Text, say
from ...present.buttons import corner_button
from ..cards import LIVE, Card, Unreachable
from .activity import ROWS
from .corner_button import CornerButton
from .nonces import Nonces, post_once
from .picture import alt_of, colour
from .screen import NO_MENTIONS, button_rows, clean, describe
from .weather import transient
from .where import GUILD_PREFIX, channel_id_of

log = logging.getLogger(__name__)

#: Discord's refusals of a person who cannot be written to: Cannot send messages to this
#: user (DMs closed, no server shared), Invalid Recipient(s)
CLOSED = (50007, 50033)
#: how many cards' pictures a process remembers
KEPT = 4096
#: the longest embed title Discord takes
TITLE_LIMIT = 256


def link(view: TableView) -> str | None:
    """The address of the channel of ``view``'s table (None: not one of Discord's)."""
    channel = channel_id_of(view.channel)
    if channel is None:
        return None
    chat = str(view.game.chat or "")
    guild = chat[len(GUILD_PREFIX) :] if chat.startswith(GUILD_PREFIX) else "@me"
    return f"https://discord.com/channels/{guild}/{channel}"


def card_buttons(card: Card) -> discord.ui.View | None:
    """The table's buttons (none on a stilled card), and *Mute this game* on a live one."""
    if not card.buttons:
        return None
    rows = card.view.buttons[: ROWS - 1]
    out = button_rows(rows, card.lang)
    if card.mode == LIVE:
        label = say(Text("btn.mute"), lang=card.lang)
        mute = CornerButton(corner_button("mute", card.view.game_id), label)
        mute.item.row = len(rows)
        out.add_item(mute)
    return out


def card_fields(card: Card, *, edit: bool = False, keep: bool = False) -> dict[str, Any]:
    """``card`` as message fields; ``edit``: for an edit (the old buttons go);
    ``keep``: the message shows this picture already (no upload)."""
    view = card.view
    title = say(card.where, lang=card.lang)[:TITLE_LIMIT]  # a title neither pings nor links
    lines = describe(view.lines, lang=card.lang)
    embed = discord.Embed(title=title, url=link(view), description=lines, colour=colour(view))
    out: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
    image = view.image
    if image is not None:
        name = f"{view.picture}.png"
        embed.set_image(url=f"attachment://{name}")
        if not keep:
            file = discord.File(io.BytesIO(image), filename=name, description=alt_of(view))
            out["attachments" if edit else "file"] = [file] if edit else file
    elif edit:
        out["attachments"] = []
    out["embed"] = embed
    buttons = card_buttons(card)
    if buttons is not None or edit:
        out["view"] = buttons
    return out


def note_fields(game: Game, where: Text, lang: str) -> dict[str, Any]:
    """The note of new game ``game``, its table ``where``, as message fields: the words
    in ``lang``, and a Join button seating whoever presses it."""
    opened = Text("corner.opened", {"host": game.creator.name, "rules": game.rules, "place": where})
    join = CornerButton(corner_button("join", game.id), say(Text("btn.join"), lang=lang))
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(join)
    return {"content": say(opened, clean, lang), "view": buttons, "allowed_mentions": NO_MENTIONS}


class Pictures:
    """Which version of its game each card shows the picture of (those this process
    sent), so that an edit to the same version keeps the attachment."""

    def __init__(self) -> None:
        self._shown: OrderedDict[str, int] = OrderedDict()

    def shows(self, msg: str, rev: int) -> bool:
        return self._shown.get(msg) == rev

    def saw(self, msg: str, rev: int) -> None:
        self._shown[msg] = rev
        self._shown.move_to_end(msg)
        while len(self._shown) > KEPT:
            self._shown.popitem(last=False)


class DmScreen:
    """One person's DM with the bot, through REST (:class:`~bot.adapters.cards.CardScreen`).

    ``channel`` says which channel the DM is, opening it if need be (None: no card
    there now; raises :class:`~bot.adapters.cards.Unreachable`)."""

    def __init__(
        self,
        client: discord.Client,
        channel: Callable[[], Awaitable[int | None]],
        pictures: Pictures,
        nonces: Nonces,
    ) -> None:
        self.client = client
        self.channel = channel
        self.pictures = pictures
        self.nonces = nonces

    async def _messageable(self) -> discord.PartialMessageable | None:
        channel = await self.channel()
        if channel is None:
            return None
        return self.client.get_partial_messageable(channel, type=discord.ChannelType.private)

    async def send(self, card: Card) -> str | None:
        dm = await self._messageable()
        if dm is None:
            return None
        try:
            refresh = lambda sent: self.edit(str(sent.id), card)  # noqa: E731
            sent = await post_once(self.nonces, dm, card.view.game_id, card_fields(card), refresh)
        except discord.HTTPException as e:
            if e.code in CLOSED:
                raise Unreachable(f"{e.status} {e.code}") from None
            _missed("sent", e)
            return None
        self.pictures.saw(str(sent.id), card.view.rev)
        return str(sent.id)

    async def edit(self, msg: str, card: Card) -> bool:
        try:
            dm = await self._messageable()
        except Unreachable:
            return False
        if dm is None:
            return False
        keep = self.pictures.shows(msg, card.view.rev)
        try:
            await dm.get_partial_message(int(msg)).edit(**card_fields(card, edit=True, keep=keep))
        except discord.NotFound:
            return False  # deleted: a live card is sent anew
        except discord.HTTPException as e:
            _missed("edited", e)
            return False
        self.pictures.saw(msg, card.view.rev)
        return True

    async def remove(self, msg: str) -> bool:
        try:
            dm = await self._messageable()
        except Unreachable:
            return False
        if dm is None:
            return False
        try:
            await dm.get_partial_message(int(msg)).delete()
        except discord.NotFound:
            return True
        except discord.HTTPException as e:
            _missed("deleted", e)
            return False
        return True


def _missed(what: str, error: discord.HTTPException) -> None:
    """A card not ``what``: Discord refusing for a while is said once, by its storm."""
    level = logging.DEBUG if transient(error) else logging.INFO
    log.log(level, "a card was not %s: %s %s", what, error.status, error.code)
