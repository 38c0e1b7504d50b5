"""Bring a chat to the newest table view of a game, with the fewest platform calls.

Each game has one table message in its chat.  What the chat shows (the message's id,
the game revision it shows, who was on turn when it was posted) is kept beside the
game in the store as *notes*, written with a compare-and-set of their own that never
touches the game.  Like a controller driving the world toward a desired state,
:func:`reconcile` compares the notes with the view and edits the message in place (the
same person plays on), or posts a new one and deletes the old (the turn passed to
someone else, the lobby became a board), or leaves the final board and posts the
standings below it (the game ended), or does nothing (the chat shows this or a newer
revision already).  The same loop repairs a crash between saving and showing, an
answer that came too late, a message someone deleted, two workers showing one press,
and a platform refusing calls for a while: old messages are deleted only once the
notes name the new table, and a deletion refused is tried again by the next reconcile.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..present import TableView
from ..service.game import GameService
from ..store import Shown

log = logging.getLogger(__name__)

#: a refused press repairs the chat only if no worker showed the game within this
REPAIR_GRACE = 1.0
#: how many games' latest notes a process remembers (its own writes, newer than a load)
_CACHE = 2048
#: the platform's errors while deleting old messages in this reconcile (raised at its end)
_failed: ContextVar[list[BaseException] | None] = ContextVar("failed", default=None)


@dataclass(frozen=True)
class Notes:
    """What the chat shows of a game."""

    #: the table message's id on the platform (None: nothing shown yet)
    msg: str | None = None
    #: the game revision it shows
    rev: int = 0
    #: the id of the person on turn when it was posted (None: nobody)
    turn: str | None = None
    #: "picture" (a board or standings) or "text" (the lobby)
    kind: str | None = None
    #: a finished game's final board (above the standings): never removed
    final: str | None = None
    #: a place reached through interactions only: the freshest interaction token that
    #: can edit the table (secret: never shown), and until when (Unix time)
    via: str | None = field(default=None, repr=False)
    until: float = 0.0

    def to_bytes(self) -> bytes:
        d: dict[str, Any] = {"m": self.msg, "r": self.rev, "t": self.turn, "k": self.kind}
        if self.final is not None:
            d["f"] = self.final
        if self.via is not None:
            d["v"], d["u"] = self.via, self.until
        return json.dumps(d, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, data: bytes | None) -> Notes:
        """Notes from the store; anything unreadable counts as nothing shown."""
        try:
            d = json.loads(data) if data else {}
            m, t, k, f, v = (None if d.get(x) is None else str(d[x]) for x in "mtkfv")
            return cls(m, int(d.get("r", 0)), t, k, f, v, float(d.get("u", 0.0)))
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()


@dataclass(frozen=True)
class Powers:
    """What a place lets the bot do with its table (``DESIGN.md``: a table wherever
    people talk).  A chat the bot is a member of may post, edit and delete; a message
    posted through Telegram's inline mode, or a Discord interaction's own message, may
    only be edited: it is the table for the whole game (``home``)."""

    #: post new messages (else the one message ``home`` is edited for every view)
    send: bool = True
    #: delete messages (an old table, a stale copy)
    delete: bool = True
    #: upload a new picture with an edit (else by a file id or a URL, or in words)
    upload_on_edit: bool = True
    #: the place's one message, where it cannot post
    home: str | None = None
    #: what reaches the place (an interaction's token, secret) and until when (Unix time),
    #: kept in the notes so that any worker edits the table with it (None: the bot's own)
    via: str | None = field(default=None, repr=False)
    until: float = 0.0


#: a chat the bot is a member of
CHAT = Powers()


@dataclass(frozen=True)
class Plan:
    """The calls that bring the chat to a view."""

    #: edit this message into the view
    edit: str | None = None
    #: post the view as a new message
    post: bool = False
    #: the post notifies the person on turn (the turn passed to them)
    ping: bool = False
    #: messages to delete once the view is up: the old table, a stale board pressed
    remove: tuple[str, ...] = ()
    #: a finished game: edit this message (the old table) into the final board
    final: str | None = None


def plan(
    view: TableView,
    notes: Notes,
    *,
    fresh: bool = False,
    pressed: str | None = None,
    powers: Powers = CHAT,
) -> Plan:
    """What to do.

    The table is edited in place while the same person plays on (computers in between
    included); when the turn passes to another person (or their time ran out and it is
    theirs again) it is posted anew at the bottom, notifying them, and the old one
    deleted, so exactly one board of the game is on screen and it is the newest.
    ``fresh`` moves the table to the bottom (someone asked for the board); ``pressed``
    is the message whose button was pressed (deleted if it is not the table: a stale
    copy; never the final board of a finished game).  Where the place cannot delete
    (``powers``), the game has one message, posted once (if the place may post) and
    then edited into every newer view, the standings too: the place's own (the message
    pressed), else the table's.
    """
    if not powers.delete and (notes.msg or not powers.send):
        # one message for the whole game: the place's own (a press's), else the table's
        home = powers.home or notes.msg
        if home is None or view.rev < notes.rev or (view.rev == notes.rev and home == notes.msg):
            return Plan()
        return Plan(edit=home)
    stale = (pressed,) if pressed is not None and pressed not in (notes.msg, notes.final) else ()
    if view.rev < notes.rev or (view.rev == notes.rev and notes.msg and not fresh):
        return Plan(remove=stale)  # this view, or a newer one, is up already
    kind = "picture" if view.picture else "text"
    turn = view.turn.id if view.turn else None
    if notes.msg is None and pressed is not None and kind == "text" and not fresh:
        return Plan(edit=pressed)  # nothing shown yet: the pressed message (a chooser) becomes it
    old = (notes.msg,) if notes.msg else ()
    if view.picture == "standings":
        if notes.final and notes.msg:
            # the standings are up: a newer view of them (the ratings told) edits them
            return Plan(edit=notes.msg, remove=stale)
        # the old table shows the final position; the standings come below it
        if notes.msg and notes.kind == "picture":
            return Plan(post=True, final=notes.msg, remove=stale)
        return Plan(post=True, remove=stale + old)
    # the turn passed to another person, or the person on turn is reminded (their timer)
    passes = turn is not None and (turn != notes.turn or view.nudge or view.remind)
    if notes.msg and not fresh and notes.kind == kind and not passes:
        return Plan(edit=notes.msg, remove=stale)
    return Plan(post=True, ping=passes, remove=stale + old)


class Screen(Protocol):
    """A chat as :func:`reconcile` drives it (one per platform, or per interaction)."""

    @property
    def powers(self) -> Powers:
        """What the place lets the bot do."""
        ...

    async def edit(self, msg: str, view: TableView) -> bool:
        """Edit message ``msg`` into ``view``; False if it cannot be (gone, too old)."""
        ...

    async def post(self, view: TableView) -> str | None:
        """Post ``view`` as a new message; its id, or None if the chat refused it."""
        ...

    async def retire(self, msg: str) -> None:
        """Take the buttons off message ``msg`` (if it is still there)."""
        ...

    async def remove(self, msg: str) -> bool:
        """Delete message ``msg`` (an old table, a duplicate); False if it could not be
        (it stays, and :meth:`retire` takes its buttons off)."""
        ...


class Reconciler:
    """Reconciles chats for one adapter; serialises the work on each game in this process."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        #: seconds a refused press waits before repairing what no worker showed
        self.grace = REPAIR_GRACE
        self._locks: dict[str, asyncio.Lock] = {}
        self._latest: OrderedDict[str, Shown] = OrderedDict()
        #: messages this process deleted lately (a late press of one needs no delete)
        self._deleted: OrderedDict[str, None] = OrderedDict()  # "channel message"
        #: messages to delete that the platform did not answer about, by channel
        self._leftovers: dict[str, dict[str, None]] = {}

    async def reconcile(
        self,
        view: TableView,
        shown: Shown | None,
        screen: Screen,
        *,
        fresh: bool = False,
        pressed: str | None = None,
        refused: bool = False,
        reread: bool = False,
    ) -> bool:
        """Bring the chat to ``view``; ``shown`` are the notes read with the game.  True
        if this call put the view up (the one call, of every worker's, that did).

        ``reread``: the view waited (for the chat's limit), so what the chat shows is
        read again from the store first: a view older than what another worker showed
        meanwhile is dropped.  ``refused``: the press or command that led here changed
        nothing (an outdated button, a press another worker is showing): nobody is
        notified, and the chat is repaired only if, after :data:`REPAIR_GRACE` seconds,
        no worker has shown this view."""
        if len(self._locks) > _CACHE:
            # forget idle games' locks (the notes' compare-and-set keeps a rare overlap right)
            self._locks = {k: v for k, v in self._locks.items() if v.locked()}
        lock = self._locks.setdefault(view.game_id, asyncio.Lock())
        async with lock:
            if reread or refused:
                shown = await self._read(view.game_id, shown)
            if refused and view.rev > Notes.from_bytes(shown.data if shown else None).rev:
                await asyncio.sleep(self.grace)  # another worker may be showing it now
                shown = await self._read(view.game_id, shown)
            view = view.quiet() if refused else view
            errors: list[BaseException] = []
            token = _failed.set(errors)
            try:
                for old in list(self._leftovers.pop(view.channel, {})):
                    await self._remove(screen, view.channel, old)  # a deletion refused before
                shown = self._newest(view.game_id, shown)
                done = await self._reconcile(view, shown, screen, fresh, pressed)
            finally:
                _failed.reset(token)
            if errors:
                raise errors[0]  # what is left is tried again by the next reconcile here
            return done

    async def _read(self, game_id: str, shown: Shown | None) -> Shown | None:
        """The notes as the store has them now (``shown`` if it cannot say)."""
        try:
            now = await asyncio.to_thread(self.service.shown, game_id)
        except Exception as e:  # the store is down: go by what we knew
            log.debug("notes of game %s not read again: %s", game_id, e)
            return shown
        return now if now is not None else shown

    async def _reconcile(
        self, view: TableView, shown: Shown | None, screen: Screen, fresh: bool, pressed: str | None
    ) -> bool:
        notes = Notes.from_bytes(shown.data if shown else None)
        powers = screen.powers
        todo = plan(view, notes, fresh=fresh, pressed=pressed, powers=powers)
        msg: str | None = None
        posted = False
        final = notes.final if view.finished else None
        if not todo.ping:
            view = view.quiet()
        if todo.final is not None:
            board = view.final_board()
            await asyncio.to_thread(getattr, board, "image")
            if await screen.edit(todo.final, board):
                view = view.standings()
                final = todo.final
            else:
                todo = Plan(post=True, remove=todo.remove)
        if todo.edit is not None or todo.post:
            await asyncio.to_thread(getattr, view, "image")  # drawn off the event loop
        if todo.edit is not None and await screen.edit(todo.edit, view):
            msg = todo.edit
        elif (todo.edit is not None or todo.post) and powers.send:
            msg = await screen.post(view)
            posted = msg is not None
        if msg is None:  # nothing replaced the table: it stays, to be pressed again
            await self._removes(screen, view.channel, todo.remove, (notes.msg,))
            return False
        kind = "picture" if view.picture else "text"
        turn = view.turn.id if view.turn else None
        mine = Notes(msg, view.rev, turn, kind, final, powers.via, powers.until)
        srev = shown.rev if shown else 0
        for _ in range(3):
            data = mine.to_bytes()
            if await asyncio.to_thread(self.service.note_shown, view.game_id, data, srev):
                self._remember(view.game_id, Shown(data, srev + 1))
                await self._removes(screen, view.channel, todo.remove, (msg,))
                return True
            # another worker showed this game meanwhile
            theirs_shown = await asyncio.to_thread(self.service.shown, view.game_id)
            if theirs_shown is None:
                return False  # the game is gone
            theirs = Notes.from_bytes(theirs_shown.data)
            if theirs.rev >= view.rev:
                if posted and theirs.msg != msg:
                    # theirs is the table: ours is a duplicate
                    await self._remove(screen, view.channel, msg)
                self._remember(view.game_id, theirs_shown)
                await self._removes(screen, view.channel, todo.remove, (msg, theirs.msg))
                return False
            if theirs.msg and theirs.msg != msg:
                await self._remove(screen, view.channel, theirs.msg)
            srev = theirs_shown.rev
        log.warning("could not note what the chat shows of game %s", view.game_id)
        return False

    async def _removes(
        self, screen: Screen, channel: str, remove: tuple[str, ...], keep: tuple[str | None, ...]
    ) -> None:
        """Delete the messages ``remove`` but those to ``keep`` (once the notes are written)."""
        for old in remove:
            if old not in keep:
                await self._remove(screen, channel, old)

    async def _remove(self, screen: Screen, channel: str, msg: str) -> None:
        """Delete an old board; if the chat will not let us, at least its buttons go.  If
        the platform does not answer, the next reconcile of the channel tries again."""
        key = f"{channel} {msg}"
        if key in self._deleted:
            return
        try:
            if not await screen.remove(msg):
                await screen.retire(msg)
                return
        except Exception as e:
            self._leftovers.setdefault(channel, {})[msg] = None
            errors = _failed.get()
            if errors is None:
                raise
            errors.append(e)
            return
        self._leftovers.get(channel, {}).pop(msg, None)
        self._deleted[key] = None
        while len(self._deleted) > _CACHE:
            self._deleted.popitem(last=False)

    def _newest(self, game_id: str, shown: Shown | None) -> Shown | None:
        mine = self._latest.get(game_id)
        if mine is not None and (shown is None or mine.rev > shown.rev):
            return mine
        return shown

    def _remember(self, game_id: str, shown: Shown) -> None:
        self._latest[game_id] = shown
        self._latest.move_to_end(game_id)
        while len(self._latest) > _CACHE:
            self._latest.popitem(last=False)
