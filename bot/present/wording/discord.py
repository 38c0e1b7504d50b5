"""The English wording of the Discord bot's own texts: help, slash commands and options.

Command and option *names* (``dc.name.*``) follow Discord's rules in every
language: lower case, no spaces, at most 32 letters, digits, ``-`` or ``_``.
Descriptions (``dc.desc.*``) are at most 100 characters.
"""

from __future__ import annotations

DISCORD: dict[str, str | tuple[str, str]] = {
    # {new}, {roll}... are the commands' names in the reader's language (dc.name.*)
    "dc.help": "**Ludo**: `/ludo {new}` opens a game in this channel (choose the rules, italian "
    "teams, the turn timer of up to 7 days, the language, the computer players' level). Press "
    "**Join**, add "
    "computer players if you like (**Level** chooses how well they play), "
    "and the host presses **Start**. On your turn press **Roll**, then the button of the piece "
    "to move (or `/ludo {roll}` and `/ludo {move}`). `/ludo {board}` shows the board (in "
    "words, for screen readers, with its text option), "
    "`/ludo {rules}` the rules, `/ludo {language}` changes the language of the table, "
    "`/ludo {end}` ends the game (its creator or anyone with Manage Messages). After a game: "
    "press **Rematch** (or `/ludo {rematch}`) to play the same table again, `/ludo {replay}` "
    "shows the last game again, `/ludo {record}` gives its record (check its dice with "
    "`ludo-bot verify`), `/ludo {stats}` and `/ludo {top}` show the stats and the best players "
    "of this server, and `/ludo {forget}` deletes your stats.",
    "dc.help.corner": "**Your turns in your DMs**: `/ludo {notify} on` (or **Tell me my turns** "
    "under a table) sends you a game's card when it waits for you, `/ludo {notify} off` stops "
    "it, `/ludo {notify} here` in a channel tells you in your DMs when a game opens there, and "
    "`/ludo {games}` lists your games.",
    # a person's corner: their DM with the bot, where the cards of their games come
    "btn.tell_turns": "Tell me my turns",
    "dc.corner.on": "Done: when a game waits for you, its card comes to your DMs, with the "
    "buttons to play. `/ludo {notify} off` stops it.",
    "dc.corner.off": "No more cards in your DMs: your turns are shown only at the tables. "
    "`/ludo {notify} on` brings them back.",
    "dc.corner.bad_word": "Say `/ludo {notify} on`, `/ludo {notify} off` or `/ludo {notify} here`.",
    "dc.corner.here_on": "Done: when a game opens in this channel, I will tell you in your DMs, "
    "with a button to join it. `/ludo {notify} here` again stops it.",
    "dc.corner.here_off": "You will no longer hear of the games opened in this channel. "
    "`/ludo {notify} here` brings it back.",
    "dc.corner.here_full": "Too many people have asked to hear of this channel's games already.",
    "dc.corner.here_dm": "Say `/ludo {notify} here` in a server channel where games open: I will "
    "tell you in your DMs when one opens there.",
    "dc.notify.on": "on: send my turns to my DMs",
    "dc.notify.off": "off: stop sending them",
    "dc.notify.here": "here: tell me when a game opens in this channel",
    "dc.card.somewhere": "At a table on Discord",
    "dc.card.sent": "Its card is on its way to your DMs.",
    # a table in a place reached through interactions only (an app installed to a person)
    "dc.continue": "Continue",
    "dc.waits_for_a_press": "The table waits for a press: press Continue to carry on.",
    "dc.private_only": "This server lets outside apps answer only the person who used them, "
    "so a table here would be yours alone. Ask an admin to add Ludo to the server, or play in "
    "a DM or group DM.",
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
    "dc.name.rematch": "rematch",
    "dc.name.stats": "stats",
    "dc.name.top": "top",
    "dc.name.forget": "forget",
    "dc.name.replay": "replay",
    "dc.name.record": "record",
    "dc.name.member": "member",
    "dc.name.period": "period",
    "dc.name.text": "text",
    "dc.name.theme": "theme",
    "dc.name.level": "level",
    "dc.name.notify": "notify",
    "dc.name.games": "games",
    "dc.name.turns": "turns",
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
    "dc.desc.rematch": "Play the last game of this channel again: same seats, same rules",
    "dc.desc.stats": "Show a player's stats in this server",
    "dc.desc.top": "Show the best players of this server",
    "dc.desc.forget": "Delete your stats, in every server",
    "dc.desc.replay": "Show the last game of this channel again, as an animation",
    "dc.desc.record": "Get the record of the last game of this channel (to check its dice)",
    "dc.desc.notify": "Get your turns in your DMs (on), or stop them (off)",
    "dc.desc.games": "List your games, each with a button bringing its card to your DMs",
    # descriptions of the options
    "dc.desc.new.rules": "The rule set (default: classic)",
    "dc.desc.new.teams": "Italian only: 2 against 2, partners opposite",
    "dc.desc.new.pieces_to_win": "Italian only: pieces home to win (2 or 3)",
    "dc.desc.new.timer": "Time per turn before the computer plays it: 90s, 30m, 12h, 3d (up to 7 "
    "days; 0: none)",
    "dc.desc.new.language": "The language of the table (default: yours)",
    "dc.desc.new.theme": "How the board is drawn (default: classic)",
    "dc.desc.new.level": "How well the computer players play (default: normal)",
    "dc.desc.move.piece": "The number of the piece to move, as on the board",
    "dc.desc.board.text": "Tell the board in words, to you alone (for screen readers)",
    "dc.desc.rules.rules": "A rule set (default: the one of the game here)",
    "dc.desc.language.language": "The language the table speaks from now on",
    "dc.desc.stats.member": "Whose stats (default: yours)",
    "dc.desc.top.period": "Of all time (default), this month, this week, or past seasons",
    "dc.desc.notify.turns": "on: your turns in your DMs; off: no more; here: a DM when a game "
    "opens in this channel",
    # choices of the options
    "dc.choice.all_time": "All time",
    "dc.choice.this_month": "This month",
    "dc.choice.this_week": "This week",
    "dc.choice.seasons": "Past seasons (hall of fame)",
    # the themes the board is drawn in (the new option of /ludo new)
    "dc.theme.classic": "Classic",
    "dc.theme.dark": "Dark",
    "dc.theme.colourblind": "Colour-blind friendly",
}
