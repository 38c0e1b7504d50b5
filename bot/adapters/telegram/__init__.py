"""Telegram (python-telegram-bot)."""

from .adapter import COMMANDS, AdapterError, TelegramAdapter, WebhookSettings, channel_of
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
