"""A Discord channel as the reconciler drives it: the table message as an embed.

The table is one message: the mention of the person on turn (the only one who
may be pinged, and only when the view says so), an embed with the caption and
the board or standings picture, and the buttons.  :class:`ChannelScreen`
reaches the channel through REST: every new table is a plain channel message,
and old tables are deleted.  :class:`InteractionScreen` answers a press by
editing the pressed message where the table is edited in place, acknowledges
it silently otherwise, and answers a command privately; it falls back to REST
when the interaction is too old or Discord refuses the answer: a late answer
must never stop the result from being shown.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Sequence
from typing import Any

import discord

from ...present import Button, TableView, Text, say
from ..reconcile import CHAT, Powers
from .activity import ROWS, board_button
from .client import GameButton, LudoClient
from .corner_button import tell_button
from .nonces import Nonces, post_once
from .picture import alt_of, colour
from .tour_command import TOUR_TEMPLATE, TourButton
from .weather import transient

log = logging.getLogger(__name__)

#: Discord allows 4096 characters in an embed's description
EMBED_LIMIT = 4000
#: and 2000 in a message's content
CONTENT_LIMIT = 2000
_STYLES = {"primary": discord.ButtonStyle.primary, "danger": discord.ButtonStyle.danger}
NO_MENTIONS = discord.AllowedMentions.none()


def clean(text: str) -> str:
    """A name as safe text: no markdown, and nothing Discord would show as a mention.

    ``allowed_mentions`` already stops any ping; this also keeps ``<@999>``,
    ``<@&1>`` or ``@everyone`` in a name from being drawn as a mention pill.
    """
    text = discord.utils.escape_markdown(text)
    return text.replace("@", "@\u200b").replace("<#", "<\u200b#")


def describe(lines: Sequence[Text], limit: int = EMBED_LIMIT, lang: str | None = None) -> str:
    """The lines as text in ``lang`` with the names escaped, cut to ``limit`` (the latest
    lines kept)."""
    text = "\n".join(say(t, clean, lang) for t in lines)
    if len(text) > limit:
        text = "…\n" + text[-limit:].split("\n", 1)[-1]
    return text


def buttons_of(view: TableView, activity: bool = False) -> discord.ui.View | None:
    """The view's buttons as a persistent ``discord.ui.View`` (None: no buttons), and
    below them "Tell me my turns" (:mod:`.corner_button`) and, with ``activity``, "Open
    the board" (see :mod:`.activity`)."""
    rows = len(view.buttons[:ROWS])
    board = board_button(view, rows) if activity else None
    below = [b for b in (board, tell_button(view, rows + bool(board))) if b is not None]
    if not view.buttons and not below:
        return None
    out = button_rows(view.buttons, view.lang)
    for button in below:
        out.add_item(button)
    return out


def button_rows(rows: Sequence[Sequence[Button]], lang: str) -> discord.ui.View:
    """Buttons as a persistent ``discord.ui.View``: a game's, or a tournament's sign-up
    (told apart by their data), their labels in ``lang``."""
    out = discord.ui.View(timeout=None)
    for r, row in enumerate(rows[:ROWS]):
        for b in row[:5]:
            style = _STYLES.get(b.style, discord.ButtonStyle.secondary)
            kind = TourButton if TOUR_TEMPLATE.fullmatch(b.data) else GameButton
            button = kind(b.data, say(b.label, lang=lang), style)
            button.item.row = r
            out.add_item(button)
    return out


