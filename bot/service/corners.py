"""Each person's corner, as the adapters ask for it: their settings, the cards of their
games, the games they sit in, and the chats they hear of (kept by
:mod:`bot.store.corners`).

Nothing here ever raises.  A store that does not answer reads as a corner that asked for
nothing (no card is sent while the store is down: a card missed is better than a card
sent twice), and a write that fails says so (False, None) for the adapter to tell the
person.  The games a person sits in are noted as the service saves them
(:meth:`Corners.seated`, a listener of every save).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..hosting import LOBBY, PLAYING, Game
from ..hosting.corner import Corner
from ..hosting.results import person_key
from ..store import Shown, Store, StoreError
from ..store import corners as kept
from .faults import Guard
from .loading import read

log = logging.getLogger(__name__)


class Corners:
    """The corners beside the games of one store."""

    def __init__(self, store: Store, corners: kept.Corners, guard: Guard) -> None:
        self.store = store
        self.kept = corners
        self.guard = guard

    def corner(self, person: str) -> Corner:
        """``person``'s corner (an untouched one if the store cannot say)."""
        return Corner.from_bytes(self.guard.read(lambda: self.kept.person(person), None))

    def change(self, person: str, how: Callable[[Corner], Corner]) -> Corner | None:
        """``person``'s corner changed by ``how`` and written; None if it could not be."""

        def work() -> Corner:
            new = how(Corner.from_bytes(self.kept.person(person)))
            self.kept.set_person(person, new.to_bytes())
            return new

        return self.guard.read(work, None)

    def card(self, game_id: str, person: str) -> Shown | None:
        """The notes of game ``game_id``'s card in ``person``'s corner (None: none, or the
        store cannot say)."""
        return self.guard.read(lambda: self.kept.card(game_id, person), None)

    def note_card(self, game_id: str, person: str, data: bytes, rev: int) -> bool:
        """Write a card's notes (compare-and-set on ``rev``); False also when the store
        cannot be reached."""
        return self.guard.read(lambda: self.kept.save_card(game_id, person, data, rev), False)

    def seated(self, game: Game) -> None:
        """A listener of every save: the people of a lobby (or of a table made whole,
        a tournament's) sit in it.  Best effort: a store that fails is logged."""
        if game.status != LOBBY and game.rev > 1:
            return
        try:
            for seat in game.seats:
                if seat.user is not None:
                    self.kept.sit(person_key(seat.user), game.id)
        except StoreError as e:
            log.debug("the seats of game %s not noted: %s", game.id, e)

    def games(self, person: str) -> list[Game] | None:
        """The open games ``person`` sits in, oldest first (those that ended or that they
        left are dropped from the list); None if the store cannot say."""

        def work() -> list[Game]:
            found, gone = [], []
            for game_id in self.kept.seats(person):
                try:
                    game = read(self.store.load(game_id), game_id=game_id)[1]
                except StoreError:
                    raise
                except Exception:  # gone, damaged: no longer theirs to play
                    gone.append(game_id)
                    continue
                sits = any(s.user is not None and person_key(s.user) == person for s in game.seats)
                if game.status in (LOBBY, PLAYING) and sits:
                    found.append(game)
                else:
                    gone.append(game_id)
            if gone:
                self.kept.unsit(person, gone)
            return found

        return self.guard.read(work, None)

    def watchers(self, channel: str) -> list[str]:
        """Who asked to hear of each game opened in ``channel`` (none if the store cannot
        say)."""
        return self.guard.read(lambda: self.kept.watchers(channel), [])

    def listeners(self, game: Game, platform: str) -> list[tuple[str, Corner]]:
        """The people of ``platform`` who asked to hear of the games opened where
        ``game`` opened, with their corners: its host and those the platform refuses to
        write to left out (none if the store cannot say)."""

        def work() -> list[tuple[str, Corner]]:
            host = person_key(game.creator)
            found = []
            for person in self.kept.watchers(game.channel):
                if person != host and person.startswith(f"{platform}:"):
                    corner = Corner.from_bytes(self.kept.person(person))
                    if not corner.blocked:
                        found.append((person, corner))
            return found

        return self.guard.read(work, [])

    def watch(self, channel: str, person: str, on: bool) -> bool | None:
        """``person`` hears (``on``), or no longer hears, of the games of ``channel``;
        False: the chat has as many as it may; None: the store could not be reached."""

        def work() -> bool:
            if not self.kept.watch(channel, person, on):
                return False
            new = Corner.from_bytes(self.kept.person(person)).watch(channel, on)
            self.kept.set_person(person, new.to_bytes())
            return True

        return self.guard.read(work, None)

    def forget(self, person: str) -> None:
        """Erase ``person``'s corner (raises StoreError: the caller tells the person)."""
        forget_corner(self.kept, person)


def forget_corner(corners: kept.Corners, person: str) -> None:
    """Erase ``person``'s corner in ``corners``: their settings, their seats, their watch
    of chats.  Raises StoreError."""
    corners.forget(person, Corner.from_bytes(corners.person(person)).here)
