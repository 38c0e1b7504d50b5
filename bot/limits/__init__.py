"""Limits at the entrance, before the service: the rate limits every command and
press passes (:mod:`.rate`: token buckets per person, chat and address) and each
person's quotas (:mod:`.quotas`: games open at once, finished games counted in the
stats).  Where the buckets and the lists live is the store's (:mod:`bot.store.limits`
in the process, :mod:`bot.store.redis.limits` in Redis for every worker)."""
