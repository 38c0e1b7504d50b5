"""Who is told of the games the service saves: the listeners of every save (the live
board's hub, told the game's id, channel and new revision) and of every finished game
(the tournaments, which record a table and open the next)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..hosting import Game

log = logging.getLogger(__name__)


class Listeners:
    """The two lists of one game service, told in the saving thread."""

    def __init__(self) -> None:
        #: told (game id, channel, new rev) after every save that succeeded
        self.saved: list[Callable[[str, str, int], None]] = []
        #: told each finished game once saved and kept (may add to its ``news``)
        self.finished: list[Callable[[Game], None]] = []
        #: told every game saved or created, itself (in the saving thread)
        self.games: list[Callable[[Game], None]] = []

    def changed(self, game: Game) -> None:
        """``game`` was saved, or created: every listener is told; one failing is logged
        (a listener's bug never undoes a save) and the others are told all the same."""
        for listener in self.saved:
            try:
                listener(game.id, game.channel, game.rev)
            except Exception:
                log.exception("a listener of game %s failed", game.id)
        for told in self.games:
            try:
                told(game)
            except Exception:
                log.exception("a listener of game %s failed", game.id)

    def ended(self, game: Game) -> None:
        """``game`` finished, is saved and kept: the listeners of finished games are told."""
        for told in self.finished:
            told(game)
