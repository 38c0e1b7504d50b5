"""The buckets the Redis store spreads games over (see :mod:`bot.store.redis.store`).

A channel and a game id each fall in one of :data:`BUCKETS` buckets: the low
bits of the CRC-32 of their UTF-8 bytes (the same function in Python here and
in the Lua scripts, :data:`LUA_BUCKET`).  Each bucket has its own Redis Cluster
hash tag, so the buckets spread over the cluster's slots and nodes, while a
game, its channel binding and its deadline share one slot as long as the game's
id falls in its channel's bucket: :func:`new_game_id` makes such ids.
"""

from __future__ import annotations

import secrets
import zlib

#: how many buckets (a power of two: the bucket is the CRC-32's low bits)
BUCKETS = 1024


def bucket(name: str) -> int:
    """The bucket of a channel or game id."""
    return zlib.crc32(name.encode()) & (BUCKETS - 1)


def new_game_id(channel: str) -> str:
    """A fresh random game id (8 hex digits) in the bucket of ``channel``, so that
    the game's keys and its channel's share a Redis Cluster slot."""
    want = bucket(channel)
    while True:  # one id in BUCKETS fits: random bytes for BUCKETS ids at a time
        pool = secrets.token_bytes(4 * BUCKETS)
        for i in range(0, len(pool), 4):
            game_id = pool[i : i + 4].hex()
            if zlib.crc32(game_id.encode()) & (BUCKETS - 1) == want:
                return game_id


#: Lua: bucket(s), as :func:`bucket`; at(tmpl, s): the key base of the bucket of
#: ``s`` from the template ``tmpl`` (the base with ``%d`` for the bucket)
LUA_BUCKET = f"""
local function bucket(s)
  local c = -1
  for i = 1, #s do
    c = bit.bxor(c, string.byte(s, i))
    for _ = 1, 8 do
      c = bit.bxor(bit.rshift(c, 1), bit.band(-306674912, -bit.band(c, 1)))
    end
  end
  return bit.band(bit.bnot(c), {BUCKETS - 1})
end
local function at(tmpl, s)
  return string.format(tmpl, bucket(s))
end
"""
