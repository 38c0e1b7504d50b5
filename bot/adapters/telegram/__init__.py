"""Telegram (python-telegram-bot)."""

from .adapter import AdapterError, TelegramAdapter, WebhookSettings, channel_of
from .commands import COMMANDS
from .screen import caption, mention

__all__ = [
    "COMMANDS",
    "AdapterError",
    "TelegramAdapter",
    "WebhookSettings",
    "caption",
    "channel_of",
    "mention",
]
