"""Telegram (python-telegram-bot)."""

from .adapter import AdapterError, TelegramAdapter, WebhookSettings
from .commands import COMMANDS
from .screen import caption, mention
from .updates import channel_of

__all__ = [
    "COMMANDS",
    "AdapterError",
    "TelegramAdapter",
    "WebhookSettings",
    "caption",
    "channel_of",
    "mention",
]
