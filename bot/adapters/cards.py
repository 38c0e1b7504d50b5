"""A game's card in a person's corner (their private chat with the bot), brought to the
newest view of the game, like the table in its chat (``DESIGN.md``: one game, several
screens).

A card is the game as its player needs it: where the table is, the board, what just
happened, whose turn it is, and the table's own buttons.  Its life follows the turn:

* **sent** when the turn comes to the person (a new message notifies them): never for
  their own press, never while the turn is someone else's;
* **edited** while the turn stays theirs (the roll, a six, the piece to move);
* **stilled** (what happened, no buttons) once the turn passes; a stilled card is
  deleted when the next card of the game is sent, so a corner shows one message a game;
* a finished game's card becomes its **result** (with Rematch where the table has it).

What the corner shows of a game is kept beside it in the store as *card notes*, with a
compare-and-set of their own (:meth:`bot.service.corners.Corners.note_card`): two
workers showing one save send one card, and the second deletes its copy.  A person the
platform refuses to write to (blocked the bot, closed their DMs) is noted once and gets
no card until they write to the bot again; the game goes on, nothing is tried again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..hosting.corner import Corner
from ..hosting.results import person_key
from ..present import TableView, Text
from ..service.game import GameService

log = logging.getLogger(__name__)

#: a card's modes: the turn is the person's (buttons to play), it passed (no buttons),
#: the game ended (its result, with Rematch where the table has it)
LIVE, STILL, RESULT = "live", "still", "result"


class Unreachable(Exception):
    """The platform will not let the bot write to this person (blocked, DMs closed)."""


@dataclass(frozen=True)
class CardNotes:
    """What a person's corner shows of a game."""

    #: the card's message id (None: no card)
    msg: str | None = None
    #: the game revision it shows
    rev: int = 0
    #: its mode (:data:`LIVE`, :data:`STILL`, :data:`RESULT`)
    mode: str = ""

    def to_bytes(self) -> bytes:
        return json.dumps({"m": self.msg, "r": self.rev, "o": self.mode}).encode()

    @classmethod
    def from_bytes(cls, data: bytes | None) -> CardNotes:
        """Notes from the store; anything unreadable counts as no card."""
        try:
            d = json.loads(data) if data else {}
            msg = d.get("m")
            return cls(None if msg is None else str(msg), int(d.get("r", 0)), str(d.get("o", "")))
        except (ValueError, TypeError, AttributeError):
            return cls()


@dataclass(frozen=True)
class CardPlan:
    """The calls that bring a person's corner to a view."""

    #: send the card anew (notifying the person), in this mode
    send: str | None = None
    #: edit this message into the card, in :attr:`mode`
    edit: str | None = None
    mode: str = ""
    #: delete this message once the new card is up (the game's card before it)
    remove: str | None = None


def plan_card(
    view: TableView, notes: CardNotes, person: str, *, wanted: bool = True, fresh: bool = False
) -> CardPlan:
    """What to do with ``person``'s card of the game for ``view``.

    The card is sent when the turn comes to the person by someone else's doing (the
    view's ``ping``: never their own press), or when they are reminded of it (their time
    three quarters gone, or run out); it is edited while the turn stays theirs, stilled
    when it passes, and a finished game's card, if there is one, becomes its result.
    Unless ``wanted`` (the person turned cards off, or muted the game), no card is sent,
    and a card still offering play is stilled.  ``fresh``: the person asked for the card
    (``/ludo games``): it is sent anew, whoever's turn it is."""
    if fresh:
        mine = view.turn is not None and person_key(view.turn) == person
        mode = RESULT if view.finished else LIVE if mine or view.lobby else STILL
        return CardPlan(send=mode, remove=notes.msg)
    todo = _plan(view, notes, person)
    if wanted:
        return todo
    if todo.send is not None:
        return CardPlan()
    return replace(todo, mode=STILL) if todo.mode == LIVE else todo


