"""The chat platforms: each translates updates into intents and reconciles its chats
with the newest table view (:mod:`bot.adapters.reconcile`)."""
