"""Discord (discord.py): the ``/ludo`` commands and the game buttons."""

from .adapter import PREFIX, AdapterError, DiscordAdapter, channel_key, user_of
from .client import HELP, DiscordSettings, GameButton, LudoClient
from .screen import ChannelScreen, InteractionScreen, clean, describe, fields

__all__ = [
    "HELP",
    "PREFIX",
    "AdapterError",
    "ChannelScreen",
    "DiscordAdapter",
    "DiscordSettings",
    "GameButton",
    "InteractionScreen",
    "LudoClient",
    "channel_key",
    "clean",
    "describe",
    "fields",
    "user_of",
]
