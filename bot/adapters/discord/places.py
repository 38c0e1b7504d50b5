"""Places the bot reaches through interactions only: ``/ludo`` installed to a person and
used in a DM or group DM between people, or in a server the bot is not in.

There the bot cannot see the channel (every channel endpoint answers Missing Access):
the table is the command's own answer, each press is answered by editing it
(UPDATE_MESSAGE), and timers and computer moves edit it through the freshest
interaction token, kept in the table's notes so that any worker can (a token lasts 15
minutes, and is never shown or logged).  Before it runs out, :class:`Expiry` edits the
table to say that it waits for a press, with a **Continue** button; after that nothing
can edit it until someone presses, and the press carries on from where the game stands.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, cast

import discord

from ...present import TableView, Text, say, table_view
from ...service.game import GameService
from ..reconcile import Notes, Powers
from .screen import InteractionScreen, activity_of, fields
from .wake import WakeButton
from .weather import transient

log = logging.getLogger(__name__)

#: how long an interaction's token may edit its messages
TOKEN_SECONDS = 15 * 60.0
#: the table says it waits for a press this long before its freshest token runs out
WARN_BEFORE = 60.0


def interaction_only(interaction: discord.Interaction[Any]) -> bool:
    """Whether ``interaction`` comes from a place the bot reaches only through
    interactions: an app installed to the person, used where the bot is not (a DM or
    group DM between people, or a server without the bot; its own DM aside)."""
    if interaction.is_guild_integration():
        return False
    return not interaction.context.dm_channel


def forced_private(interaction: discord.Interaction[Any]) -> bool:
    """A server whose members may not use outside apps there: Discord shows every answer
    to the person alone, so no table can be shared."""
    perms = interaction.permissions
    return interaction.guild_id is not None and not perms.use_external_apps


def until_of(interaction: discord.Interaction[Any]) -> float:
    """Until when ``interaction``'s token can edit (Unix time)."""
    return interaction.created_at.timestamp() + TOKEN_SECONDS


class TokenScreen(InteractionScreen):
    """A place of interactions only, as one interaction reaches it: a command's answer
    is the table (posted once), a press's answer edits it; its token, kept in the notes,
    edits it later."""

    @property
    def powers(self) -> Powers:  # type: ignore[override]
        first = self.pressed is None and self._open()
        return Powers(
            send=first,
            delete=False,
            home=self.pressed,
            via=self.interaction.token,
            until=until_of(self.interaction),
        )

    async def edit(self, msg: str, view: TableView) -> bool:
        kwargs = fields(view, edit=True, activity=self.activity)
        if msg == self.pressed and await self._update(**kwargs):
            return True
        await self._acknowledge()
        return await edit_through(self.interaction.followup, msg, kwargs)

    async def post(self, view: TableView) -> str | None:
        if not self.powers.send:
            return None
        async with self._answering:
            try:
                await self._response.send_message(**fields(view, activity=self.activity))
                sent = await self.interaction.original_response()
            except discord.HTTPException as e:
                self._refused(e, "no table")
                return None
        return str(sent.id)

    async def retire(self, msg: str) -> None:
        if msg == self.pressed and await self._update(view=None):
            return
        await self._acknowledge()
        await edit_through(self.interaction.followup, msg, {"view": None})

    async def remove(self, msg: str) -> bool:
        return False

    async def say(self, text: str) -> None:
        await self.private(text)


def screen_for(
    client: discord.Client, interaction: discord.Interaction[Any], pressed: str | None
) -> InteractionScreen:
    """The place of ``interaction``, as one interaction reaches it."""
    kind = TokenScreen if interaction_only(interaction) else InteractionScreen
    return kind(client, interaction, pressed)


def kept_screen(
    client: discord.Client, shown: Any, clock: Callable[[], float] = time.time
) -> KeptTokenScreen | bool:
    """How a table shown as ``shown`` (its notes) is reached without an interaction: by
    the token kept, while it lasts (False: it ran out, nothing can edit the table now;
    True: the bot's own channel, through REST)."""
    notes = Notes.from_bytes(shown.data if shown is not None else None)
    if notes.via is None:
        return True
    return KeptTokenScreen(client, notes) if clock() < notes.until - 5 else False


