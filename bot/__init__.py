"""The bot, in layers (each imports only those below it):

- ``app``: the command line, terminal play, simulate, the runner, settings;
- ``adapters``: Telegram and Discord, translating updates to intents and
  reconciling each chat with the newest table view;
- ``present``: the table view, narration, wording, the button codec;
- ``service``: the only code that loads and saves games;
- ``hosting``: the hosted game without I/O (lobby, seats, turns, timers);
- ``players``: computer players and the one game loop;
- ``store``: where games live (Redis, or an SQLite file).
"""
