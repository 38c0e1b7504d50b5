"""Tournaments in a chat: the only code that loads and saves them.

A tournament is kept in the store as a record of its own, beside the games (its id in
the bucket of its key ``tour:<channel>``, which it holds while it runs, so a chat runs
one at a time and a Redis Cluster keeps both in one slot).  Like a game it is loaded
fresh for each request, changed by one step of :mod:`bot.hosting.tournament`, and saved
with one compare-and-set (again from the fresh copy on a conflict).

Its tables are ordinary games of its channel, played one after another.  When one
finishes, the game service tells :meth:`Tournaments.table_finished` (right after the
game's final save); that records the places and opens the next table.  Each step is
safe to repeat: the next table's id is saved in the tournament before the table is
created, and :meth:`Tournaments.drive` creates a table that is missing and records one
that finished, so a worker dying in between leaves nothing that the next request (or
``/ludo tournament``) does not mend.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from .hosting import LOBBY, OVER, PLAYING, Game, Happened, Refusal, User
from .hosting import tournament as tour
from .hosting.dice import new_seed
from .hosting.rating import ratings, shown
from .hosting.results import person_key
from .hosting.tables import places_of, table_game
from .hosting.tour_codec import dump, load
from .hosting.tournament import Tournament
from .hosting.turns import finish
from .outcome import STORE_DOWN, Outcome
from .service import GameService
from .store import Store, StoreError, new_game_id
from .store.base import DamagedRecord

log = logging.getLogger(__name__)

#: how often a save is retried after a conflicting save by another worker
MAX_RETRIES = 20
#: a sign-up nobody started for this long gives way to a new tournament
SIGNUP_SECONDS = 24 * 3600.0
#: the rating of a person with no game kept in the chat (μ 25, σ 25/3 shown)
UNRATED = shown(25.0, 25.0 / 3)


def key_of(channel: str) -> str:
    """The key a channel's tournament holds while it runs."""
    return f"tour:{channel}"


@dataclass
class TourOutcome:
    """What one tournament request came to: the tournament as saved (or as it stands,
    when refused), what happened, why nothing did, and the tables it opened or changed
    (game outcomes, to show in the chat)."""

    tour: Tournament | None
    happened: Happened | None = None
    refusal: Refusal | None = None
    tables: list[Outcome] = field(default_factory=list)


_ONE: weakref.WeakKeyDictionary[GameService, Tournaments] = weakref.WeakKeyDictionary()


def tournaments_of(service: GameService) -> Tournaments:
    """The one :class:`Tournaments` of a game service (every adapter shares it, so a
    finished table is told once)."""
    made = _ONE.get(service)
    if made is None:
        made = _ONE[service] = Tournaments(service)
    return made


