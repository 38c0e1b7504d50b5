"""A tournament's tables: ordinary games of its channel (or of its rooms), played one
after another, or a round at once in their rooms.

When one finishes, the game service tells :meth:`TourTables.finished` (right after the
game's final save); that records the places and opens the next table.  Each step is
safe to repeat: the next table's id is saved in the tournament before the table is
created, and :meth:`TourTables.drive` creates a table that is missing and records one
that finished, so a worker dying in between leaves nothing that the next request (or
``/ludo tournament``) does not mend."""

from __future__ import annotations

import logging

from ..hosting import LOBBY, OVER, PLAYING, Game, Happened
from ..hosting import tournament as tour
from ..hosting.tables import places_of, table_game
from ..hosting.tournament import Tournament
from ..hosting.turns import finish
from ..store import StoreError, new_game_id
from .game import GameService
from .outcome import Outcome, TourOutcome
from .tour_store import MAX_RETRIES, load_id, load_in, reload, save

log = logging.getLogger(__name__)


class TourTables:
    """The tables of one game service's tournaments."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.store = service.store

    def finished(self, game: Game) -> None:
        """The game service saved a finished game: if it is a tournament's table, the
        tournament records it and opens the next (their outcomes go to ``game.news``);
        if a tournament's next table waited for its channel, it opens now."""
        try:
            tid = game.tour[0] if game.tour is not None else None
            t = load_id(self.store, tid) if tid is not None else load_in(self.store, game.channel)
            if t is not None:
                game.news.extend(self.drive(t))
        except StoreError:
            log.warning("tournament of %s not advanced: the store failed", game.channel)
        except Exception:  # a bug: the game is saved; /ludo tournament mends the rest
            log.exception("tournament of %s not advanced", game.channel)

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
            if not save(self.store, t):
                t = reload(self.store, t)
                continue
            if told is not None:
                out.append(told)
        return out

    def mend(self, t: Tournament) -> list[Outcome]:
        """Drive ``t`` and keep the table games' outcomes (the rest is told by ``t``)."""
        return [o for o in self.drive(t) if isinstance(o, Outcome)]

    def stop(self, t: Tournament) -> list[Outcome]:
        """The tournament ended: its tables being played end with it."""
        out = []
        for table in t.current():
            if table.game is not None and not table.done:
                stopped = self._stop(table.game)
                out += [stopped] if stopped is not None else []
        return out

    def _create(self, t: Tournament, game_id: str, table: tour.Table) -> Outcome | None:
        seed = self.service.chance.seed()
        game = table_game(t, table, game_id, self.service.clock(), seed)
        if not self.store.create(game.id, game.to_bytes(), channel=game.channel, due=game.due):
            return None  # the room has another game: opened when it is free
        game.rev = 1
        self.service.changed(game)  # the live board learns of it as of any game
        return Outcome(game, Happened())  # its lobby tells who plays there, and how long

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
