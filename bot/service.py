"""The game service: the only code that loads and saves games.

Every request is one load, one step of the hosting domain (:mod:`bot.hosting`)
on that fresh copy, and one compare-and-set save (which also sets or clears
the turn deadline and frees the channel of a finished game, atomically).  On
a conflict (another worker saved in between) it starts again from the fresh
copy, so two presses never both apply to one version and none is lost.  A
refusal saves nothing.  Nothing is kept in memory between calls: a restarted
or second process picks up where the first left off.

What the chat shows of a game (the adapters' notes) is read with the game and
written beside it (:meth:`GameService.note_shown`), never bumping the game's
revision, so showing a game can never make a player's press conflict.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
from engine import Move

from .hosting import (
    ENDED,
    LOBBY,
    OVER,
    PLAYING,
    DamagedGame,
    Game,
    Happened,
    Intent,
    Luck,
    Note,
    Refusal,
    User,
    open_game,
    perform,
    timeout,
)
from .players import HeuristicPlayer, Policy
from .store import Shown, Store, Stored

#: how often a save is retried after a conflicting save by another worker
MAX_RETRIES = 20
#: a claimed deadline is someone's for this long before another worker may take it
DEADLINE_LEASE = 30.0


def secure_die() -> int:
    """A fair die from the operating system's cryptographic random source."""
    return secrets.randbelow(6) + 1


@dataclass
class Outcome:
    """What one request came to.

    ``game`` is the game as saved (or as it stands, when refused; None when
    there is none), ``happened`` what the request did, ``refusal`` why it did
    nothing, ``shown`` what the chat showed of the game when it was loaded.
    """

    game: Game | None
    happened: Happened | None = None
    refusal: Refusal | None = None
    shown: Shown | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None


