"""What one request to the game service came to (:class:`Outcome`), as the
adapters show it: the game as saved and what happened to it, or why nothing
did, or (a damaged game let go) the channel whose chat is to be told; and what
one request to the tournaments came to (:class:`TourOutcome`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..hosting import Game, Happened, Refusal
from ..hosting.tournament import Tournament
from ..store import Shown


@dataclass
class Outcome:
    """What one request came to.

    ``game`` is the game as saved (or as it stands, when refused; None when
    there is none), ``happened`` what the request did, ``refusal`` why it did
    nothing, ``shown`` what the chat showed of the game when it was loaded.

    ``freed``: the game met was damaged and is gone; this is the channel it
    held, free again (``/ludo`` opens a new game there).  The chat of that
    channel should be told ``game.damaged`` in a message of its own (there is
    no game to show: ``game`` is None).  A press or command that met it is
    also refused (``refuse.damaged``, to the asker); a timer's outcome has no
    refusal, only ``freed``.
    """

    game: Game | None
    happened: Happened | None = None
    refusal: Refusal | None = None
    shown: Shown | None = None
    freed: str | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    @property
    def channel(self) -> str | None:
        """The channel this outcome is to be shown in (None: nowhere)."""
        return self.game.channel if self.game is not None else self.freed


#: the refusal of every request while the store cannot be reached
STORE_DOWN = "refuse.store_down"
#: the refusal of a request whose save was sent and never answered: it may have been
#: done before the store stopped answering, and will not be done after
STORE_UNSURE = "refuse.store_unsure"


@dataclass
class TourOutcome:
    """What one tournament request came to: the tournament as saved (or as it stands,
    when refused), what happened, why nothing did, and the tables it opened or changed
    (game outcomes, to show in the chat)."""

    tour: Tournament | None
    happened: Happened | None = None
    refusal: Refusal | None = None
    tables: list[Outcome] = field(default_factory=list)
