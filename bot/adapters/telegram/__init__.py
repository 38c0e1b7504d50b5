"""Telegram (python-telegram-bot)."""

from ..faults import AdapterError
from .adapter import TelegramAdapter
from .commands import COMMANDS
from .screen import caption, mention
from .updates import WebhookSettings, channel_of

__all__ = [
    "COMMANDS",
    "AdapterError",
    "TelegramAdapter",
    "WebhookSettings",
    "caption",
    "channel_of",
    "mention",
]