class GameService:
    """One per process; holds no game in memory."""

    def __init__(
        self,
        store: Store,
        *,
        dice: Callable[[], int] = secure_die,
        draw: Callable[[int], int] = secrets.randbelow,
        clock: Callable[[], float] = time.time,
        computer: Policy | None = None,
        default_timer: int = 120,
    ) -> None:
        self.store = store
        self.dice = dice
        self.draw = draw
        self.clock = clock
        self.computer = computer or HeuristicPlayer()
        self.default_timer = default_timer

    def _luck(self) -> Luck:
        return Luck(self.dice, self.draw, self.computer, self.clock())

    # -- requests ---------------------------------------------------------

    def open(
        self,
        channel: str,
        user: User,
        rules: str = "classic",
        options: dict[str, Any] | None = None,
        *,
        timer: int | None = None,
        auto_move: bool = True,
        lang: str = "en",
    ) -> Outcome:
        """Open a lobby in ``channel`` with ``user`` in the first seat; its table speaks
        ``lang``."""
        try:
            game = open_game(
                secrets.token_hex(4),
                channel,
                user,
                rules,
                options,
                timer=self.default_timer if timer is None else timer,
                auto_move=auto_move,
                now=self.clock(),
                lang=lang,
            )
        except Refusal as r:
            return Outcome(None, refusal=r)
        stored = self.store.load_in(channel)
        if stored is not None:
            try:
                old = Game.from_bytes(stored.data, stored.rev)
            except DamagedGame:
                # damaged: the channel is free again
                self.store.release_channel(channel, self.store.channel_game(channel) or "")
            else:
                if old.status in (LOBBY, PLAYING):
                    return Outcome(old, refusal=Refusal("refuse.game_running"), shown=stored.shown)
        if not self.store.create(game.id, game.to_bytes(), channel=channel):
            return Outcome(None, refusal=Refusal("refuse.game_running"))
        game.rev = 1
        return Outcome(game, Happened(by=user, facts=[Note("lobby.opened")]))

    def act(self, channel: str, user: User, intent: Intent) -> Outcome:
        """A command in ``channel``: do ``intent`` to the game there."""
        return self._mutate(lambda: self.store.load_in(channel), channel, user, intent, None)

    def press(
        self, channel: str, user: User, game_id: str, version: int, intent: Intent
    ) -> Outcome:
        """A button of game ``game_id`` at ``version`` pressed in ``channel``.

        A button of another version is outdated: nothing changes, and the
        outcome carries the current game so the chat can be brought up to date.
        """
        return self._mutate(lambda: self.store.load(game_id), channel, user, intent, version)

    def look(self, channel: str) -> Outcome:
        """The game in ``channel`` as it stands (changes nothing)."""
        try:
            stored, game = self._read(self.store.load_in(channel))
        except Refusal as r:
            return Outcome(None, refusal=r)
        return Outcome(game, Happened(), shown=stored.shown)

    def note_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        """Remember what the chat shows of a game (compare-and-set on the notes' ``rev``)."""
        return self.store.save_shown(game_id, data, rev)

    def shown(self, game_id: str) -> Shown | None:
        stored = self.store.load(game_id)
        return stored.shown if stored is not None else None

    def get(self, game_id: str) -> Game | None:
        """The game ``game_id``, read-only, finished or not (None if gone or unreadable)."""
        try:
            return self._read(self.store.load(game_id))[1]
        except Refusal:
            return None

    def game_in(self, channel: str) -> Game | None:
        """The live game bound to ``channel``, read-only (None if none or unreadable)."""
        try:
            return self._read(self.store.load_in(channel))[1]
        except Refusal:
            return None

    def movable(self, channel: str, user: User | None = None) -> list[Move]:
        """The moves the player on turn can make now (for autocompletion).

        Empty when no move is due, or ``user`` is not the one on turn.
        """
        game = self.game_in(channel)
        seat = game.on_turn() if game is not None else None
        if game is None or seat is None or game.state is None:
            return []
        if user is not None and not user.same(seat.user):
            return []
        return engine.legal_moves(game.state)

    # -- timers -----------------------------------------------------------

    def fire_due(self, now: float | None = None) -> list[Outcome]:
        """Play the turns whose timer ran out; one outcome per game that changed.

        Safe to call from every worker at once: a deadline is claimed by one,
        and the move it makes is saved only if nobody else changed the game.
        """
        now = self.clock() if now is None else now
        out = []
        for game_id in self.store.claim_due(now, DEADLINE_LEASE):
            outcome = self._timeout(game_id, now)
            if outcome is not None:
                out.append(outcome)
        return out

    def _timeout(self, game_id: str, now: float) -> Outcome | None:
        for _ in range(MAX_RETRIES):
            stored = self.store.load(game_id)
            try:
                stored, game = self._read(stored)
            except Refusal:
                self.store.unschedule(game_id)  # nothing left to time
                return None
            happened = Happened()
            try:
                timeout(game, Luck(self.dice, self.draw, self.computer, now), happened)
            except Refusal:
                # someone acted in time: the deadline follows the saved game
                if game.deadline is None or game.status != PLAYING:
                    self.store.unschedule(game_id)
                else:
                    self.store.schedule(game_id, game.deadline)
                return None
            if self._save(game):
                return Outcome(game, happened, shown=stored.shown)
        return None

    # -- the machinery ----------------------------------------------------

    def _mutate(
        self,
        load: Callable[[], Stored | None],
        channel: str,
        user: User,
        intent: Intent,
        version: int | None,
    ) -> Outcome:
        """Load, change, compare-and-set; again from the fresh copy on a conflict."""
        for _ in range(MAX_RETRIES):
            try:
                stored, game = self._read(load())
            except Refusal as r:
                return Outcome(None, refusal=r)
            if version is not None:
                if game.channel != channel:
                    return Outcome(None, refusal=Refusal("refuse.bad_button"))
                if game.status not in (LOBBY, PLAYING):
                    return Outcome(game, refusal=Refusal("refuse.game_over"), shown=stored.shown)
                if version != game.version:
                    return Outcome(game, refusal=Refusal("refuse.outdated"), shown=stored.shown)
            try:
                happened = perform(game, user, intent, self._luck())
            except Refusal as r:
                # the step may have changed the copy before refusing: show the saved game
                saved = Game.from_bytes(stored.data, stored.rev)
                return Outcome(saved, refusal=r, shown=stored.shown)
            if self._save(game):
                return Outcome(game, happened, shown=stored.shown)
        return Outcome(None, refusal=Refusal("refuse.busy"))

    def _save(self, game: Game) -> bool:
        due = game.deadline if game.status == PLAYING else None
        finished = game.status in (OVER, ENDED)
        if not self.store.save(game.id, game.to_bytes(), game.rev, due=due, release=finished):
            return False
        game.rev += 1
        return True

    def _read(self, stored: Stored | None) -> tuple[Stored, Game]:
        if stored is None:
            raise Refusal("refuse.no_game")
        try:
            return stored, Game.from_bytes(stored.data, stored.rev)
        except DamagedGame as e:
            raise Refusal("refuse.damaged", why=str(e)) from None
