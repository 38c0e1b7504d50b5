"""Tournaments in a chat: the only code that loads and saves them.

A tournament is kept in the store as a record of its own, beside the games
(:mod:`.tour_store`).  Like a game it is loaded fresh for each request, changed by one
step of :mod:`bot.hosting.tournament`, and saved with one compare-and-set (again from
the fresh copy on a conflict).  Its tables are ordinary games of its channel
(:mod:`.tour_tables`), told to it by the game service as each finishes.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable

from ..hosting import Happened, Refusal, User
from ..hosting import tournament as tour
from ..hosting.rating import ratings, shown
from ..hosting.results import person_key
from ..hosting.tour_codec import dump
from ..hosting.tournament import Tournament
from ..store import Store, StoreError, new_game_id
from .game import GameService
from .outcome import STORE_DOWN, TourOutcome
from .tour_store import MAX_RETRIES, key_of, load_in, save
from .tour_tables import TourTables

log = logging.getLogger(__name__)

#: a sign-up nobody started for this long gives way to a new tournament
SIGNUP_SECONDS = 24 * 3600.0
#: the rating of a person with no game kept in the chat (μ 25, σ 25/3 shown)
UNRATED = shown(25.0, 25.0 / 3)

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
        #: the tables, ordinary games of the service: told to it as each finishes
        self.tables = TourTables(service)
        service.finished.append(self.tables.finished)

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
                held = load_in(self.store, channel)
                if held is not None and self._stale(held, now):
                    held.status, held.version = tour.ENDED, held.version + 1
                    if save(self.store, held):  # a sign-up left a day: a new one replaces it
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
            return load_in(self.store, channel)
        except StoreError:
            return None

    def rooms(self, channel: str, tid: str, rooms: list[str]) -> TourOutcome:
        """The rooms the adapter made for tournament ``tid``'s tables (none: it could not);
        its tables open in them."""

        def work() -> TourOutcome:
            for _ in range(MAX_RETRIES):
                t = load_in(self.store, channel)
                if t is None or t.id != tid:
                    return TourOutcome(None, refusal=Refusal("refuse.no_tour"))
                happened = Happened()
                if not tour.set_rooms(t, rooms, happened):
                    return TourOutcome(t, tables=self.tables.mend(t))
                if save(self.store, t):
                    return TourOutcome(t, happened, tables=self.tables.mend(t))
            return TourOutcome(None, refusal=Refusal("refuse.busy"))

        return self._guard(work, channel)

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
            t = load_in(self.store, channel)
            if t is None:
                return TourOutcome(None, refusal=Refusal("refuse.no_tour"))
            if button is not None and (button[0] != t.id or button[1] != t.version):
                return TourOutcome(t, refusal=Refusal("refuse.outdated"))
            if what == "show":
                return TourOutcome(t, Happened(by=user), tables=self.tables.mend(t))
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
                return TourOutcome(load_in(self.store, channel), refusal=r)
            if save(self.store, t):
                out = TourOutcome(t, happened)
                if t.status == tour.ENDED:
                    out.tables = self.tables.stop(t)
                else:
                    out.tables = self.tables.mend(t)
                return out
        return TourOutcome(None, refusal=Refusal("refuse.busy"))

    @staticmethod
    def _stale(t: Tournament, now: float) -> bool:
        """A sign-up nobody started in :data:`SIGNUP_SECONDS`: anyone may open anew."""
        return t.status == tour.SIGNUP and now - t.created > SIGNUP_SECONDS

    def _rating(self, chat: str, rules: str, user: User) -> int:
        rated = ratings(self.store.entries(chat)).of(rules, person_key(user))
        return rated.shown if rated is not None else UNRATED

    def _guard(self, work: Callable[[], TourOutcome], channel: str) -> TourOutcome:
        """A request made safe, as the game service's are (:class:`bot.service.faults.Guard`)."""
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
