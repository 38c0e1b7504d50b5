"""The game service: the only code that loads and saves games.

Every request is one load, one step of the hosting domain (:mod:`bot.hosting`)
on that fresh copy, and one compare-and-set save (which also sets or clears
the turn deadline and frees the channel of a finished game, atomically).  On
a conflict (another worker saved in between) it starts again from the fresh
copy, so two presses never both apply to one version and none is lost.  A refusal
saves nothing; nothing is kept in memory between calls; a finished game is kept for
good (:mod:`bot.records`: stats, rematches, replays).

What the chat shows of a game (the adapters' notes) is read with the game and
written beside it (:meth:`GameService.note_shown`), never bumping the game's
revision, so showing a game can never make a player's press conflict.

Faults never escape (:mod:`bot.faults`): an unreachable store makes every request a
refusal ``refuse.store_down``; an unreadable game is let go (:attr:`Outcome.freed`); a
bug is logged, refused ``refuse.busy``.  Each save is told to the ``listeners``."""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

import engine
from engine import LudoError, Move
from renderer import THEMES

from .faults import Damaged, Guard
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
from .hosting.dice import new_seed, secure_die
from .hosting.reading import brief
from .hosting.rematch import opened, rematch_of
from .outcome import STORE_DOWN, Outcome
from .players import Policy, player_for
from .quotas import Quotas
from .records import Records
from .store import Shown, Store, Stored, StoreError, new_game_id
from .store.base import DamagedRecord

__all__ = ["DEADLINE_LEASE", "MAX_RETRIES", "STORE_DOWN", "GameService", "Outcome", "secure_die"]

log = logging.getLogger(__name__)
T = TypeVar("T")

#: how often a save is retried after a conflicting save by another worker
MAX_RETRIES = 20
#: a claimed deadline is someone's for this long before another worker may take it
DEADLINE_LEASE = 30.0


