"""Each person's corner in Redis, shared by every worker on it (see
:mod:`bot.store.corners`).

Keys, under the store's bot-wide base (``ludo:{ludo}:``)::

    {base}cp:{person}            string: the person's settings
    {base}cc:{game}:{person}     string "{rev} {notes}": a game's card in their corner
    {base}cs:{person}            sorted set: game id -> when they sat down
    {base}cw:{channel}           sorted set: person -> when they asked to hear of it

Each write renews its key's expiry; a card is written with one script (compare-and-set
on its revision), so two workers never both send a card of one game to one person.
"""

from __future__ import annotations

import time
from collections.abc import Collection

import redis

from bot.store.base import Shown
from bot.store.corners import CARD_TTL, PERSON_TTL, SEATS, WATCHERS
from bot.store.redis.beside import Beside
from bot.store.redis.limits import errors

#: KEYS: the card.  ARGV: the revision expected, the notes, seconds to live.
SAVE_CARD = """
local cur = redis.call('GET', KEYS[1])
local rev = 0
if cur then rev = tonumber(string.match(cur, '^(%d+) ')) or 0 end
if rev ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], tostring(rev + 1) .. ' ' .. ARGV[2], 'EX', ARGV[3])
return 1
"""

#: KEYS: the chat's watchers.  ARGV: the person, now, the most, seconds to live.
WATCH = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == false
   and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


def _text(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


class RedisCorners(Beside):
    """The corners in the Redis of ``client``, under ``base``."""

    def __init__(self, client: redis.Redis, base: str, where: str) -> None:
        super().__init__(client, base, where)
        self._save_card = client.register_script(SAVE_CARD)
        self._watch = client.register_script(WATCH)

    def person(self, person: str) -> bytes | None:
        with errors(self.where):
            found = self.client.get(f"{self.base}cp:{person}")
        return bytes(found) if isinstance(found, bytes) else None

    def set_person(self, person: str, data: bytes) -> None:
        with errors(self.where):
            self.client.set(f"{self.base}cp:{person}", data, ex=int(PERSON_TTL))

    def card(self, game_id: str, person: str) -> Shown | None:
        with errors(self.where):
            found = self.client.get(f"{self.base}cc:{game_id}:{person}")
        if not isinstance(found, bytes):
            return None
        rev, _, data = found.partition(b" ")
        return Shown(data, int(rev)) if rev.isdigit() else None

    def save_card(self, game_id: str, person: str, data: bytes, rev: int) -> bool:
        with errors(self.where):
            done = self._save_card(
                keys=[f"{self.base}cc:{game_id}:{person}"], args=[rev, data, int(CARD_TTL)]
            )
        return bool(done)

    def seats(self, person: str) -> list[str]:
        with errors(self.where):
            found = self.client.zrange(f"{self.base}cs:{person}", 0, -1)
        return [_text(i) for i in found]

    def sit(self, person: str, game_id: str) -> None:
        key = f"{self.base}cs:{person}"
        with errors(self.where):
            pipe = self.client.pipeline(transaction=True)
            pipe.zadd(key, {game_id: time.time()})
            pipe.zremrangebyrank(key, 0, -SEATS - 1)
            pipe.expire(key, int(CARD_TTL))
            pipe.execute()

    def unsit(self, person: str, game_ids: Collection[str]) -> None:
        if game_ids:
            with errors(self.where):
                self.client.zrem(f"{self.base}cs:{person}", *game_ids)

    def watchers(self, channel: str) -> list[str]:
        with errors(self.where):
            found = self.client.zrange(f"{self.base}cw:{channel}", 0, -1)
        return [_text(p) for p in found]

    def watch(self, channel: str, person: str, on: bool) -> bool:
        key = f"{self.base}cw:{channel}"
        with errors(self.where):
            if not on:
                self.client.zrem(key, person)
                return True
            args: list[str | float] = [person, time.time(), WATCHERS, int(PERSON_TTL)]
            return bool(self._watch(keys=[key], args=args))

    def forget(self, person: str, channels: Collection[str] = ()) -> None:
        with errors(self.where):
            pipe = self.client.pipeline(transaction=False)
            pipe.delete(f"{self.base}cp:{person}", f"{self.base}cs:{person}")
            for channel in channels:
                pipe.zrem(f"{self.base}cw:{channel}", person)
            pipe.execute()
