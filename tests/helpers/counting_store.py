"""A store that counts the calls made to it, to hold the service to its
budget: one button press is one ``load`` (or ``load_in``) and one ``save``,
plus at most one ``save_shown``.

    counting = CountingStore(store)
    service = GameService(counting, ...)
    counting.reset()
    service.press(...)
    assert counting.calls == Counter(load_in=1, save=1)

Every method of :class:`bot.store.Store` is counted under its own name
(``close`` too) and then handed to the wrapped store, which does the work.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from bot.store import KEEP, Keep, Kept, Store, Stored


class CountingStore:
    """A :class:`~bot.store.Store` around ``inner`` that counts the calls made to it."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        #: calls so far, by method name
        self.calls: Counter[str] = Counter()

    def reset(self) -> None:
        """Forget the calls counted so far."""
        self.calls.clear()

    def create(self, game_id: str, data: bytes, *, channel: str, due: float | None = None) -> bool:
        self.calls["create"] += 1
        return self.inner.create(game_id, data, channel=channel, due=due)

    def load(self, game_id: str) -> Stored | None:
        self.calls["load"] += 1
        return self.inner.load(game_id)

    def load_in(self, channel: str) -> Stored | None:
        self.calls["load_in"] += 1
        return self.inner.load_in(channel)

    def save(
        self,
        game_id: str,
        data: bytes,
        rev: int,
        *,
        due: float | Keep | None = KEEP,
        release: bool = False,
    ) -> bool:
        self.calls["save"] += 1
        return self.inner.save(game_id, data, rev, due=due, release=release)

    def save_shown(self, game_id: str, data: bytes, rev: int) -> bool:
        self.calls["save_shown"] += 1
        return self.inner.save_shown(game_id, data, rev)

    def channel_game(self, channel: str) -> str | None:
        self.calls["channel_game"] += 1
        return self.inner.channel_game(channel)

    def release_channel(self, channel: str, game_id: str) -> None:
        self.calls["release_channel"] += 1
        self.inner.release_channel(channel, game_id)

    def active_games(self) -> int:
        self.calls["active_games"] += 1
        return self.inner.active_games()

    def discard(self, game_id: str, channel: str) -> None:
        self.calls["discard"] += 1
        self.inner.discard(game_id, channel)

    def schedule(self, game_id: str, due: float) -> None:
        self.calls["schedule"] += 1
        self.inner.schedule(game_id, due)

    def unschedule(self, game_id: str) -> None:
        self.calls["unschedule"] += 1
        self.inner.unschedule(game_id)

    def claim_due(self, now: float, lease: float, limit: int = 100) -> list[str]:
        self.calls["claim_due"] += 1
        return self.inner.claim_due(now, lease, limit)

    def keep(self, kept: Kept) -> bool:
        self.calls["keep"] += 1
        return self.inner.keep(kept)

    def last_game(self, channel: str) -> bytes | None:
        self.calls["last_game"] += 1
        return self.inner.last_game(channel)

    def entries(self, chat: str, since: float = 0.0) -> list[tuple[str, bytes]]:
        self.calls["entries"] += 1
        return self.inner.entries(chat, since)

    def chats(self) -> list[str]:
        self.calls["chats"] += 1
        return self.inner.chats()

    def forget(self, person: str, scrub: Callable[[bytes], bytes | None] | None = None) -> int:
        self.calls["forget"] += 1
        return self.inner.forget(person, scrub)

    def close(self) -> None:
        self.calls["close"] += 1
        self.inner.close()

    def __repr__(self) -> str:
        return f"CountingStore({self.inner!r})"


def _is_a_store(counting: CountingStore) -> Store:
    """For mypy: a CountingStore goes wherever a Store does."""
    return counting
