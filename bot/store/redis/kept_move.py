"""Moving the finished games kept under layout "2" (every key under the one hash tag
``{ludo}``) to the buckets of their chats (see :mod:`bot.store.redis.kept`).

Run on one server only, once, by the first store opened there (see
:func:`bot.store.redis.layout.migrate_old_keys`), while no worker of the older
version runs.  Each step writes the new keys before deleting the old ones, so
a move cut short is done again whole by the next store."""

from __future__ import annotations

from typing import Any

from bot.store.buckets import bucket
from bot.store.redis.ops import glob_escape


def move_kept(client: Any, old: str, tmpl: str) -> int:
    """Move the kept games under ``old`` (``ludo:{ludo}:``) to the buckets made from
    ``tmpl``; the number of kept games moved."""
    chat_of: dict[bytes, str] = {}  # kept key -> its chat
    moved = 0
    for key in list(client.scan_iter(match=glob_escape(old) + "chat:*", count=1000)):
        chat = bytes(key)[len(old) + len("chat:") :].decode(errors="replace")
        at = tmpl % bucket(chat)
        for member, score in client.zrange(key, 0, -1, withscores=True):
            chat_of[bytes(member)] = chat
            stats = f"{old}stats:".encode() + bytes(member)
            if client.exists(stats):
                client.rename(stats, f"{at}stats:".encode() + bytes(member))
            token = client.hget(f"{old}kept", member)
            if token is not None:
                client.hset(f"{at}kept", member, token)  # the old bot-wide marks stay
            client.zadd(f"{at}chat:{chat}", {member: score})
            moved += 1
        client.delete(key)
    last_chat: dict[bytes, str] = {}  # channel -> the chat of its last game
    for key in list(client.scan_iter(match=glob_escape(old) + "last:*", count=1000)):
        channel = bytes(key)[len(old) + len("last:") :]
        found: str | None = chat_of.get(bytes(client.hget(key, "key") or b""))
        if found is None:
            client.delete(key)  # a last game without its stats: nothing finds it
            continue
        last_chat[channel] = found
        client.rename(key, f"{tmpl % bucket(found)}last:".encode() + channel)
        at = tmpl % bucket(channel.decode(errors="replace"))
        client.set(f"{at}lastin:".encode() + channel, found)
    for kind in ("person:", "named:"):
        for key in list(client.scan_iter(match=glob_escape(old) + kind + "*", count=1000)):
            who = bytes(key)[len(old) + len(kind) :].decode(errors="replace")
            for member in client.smembers(key):
                where = (chat_of if kind == "person:" else last_chat).get(bytes(member))
                if where is not None:
                    client.sadd(f"{tmpl % bucket(where)}{kind}{who}", member)
                    client.sadd(f"{tmpl % bucket(who)}in:{who}", bucket(where))
            client.delete(key)
    return moved
