"""The Redis store and what lives beside it in Redis: the games (:mod:`.store`, its
connection, key layout, scripts and replication), the finished games kept for good
(:mod:`.kept`), the rate limits (:mod:`.limits`), the chats' pace (:mod:`.pace`) and
the Discord sign-in's tokens and budget (:mod:`.signin`), every worker sharing them."""
