"""The game service: the only code that loads and saves games.

Every request is one load, one step of the hosting domain (:mod:`bot.hosting`)
on that fresh copy, and one compare-and-set save (which also sets or clears
the turn deadline and frees the channel of a finished game, atomically).  On
a conflict (another worker saved in between) it starts again from the fresh
copy, so two presses never both apply to one version and none is lost.  A refusal
saves nothing; nothing is kept in memory between calls; a finished game is kept for
good (:mod:`bot.service.records`: stats, rematches, replays).

:class:`GameService` hands each request to the collaborator whose job it is: the
lobby (:class:`~.lobby.Lobby`), playing a turn (:class:`~.turns.Turns`), what
happens after a game (:class:`~.after.AfterGame`), and the listeners
(:class:`~.listeners.Listeners`).

What the chat shows of a game (the adapters' notes) is read with the game and
written beside it (:meth:`GameService.note_shown`), never bumping the game's
revision, so showing a game can never make a player's press conflict.

Faults never escape (:mod:`bot.service.faults`): an unreachable store makes every
request a refusal ``refuse.store_down``; an unreadable game is let go
(:attr:`Outcome.freed`); a bug is logged, refused ``refuse.busy``.  Each save is told
to the ``listeners``."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from typing import Any

import engine
from engine import Move

from ..hosting import Game, Happened, Intent, Refusal, User
from ..hosting.dice import secure_die
from ..limits.quotas import Quotas
from ..players import Policy, player_for
from ..store import Shown, Store, corners_of
from .after import AfterGame
from .corners import Corners
from .faults import Guard
from .listeners import Listeners
from .loading import Chance, read
from .lobby import Lobby
from .outcome import Outcome
from .records import Records
from .turns import Turns


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
        self.clock = clock
        self.verifiable = dice is None  # each game's rolls come from its own seed
        computers = computers or (lambda level: player_for(level, random.Random()))
        self.chance = Chance(dice or secure_die, draw, computers, clock, self.verifiable)
        #: turns an unreachable store and damaged games into refusals; whether it answers
        self.guard = Guard(store)
        self.outage = self.guard.outage
        self.quotas = quotas or Quotas(store)
        #: each person's corner: their settings, the cards of their games
        self.corners = Corners(store, corners_of(store), self.guard)
        #: finished games kept for good: stats, each channel's last game
        self.records = Records(store, self.outage, self.quotas.counted, self.corners.forget)
        #: the collaborators, one job each: who is told of saves, the lobby, what happens
        #: after a game, playing a turn
        self.told = Listeners()
        #: told (game id, channel, new rev) after every save that succeeded, in its thread
        self.listeners = self.told.saved
        #: told each finished game once saved and kept (may add to its ``news``)
        self.finished = self.told.finished
        self.told.games.append(self.corners.seated)
        self.lobby = Lobby(
            store,
            self.guard,
            self.quotas,
            self.told,
            self.chance,
            default_timer=default_timer,
            lobby_minutes=lobby_minutes,
        )
        self.after = AfterGame(
            self.records,
            self.lobby,
            self.chance,
            game_in=self.game_in,
            join=lambda channel, user: self.act(channel, user, Intent("join")),
        )
        self.turns = Turns(store, self.guard, self.chance, self.after, self.told)

    @property
    def store_reachable(self) -> bool:  # no outage, or it has ended (:class:`Outage`)
        return not self.outage.down

    @property
    def store_answered(self) -> bool:  # the store answered the last call made to it
        return self.outage.answering

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
        place: str = "",
    ) -> Outcome:
        """Open a lobby in ``channel`` with ``user`` in the first seat; its table speaks
        ``lang``, its computers play at ``level``; its results count in ``chat`` (the
        channel if not given); ``place``: the chat's name, for the players' cards.  A
        damaged game still bound to ``channel`` is let go first."""
        return self.lobby.open(
            channel,
            user,
            rules,
            options,
            timer=timer,
            auto_move=auto_move,
            lang=lang,
            chat=chat,
            theme=theme,
            level=level,
            place=place,
        )

    def rematch(self, channel: str, user: User, game_id: str | None = None) -> Outcome:
        """The same table again (:mod:`bot.hosting.rematch`) of game ``game_id``, or of
        ``channel``'s last; pressed once it is open, it says yes to it."""
        return self.guard.request(lambda: self.after.rematch(channel, user, game_id), channel)

    def act(self, channel: str, user: User, intent: Intent, chat: str = "") -> Outcome:
        """A command in ``channel``: do ``intent`` to the game there (``chat``: as
        :meth:`press`)."""
        return self.turns.act(channel, user, intent, chat)

    def press(
        self, channel: str, user: User, game_id: str, version: int, intent: Intent, chat: str = ""
    ) -> Outcome:
        """A button of game ``game_id`` at ``version`` pressed in ``channel``.  Another
        version's is outdated: nothing changes, the outcome carries the current game
        (to bring the chat up to date).  A finished game's Rematch asks :meth:`rematch`.
        ``chat``: what the press tells of the chat where the game's results count, for a
        table that knows it only in part (:meth:`bot.hosting.Game.learn_chat`)."""
        if intent.kind == "rematch":
            return self.rematch(channel, user, game_id)
        return self.turns.press(channel, user, game_id, version, intent, chat)

    def press_card(self, user: User, game_id: str, version: int, intent: Intent) -> Outcome:
        """A button of game ``game_id`` at ``version`` pressed on ``user``'s card in their
        private chat: the same press as on the table, wherever that is (``user`` must sit
        at it); Rematch opens the next game at the table's place.  A game no longer kept
        is over."""
        if intent.kind == "rematch":
            game = self.get(game_id)
            if game is None or not any(user.same(s.user) for s in game.seats):
                return Outcome(None, refusal=Refusal("refuse.not_seated"))
            return self.rematch(game.channel, user, game_id)
        outcome = self.turns.press_card(user, game_id, version, intent)
        if outcome.refusal is not None and outcome.refusal.key == "refuse.no_game":
            return Outcome(None, refusal=Refusal("refuse.game_over"))  # a card outlived it
        return outcome

    def fire_due(self, now: float | None = None) -> list[Outcome]:
        """Play the turns whose timer ran out and close the lobbies nobody started (see
        :meth:`Turns.fire_due`); an unreachable store ends the round (:attr:`store_answered`)."""
        return self.turns.fire_due(now)

    # -- reads ------------------------------------------------------------

    def look(self, channel: str) -> Outcome:
        """The game in ``channel`` as it stands (changes nothing)."""

        def work() -> Outcome:
            try:
                stored, game = read(self.store.load_in(channel), channel=channel)
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
        return self.guard.read(lambda: read(self.store.load(game_id))[1], None)

    def game_in(self, channel: str) -> Game | None:
        """The live game bound to ``channel``, read-only (None if none or unreadable)."""
        return self.guard.read(lambda: read(self.store.load_in(channel))[1], None)

    def movable(self, channel: str, user: User | None = None) -> list[Move]:
        """The moves the player on turn (``user``, if given) can make now, for completion."""
        game = self.game_in(channel)
        seat = game.on_turn() if game is not None else None
        if game is None or seat is None or game.state is None:
            return []
        if user is not None and not user.same(seat.user):
            return []
        return engine.legal_moves(game.state)

    # -- for the tournaments, whose tables are this service's games ---------

    def save(self, game: Game) -> bool:
        """Compare-and-set ``game``: kept when finished, told to the listeners."""
        return self.turns.save(game)

    def changed(self, game: Game) -> None:
        """``game`` was created or saved elsewhere: the listeners are told."""
        self.told.changed(game)