class Tournaments:
    """One per game service (:func:`tournaments_of`); never raises."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.store: Store = service.store
        service.finished.append(self.table_finished)

    # -- requests -------------------------------------------------------------

    def open(
        self,
        channel: str,
        user: User,
        rules: str = "classic",
        options: dict[str, object] | None = None,
        *,
        fmt: str = tour.SWISS,
        size: int = 8,
        rounds: int = 3,
        timer: int = 120,
        lang: str = "en",
        chat: str = "",
        level: str = "normal",
        rooms: bool = False,
    ) -> TourOutcome:
        """Open the sign-up of a tournament in ``channel``, ``user`` signed up first;
        ``rooms``: the adapter can give each table a room (threads, forum topics)."""

        def work() -> TourOutcome:
            now = self.service.clock()
            key = key_of(channel)
            try:
                t = tour.open_tournament(
                    new_game_id(key),
                    channel,
                    user,
                    rules,
                    dict(options or {}),
                    fmt=fmt,
                    size=size,
                    rounds=rounds,
                    timer=timer,
                    now=now,
                    rating=self._rating(chat or channel, rules, user),
                    lang=lang,
                    level=level,
                    chat=chat,
                    rooms=rooms,
                )
            except Refusal as r:
                return TourOutcome(None, refusal=r)
            if not self.store.create(t.id, dump(t), channel=key):
                held = self._load(channel)
                if held is not None and self._stale(held, now):
                    held.status, held.version = tour.ENDED, held.version + 1
                    if self._save(held):  # a sign-up left a day: a new one replaces it
                        held = None
                if held is not None and held.status in (tour.SIGNUP, tour.RUNNING):
                    return TourOutcome(held, refusal=Refusal("refuse.tour_running"))
                if held is None and self.store.channel_game(key):  # unreadable: let it go
                    self.store.discard(self.store.channel_game(key) or "", key)
                if not self.store.create(t.id, dump(t), channel=key):
                    return TourOutcome(None, refusal=Refusal("refuse.tour_running"))
            t.rev = 1
            happened = Happened(by=user)
            happened.note("tour.opened", who=user.name)
            return TourOutcome(t, happened)

        return self._guard(work, channel)

    def act(self, channel: str, user: User, what: str, can_manage: bool = False) -> TourOutcome:
        """``what`` (``join``, ``leave``, ``start``, ``end``, ``show``) to the tournament
        in ``channel``."""
        return self._guard(lambda: self._act(channel, user, what, can_manage, None), channel)

    def press(
        self, channel: str, user: User, tid: str, version: int, what: str, can_manage: bool
    ) -> TourOutcome:
        """A sign-up button of tournament ``tid`` at ``version``: another version's, or
        another tournament's, is outdated (the current one is told)."""

        def work() -> TourOutcome:
            return self._act(channel, user, what, can_manage, (tid, version))

        return self._guard(work, channel)

    def get(self, channel: str) -> Tournament | None:
        """The tournament of ``channel`` in its sign-up or being played (None: none)."""
        try:
            return self._load(channel)
        except StoreError:
            return None

    # -- the tables ----------------------------------------------------------

    def table_finished(self, game: Game) -> None:
        """The game service saved a finished game: if it is a tournament's table, the
        tournament records it and opens the next (their outcomes go to ``game.news``);
        if a tournament's next table waited for its channel, it opens now."""
        try:
            tid = game.tour[0] if game.tour is not None else None
            t = self._load_id(tid) if tid is not None else self._load(game.channel)
            if t is not None:
                game.news.extend(self.drive(t))
        except StoreError:
            log.warning("tournament of %s not advanced: the store failed", game.channel)
        except Exception:  # a bug: the game is saved; /ludo tournament mends the rest
            log.exception("tournament of %s not advanced", game.channel)

    def rooms(self, channel: str, tid: str, rooms: list[str]) -> TourOutcome:
        """The rooms the adapter made for tournament ``tid``'s tables (none: it could not);
        its tables open in them."""

        def work() -> TourOutcome:
            for _ in range(MAX_RETRIES):
                t = self._load(channel)
                if t is None or t.id != tid:
                    return TourOutcome(None, refusal=Refusal("refuse.no_tour"))
                happened = Happened()
                if not tour.set_rooms(t, rooms, happened):
                    return TourOutcome(t, tables=self._mend(t))
                if self._save(t):
                    return TourOutcome(t, happened, tables=self._mend(t))
            return TourOutcome(None, refusal=Refusal("refuse.busy"))

        return self._guard(work, channel)

    def drive(self, t: Tournament) -> list[TourOutcome | Outcome]:
        """Bring ``t`` up to its tables: record those finished, open the next (one at a
        time, or all of the round in their rooms); what it did, to show.  Each change is
        one compare-and-set, again from a fresh copy on a conflict.  Raises StoreError."""
        out: list[TourOutcome | Outcome] = []
        for _ in range(MAX_RETRIES * 8):
            if t.status != tour.RUNNING:
                return out
            told: TourOutcome | None = None
            changed = False
            for table in [x for x in t.current() if x.game is not None and not x.done]:
                assert table.game is not None
                stored = self.store.load(table.game)
                if stored is None:  # reserved, never made: make it
                    made = self._create(t, table.game, table)
                    out += [made] if made is not None else []
                    continue
                game = Game.from_bytes(stored.data, stored.rev)
                if game.status in (LOBBY, PLAYING):
                    continue  # being played
                happened = Happened()
                # a table stopped before its end: its players tie
                places = (places_of(game) if game.status == OVER else None) or {
                    k: 1 for k in table.players
                }
                if tour.record(t, table.game, places, happened):
                    told, changed = TourOutcome(t, happened), True
                    break
            if not changed:
                opening = t.next_table()
                if opening is None:
                    return out
                opening.game = new_game_id(t.room_of(opening))
                t.version += 1
            if not self._save(t):
                t = self._reload(t)
                continue
            if told is not None:
                out.append(told)
        return out

    def _create(self, t: Tournament, game_id: str, table: tour.Table) -> Outcome | None:
        seed = new_seed() if self.service.verifiable else None
        game = table_game(t, table, game_id, self.service.clock(), seed)
        if not self.store.create(game.id, game.to_bytes(), channel=game.channel, due=game.deadline):
            return None  # the room has another game: opened when it is free
        game.rev = 1
        self.service.changed(game)  # the live board learns of it as of any game
        return Outcome(game, Happened())  # its lobby tells who plays there, and how long

    # -- the machinery -------------------------------------------------------

    def _act(
        self,
        channel: str,
        user: User,
        what: str,
        can_manage: bool,
        button: tuple[str, int] | None,
    ) -> TourOutcome:
        for _ in range(MAX_RETRIES):
            t = self._load(channel)
            if t is None:
                return TourOutcome(None, refusal=Refusal("refuse.no_tour"))
            if button is not None and (button[0] != t.id or button[1] != t.version):
                return TourOutcome(t, refusal=Refusal("refuse.outdated"))
            if what == "show":
                return TourOutcome(t, Happened(by=user), tables=self._mend(t))
            happened = Happened(by=user)
            try:
                if what == "join":
                    rating = self._rating(t.chat, t.rules, user)
                    tour.sign_up(t, user, rating, happened)
                elif what == "leave":
                    tour.withdraw(t, user, happened)
                elif what == "start":
                    tour.start(t, user, can_manage, happened)
                elif what == "end":
                    tour.end(t, user, can_manage, happened)
                else:
                    raise Refusal("refuse.bad_button")
            except Refusal as r:
                return TourOutcome(self._load(channel), refusal=r)
            if self._save(t):
                out = TourOutcome(t, happened)
                if t.status == tour.ENDED:
                    out.tables = self._stop_tables(t)
                else:
                    out.tables = self._mend(t)
                return out
        return TourOutcome(None, refusal=Refusal("refuse.busy"))

    def _mend(self, t: Tournament) -> list[Outcome]:
        """Drive ``t`` and keep the table games' outcomes (the rest is told by ``t``)."""
        return [o for o in self.drive(t) if isinstance(o, Outcome)]

    def _stop_tables(self, t: Tournament) -> list[Outcome]:
        """The tournament ended: its tables being played end with it."""
        out = []
        for table in t.current():
            if table.game is not None and not table.done:
                stopped = self._stop(table.game)
                out += [stopped] if stopped is not None else []
        return out

    def _stop(self, game_id: str) -> Outcome | None:
        for _ in range(MAX_RETRIES):
            stored = self.store.load(game_id)
            if stored is None:
                return None
            game = Game.from_bytes(stored.data, stored.rev)
            if game.status not in (LOBBY, PLAYING):
                return None
            finish(game)
            happened = Happened()
            happened.note("tour.table_stopped")
            if self.service.save(game):  # as every game's: kept, told to the live board
                return Outcome(game, happened, shown=stored.shown)
        return None

    @staticmethod
    def _stale(t: Tournament, now: float) -> bool:
        """A sign-up nobody started in :data:`SIGNUP_SECONDS`: anyone may open anew."""
        return t.status == tour.SIGNUP and now - t.created > SIGNUP_SECONDS

    def _rating(self, chat: str, rules: str, user: User) -> int:
        rated = ratings(self.store.entries(chat)).of(rules, person_key(user))
        return rated.shown if rated is not None else UNRATED

    def _load(self, channel: str) -> Tournament | None:
        """The tournament held by ``channel``'s key (None: none, or unreadable)."""
        key = key_of(channel)
        try:
            stored = self.store.load_in(key)
        except DamagedRecord:
            return None
        if stored is None:
            return None
        try:
            return load(stored.data, stored.rev)
        except ValueError:
            log.warning("the tournament of %s cannot be read", channel)
            return None

    def _load_id(self, tid: str) -> Tournament | None:
        """Tournament ``tid`` (None: gone, or unreadable)."""
        try:
            stored = self.store.load(tid)
        except DamagedRecord:
            return None
        try:
            return load(stored.data, stored.rev) if stored is not None else None
        except ValueError:
            log.warning("tournament %s cannot be read", tid)
            return None

    def _reload(self, t: Tournament) -> Tournament:
        fresh = self._load_id(t.id)
        if fresh is None or fresh.id != t.id:
            fresh = t
            fresh.status = tour.ENDED  # gone meanwhile: nothing more to drive
        return fresh

    def _save(self, t: Tournament) -> bool:
        finished = t.status in (tour.DONE, tour.ENDED)
        if not self.store.save(t.id, dump(t), t.rev, due=None, release=finished):
            return False
        t.rev += 1
        return True

    def _guard(self, work: Callable[[], TourOutcome], channel: str) -> TourOutcome:
        """A request made safe, as the game service's are (:class:`bot.faults.Guard`)."""
        try:
            out = work()
        except StoreError as e:
            self.service.outage.failed(e)
            return TourOutcome(None, refusal=Refusal(STORE_DOWN))
        except Exception:
            log.exception("the tournament of %s failed", channel)
            return TourOutcome(None, refusal=Refusal("refuse.busy"))
        self.service.outage.answered()
        return out
