"""Playing a turn: a command or a button press, and a turn whose timer ran out.

Each is one load, one step of the hosting domain on that fresh copy (:func:`perform`,
:func:`timeout`), and one compare-and-set save, which also sets or clears the turn
deadline and frees the channel of a finished game, atomically.  On a conflict
(another worker saved in between) it starts again from the fresh copy, so two presses
never both apply to one version and none is lost.  A refusal saves nothing."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..hosting import (
    ENDED,
    LOBBY,
    OVER,
    PLAYING,
    Game,
    Happened,
    Intent,
    Refusal,
    User,
    perform,
    timeout,
)
from ..store import Store, Stored, StoreError
from ..store.base import DamagedRecord
from .after import AfterGame
from .faults import Damaged, Guard
from .listeners import Listeners
from .loading import MAX_RETRIES, Chance, read, step
from .outcome import Outcome

log = logging.getLogger(__name__)

#: a claimed deadline is someone's for this long before another worker may take it
DEADLINE_LEASE = 30.0


class Turns:
    """The turns of one game service's games; :meth:`act` and :meth:`press` never raise
    (they pass the guard), nor does :meth:`fire_due`."""

    def __init__(
        self, store: Store, guard: Guard, chance: Chance, after: AfterGame, listeners: Listeners
    ) -> None:
        self.store, self.guard, self.chance = store, guard, chance
        self.after, self.listeners = after, listeners

    def act(self, channel: str, user: User, intent: Intent, chat: str = "") -> Outcome:
        """A command in ``channel``: do ``intent`` to the game there (``chat``: as
        :meth:`press`)."""
        return self.guard.request(
            lambda: self._mutate(
                lambda: self.store.load_in(channel), channel, user, intent, chat=chat
            ),
            channel,
        )

    def press(
        self, channel: str, user: User, game_id: str, version: int, intent: Intent, chat: str = ""
    ) -> Outcome:
        """A button of game ``game_id`` at ``version`` pressed in ``channel``; another
        version's is outdated: nothing changes, the outcome carries the current game.
        ``chat``: what the press tells of the chat, for a table that knows it only in part
        (:meth:`Game.learn_chat`)."""
        return self.guard.request(
            lambda: self._mutate(
                lambda: self.store.load(game_id), channel, user, intent, version, game_id, chat
            ),
            channel,
        )

    def press_card(self, user: User, game_id: str, version: int, intent: Intent) -> Outcome:
        """A button of game ``game_id`` at ``version`` pressed on ``user``'s card in their
        corner: a press on the game, wherever its table is, by a person seated at it."""
        return self.guard.request(
            lambda: self._mutate(
                lambda: self.store.load(game_id), None, user, intent, version, game_id
            ),
            game_id,
        )

    def fire_due(self, now: float | None = None) -> list[Outcome]:
        """Play the turns whose timer ran out and close the lobbies nobody started;
        one outcome per game that changed (or was damaged: see :attr:`Outcome.freed`).
        Safe from every worker at once: a deadline is claimed by one, its move saved
        only if nobody else changed the game.  One game that fails never stops the
        others; an unreachable store ends the round (the outage tells it)."""
        now = self.chance.clock() if now is None else now
        outage = self.guard.outage
        try:
            due = self.store.claim_due(now, DEADLINE_LEASE)
        except StoreError as e:
            outage.failed(e)
            return []
        except Exception:  # a bug: logged, and the timers go on
            log.exception("the turn timers failed")
            return []
        outage.answered()
        out = []
        for game_id in due:
            try:
                try:
                    outcome = self._timeout(game_id, now)
                except (Damaged, DamagedRecord) as e:
                    freed = self.guard.isolate(Damaged.of(e, None, game_id)).freed
                    outcome = Outcome(None, freed=freed) if freed is not None else None
            except StoreError as e:
                outage.failed(e)
                break  # the rest come due again after the lease
            except Exception:  # a bug: this game's timer only
                log.exception("the timer of game %s failed", game_id)
                continue
            if outcome is not None:
                out.append(outcome)
        return out

    def _timeout(self, game_id: str, now: float) -> Outcome | None:
        for _ in range(MAX_RETRIES):
            try:
                stored, game = read(self.store.load(game_id), game_id=game_id)
            except Refusal:
                self.store.unschedule(game_id)  # nothing left to time
                return None
            happened = Happened()
            try:
                step(game, timeout, game, self.chance.luck(now), happened)
            except Refusal:
                # someone acted in time (or was reminded): the deadline follows the saved game
                due = game.due
                if due is None:
                    self.store.unschedule(game_id)
                else:
                    self.store.schedule(game_id, due)
                return None
            if self.save(game):
                return Outcome(game, happened, shown=stored.shown)
        return None

    def _mutate(
        self,
        load: Callable[[], Stored | None],
        channel: str | None,
        user: User,
        intent: Intent,
        version: int | None = None,
        game_id: str | None = None,
        chat: str = "",
    ) -> Outcome:
        """Load, change, compare-and-set; again from the fresh copy on a conflict."""
        for _ in range(MAX_RETRIES):
            try:
                stored, game = read(load(), game_id=game_id, channel=None if game_id else channel)
            except Refusal as r:
                return Outcome(None, refusal=r)
            if version is not None:
                if channel is None:  # a card's press: the game's own table, if seated there
                    if not any(user.same(s.user) for s in game.seats):
                        return Outcome(None, refusal=Refusal("refuse.not_seated"))
                elif game.channel != channel:
                    return Outcome(None, refusal=Refusal("refuse.bad_button"))
                if game.status not in (LOBBY, PLAYING):
                    return Outcome(game, refusal=Refusal("refuse.game_over"), shown=stored.shown)
                if version != game.version:
                    return Outcome(game, refusal=Refusal("refuse.outdated"), shown=stored.shown)
            game.learn_chat(chat)  # saved with the press, if it changes anything
            try:
                happened = step(game, perform, game, user, intent, self.chance.luck())
            except Refusal as r:
                # the step may have changed the copy before refusing: show the saved game
                saved = Game.from_bytes(stored.data, stored.rev)
                return Outcome(saved, refusal=r, shown=stored.shown)
            if self.save(game):
                return Outcome(game, happened, shown=stored.shown)
        return Outcome(None, refusal=Refusal("refuse.busy"))

    def save(self, game: Game) -> bool:
        """Compare-and-set ``game`` (False: someone saved it first); a finished game is
        kept and told to the listeners of finished games, every save to the listeners."""
        due = game.due  # the deadline, or a slow turn's reminder before it
        finished = game.status in (OVER, ENDED)
        if not self.store.save(game.id, game.to_bytes(), game.rev, due=due, release=finished):
            return False
        game.rev += 1
        if finished:
            self.after.keep(game)
            self.listeners.ended(game)
        self.listeners.changed(game)
        return True
