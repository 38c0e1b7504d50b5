"""Browser tests' harness: Debian's chromium driven by Playwright against the bot's board."""
