"""Discord (discord.py): the ``/ludo`` commands and the game buttons."""

from ..faults import AdapterError
from .adapter import DiscordAdapter
from .client import DiscordSettings, GameButton, LudoClient
from .screen import ChannelScreen, InteractionScreen, clean, describe, fields
from .translator import LudoTranslator
from .where import PREFIX, channel_key, chat_key, user_of

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
    "chat_key",
    "clean",
    "describe",
    "fields",
    "user_of",
]
