"""What the tests share besides their fixtures (which are in :mod:`tests.plugin`):
drivers of the bot on each platform, players of the game service, checks computed
independently of the bot, and the local Redis servers and machine the tests run on."""
