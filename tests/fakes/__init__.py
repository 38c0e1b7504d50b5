"""Local fakes of the chat platforms, driven by the real client libraries in the tests:
:mod:`tests.fakes.telegram` (the Bot API, for python-telegram-bot) and
:mod:`tests.fakes.discord` (REST and gateway, for discord.py)."""