def fields(view: TableView, *, edit: bool = False, activity: bool = False) -> dict[str, Any]:
    """The view as message fields: a mention, an embed with the picture, the buttons.

    ``edit``: for an edit (the picture as ``attachments``, ``view=None`` without
    buttons so the old ones go); ``activity``: with "Open the board".  The picture
    carries the board in words as its description (alt text).  The content mentions
    the person on turn; only ``view.ping`` may be notified by it (a display name can
    never ping anyone).
    """
    out: dict[str, Any] = {}
    embed = discord.Embed(description=describe(view.lines, lang=view.lang), colour=colour(view))
    image = view.image
    if image is not None:
        name = f"{view.picture}.png"
        file = discord.File(io.BytesIO(image), filename=name, description=alt_of(view))
        embed.set_image(url=f"attachment://{name}")
        if edit:
            out["attachments"] = [file]
        else:
            out["file"] = file
    out["embed"] = embed
    buttons = buttons_of(view, activity)
    if buttons is not None or edit:
        out["view"] = buttons
    turn = view.turn
    called = [u for u in view.call if u.id.isdigit()]  # a tournament's table, its players
    if turn is not None and turn.id.isdigit():
        out["content"] = f"<@{turn.id}>"
    elif called:
        out["content"] = " ".join(f"<@{u.id}>" for u in called)
    elif edit:
        out["content"] = None
    ping = view.ping
    pinged = [ping] if ping is not None and ping.id.isdigit() else [] if edit else called
    if pinged:
        out["allowed_mentions"] = discord.AllowedMentions(
            everyone=False,
            roles=False,
            replied_user=False,
            users=[discord.Object(id=int(u.id)) for u in pinged],
        )
    else:
        out["allowed_mentions"] = NO_MENTIONS
    return out


async def quietly(call: Awaitable[Any], what: str, *, again: bool = False) -> bool:
    """A call whose failure (the message gone, no permission) changes nothing for anyone;
    ``again``: Discord refusing it for a while raises (the call is to be tried again)."""
    try:
        await call
    except discord.HTTPException as e:
        if again and transient(e):
            raise
        log.log(logging.DEBUG if transient(e) else logging.INFO, "%s failed: %s", what, e)
        return False
    return True


def activity_of(client: discord.Client) -> bool:
    """Whether the tables carry "Open the board" (the Activity is set up)."""
    return isinstance(client, LudoClient) and client.settings.activity


class ChannelScreen:
    """The messages of one channel (or thread), through REST."""

    #: a chat the bot is a member of: it may post, edit and delete
    powers: Powers = CHAT

    def __init__(self, client: discord.Client, channel_id: int) -> None:
        self.client = client
        self.channel_id = channel_id
        #: the tables carry "Open the board" (the Activity is set up)
        self.activity = activity_of(client)

    def _message(self, msg: str) -> discord.PartialMessage:
        channel = self.client.get_partial_messageable(self.channel_id)
        return channel.get_partial_message(int(msg))

    async def edit(self, msg: str, view: TableView) -> bool:
        try:
            await self._message(msg).edit(**fields(view, edit=True, activity=self.activity))
        except discord.NotFound:
            log.info("message %s is gone: posting a new one", msg)
            return False
        except discord.HTTPException as e:
            if transient(e):
                raise  # Discord refusing for a while: tried again later (.retries)
            log.warning("cannot edit message %s in %s: %s", msg, self.channel_id, e)
            return False
        return True

    async def post(self, view: TableView) -> str | None:
        """Post ``view``, once even if Discord's answer was lost (see :mod:`.nonces`)."""
        channel = self.client.get_partial_messageable(self.channel_id)
        nonces = self.client.nonces if isinstance(self.client, LudoClient) else Nonces()
        kwargs = fields(view, activity=self.activity)
        try:
            refresh = lambda sent: self.edit(str(sent.id), view)  # noqa: E731
            sent = await post_once(nonces, channel, view.game_id, kwargs, refresh)
        except discord.HTTPException as e:
            if transient(e):
                raise
            log.warning("cannot post in %s: %s", self.channel_id, e)
            return None
        return str(sent.id)

    async def retire(self, msg: str) -> None:
        await quietly(self._message(msg).edit(view=None), f"retiring message {msg}", again=True)

    async def say(self, text: str) -> None:
        """A plain message in the channel, not a table (a damaged game's channel freed)."""
        channel = self.client.get_partial_messageable(self.channel_id)
        sent = channel.send(content=text[:CONTENT_LIMIT] or "…", allowed_mentions=NO_MENTIONS)
        await quietly(sent, f"posting in {self.channel_id}")

    async def remove(self, msg: str) -> bool:
        try:
            await self._message(msg).delete()
        except discord.NotFound:
            return True  # gone already
        except discord.HTTPException as e:
            if transient(e):
                raise
            log.info("removing message %s failed: %s", msg, e)
            return False
        return True