def reach_of(
    client: discord.Client, screen: InteractionScreen, shown: Any, clock: Callable[[], float]
) -> tuple[Any, bool]:
    """Where the table of an interaction's outcome is shown: (the screen, or None: only a
    press can show it now; whether the asker of a command is told privately what it
    did).  A command where the table is reached through interactions only answers with
    the table if there is none yet, else edits it through the token kept."""
    if not isinstance(screen, TokenScreen) or screen.pressed is not None:
        return screen, screen.pressed is None
    kept = kept_screen(client, shown, clock)
    if kept is True:  # no table here yet: the command's answer is the table
        return screen, False
    return (kept or None), True


class KeptTokenScreen:
    """A place of interactions only, reached later (a timer, a computer's move) through
    the token kept in its notes, while it lasts."""

    def __init__(self, client: discord.Client, notes: Notes) -> None:
        assert notes.via is not None
        self.client = client
        self.notes = notes
        self.webhook = discord.Webhook.partial(
            cast(int, client.application_id), notes.via, client=client
        )
        self.powers = Powers(send=False, delete=False, home=notes.msg, via=notes.via,
                             until=notes.until)  # fmt: skip
        self.activity = activity_of(client)

    async def edit(self, msg: str, view: TableView) -> bool:
        return await edit_through(
            self.webhook, msg, fields(view, edit=True, activity=self.activity)
        )

    async def post(self, view: TableView) -> str | None:
        return None

    async def retire(self, msg: str) -> None:
        await edit_through(self.webhook, msg, {"view": None})

    async def remove(self, msg: str) -> bool:
        return False


async def edit_through(webhook: discord.Webhook, msg: str, kwargs: dict[str, Any]) -> bool:
    """Edit the table ``msg`` through an interaction's token; False if Discord refuses
    (the token ran out, the message is gone)."""
    kwargs = {k: v for k, v in kwargs.items() if k != "file"}
    try:
        await webhook.edit_message(int(msg), **kwargs)
    except discord.HTTPException as e:
        level = logging.DEBUG if transient(e) else logging.INFO  # a storm: said once
        log.log(level, "a table reached by interactions only was not edited: %s", e.status)
        return False
    return True


def waiting(view: TableView) -> dict[str, Any]:
    """The table as it is, its buttons replaced by Continue: it waits for a press."""
    label = say(Text("dc.continue"), lang=view.lang)
    out = fields(view, edit=True)
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(WakeButton(f"w:{view.game_id}", label, discord.ButtonStyle.primary))
    out["view"] = buttons
    out["content"] = say(Text("dc.waits_for_a_press"), lang=view.lang)
    out.pop("attachments", None)  # the picture up already stays
    return out


class Expiry:
    """Before the freshest token of a table runs out, the table says it waits for a press
    (one watch per table in this process, replaced by a fresher token's)."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.service = service
        self.clock = clock
        self._watches: dict[str, asyncio.Task[None]] = {}

    def watch(self, game_id: str, notes: Notes) -> None:
        """Watch the token ``notes`` keep for ``game_id``'s table."""
        old = self._watches.pop(game_id, None)
        if old is not None:
            old.cancel()
        if notes.via is not None:
            self._watches[game_id] = asyncio.create_task(self._run(game_id, notes))

    async def _run(self, game_id: str, notes: Notes) -> None:
        try:
            while self.clock() < notes.until - WARN_BEFORE:
                await asyncio.sleep(min(1.0, notes.until - WARN_BEFORE - self.clock()))
            await self._warn(game_id, notes)
        except Exception as e:  # the game is saved; the next press shows it
            log.info("a table was not told to wait for a press: %s", e)
        finally:
            if self._watches.get(game_id) is asyncio.current_task():
                del self._watches[game_id]

    async def _warn(self, game_id: str, notes: Notes) -> None:
        shown = await asyncio.to_thread(self.service.shown, game_id)
        now = Notes.from_bytes(shown.data if shown else None)
        if shown is None or now.via != notes.via or now.msg is None or self.clock() >= now.until:
            return  # a fresher token took over, or it is too late
        game = await asyncio.to_thread(self.service.get, game_id)
        if game is None:
            return
        view = table_view(game)
        if view.finished:
            return
        screen = KeptTokenScreen(self.client, now)
        if not await edit_through(screen.webhook, now.msg, waiting(view)):
            return
        # nothing can edit the table any more: the next press shows it anew; the token is
        # forgotten (an empty one: still a place of interactions only)
        gone = Notes(now.msg, 0, None, now.kind, now.final, via="", until=0.0)
        await asyncio.to_thread(self.service.note_shown, game_id, gone.to_bytes(), shown.rev)

    async def close(self) -> None:
        for task in list(self._watches.values()):
            task.cancel()
        self._watches.clear()
