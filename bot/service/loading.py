"""What every request of the game service stands on: a stored game read (strictly),
one step of the hosting domain on it, and the chance that step draws on.

A step the engine refuses (the game's state is one no rule can go on from) makes
the game :class:`~.faults.Damaged`: it is let go, as a game that cannot be read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from engine import LudoError

from ..hosting import DamagedGame, Game, Luck, Refusal
from ..hosting.dice import new_seed
from ..hosting.reading import brief
from ..players import Policy
from ..store import Stored
from .faults import Damaged

T = TypeVar("T")

#: how often a save is retried after a conflicting save by another worker
MAX_RETRIES = 20


@dataclass(frozen=True)
class Chance:
    """The dice, the draws, the computer players and the time of one service."""

    dice: Callable[[], int]
    draw: Callable[[int], int]
    computers: Callable[[str], Policy]
    clock: Callable[[], float]
    #: each game's rolls come from its own seed (see :mod:`bot.hosting.dice`)
    verifiable: bool

    def luck(self, now: float | None = None) -> Luck:
        """What a step draws on, at ``now`` (the clock's time if not given)."""
        return Luck(self.dice, self.draw, self.computers, self.clock() if now is None else now)

    def seed(self) -> str | None:
        """A new game's own secret seed (None: its rolls come from :attr:`dice`)."""
        return new_seed() if self.verifiable else None


def read(
    stored: Stored | None, *, game_id: str | None = None, channel: str | None = None
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


def step(game: Game, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on ``game``; the engine refusing its state means the game cannot
    go on (damage the reading missed): it is let go.  Other errors are bugs: kept."""
    try:
        return fn(*args)
    except LudoError as e:
        raise Damaged(brief(e), game.id, game.channel, error=e) from None
