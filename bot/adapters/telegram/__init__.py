"""Telegram (python-telegram-bot)."""

from ..faults import AdapterError
from .adapter import TelegramAdapter
from .board_button import MiniApp
from .commands import COMMANDS
from .screen import caption, mention
from .updates import WebhookSettings, channel_of

__all__ = [
    "COMMANDS",
    "AdapterError",
    "MiniApp",
    "TelegramAdapter",
    "WebhookSettings",
    "caption",
    "channel_of",
    "mention",
]
