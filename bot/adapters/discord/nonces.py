"""A table posted once, whatever Discord answered.

A post Discord answered with a 5xx (discord.py tries those again itself), or not at
all, may have reached the channel all the same.  Discord's message nonces make a post
safe to repeat: with ``enforce_nonce`` (which discord.py always sends with a nonce), a
message whose nonce the bot used in the channel within the past few minutes is not
posted again, Discord answers with the one posted.  So each table post carries a nonce
of its own, and a post in doubt keeps its nonce for the game's next post in the
channel, newer view or not: if the first had arrived, Discord hands it back, and it is
edited into the newer view instead of a second table appearing.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from .weather import transient

#: how many posts in doubt are remembered
KEPT = 4096


class Nonces:
    """The nonces of one client's table posts in doubt, by channel and game."""

    def __init__(self) -> None:
        self._doubts: dict[tuple[int, str], str] = {}

    def of(self, channel_id: int, key: str) -> tuple[str, bool]:
        """The nonce for the next post of ``key`` (a game) in the channel, and whether it
        is that of a post in doubt."""
        kept = self._doubts.get((channel_id, key))
        if kept is not None:
            return kept, True
        return secrets.token_hex(8), False  # Discord takes at most 25 characters

    def doubt(self, channel_id: int, key: str, nonce: str) -> None:
        """The post with ``nonce`` may be in the channel."""
        if len(self._doubts) >= KEPT:
            self._doubts.pop(next(iter(self._doubts)))
        self._doubts[(channel_id, key)] = nonce

    def settled(self, channel_id: int, key: str) -> None:
        self._doubts.pop((channel_id, key), None)


async def post_once(
    nonces: Nonces,
    channel: discord.abc.Messageable,
    key: str,
    kwargs: dict[str, Any],
    refresh: Callable[[discord.Message], Awaitable[object]],
) -> discord.Message:
    """Post ``kwargs`` in ``channel`` as the table of ``key``, with its nonce (a post in
    doubt's, if any); a message Discord hands back for that nonce is brought up to date
    by ``refresh``."""
    channel_id = getattr(channel, "id", 0)
    nonce, again = nonces.of(channel_id, key)
    try:
        sent = await channel.send(nonce=nonce, **kwargs)
    except Exception as e:
        if transient(e):
            nonces.doubt(channel_id, key, nonce)
        raise
    nonces.settled(channel_id, key)
    if again and _custom_ids(sent) != _custom_ids(kwargs.get("view")):
        await refresh(sent)  # the post in doubt had arrived: it shows an older view
    return sent


def _custom_ids(where: discord.Message | discord.ui.View | None) -> list[str]:
    """The custom ids of a message's or a view's buttons (each names the game's version)."""
    if isinstance(where, discord.ui.View):
        return [str(getattr(item, "custom_id", "")) for item in where.children]
    if where is None:
        return []
    return [
        str(getattr(child, "custom_id", ""))
        for row in where.components
        for child in getattr(row, "children", ())
    ]
