"""The English wording of the Telegram bot's own texts: help, greeting, command menu.

Telegram texts are HTML (``<b>``, ``<code>``); command names stay as typed
(``/ludo``, ``timer=60``) in every language.
"""

from __future__ import annotations

TELEGRAM: dict[str, str | tuple[str, str]] = {
    "tg.help": "<b>Ludo</b>: type /ludo to open a game here (or "
    "<code>/ludo italian teams timer=60</code>; <code>timer=1d</code> gives a day per turn, for "
    "a game played over days), press <b>Join</b>, add computer players if "
    "you like (<b>Level</b> chooses how well they play), and the host presses <b>Start</b>. "
    "On your turn press <b>Roll</b>, then the "
    "button of the piece to move. /board shows the board, /rules the rules, /end ends the "
    "game, and <code>/language pt</code> changes the language of the table. After a game: "
    "<code>/ludo rematch</code> plays it again, <code>/ludo replay</code> shows it again, "
    "<code>/ludo record</code> sends its record, <code>/ludo stats</code> and "
    "<code>/ludo top</code> (or <code>/ludo top month</code>, <code>/ludo top week</code>) "
    "show who plays best here, <code>/ludo top seasons</code> the hall of fame, and "
    "<code>/ludo forget</code> deletes your stats.",
    "tg.help.corner": "<b>Your turns in private</b>: once you have started me in a private "
    "chat, a game's card comes there when it waits for you, with the buttons to play. "
    "<code>/ludo games</code> lists your games, <code>/ludo notify off</code> stops the "
    "cards (<code>on</code> brings them back), and <code>/ludo notify here</code> in a group "
    "tells you in private when a game opens there.",
    "tg.greeting": "Hi! I host games of Ludo. Add me to a group and type /ludo there, or play "
    "right here against computer players: /ludo, then <b>Add computer</b> and <b>Start</b>. "
    "When your turn comes in any game, its card comes here: /ludo games lists your games, "
    "and /ludo notify off stops the cards.",
    "tg.chooser": "Which rules?",
    "tg.chooser.teams": "{rules} in teams",
    "tg.say_piece": "Say which piece: <code>/move 2</code>",
    "tg.bad_timer": "The timer looks like 45s, 90m, 12h or 3d, or off: not {value}.",
    "tg.too_long": "That is too long for me: a command takes a few words, like "
    "<code>/ludo italian teams timer=60</code>.",
    "tg.say_language": "Say which language: <code>/language {example}</code>. I speak {languages}.",
    # inline mode: "@bot" typed in any chat lists tables to post there
    "tg.inline.open": "A table here: anyone in this chat may join",
    "tg.inline.computer": "{rules} against the computer",
    "tg.inline.computer.about": "You against a computer player ({level})",
    "tg.inline.options": "{about}. Options: {options}",
    "tg.inline.not_yet": "The table is being set up: press again in a moment.",
    "tg.inline.help": "How to play",
    # the command menu (setMyCommands), one list per language
    "tg.cmd.ludo": "Open a game: /ludo [classic|tower|italian|super] [teams] [timer=60|12h|3d]",
    "tg.cmd.join": "Join the game in this chat",
    "tg.cmd.leave": "Leave the game",
    "tg.cmd.roll": "Roll the die",
    "tg.cmd.move": "Move a piece: /move 2",
    "tg.cmd.board": "Show the board",
    "tg.cmd.rules": "Show the rules",
    "tg.cmd.end": "End the game (its creator or an admin)",
    "tg.cmd.language": "Change the language of the table: /language pt",
    "tg.cmd.help": "How to play",
}
