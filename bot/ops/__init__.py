"""What the bot tells its operators: the figures every layer records
(:mod:`.metrics`, served at ``/metrics`` by :mod:`bot.app.health`).  It imports
nothing of the bot, so every layer, the store included, may record here."""
