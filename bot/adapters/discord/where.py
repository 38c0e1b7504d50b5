"""Who and where, on Discord, as the game service knows them: a person, a channel
(or thread) and the chat whose stats a game counts in (the server)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord

from ...hosting import Intent, User
from ...present import Press

PLATFORM = "discord"
#: every channel key of ours starts so
PREFIX = "dc:"
#: a server's key: the stats and the leaderboard count per server
GUILD_PREFIX = "dc-guild:"


def user_of(member: discord.abc.User) -> User:
    return User(PLATFORM, str(member.id), member.display_name or member.name or str(member.id))


def channel_key(channel_id: int | None) -> str:
    return f"{PREFIX}{channel_id}"


def chat_key(interaction: discord.Interaction[Any]) -> str:
    """Where the results of a game opened by ``interaction`` count: its server, else
    (a private channel) its channel."""
    if interaction.guild_id:
        return f"{GUILD_PREFIX}{interaction.guild_id}"
    return channel_key(interaction.channel_id)


def place_of(interaction: discord.Interaction[Any]) -> str:
    """The name of the place of ``interaction``, for the cards of a game opened there:
    a server's channel (``#name``), a named group DM; "" for a DM."""
    name = getattr(interaction.channel, "name", None)
    if not isinstance(name, str) or not name:
        return ""
    return f"#{name}" if interaction.guild_id else name


def channel_id_of(channel: str) -> int | None:
    """The Discord id of a channel key of ours (None: not ours)."""
    rest = channel[len(PREFIX) :] if channel.startswith(PREFIX) else ""
    return int(rest) if rest.isdigit() else None


def can_manage(interaction: discord.Interaction[Any]) -> bool:
    """May the asker manage the channel's messages (end any game, change its language,
    add or remove its computer players)?"""
    perms = interaction.permissions
    return bool(perms and perms.manage_messages)


def asked(press: Press, interaction: discord.Interaction[Any]) -> Intent:
    """What the button ``press`` asks, with the presser's right to manage the channel."""
    return replace(press.intent, can_manage=can_manage(interaction))
