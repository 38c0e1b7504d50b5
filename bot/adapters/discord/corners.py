"""The corners of a Discord bot's people: after a table is shown, the cards of its game
go to the DMs of the people at it (see :mod:`bot.adapters.cards`, :mod:`.corner`), one
person at a time: each person's cards are shown by one task of theirs, the newest view
of each game first replacing an older one still waiting, so their DM's calls never
overlap (its rate limits are discord.py's to wait out).

Who gets cards: a person who asked for them (``/ludo notify on``, *Tell me my turns*)
or installed the app to their account, did not turn them off or mute the game, and
whose DMs Discord did not refuse; never in the DM where the table itself is.  Where the
person on turn gets a card, the table names them without a mention: they are told once.

When a lobby opens in a channel, each person who asked to hear of that channel's games
(``/ludo notify here``) but its host gets a note in their DM with a **Join** button
(:meth:`DiscordCorners.announce`), unless Discord refused their DM before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

import discord

from ...hosting import LOBBY, Game, User
from ...hosting.corner import Corner
from ...hosting.results import person_key
from ...present import TableView, Text
from ...service.game import GameService
from ..cards import Card, Cards, Unreachable
from .corner import CLOSED, DmScreen, Pictures, note_fields
from .nonces import Nonces
from .where import PLATFORM, channel_id_of

log = logging.getLogger(__name__)

#: the people of a game whose corners were read (its seats on Discord)
People = Sequence[tuple[str, User, Corner]]
#: how many people's last word (a DM, an install) a process remembers
SEEN = 4096


def where_of(game: Game) -> Text:
    """Where ``game``'s table is, for the first line of its cards."""
    return Text("card.in", {"place": game.place}) if game.place else Text("dc.card.somewhere")


@dataclass
class Job:
    """A card to bring to a view: as the turn goes, or sent anew (``fresh``: asked for)."""

    view: TableView
    fresh: bool = False