class InteractionScreen(ChannelScreen):
    """The channel of an interaction: a press answered by its own message where it can.

    ``pressed`` is the message whose button was pressed (None: a slash command).
    A press whose message is edited in place is answered by that edit (type 7,
    UPDATE_MESSAGE).  Anything else done in the channel (a new table, a
    deletion, another message's edit) is done through the channel's REST, the
    press first acknowledged silently (type 6): a new table is a plain channel
    message, never a followup of the interaction (that would show as a reply to
    the table deleted next).  A command is answered privately (:meth:`private`)
    and leaves the channel to REST.  Once Discord refuses an answer (too late:
    10062; answered by another worker: 40060) the interaction is not tried
    again.  One answer at a time: :meth:`defer` may come from elsewhere (a burst of
    presses, see :mod:`.burst`) while an answer is on its way, and then does nothing.
    """

    def __init__(
        self, client: discord.Client, interaction: discord.Interaction[Any], pressed: str | None
    ) -> None:
        super().__init__(client, interaction.channel_id or 0)
        self.interaction = interaction
        self.pressed = pressed
        #: Discord refused an answer: the interaction is not used any more
        self._gone = False
        #: the asker was told privately (a command's answer, a refusal)
        self.told = False
        #: held while the interaction is being answered
        self._answering = asyncio.Lock()

    @property
    def _response(self) -> discord.InteractionResponse[Any]:
        return self.interaction.response

    def _open(self) -> bool:
        """Does the interaction still wait for its first response?"""
        return not self._gone and not self._response.is_done()

    def waiting(self) -> bool:
        """Does the interaction still wait for its first response, none on its way?"""
        return self._open() and not self._answering.locked()

    def _refused(self, e: discord.HTTPException, then: str) -> None:
        self._gone = True
        level = logging.DEBUG if transient(e) else logging.INFO  # a storm: said once (.weather)
        log.log(level, "an interaction could not be answered (%s): %s", e, then)

    async def defer(self) -> None:
        """Take more time to answer: a press silently (type 6), a command with a private
        "thinking…" that its private answer replaces."""
        async with self._answering:
            if not self._open():
                return
            try:
                if self.pressed is None:
                    await self._response.defer(ephemeral=True, thinking=True)
                else:
                    await self._response.defer()
            except discord.HTTPException as e:
                self._refused(e, "answering through the channel")

    async def _acknowledge(self) -> None:
        """A press whose message is not edited through it: acknowledged silently first."""
        if self.pressed is not None:
            await self.defer()

    async def _update(self, **kwargs: Any) -> bool:
        """Update the pressed message as the press's answer (type 7), if still possible."""
        async with self._answering:
            if not self._open():
                return False
            try:
                await self._response.edit_message(**kwargs)
            except discord.HTTPException as e:
                self._refused(e, "editing through the channel")
                return False
            return True

    async def edit(self, msg: str, view: TableView) -> bool:
        if msg == self.pressed and await self._update(
            **fields(view, edit=True, activity=self.activity)
        ):
            return True
        await self._acknowledge()
        return await super().edit(msg, view)

    async def post(self, view: TableView) -> str | None:
        await self._acknowledge()
        return await super().post(view)

    async def retire(self, msg: str) -> None:
        if msg == self.pressed and await self._update(view=None):
            return
        await self._acknowledge()
        await super().retire(msg)

    async def remove(self, msg: str) -> bool:
        await self._acknowledge()
        return await super().remove(msg)

    async def say(self, text: str) -> None:
        await self._acknowledge()
        await super().say(text)

    async def private(self, text: str) -> None:
        """Tell the asker alone (a refusal, what a command did), if Discord still lets us."""
        if self._gone:
            return
        kwargs: dict[str, Any] = {
            "content": text[:CONTENT_LIMIT] or "…",
            "ephemeral": True,
            "allowed_mentions": NO_MENTIONS,
        }
        async with self._answering:
            if self._gone:
                return
            try:
                if not self._response.is_done():
                    await self._response.send_message(**kwargs)
                else:
                    # after a command's private "thinking…", the first followup replaces it
                    await self.interaction.followup.send(**kwargs)
            except discord.HTTPException as e:
                self._refused(e, "the asker is not told")
            else:
                self.told = True

    async def conclude(self) -> None:
        """Answer the interaction if nothing did: a press silently (type 6)."""
        await self._acknowledge()
