"""Each person's quotas: games open at once, and finished games counted in the stats.

* **Open games.**  A person may have at most ``open_games`` games they opened
  (a lobby, a rematch) in a lobby or being played at once, across every chat;
  one more is refused (``refuse.too_many_games``) until one of them ends.  The
  games a person opened are remembered beside the games (in Redis, or in this
  process: :mod:`bot.store.limits`) and each is read again when counted, so a
  game that ended however it ended (finished, ended, a lobby closed, expired,
  handed to another host) no longer counts, without anyone telling the list.
  Two games opened by one person at the same instant on two workers may both
  pass: the quota bounds abuse, not a race.
* **Stats.**  A person's finished games count in the stats at most
  ``stats_per_hour`` at once and then as many an hour (a token bucket).  A game
  past a person's quota is played and shown as any other; only that person's
  line is left out of the stats, and if no person's line is left, the
  computers' too (a game of one person and three computers every 30 s would
  otherwise fill the leaderboard).  The game is still kept as the channel's
  last game (rematch, replay, record).
"""

from __future__ import annotations

import logging

from ..hosting import LOBBY, PLAYING, DamagedGame, Game, Refusal, User
from ..hosting.results import COMPUTER, person_key
from ..store import DamagedRecord, Store
from ..store.limits import Buckets, OpenGames
from .rate import UNLIMITED, LimitSettings, shared_parts

log = logging.getLogger(__name__)


class Quotas:
    """The quotas of the people of one store; ``settings`` says how much
    (:data:`~bot.limits.rate.UNLIMITED` by default: no quota)."""

    def __init__(
        self,
        store: Store,
        settings: LimitSettings = UNLIMITED,
        parts: tuple[Buckets, OpenGames] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.buckets, self.games = parts or shared_parts(store)

    def create(self, game: Game, channel: str, user: User) -> bool | Refusal:
        """Create ``game``, opened by ``user``, in ``channel`` (see ``Store.create``;
        ``game.rev`` is 1 then), unless ``user`` has as many games open as allowed:
        refused then.  Raises StoreError."""
        limit, person = self.settings.open_games, person_key(user)
        if limit:
            ids = self.games.ids(person)
            gone = [i for i in ids if not self._open(i, person)]
            self.games.drop(person, gone)
            if len(ids) - len(gone) >= limit:
                return Refusal("refuse.too_many_games", count=len(ids) - len(gone))
        if not self.store.create(game.id, game.to_bytes(), channel=channel, due=game.due):
            return False
        game.rev = 1
        if limit:
            self.games.add(person, game.id)
        return True

    def _open(self, game_id: str, person: str) -> bool:
        """Whether game ``game_id`` is open and hosted by ``person``."""
        try:
            stored = self.store.load(game_id)
            game = Game.from_bytes(stored.data) if stored is not None else None
        except (DamagedRecord, DamagedGame):
            return False
        return (
            game is not None
            and game.status in (LOBBY, PLAYING)
            and person_key(game.creator) == person
        )

    def counted(self, game: Game, entries: dict[str, bytes]) -> dict[str, bytes]:
        """The stats ``entries`` of finished ``game`` that count: each person's within
        their quota, and the computers' if any person's does.  Raises StoreError."""
        rate = self.settings.stats
        people = [key for key in entries if not key.startswith(f"{COMPUTER}:")]
        if not rate.on or not people:
            return entries
        past = {p for p in people if self.buckets.take([(f"s:{p}", rate)]).refused}
        if not past:
            return entries
        log.info("game %s: past the stats quota of %s, not counted", game.id, ", ".join(past))
        if len(past) == len(people):
            return {}
        return {key: entry for key, entry in entries.items() if key not in past}