class DiscordCorners:
    """The cards of one Discord adapter's games."""

    def __init__(self, client: discord.Client, service: GameService) -> None:
        self.client = client
        self.service = service
        self.cards = Cards(service)
        self.pictures = Pictures()
        self.nonces = Nonces()
        #: each person's cards waiting (by game), and the task showing them
        self._jobs: dict[str, dict[str, Job]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        #: the people whose corner this process brought up to date with what an
        #: interaction told of them (a DM, an install), and that word
        self.seen: dict[str, object] = {}
        #: the notes of new games on their way
        self._notes: set[asyncio.Task[None]] = set()

    async def people(self, view: TableView) -> People:
        """The people at ``view``'s game on Discord who may have a card of it, with their
        corners."""
        game = view.game
        if game.status == LOBBY:
            return []
        seated = [
            (person_key(s.user), s.user)
            for s in game.seats
            if s.user is not None and s.user.platform == PLATFORM
        ]
        if not seated:
            return []
        corners = await asyncio.to_thread(
            lambda: [self.service.corners.corner(person) for person, _ in seated]
        )
        return [
            (p, u, c)
            for (p, u), c in zip(seated, corners, strict=True)
            if not c.blocked and (c.on or c.dm)
        ]

    def carded(self, view: TableView, people: People) -> bool:
        """Whether the person ``view`` notifies gets a card of it (then the table need
        not mention them)."""
        ping, table = view.ping, str(channel_id_of(view.channel))
        return ping is not None and any(
            user.same(ping) and corner.wants(view.game_id) and corner.dm != table
            for _, user, corner in people
        )

    async def around(
        self, view: TableView, table: Callable[[TableView], Awaitable[None]] | None
    ) -> None:
        """Show ``table`` (None: it cannot be shown now) as ``view`` says, without a
        mention of a person on turn who gets a card; then the cards of its game."""
        people = await self.people(view)
        if table is not None and self.carded(view, people):
            await asyncio.to_thread(getattr, view, "image")  # drawn once: table and cards
            await table(view.quiet())
        elif table is not None:
            await table(view)
        for person, _, _ in people:
            self._queue(person, Job(view))

    def bring(self, view: TableView, person: str) -> None:
        """The card of ``view``'s game sent anew to ``person`` (they asked for it)."""
        self._queue(person, Job(view, fresh=True))

    def _queue(self, person: str, job: Job) -> None:
        jobs = self._jobs.setdefault(person, {})
        older = jobs.get(job.view.game_id)
        if older is not None and older.view.rev > job.view.rev:
            older.fresh = older.fresh or job.fresh
        else:
            jobs[job.view.game_id] = Job(job.view, job.fresh or bool(older and older.fresh))
        if person not in self._tasks:
            self._tasks[person] = asyncio.create_task(self._run(person))

    async def _run(self, person: str) -> None:
        """``person``'s cards, one at a time, until none waits."""
        try:
            while jobs := self._jobs.get(person):
                game_id, job = next(iter(jobs.items()))
                del jobs[game_id]
                try:
                    await self._show(person, job)
                except Exception:  # a bug: this card only; the game goes on
                    log.exception("the card of game %s was not shown", game_id)
        finally:
            self._tasks.pop(person, None)
            if not self._jobs.get(person):
                self._jobs.pop(person, None)

    async def _show(self, person: str, job: Job) -> None:
        corner = await asyncio.to_thread(self.service.corners.corner, person)
        if corner.blocked and not job.fresh:
            return
        view = job.view
        card = Card(view, "", person, where_of(view.game), corner.lang or view.lang)

        async def channel() -> int | None:
            return await self._dm(person, corner, view)

        screen = DmScreen(self.client, channel, self.pictures, self.nonces)
        refused = self.cards.refused
        wanted = corner.wants(view.game_id)
        await self.cards.show(card, screen, wanted=wanted, fresh=job.fresh)
        if self.cards.refused != refused:
            self.seen.pop(person, None)  # their next word to the bot opens the way again

    async def _dm(self, person: str, corner: Corner, view: TableView) -> int | None:
        """The id of ``person``'s DM with the bot (see :meth:`open_dm`); None where the
        table is that DM (it is the card there)."""
        dm = await self.open_dm(person, corner)
        return None if dm is None or channel_id_of(view.channel) == dm else dm

    async def open_dm(self, person: str, corner: Corner) -> int | None:
        """The id of ``person``'s DM with the bot, opened (and kept in their corner) if
        it never was; None if Discord did not open it now (raises
        :class:`~bot.adapters.cards.Unreachable` if it refuses to write to them)."""
        if corner.dm:
            return int(corner.dm)
        try:
            opened = await self.client.create_dm(discord.Object(id=int(person.split(":")[1])))
        except discord.HTTPException as e:
            if e.code in CLOSED:
                raise Unreachable(f"{e.status} {e.code}") from None
            log.info("a DM was not opened: %s %s", e.status, e.code)
            return None
        keep = str(opened.id)
        await asyncio.to_thread(self.service.corners.change, person, lambda c: replace(c, dm=keep))
        return opened.id

    def announce(self, game: Game) -> None:
        """A lobby opened in a channel: a note with a Join button in the DM of each person
        who asked to hear of that channel's games (``/ludo notify here``), but its host."""
        task = asyncio.create_task(self._announce(game))
        self._notes.add(task)
        task.add_done_callback(self._notes.discard)

    async def _announce(self, game: Game) -> None:
        listeners = await asyncio.to_thread(self.service.corners.listeners, game, PLATFORM)
        for person, corner in listeners:  # none whose DM Discord refused
            try:
                await self._note(person, corner, game)
            except Unreachable as e:
                await self.cards.unreachable(person, e)  # never tried again
                self.seen.pop(person, None)  # their next word to the bot opens the way
            except Exception:  # a bug: this note only
                log.exception("the note of game %s was not sent", game.id)

    async def _note(self, person: str, corner: Corner, game: Game) -> None:
        """The note of new game ``game`` in ``person``'s DM."""
        dm = await self.open_dm(person, corner)
        if dm is None:
            return
        channel = self.client.get_partial_messageable(dm, type=discord.ChannelType.private)
        try:
            await channel.send(**note_fields(game, where_of(game), corner.lang or game.lang))
        except discord.HTTPException as e:
            if e.code in CLOSED:
                raise Unreachable(f"{e.status} {e.code}") from None
            log.info("the note of a new game was not sent: %s %s", e.status, e.code)

    async def quiet(self) -> None:
        """Wait until no card waits to be shown, nor a note of a new game to be sent."""
        while self._tasks or self._notes:
            tasks = [*self._tasks.values(), *self._notes]
            await asyncio.gather(*tasks, return_exceptions=True)

    async def close(self) -> None:
        """Give up the cards still waiting (the next view of each game shows them), and
        the notes of new games not sent yet."""
        tasks = [*self._tasks.values(), *self._notes]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()
        self._jobs.clear()