def _plan(view: TableView, notes: CardNotes, person: str) -> CardPlan:
    if view.rev < notes.rev:
        return CardPlan()  # a newer view is up already
    remind = view.remind or view.nudge
    mine = view.turn is not None and person_key(view.turn) == person
    if view.finished:
        if notes.msg is not None and (view.rev > notes.rev or notes.mode != RESULT):
            return CardPlan(edit=notes.msg, mode=RESULT)
        return CardPlan()
    if view.rev == notes.rev and not (mine and remind and notes.mode != LIVE):
        return CardPlan()
    if not mine:
        if notes.msg is not None and notes.mode == LIVE:
            return CardPlan(edit=notes.msg, mode=STILL)
        return CardPlan()
    pinged = view.ping is not None and person_key(view.ping) == person
    if notes.msg is not None and notes.mode == LIVE and not (remind and pinged):
        return CardPlan(edit=notes.msg, mode=LIVE)
    if pinged or (remind and notes.mode == LIVE):
        return CardPlan(send=LIVE, remove=notes.msg)
    return CardPlan()


@dataclass(frozen=True)
class Card:
    """A card to show: the game's view, in a mode, for one person, saying where the
    table is."""

    view: TableView
    mode: str
    person: str
    #: where the table is ("in Family", "an inline table in a private chat")
    where: Text
    #: the person's language
    lang: str

    @property
    def buttons(self) -> bool:
        """Whether the card offers buttons (to play, or a finished game's Rematch)."""
        return self.mode != STILL and bool(self.view.buttons)


class CardScreen(Protocol):
    """A person's corner as :class:`Cards` drives it (one per platform)."""

    async def send(self, card: Card) -> str | None:
        """Send ``card``; its message id, or None if it could not be sent this time.
        Raises :class:`Unreachable` when the person cannot be written to."""
        ...

    async def edit(self, msg: str, card: Card) -> bool:
        """Edit message ``msg`` into ``card``; False if it cannot be (gone)."""
        ...

    async def remove(self, msg: str) -> bool:
        """Delete message ``msg``; False if it could not be."""
        ...


class Cards:
    """Brings people's corners to the newest view of their games, for one adapter."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        #: people the platform refused to write to since the last log line
        self.refused = 0
        self._told = False

    async def show(
        self, card: Card, screen: CardScreen, *, wanted: bool = True, fresh: bool = False
    ) -> bool:
        """Bring ``card.person``'s corner to ``card.view`` (the mode is planned here:
        ``card.mode`` is ignored; ``wanted``: as :func:`plan_card`); True if this call
        changed the corner."""
        view, person = card.view, card.person
        shown = await asyncio.to_thread(self.service.corners.card, view.game_id, person)
        notes = CardNotes.from_bytes(shown.data if shown else None)
        todo = plan_card(view, notes, person, wanted=wanted, fresh=fresh)
        msg: str | None = None
        mode = todo.send or todo.mode
        card = Card(view, mode, person, card.where, card.lang)
        if todo.edit is not None:
            await asyncio.to_thread(getattr, view, "image")  # drawn off the event loop
            if await screen.edit(todo.edit, card):
                msg = todo.edit
            elif mode == LIVE:  # gone: the turn is theirs, a new card tells them
                todo = CardPlan(send=LIVE)
        if todo.send is not None:
            await asyncio.to_thread(getattr, view, "image")
            try:
                msg = await screen.send(card)
            except Unreachable as e:
                await self.unreachable(person, e)
                return False
        if msg is None:
            return False
        mine = CardNotes(msg, view.rev, mode)
        rev = shown.rev if shown else 0
        note = self.service.corners.note_card
        if await asyncio.to_thread(note, view.game_id, person, mine.to_bytes(), rev):
            if todo.remove is not None and todo.remove != msg:
                await self._remove(screen, todo.remove)
            return True
        # another worker showed this card meanwhile: theirs stands, ours goes
        if todo.send is not None:
            await self._remove(screen, msg)
        return False

    async def _remove(self, screen: CardScreen, msg: str) -> None:
        try:
            await screen.remove(msg)
        except Exception as e:  # the next card of the game tries no more: one stays
            log.debug("card %s not deleted: %s", msg, e)

    async def unreachable(self, person: str, why: Any) -> None:
        """The platform refused to write to ``person``: their cards stop (noted in the
        store) until they write to the bot again; counted, and logged once."""
        await asyncio.to_thread(self.service.corners.change, person, Corner.refused)
        self.refused += 1
        if not self._told:
            self._told = True
            log.info(
                "cards stopped for a person the platform will not let me write to (%s); "
                "their games go on",
                why,
            )
        else:
            log.debug("cards stopped for another person (%d so far)", self.refused)
