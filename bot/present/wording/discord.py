"""The English wording of the Discord bot's own texts: help, slash commands and options.

Command and option *names* (``dc.name.*``) follow Discord's rules in every
language: lower case, no spaces, at most 32 letters, digits, ``-`` or ``_``.
Descriptions (``dc.desc.*``) are at most 100 characters.
"""

from __future__ import annotations

DISCORD: dict[str, str | tuple[str, str]] = {
    # {new}, {roll}... are the commands' names in the reader's language (dc.name.*)
    "dc.help": "**Ludo**: `/ludo {new}` opens a game in this channel (choose the rules, italian "
    "teams, the turn timer, the language). Press **Join**, add computer players if you like, "
    "and the host presses **Start**. On your turn press **Roll**, then the button of the piece "
    "to move (or `/ludo {roll}` and `/ludo {move}`). `/ludo {board}` shows the board, "
    "`/ludo {rules}` the rules, `/ludo {language}` changes the language of the table, "
    "`/ludo {end}` ends the game (its creator or anyone with Manage Messages).",
    # command and option names
    "dc.name.new": "new",
    "dc.name.join": "join",
    "dc.name.leave": "leave",
    "dc.name.start": "start",
    "dc.name.roll": "roll",
    "dc.name.move": "move",
    "dc.name.board": "board",
    "dc.name.rules": "rules",
    "dc.name.end": "end",
    "dc.name.help": "help",
    "dc.name.language": "language",
    "dc.name.teams": "teams",
    "dc.name.pieces_to_win": "pieces_to_win",
    "dc.name.timer": "timer",
    "dc.name.piece": "piece",
    # descriptions of the commands
    "dc.desc.ludo": "Play Ludo in this channel",
    "dc.desc.new": "Open a game of Ludo in this channel",
    "dc.desc.join": "Join the game in this channel",
    "dc.desc.leave": "Leave the game (a computer player takes your seat)",
    "dc.desc.start": "Start the game (the host; anyone once every seat is taken)",
    "dc.desc.roll": "Roll the die",
    "dc.desc.move": "Move one of your pieces",
    "dc.desc.board": "Show the board and whose turn it is",
    "dc.desc.rules": "Show the rules",
    "dc.desc.end": "End the game (its creator, or anyone with Manage Messages)",
    "dc.desc.help": "How to play",
    "dc.desc.language": "Change the language the table of this game speaks",
    # descriptions of the options
    "dc.desc.new.rules": "The rule set (default: classic)",
    "dc.desc.new.teams": "Italian only: 2 against 2, partners opposite",
    "dc.desc.new.pieces_to_win": "Italian only: pieces home to win (2 or 3)",
    "dc.desc.new.timer": "Seconds per turn before the computer plays it (0: no timer)",
    "dc.desc.new.language": "The language of the table (default: yours)",
    "dc.desc.move.piece": "The number of the piece to move, as on the board",
    "dc.desc.rules.rules": "A rule set (default: the one of the game here)",
    "dc.desc.language.language": "The language the table speaks from now on",
}
