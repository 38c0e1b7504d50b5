"""A tournament as data: its entrants, its tables round by round, its standings' rows,
and the bounds of its set-up (the steps that change it: :mod:`.tournament`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .game import NORMAL, User
from .results import person_key

SWISS, KNOCKOUT = "swiss", "knockout"
FORMATS = (SWISS, KNOCKOUT)
SIGNUP, RUNNING, DONE, ENDED = "signup", "running", "done", "ended"
STATUSES = (SIGNUP, RUNNING, DONE, ENDED)
#: how many may sign up: at least, at most
SIZE_RANGE = (4, 32)
#: Swiss rounds: at least, at most
ROUNDS_RANGE = (1, 6)
#: a tournament's turn timer (seconds): required, so no table can stall
TOUR_TIMER_RANGE = (10, 3600)
#: what a Swiss place is worth at most (the winner of a table)
TOP_POINTS = 3.0
#: the most tables a tournament keeps (32 players, 6 rounds: 48)
MAX_TABLES = 200
#: the most rooms (tables of one round: 32 players at 8 tables)
MAX_ROOMS = 8


@dataclass
class Entrant:
    """A person signed up, with the rating they came with (seating goes by it)."""

    user: User
    rating: int

    @property
    def key(self) -> str:
        return person_key(self.user)


@dataclass
class Table:
    """One table of a round: who sits there (entrants' keys), the game that plays it,
    and, once played, each one's place (1 = first; equal places tie)."""

    round: int
    number: int
    players: list[str]
    game: str | None = None
    places: dict[str, int] | None = None

    @property
    def done(self) -> bool:
        return self.places is not None


@dataclass(frozen=True)
class Standing:
    """One line of the standings."""

    key: str
    name: str
    place: int
    #: Swiss: points; knockout: the round reached
    points: float
    #: Swiss: the opponents' points (Buchholz); knockout: the place in one's last table
    tiebreak: float
    rating: int


@dataclass
class Tournament:
    id: str
    channel: str
    chat: str
    rules: str
    options: dict[str, Any]
    host: User
    fmt: str
    size: int
    #: Swiss: the rounds to play; knockout: 0 (as many as it takes)
    rounds: int
    timer: int
    lang: str = "en"
    level: str = NORMAL
    status: str = SIGNUP
    version: int = 1
    entrants: list[Entrant] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    round: int = 0
    created: float = 0.0
    #: where the tables play at once, table k of every round in ``rooms[k - 1]`` (threads,
    #: forum topics); none: one after another in ``channel``
    rooms: list[str] = field(default_factory=list)
    #: the chat can have rooms: the adapter makes them when the tournament starts
    rooms_wanted: bool = False
    #: the store revision this was loaded at (not saved)
    rev: int = 0

    # -- reading ----------------------------------------------------------

    def entrant(self, key: str) -> Entrant | None:
        return next((e for e in self.entrants if e.key == key), None)

    def name(self, key: str) -> str:
        e = self.entrant(key)
        return e.user.name if e is not None else "?"

    def current(self) -> list[Table]:
        """The tables of the round being played."""
        return [t for t in self.tables if t.round == self.round]

    def next_table(self) -> Table | None:
        """The table to open next: the first of the round not opened (one at a time, or
        all at once in rooms); None while the rooms are being made."""
        if self.status != RUNNING or self.awaiting_rooms:
            return None
        if not self.rooms and self.playing() is not None:
            return None
        return next((t for t in self.current() if t.game is None), None)

    @property
    def teams(self) -> bool:
        """Italian teams: each table is two against two, partners chosen by the seating."""
        return bool(self.options.get("teams"))

    @property
    def awaiting_rooms(self) -> bool:
        """Being played, and waiting for the adapter to make its tables' rooms."""
        return self.status == RUNNING and self.rooms_wanted and not self.rooms

    def room_of(self, table: Table) -> str:
        """Where ``table`` plays: its room, or the tournament's channel."""
        return self.rooms[table.number - 1] if table.number <= len(self.rooms) else self.channel

    def playing(self) -> Table | None:
        """The table opened and not finished yet."""
        return next((t for t in self.current() if t.game is not None and not t.done), None)

    def table_of(self, game_id: str) -> Table | None:
        return next((t for t in self.tables if t.game == game_id), None)

    @property
    def last_round(self) -> bool:
        if self.fmt == SWISS:
            return self.round >= self.rounds
        return len(self.current()) == 1  # knockout: the final table
