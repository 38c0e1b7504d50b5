"""What happens after a game: it is kept (the chat's stats, the channel's last game:
:class:`~.records.Records`), its people's new ratings are put into its standings, and
the same table may play again (the rematch).

Keeping comes right after the game's final save and not in the same transaction: a
crash in between loses that one game's stats, never the game."""

from __future__ import annotations

from collections.abc import Callable

from ..hosting import LOBBY, Game, Refusal, User
from ..hosting.rematch import opened, rematch_of
from ..store import new_game_id
from .loading import Chance, step
from .lobby import Lobby
from .outcome import Outcome
from .records import Records


class AfterGame:
    """The finished games of one game service: kept, rated, played again."""

    def __init__(
        self,
        records: Records,
        lobby: Lobby,
        chance: Chance,
        *,
        game_in: Callable[[str], Game | None],
        join: Callable[[str, User], Outcome],
    ) -> None:
        """``game_in``: the live game of a channel (read-only); ``join``: a person says
        yes to the lobby of a channel (the request of :meth:`rematch` pressed again)."""
        self.records, self.lobby, self.chance = records, lobby, chance
        self.game_in, self.join = game_in, join

    def keep(self, game: Game) -> None:
        """``game`` finished and is saved: kept for good, and if it was, the new ratings
        of its people put into it (one more compare-and-set: see :meth:`Records.tell_ratings`)."""
        if self.records.keep(game, self.chance.clock()):
            self.records.tell_ratings(game)

    def rematch(self, channel: str, user: User, game_id: str | None) -> Outcome:
        """The same table again (:mod:`bot.hosting.rematch`) of game ``game_id``, or of
        ``channel``'s last; pressed once it is open, it says yes to it.  Raises StoreError
        (the caller's guard makes it a refusal)."""
        last = self.records.finished(channel, game_id)
        if isinstance(last, Refusal):
            return Outcome(None, refusal=last)
        for _ in range(2):  # twice: someone may open the same rematch at the same moment
            live = self.game_in(channel)
            if live is not None and live.after == last.id and live.status == LOBBY:
                return self.join(channel, user)  # open already: say yes
            if live is not None:
                break
            try:
                seed, now = self.chance.seed(), self.chance.clock()
                minutes = self.lobby.lobby_minutes
                game = rematch_of(last, new_game_id(channel), user, now, minutes, seed)
                happened = step(game, opened, game, user, self.chance.luck())
            except Refusal as r:
                return Outcome(None, refusal=r)
            if (made := self.lobby.create(game, channel, user)) is not False:
                return Outcome(game, happened) if made is True else Outcome(None, refusal=made)
        return Outcome(live, refusal=Refusal("refuse.game_running"))
