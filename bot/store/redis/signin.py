"""What the live board's Discord sign-in keeps in Redis, shared by every worker on it
(see :mod:`bot.store.signin`).

Keys, under the store's bot-wide base (``ludo:{ludo}:``: one hash tag, so each script
runs on Redis Cluster)::

    {base}dt:{digest}        string: the person an issued access token is of
    {base}dh:{scope}         string "1": nothing asked on that route (or every route,
                             ``global``) while it lives

Each expires on its own: a token when Discord says it does, a hold when Discord said
it may be asked again.  (The budget's buckets are the rate limits' own:
:mod:`bot.store.redis.limits`.)
"""

from __future__ import annotations

from collections.abc import Sequence

import redis

from bot.store.redis.beside import Beside
from bot.store.redis.limits import errors
from bot.store.signin import LONGEST

#: KEYS: the hold.  ARGV: milliseconds.  A longer hold already there stays.
HOLD = """
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 1
"""


class RedisIssued(Beside):
    """The tokens issued, in the Redis of ``client`` under ``base``."""

    shared = True

    def keep(self, token_digest: str, login: str, seconds: float) -> None:
        ms = max(1, round(min(seconds, LONGEST) * 1000))
        with errors(self.where):
            self.client.set(f"{self.base}dt:{token_digest}", login, px=ms)

    def find(self, token_digest: str) -> str | None:
        with errors(self.where):
            found = self.client.get(f"{self.base}dt:{token_digest}")
        if found is None:
            return None
        return found.decode(errors="replace") if isinstance(found, bytes) else str(found)


class RedisHolds(Beside):
    """The holds in the Redis of ``client`` under ``base``, for every worker there."""

    shared = True

    def __init__(self, client: redis.Redis, base: str, where: str) -> None:
        super().__init__(client, base, where)
        self._hold = client.register_script(HOLD)

    def hold(self, scope: str, seconds: float) -> None:
        ms = max(1, round(seconds * 1000))
        with errors(self.where):
            self._hold(keys=[f"{self.base}dh:{scope}"], args=[ms])

    def left(self, scopes: Sequence[str]) -> float:
        with errors(self.where):
            pipe = self.client.pipeline(transaction=False)
            for scope in scopes:
                pipe.pttl(f"{self.base}dh:{scope}")
            found = pipe.execute()
        return max([0, *(int(ms) for ms in found)]) / 1000
