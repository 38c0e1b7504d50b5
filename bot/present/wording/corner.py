"""The English wording of a person's corner: the cards of their games in their private
chat with the bot, what they asked of it (``/ludo notify``), and their games."""

from __future__ import annotations

CORNER: dict[str, str | tuple[str, str]] = {
    # the first line of a card: where the game's table is
    "card.in": "At {place}",
    "card.inline": "An inline table in a private chat",
    "card.somewhere": "At a table in a group",
    "btn.mute": "Mute this game",
    "corner.muted": "No more cards of this game. /ludo notify on brings back every game's cards.",
    "corner.on": "Your turns come here now: when a game waits for you, its card comes here. "
    "/ludo notify off stops them.",
    "corner.off": "No more cards: your turns are shown only at the tables. "
    "/ludo notify on brings them back.",
    "corner.bad_word": "Say /ludo notify on, /ludo notify off or /ludo notify here.",
    "corner.here_on": "When a game opens here, I will tell you in private. "
    "/ludo notify here again stops it.",
    "corner.here_off": "You will no longer hear of the games opened here.",
    "corner.here_full": "Too many people here have asked for this already.",
    "corner.here_private": "Say /ludo notify here in a group, where the games open.",
    "corner.opened": "{host} opened a game of {rules}. {place}.",
    "corner.start_first": "Start me in a private chat first: there I keep your games.",
    "corner.sent": "I sent you the list in private.",
    "corner.store_down": "I cannot reach your settings right now. Try again in a moment.",
    # /ludo games
    "games.none": "You are not playing in any game right now.",
    "games.title": "Your games:",
    "games.line": "{n}. {place}: {status}",
    "games.your_turn": "your turn",
    "games.your_turn_left": "your turn, {left} left",
    "games.waiting_for": "waiting for {who}",
    "games.lobby": "waiting to start",
    "btn.card": "Card {n}",
}
