"""Discord (discord.py): the ``/ludo`` commands and the game buttons."""

from ..faults import AdapterError
from .adapter import PREFIX, DiscordAdapter, channel_key, user_of
from .client import DiscordSettings, GameButton, LudoClient
from .screen import ChannelScreen, InteractionScreen, clean, describe, fields
from .translator import LudoTranslator

__all__ = [
    "PREFIX",
    "AdapterError",
    "ChannelScreen",
    "DiscordAdapter",
    "DiscordSettings",
    "GameButton",
    "InteractionScreen",
    "LudoClient",
    "LudoTranslator",
    "channel_key",
    "clean",
    "describe",
    "fields",
    "user_of",
]
