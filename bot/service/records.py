"""Finished games kept for good: the stats of each chat and the last game of each
channel (for a rematch, a replay, the record), beyond the games' own expiry.

The game service keeps a game when it finishes (:meth:`Records.keep`, right after
the game's final save and not in the same transaction: a crash in between loses
that one game's stats, never the game); the
adapters ask for a chat's tallies, a channel's last game, or that a person's
stats be forgotten.  Like the service, nothing here raises: a store that
cannot be reached is the refusal ``refuse.store_down`` (counted in the same
:class:`bot.service.faults.Outage`), a bug ``refuse.busy``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import TypeVar

from ..hosting import ENDED, OVER, DamagedGame, Game, Refusal, User
from ..hosting.privacy import forget_in, named
from ..hosting.rating import Ratings, games, rate_games, ratings
from ..hosting.results import entries, person_key
from ..hosting.seasons import Season, season_told, seasons
from ..hosting.tally import Tally, tally
from ..store import DamagedRecord, Kept, Store, StoreError, corners_of
from .corners import forget_corner
from .faults import Outage
from .outcome import STORE_DOWN

log = logging.getLogger(__name__)
T = TypeVar("T")

#: the ratings across a platform's chats are computed at most once in this many seconds
ACROSS_SECONDS = 60.0


class Records:
    """The kept games of one store; never raises."""

    def __init__(
        self,
        store: Store,
        outage: Outage,
        counted: Callable[[Game, dict[str, bytes]], dict[str, bytes]] | None = None,
        forget_corner: Callable[[str], None] | None = None,
    ) -> None:
        """``forget_corner``: erases a person's corner (their settings, their seats) when
        they are forgotten (None: the store's own corners)."""
        self.store = store
        self.outage = outage
        self.forget_corner = forget_corner
        #: the stats entries of a finished game that count (the quotas: :mod:`bot.limits.quotas`)
        self.counted = counted or (lambda game, entries: entries)
        #: the latest ratings across each platform's chats: (when, ratings)
        self._across: dict[tuple[str, ...], tuple[float, Ratings]] = {}

    def keep(self, game: Game, now: float) -> bool:
        """Keep ``game`` if it is finished and was played (its stats if it was played
        to the end); False if it could not be (logged: the game itself is saved)."""
        if game.state is None or game.status not in (OVER, ENDED):
            return False
        kept = Kept(
            key=game.key,
            chat=game.chat,
            channel=game.channel,
            finished=now,
            game=game.to_bytes(),
            entries=entries(game, now),
            people=named(game),
        )
        try:
            kept = dataclasses.replace(kept, entries=self.counted(game, kept.entries))
            self.store.keep(kept)
        except StoreError as e:
            self.outage.failed(e)
            log.warning("the results of game %s were not kept: %s", game.id, e)
            return False
        except Exception:  # a bug: the game is saved, only its stats are lost
            log.exception("the results of game %s were not kept", game.id)
            return False
        self.outage.answered()
        return True

    def _told(self, game: Game) -> tuple[dict[str, tuple[int, int]], Season | None]:
        """The new ratings of ``game``'s people, just kept: colour -> (rating, change),
        from every game kept in its chat (:mod:`bot.hosting.rating`; a person whose
        result did not count, the quotas, is left out), and the season just ended if
        ``game`` is the first kept in its chat this month
        (:func:`bot.hosting.seasons.season_told`).  Nothing if the store fails."""
        if game.status != OVER or game.state is None:
            return {}, None
        try:
            kept = self.store.entries(game.chat)
            played = games(kept)  # read once, for the ratings and the season
            rated = rate_games(played)
            ended = season_told(kept, played, game.key)
        except StoreError as e:
            self.outage.failed(e)
            log.warning("the ratings of game %s were not told: %s", game.id, e)
            return {}, None
        except Exception:  # a bug: the game is saved and kept, only its ratings are not told
            log.exception("the ratings of game %s were not told", game.id)
            return {}, None
        out: dict[str, tuple[int, int]] = {}
        for seat in game.seats:
            person = seat.user or seat.was
            if person is None or person.forgotten or not seat.colour:
                continue
            rating = rated.of(game.rules, person_key(person))
            if rating is not None and rating.last == game.key:
                out[seat.colour] = (rating.shown, rating.change)
        return out, ended

    def tell_ratings(self, game: Game) -> None:
        """Put the new ratings of ``game``, just kept, into it for its standings: one
        more compare-and-set of the finished game (lost to a concurrent change, or
        the store failing: the standings go without)."""
        rated, ended = self._told(game)
        if not rated and ended is None:
            return
        game.rated = rated
        if ended is not None:
            game.season = (ended.month.strftime("%Y-%m"), ended.rules, ended.podium)
        try:
            saved = self.store.save(game.id, game.to_bytes(), game.rev, due=None, release=True)
        except StoreError as e:
            self.outage.failed(e)
            saved = False
        if saved:
            game.rev += 1
        else:
            game.rated, game.season = {}, None

    def seasons(self, chat: str, now: float) -> list[Season] | Refusal:
        """The hall of fame of ``chat``: the podiums of its ended monthly seasons."""
        return self._ask(lambda: seasons(self.store.entries(chat), now))

    def across(self, prefixes: tuple[str, ...]) -> Ratings | Refusal:
        """The ratings over every chat whose key starts with one of ``prefixes`` (a
        platform's chats), all their games in the order they finished; computed at most
        once in :data:`ACROSS_SECONDS` (it reads every kept game of the platform)."""
        now = time.monotonic()
        cached = self._across.get(prefixes)
        if cached is not None and now - cached[0] < ACROSS_SECONDS:
            return cached[1]

        def work() -> Ratings:
            chats = [c for c in self.store.chats() if c.startswith(prefixes)]
            return ratings(e for chat in chats for e in self.store.entries(chat))

        done = self._ask(work)
        if not isinstance(done, Refusal):
            self._across[prefixes] = (now, done)
        return done

    def tallies(self, chat: str, since: float = 0.0) -> dict[str, Tally] | Refusal:
        """Every person's tally in ``chat`` (games finished at or after ``since``)."""
        return self._ask(lambda: tally(self.store.entries(chat, since)))

    def forget(self, user: User) -> int | Refusal:
        """Forget ``user`` (see :meth:`forget_person`); how many games they had counted."""
        if user.shared:
            return Refusal("refuse.as_yourself")
        done = self._ask(lambda: self.forget_person(person_key(user)))
        return done if isinstance(done, Refusal) else done[0]

    def forget_person(self, person: str) -> tuple[int, int]:
        """Delete the stats of ``person`` (their key) in every chat, and take them out
        of every channel's last game (:func:`bot.hosting.privacy.forget_in`), and of
        its copy the store still has; (stats entries deleted, games rewritten).
        Store errors propagate (the caller asks through :meth:`_ask`)."""
        games: list[Game] = []

        def scrub(data: bytes) -> bytes | None:
            try:
                game = Game.from_bytes(data)
            except DamagedGame:
                return None
            if not forget_in(game, person):
                return None
            games.append(game)
            return game.to_bytes()

        count = self.store.forget(person, scrub)
        if self.forget_corner is not None:
            self.forget_corner(person)
        else:
            forget_corner(corners_of(self.store), person)
        for game in games:  # the finished game itself, while the store keeps it
            try:
                stored = self.store.load(game.id)
                live = Game.from_bytes(stored.data, stored.rev) if stored else None
            except (DamagedRecord, DamagedGame):
                continue  # not this one's to repair
            if live is not None and live.key == game.key and forget_in(live, person):
                self.store.save(live.id, live.to_bytes(), live.rev, due=None)
        return count, len(games)

    def last_game(self, channel: str) -> Game | Refusal:
        """The game finished last in ``channel``."""

        def work() -> Game | Refusal:
            data = self.store.last_game(channel)
            if data is None:
                return Refusal("refuse.no_last_game")
            try:
                return Game.from_bytes(data)
            except DamagedGame as e:
                log.warning("the last game kept in %s cannot be read: %s", channel, e)
                return Refusal("refuse.no_last_game")

        return self._ask(work)

    def finished(self, channel: str, game_id: str | None = None) -> Game | Refusal:
        """The finished game ``game_id`` of ``channel`` (while the store still has it,
        else if it is the channel's last), or the channel's last one."""

        def work() -> Game | Refusal:
            try:
                stored = self.store.load(game_id) if game_id is not None else None
                game = Game.from_bytes(stored.data) if stored else self.last_game(channel)
            except (DamagedRecord, DamagedGame):
                return Refusal("refuse.no_last_game")
            if isinstance(game, Refusal):
                return game
            if game.channel != channel or (game_id is not None and game.id != game_id):
                return Refusal("refuse.bad_button" if game_id else "refuse.no_last_game")
            return game

        return self._ask(work)

    def _ask(self, work: Callable[[], T | Refusal]) -> T | Refusal:
        try:
            result = work()
        except StoreError as e:
            self.outage.failed(e)
            return Refusal(STORE_DOWN)
        except Exception:
            log.exception("reading the kept games failed")
            return Refusal("refuse.busy")
        self.outage.answered()
        return result
