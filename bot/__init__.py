"""The bot, in layers (each imports only those below it; the map: docs/architecture.md):

- ``app``: the command line, terminal play, simulate, the runner, settings;
- ``adapters``: Telegram and Discord, translating updates to intents and
  reconciling each chat with the newest table view;
- ``web``: the live board (page, sign-in, API, websocket, the hub of viewers);
- ``present``: the table view, narration, wording, the button codec;
- ``service``: the only code that loads and saves games and tournaments;
- ``limits``: the rate limits at the entrance and each person's quotas;
- ``hosting``: the hosted game without I/O (lobby, seats, turns, timers);
- ``players``: computer players and the one game loop;
- ``store``: where games live (Redis, or an SQLite file);
- ``ops``: the figures operators read (metrics), which every layer may count.

This module is only their face: it imports none of them.
"""
