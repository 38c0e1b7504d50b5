"""Opening a game: a lobby in a channel, its opener in the first seat.

A channel holds one live game: a lobby or a game being played there refuses a new
one (``refuse.game_running``), a finished one gives way, and a damaged one still
bound to the channel is let go first.  The game is created with one store call,
within its opener's quota of open games (:class:`~bot.limits.quotas.Quotas`)."""

from __future__ import annotations

from typing import Any

from renderer import THEMES

from ..hosting import LOBBY, PLAYING, Game, Happened, Note, Refusal, User, open_game
from ..hosting.seat import bounded_name
from ..limits.quotas import Quotas
from ..store import Store, new_game_id
from ..store.base import DamagedRecord
from .faults import Damaged, Guard
from .listeners import Listeners
from .loading import Chance, read
from .outcome import Outcome


class Lobby:
    """The lobbies of one game service; never raises (its requests pass the guard)."""

    def __init__(
        self,
        store: Store,
        guard: Guard,
        quotas: Quotas,
        listeners: Listeners,
        chance: Chance,
        *,
        default_timer: int,
        lobby_minutes: int,
    ) -> None:
        self.store, self.guard, self.quotas = store, guard, quotas
        self.listeners, self.chance = listeners, chance
        self.default_timer = default_timer
        #: a lobby nobody starts closes after this long
        self.lobby_minutes = lobby_minutes

    def open(
        self,
        channel: str,
        user: User,
        rules: str,
        options: dict[str, Any] | None,
        *,
        timer: int | None,
        auto_move: bool,
        lang: str,
        chat: str,
        theme: str,
        level: str,
        place: str = "",
    ) -> Outcome:
        """A lobby in ``channel`` with ``user`` in the first seat (see
        :meth:`bot.service.game.GameService.open`)."""
        try:
            game = open_game(
                new_game_id(channel),
                channel,
                user,
                rules,
                options,
                timer=self.default_timer if timer is None else timer,
                auto_move=auto_move,
                now=self.chance.clock(),
                lang=lang,
                lobby_minutes=self.lobby_minutes,
                seed=self.chance.seed(),
                level=level,
            )
        except Refusal as r:
            return Outcome(None, refusal=r)
        if theme not in THEMES:
            return Outcome(None, refusal=Refusal("refuse.bad_theme", choices=tuple(THEMES)))
        game.chat, game.theme, game.place = chat or channel, theme, bounded_name(place)
        return self.guard.request(lambda: self._open(game, channel, user), channel)

    def _open(self, game: Game, channel: str, user: User) -> Outcome:
        try:
            stored, old = read(self.store.load_in(channel), channel=channel)
        except Refusal:
            pass  # no game here
        except (Damaged, DamagedRecord) as e:
            damaged = Damaged.of(e, channel)
            if not self.guard.isolation.let_go(damaged)[0]:  # kept: saved by a newer ludo-bot
                return Outcome(None, refusal=Refusal("refuse.damaged", why=damaged.why))
        else:
            if old.status in (LOBBY, PLAYING):
                return Outcome(old, refusal=Refusal("refuse.game_running"), shown=stored.shown)
        made = self.create(game, channel, user)
        if made is not True:
            return Outcome(None, refusal=made or Refusal("refuse.game_running"))
        return Outcome(game, Happened(by=user, facts=[Note("lobby.opened")]))

    def create(self, game: Game, channel: str, user: User) -> bool | Refusal:
        """Create ``game``, opened by ``user``, in ``channel`` within their quota, and tell
        the listeners; False: the channel holds another game.  Raises StoreError."""
        made = self.quotas.create(game, channel, user)
        if made is True:
            self.listeners.changed(game)
        return made