class GameService:
    """One per process; holds no game in memory.  Never raises: see the module's doc."""

    def __init__(
        self,
        store: Store,
        *,
        dice: Callable[[], int] | None = None,
        draw: Callable[[int], int] = secrets.randbelow,
        clock: Callable[[], float] = time.time,
        computers: Callable[[str], Policy] | None = None,
        default_timer: int = 120,
        lobby_minutes: int = 30,
        quotas: Quotas | None = None,
    ) -> None:
        """``dice``: by default each game's own secret seed (see :mod:`bot.hosting.dice`),
        else a function (tests, benchmarks).  ``computers``: a level's computer player, one
        per decision.  ``lobby_minutes``: a lobby nobody starts closes after this long."""
        if lobby_minutes < 0:
            raise ValueError(f"lobby_minutes must be 0 or more, not {lobby_minutes!r}")
        self.store = store
        self.dice = dice or secure_die
        self.verifiable = dice is None  # each game's rolls come from its own seed
        self.draw = draw
        self.clock = clock
        self.computers = computers or (lambda level: player_for(level, random.Random()))
        self.default_timer = default_timer
        self.lobby_minutes = lobby_minutes
        #: turns an unreachable store and damaged games into refusals; whether it answers
        self.guard = Guard(store)
        self.outage = self.guard.outage
        self.quotas = quotas or Quotas(store)
        #: finished games kept for good: stats, each channel's last game
        self.records = Records(store, self.outage, self.quotas.counted)
        #: told (game id, channel, new rev) after every save that succeeded, in its thread
        self.listeners: list[Callable[[str, str, int], None]] = []
        #: told each finished game once saved and kept (may add to its ``news``)
        self.finished: list[Callable[[Game], None]] = []

    @property
    def store_reachable(self) -> bool:  # no outage, or it has ended (:class:`Outage`)
        return not self.outage.down

    @property
    def store_answered(self) -> bool:  # the store answered the last call made to it
        return self.outage.answering

    def _luck(self) -> Luck:
        return Luck(self.dice, self.draw, self.computers, self.clock())

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
        chat: str = "",
        theme: str = "classic",
        level: str = "normal",
    ) -> Outcome:
        """Open a lobby in ``channel`` with ``user`` in the first seat; its table speaks
        ``lang``, its computers play at ``level``; its results count in ``chat`` (the
        channel if not given).  A damaged game still bound to ``channel`` is let go first."""
        try:
            game = open_game(
                new_game_id(channel),
                channel,
                user,
                rules,
                options,
                timer=self.default_timer if timer is None else timer,
                auto_move=auto_move,
                now=self.clock(),
                lang=lang,
                lobby_minutes=self.lobby_minutes,
                seed=new_seed() if self.verifiable else None,
                level=level,
            )
        except Refusal as r:
            return Outcome(None, refusal=r)
        if theme not in THEMES:
            return Outcome(None, refusal=Refusal("refuse.bad_theme", choices=tuple(THEMES)))
        game.chat, game.theme = chat or channel, theme
        return self.guard.request(lambda: self._open(game, channel, user), channel)

    def rematch(self, channel: str, user: User, game_id: str | None = None) -> Outcome:
        """The same table again (:mod:`bot.hosting.rematch`) of game ``game_id``, or of
        ``channel``'s last; pressed once it is open, it says yes to it."""
        return self.guard.request(lambda: self._rematch(channel, user, game_id), channel)

    def _rematch(self, channel: str, user: User, game_id: str | None) -> Outcome:
        last = self.records.finished(channel, game_id)
        if isinstance(last, Refusal):
            return Outcome(None, refusal=last)
        for _ in range(2):  # twice: someone may open the same rematch at the same moment
            live = self.game_in(channel)
            if live is not None and live.after == last.id and live.status == LOBBY:
                return self.act(channel, user, Intent("join"))  # open already: say yes
            if live is not None:
                break
            try:
                seed, now = new_seed() if self.verifiable else None, self.clock()
                game = rematch_of(last, new_game_id(channel), user, now, self.lobby_minutes, seed)
                happened = self._step(game, opened, game, user, self._luck())
            except Refusal as r:
                return Outcome(None, refusal=r)
            if (made := self.quotas.create(game, channel, user)) is not False:
                if made is True:
                    self.changed(game)
                return Outcome(game, happened) if made is True else Outcome(None, refusal=made)
        return Outcome(live, refusal=Refusal("refuse.game_running"))

    def _open(self, game: Game, channel: str, user: User) -> Outcome:
        try:
            stored, old = self._read(self.store.load_in(channel), channel=channel)
        except Refusal:
            pass  # no game here
        except (Damaged, DamagedRecord) as e:
            damaged = Damaged.of(e, channel)
            if not self.guard.isolation.let_go(damaged)[0]:  # kept: saved by a newer ludo-bot
                return Outcome(None, refusal=Refusal("refuse.damaged", why=damaged.why))
        else:
            if old.status in (LOBBY, PLAYING):
                return Outcome(old, refusal=Refusal("refuse.game_running"), shown=stored.shown)
        made = self.quotas.create(game, channel, user)
        if made is not True:
            return Outcome(None, refusal=made or Refusal("refuse.game_running"))
        self.changed(game)
        return Outcome(game, Happened(by=user, facts=[Note("lobby.opened")]))

    def act(self, channel: str, user: User, intent: Intent) -> Outcome:
        """A command in ``channel``: do ``intent`` to the game there."""
        return self.guard.request(
            lambda: self._mutate(lambda: self.store.load_in(channel), channel, user, intent),
            channel,
        )

    def press(
        self, channel: str, user: User, game_id: str, version: int, intent: Intent
    ) -> Outcome:
        """A button of game ``game_id`` at ``version`` pressed in ``channel``.  Another
        version's is outdated: nothing changes, the outcome carries the current game
        (to bring the chat up to date).  A finished game's Rematch asks :meth:`rematch`."""
        if intent.kind == "rematch":
            return self.rematch(channel, user, game_id)
        return self.guard.request(
            lambda: self._mutate(
                lambda: self.store.load(game_id), channel, user, intent, version, game_id
            ),
            channel,
        )

    def look(self, channel: str) -> Outcome:
        """The game in ``channel`` as it stands (changes nothing)."""

        def work() -> Outcome:
            try:
                stored, game = self._read(self.store.load_in(channel), channel=channel)
            except Refusal as r:
                return Outcome(None, refusal=r)
            return Outcome(game, Happened(), shown=stored.shown)

        return self.guard.request(work, channel)

    def note_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        """Remember what the chat shows of a game (CAS on the notes' ``rev``); False also
        when the store cannot be reached."""
        return self.guard.read(lambda: self.store.save_shown(game_id, data, rev), False)

    def shown(self, game_id: str) -> Shown | None:  # what the chat shows of it (None: no)
        return self.guard.read(lambda: getattr(self.store.load(game_id), "shown", None), None)

    def get(self, game_id: str) -> Game | None:
        """The game ``game_id``, read-only, finished or not (None if gone or unreadable)."""
        return self.guard.read(lambda: self._read(self.store.load(game_id))[1], None)

    def game_in(self, channel: str) -> Game | None:
        """The live game bound to ``channel``, read-only (None if none or unreadable)."""
        return self.guard.read(lambda: self._read(self.store.load_in(channel))[1], None)

    def movable(self, channel: str, user: User | None = None) -> list[Move]:
        """The moves the player on turn (``user``, if given) can make now, for completion."""
        game = self.game_in(channel)
        seat = game.on_turn() if game is not None else None
        if game is None or seat is None or game.state is None:
            return []
        if user is not None and not user.same(seat.user):
            return []
        return engine.legal_moves(game.state)

    # -- timers -----------------------------------------------------------

    def fire_due(self, now: float | None = None) -> list[Outcome]:
        """Play the turns whose timer ran out and close the lobbies nobody started;
        one outcome per game that changed (or was damaged: see :attr:`Outcome.freed`).
        Safe from every worker at once: a deadline is claimed by one, its move saved
        only if nobody else changed the game.  One game that fails never stops the
        others; an unreachable store ends the round (:attr:`store_answered`)."""
        now = self.clock() if now is None else now
        try:
            due = self.store.claim_due(now, DEADLINE_LEASE)
        except StoreError as e:
            self.outage.failed(e)
            return []
        except Exception:  # a bug: logged, and the timers go on
            log.exception("the turn timers failed")
            return []
        self.outage.answered()
        out = []
        for game_id in due:
            try:
                try:
                    outcome = self._timeout(game_id, now)
                except (Damaged, DamagedRecord) as e:
                    freed = self.guard.isolate(Damaged.of(e, None, game_id)).freed
                    outcome = Outcome(None, freed=freed) if freed is not None else None
            except StoreError as e:
                self.outage.failed(e)
                break  # the rest come due again after the lease
            except Exception:  # a bug: this game's timer only
                log.exception("the timer of game %s failed", game_id)
                continue
            if outcome is not None:
                out.append(outcome)
        return out

    def _timeout(self, game_id: str, now: float) -> Outcome | None:
        for _ in range(MAX_RETRIES):
            try:
                stored, game = self._read(self.store.load(game_id), game_id=game_id)
            except Refusal:
                self.store.unschedule(game_id)  # nothing left to time
                return None
            happened = Happened()
            luck = Luck(self.dice, self.draw, self.computers, now)
            try:
                self._step(game, timeout, game, luck, happened)
            except Refusal:
                # someone acted in time: the deadline follows the saved game
                if game.deadline is None or game.status not in (LOBBY, PLAYING):
                    self.store.unschedule(game_id)
                else:
                    self.store.schedule(game_id, game.deadline)
                return None
            if self.save(game):
                return Outcome(game, happened, shown=stored.shown)
        return None

    # -- the machinery ----------------------------------------------------

    def _mutate(
        self,
        load: Callable[[], Stored | None],
        channel: str,
        user: User,
        intent: Intent,
        version: int | None = None,
        game_id: str | None = None,
    ) -> Outcome:
        """Load, change, compare-and-set; again from the fresh copy on a conflict."""
        for _ in range(MAX_RETRIES):
            try:
                stored, game = self._read(
                    load(), game_id=game_id, channel=None if game_id else channel
                )
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
                happened = self._step(game, perform, game, user, intent, self._luck())
            except Refusal as r:
                # the step may have changed the copy before refusing: show the saved game
                saved = Game.from_bytes(stored.data, stored.rev)
                return Outcome(saved, refusal=r, shown=stored.shown)
            if self.save(game):
                return Outcome(game, happened, shown=stored.shown)
        return Outcome(None, refusal=Refusal("refuse.busy"))

    def _step(self, game: Game, step: Callable[..., T], *args: Any) -> T:
        """``step(*args)`` on ``game``; the engine refusing its state means the game cannot
        go on (damage the reading missed): it is let go.  Other errors are bugs: kept."""
        try:
            return step(*args)
        except LudoError as e:
            raise Damaged(brief(e), game.id, game.channel, error=e) from None

    def save(self, game: Game) -> bool:  # CAS; kept, told to ``finished`` and listeners
        due = game.deadline if game.status in (LOBBY, PLAYING) else None
        finished = game.status in (OVER, ENDED)
        if not self.store.save(game.id, game.to_bytes(), game.rev, due=due, release=finished):
            return False
        game.rev += 1
        if finished and self.records.keep(game, self.clock()):
            self.records.tell_ratings(game)
        for told in self.finished if finished else ():
            told(game)
        self.changed(game)
        return True

    def changed(self, game: Game) -> None:  # told to the listeners (saved, or created)
        for listener in self.listeners:
            try:
                listener(game.id, game.channel, game.rev)
            except Exception:  # a listener's bug never undoes a save
                log.exception("a listener of game %s failed", game.id)

    def _read(
        self, stored: Stored | None, *, game_id: str | None = None, channel: str | None = None
    ) -> tuple[Stored, Game]:
        """The stored game read (Refusal: there is none; Damaged: unreadable).
        ``game_id`` and ``channel``: what the caller knows of it."""
        if stored is None or stored.data.startswith(b'{"T":'):  # a tournament is no game
            raise Refusal("refuse.no_game")
        try:
            return stored, Game.from_bytes(stored.data, stored.rev)
        except DamagedGame as e:
            # the id in damaged bytes may be garbled: only the caller's is trusted
            raise Damaged(str(e), game_id, channel or e.channel, newer=e.newer) from None
