"""The bot: command line, game service, store and platform adapters."""
