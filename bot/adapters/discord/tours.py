"""Tournaments on Discord: ``/ludo tournament``, the sign-up message (a press edits it
in place, as its answer), and what the tournament tells the channel as its tables
finish (posted through the channel's REST)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from ...hosting import Game
from ...hosting import tournament as tour
from ...hosting.tournament import Tournament
from ...present import Text, refusal_text, say
from ...present.buttons import parse_tour_press
from ...present.tour import TourView, room_name, signup_message, tour_view
from ...service.outcome import Outcome, TourOutcome
from ...service.tournaments import Tournaments
from ..faults import Handling
from .screen import CONTENT_LIMIT, NO_MENTIONS, InteractionScreen, button_rows, clean, describe
from .translator import asker_language as language
from .where import PREFIX, can_manage, channel_key, chat_key, user_of

log = logging.getLogger(__name__)

Handle = Callable[[discord.Interaction[Any]], contextlib.AbstractAsyncContextManager[Handling]]


def fields(view: TourView) -> dict[str, Any]:
    """A tournament's message: its text, and its buttons (``view`` None: none)."""
    buttons = button_rows(view.buttons, view.lang) if view.buttons else None
    text = describe(view.lines, CONTENT_LIMIT, view.lang)
    return {"content": text or "…", "view": buttons, "allowed_mentions": NO_MENTIONS}


class DiscordTours:
    """The tournaments of one Discord adapter."""

    def __init__(
        self,
        tours: Tournaments,
        client: discord.Client,
        handling: Handle,
        show: Callable[[Outcome], Awaitable[None]],
    ) -> None:
        self.tours = tours
        self.client = client
        self.handling = handling
        #: a table game's outcome shown (the adapter's ``show``)
        self.show = show

    async def command(
        self,
        interaction: discord.Interaction[Any],
        action: str | None,
        fmt: str,
        rules: str,
        options: dict[str, Any],
        size: int,
        rounds: int,
        timer: int,
        level: str,
    ) -> None:
        """``/ludo tournament``: ``action`` on the one here; none, or ``open``: a new one
        (without ``action``, the one here is shown if there is one)."""
        async with self.handling(interaction):
            screen = InteractionScreen(self.client, interaction, None)
            channel, user = channel_key(interaction.channel_id), user_of(interaction.user)
            lang = language(interaction)
            out: TourOutcome | None = None
            if action != "open":
                what = action or "show"
                manage = can_manage(interaction)
                out = await asyncio.to_thread(self.tours.act, channel, user, what, manage)
                if (
                    action is None
                    and out.refusal is not None
                    and out.refusal.key == "refuse.no_tour"
                ):
                    out = None  # none here: a new one
            if out is None:
                out = await asyncio.to_thread(
                    lambda: self.tours.open(
                        channel,
                        user,
                        rules,
                        options,
                        fmt=fmt,
                        size=size,
                        rounds=rounds,
                        timer=timer,
                        lang=lang,
                        chat=chat_key(interaction),
                        level=level,
                        rooms=can_have_threads(interaction),
                    )
                )
            if out.refusal is not None:
                await screen.private(say(refusal_text(out.refusal), clean, lang))
            else:
                await screen.private(say(Text("tour.told"), clean, lang))
            if out.tour is not None and (
                out.refusal is None or out.refusal.key == "refuse.tour_running"
            ):
                await self.post(out if out.refusal is None else TourOutcome(out.tour))
            for table in out.tables:
                await self.show(table)
            await self.rooms(out.tour)

    async def on_press(self, interaction: discord.Interaction[Any], data: str) -> None:
        """A sign-up button: the message edited in place as the answer; a refusal told
        privately."""
        async with self.handling(interaction):
            message = interaction.message
            screen = InteractionScreen(
                self.client, interaction, str(message.id) if message is not None else None
            )
            lang = language(interaction)
            press = parse_tour_press(data)
            if press is None or message is None:
                await screen.private(say(Text("refuse.bad_button"), clean, lang))
                return
            channel, user = channel_key(interaction.channel_id), user_of(interaction.user)
            manage = can_manage(interaction)
            out = await asyncio.to_thread(
                self.tours.press, channel, user, press.tour_id, press.version, press.what, manage
            )
            if out.refusal is not None:
                await screen.private(say(refusal_text(out.refusal), clean, lang))
            t = out.tour
            if t is not None:
                view = signup_message(t)
                await self.edit(screen, interaction, str(message.id), view)
                if out.refusal is None and t.status != tour.SIGNUP:
                    await self.post(out)
            await screen.conclude()
            for table in out.tables:
                await self.show(table)
            await self.rooms(t)

    async def edit(
        self,
        screen: InteractionScreen,
        interaction: discord.Interaction[Any],
        msg: str,
        view: TourView,
    ) -> None:
        """The sign-up message brought to ``view``: as the press's answer if it can be."""
        if not interaction.response.is_done():
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.edit_message(**fields(view))
                return
        channel = self.client.get_partial_messageable(screen.channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(int(msg)).edit(**fields(view))

    async def post(self, out: TourOutcome) -> None:
        """What the tournament tells the channel now, as a message of its own."""
        if out.tour is None:
            return
        view = tour_view(out.tour, out.happened)
        if view is None or not view.channel.startswith(PREFIX):
            return
        channel = self.client.get_partial_messageable(int(view.channel[len(PREFIX) :]))
        try:
            await channel.send(**{k: v for k, v in fields(view).items() if v is not None})
        except discord.HTTPException as e:
            log.warning("cannot post the tournament in %s: %s", view.channel, e)

    async def rooms(self, t: Tournament | None) -> None:
        """A tournament waiting for its rooms: a thread for each table of the round (none
        if the bot may not start threads: the tables play one after another), then its
        tables opened in them."""
        if t is None or not t.awaiting_rooms:
            return
        parent = int(t.channel[len(PREFIX) :])
        rooms: list[str] = []
        for number in range(1, len(t.current()) + 1):
            try:
                thread = await self.client.http.start_thread_without_message(
                    parent, name=room_name(t, number)[:100], auto_archive_duration=1440, type=11
                )
            except discord.HTTPException as e:
                log.warning("no threads for the tournament in %s: %s", t.channel, e)
                rooms = []
                break
            rooms.append(f"{PREFIX}{thread['id']}")
        out = await asyncio.to_thread(self.tours.rooms, t.channel, t.id, rooms)
        await self.post(out)  # where the tables play
        for table in out.tables:
            await self.show(table)

    async def news(self, game: Game | None) -> None:
        """What saving ``game`` set off: the tournament's word, the next table."""
        for told in game.news if game is not None else ():
            if isinstance(told, TourOutcome):
                await self.post(told)
            elif isinstance(told, Outcome):
                await self.show(told)


def can_have_threads(interaction: discord.Interaction[Any]) -> bool:
    """Whether the tables of a tournament opened here can each have a thread: a server's
    text or announcement channel (not a thread, not a private chat)."""
    channel = interaction.channel
    kind = getattr(channel, "type", None)
    return interaction.guild_id is not None and kind in (
        discord.ChannelType.text,
        discord.ChannelType.news,
    )
