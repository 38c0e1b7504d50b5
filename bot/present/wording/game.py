"""The English wording of the game: the table's captions, narration, buttons, toasts and
rules.  Every other language is a catalog made from these (see :mod:`bot.present.po`)."""

from __future__ import annotations

RULES_TEXT = {
    "classic": (
        "Classic Ludo (Megajogos). A piece leaves the base only on a 6. A 6, a capture and "
        "reaching home each give another roll; a third 6 in a row ends the turn. Land "
        "exactly on a lone opponent to send it home, except on the start and star squares, "
        "which are safe. Exact number to reach home. First with all 4 pieces home wins; the "
        "others are ranked by points (250 a piece home, else squares walked)."
    ),
    "tower": (
        "Tower Ludo. A 5 brings a piece out, and you roll again at once to move it. Land on a "
        "lone opponent to capture it; land on your own piece to build a tower that nobody can "
        "pass or land on. No safe squares and no extra rolls. Too big a number in the home "
        "column bounces back from home. First with all pieces home wins."
    ),
    "italian": (
        "Italian Ludo. The highest roll starts. A 6 brings a piece out and gives another roll. "
        "Land on a lone opponent to capture it (no extra roll); start and star squares are "
        "safe. Exact number to reach home. Options: teams (2 against 2), pieces to win (2 or "
        "3), 4 to 6 pieces each."
    ),
    "super": (
        "Super Ludo, 4 players. Everyone starts with one piece out. A 5 must bring a piece "
        "out. Two pieces of one colour make a barrier nobody passes. Black squares are "
        "shelters. A capture or reaching home earns a bonus move of 6; a 6 gives another "
        "roll, but a third 6 in a row sends your last piece back."
    ),
}

#: message id -> its English wording (a pair: singular and plural, chosen by ``count``);
#: an id with a variant (see :data:`VARIANTS`) has one entry per variant: ``ev.move.rolled``
GAME: dict[str, str | tuple[str, str]] = {
    # lobby
    "lobby.opened": "{host} opened a game of {rules} Ludo. Press Join to play; "
    "{host} presses Start.",
    "lobby.joined": "{who} joined.",
    "lobby.left": "{who} left the lobby.",
    "lobby.computer_added": "A computer player ({level}) sat down.",
    "lobby.computer_removed": "A computer player left.",
    "lobby.computer_filled": (
        "A computer player ({level}) takes the empty seat.",
        "Computer players ({level}) take the empty seats.",
    ),
    "lobby.level": "Computer level: {level}. Computers added from now on play at this level.",
    "lobby.closed_empty": "{who} left and nobody is seated: the game is closed.",
    "lobby.status": "Waiting to start {rules} Ludo: {count}/{max} seated ({players}). "
    "Timer: {timer}.",
    # game
    "game.started": "{rules} Ludo begins: {players}.",
    "game.start_rolls": "Rolling to start: {rolls}.",
    "game.status": "{rules} Ludo: {players}. Timer: {timer}.",
    "game.left": "{who} left; a computer player takes {colour}.",
    "game.ended_empty": "No players are left: the game is over.",
    "game.dice": "Dice commitment: {commitment}. The seed comes at the end, and anyone can "
    "check every roll with it (ludo-bot verify).",
    "game.dice_seed": "Dice seed: {seed}. Check the rolls with ludo-bot verify.",
    "game.damaged": "This game's saved data is damaged and it cannot go on. Start a new game.",
    "lobby.expired": (
        "Nobody started this game for {count} minute: it is closed.",
        "Nobody started this game for {count} minutes: it is closed.",
    ),
    "game.ended_by": "{who} ended the game.",
    "game.no_turn": "The game is over.",
    # turns
    "turn.roll": "{who} ({colour}): roll the die.",
    "turn.move": "{who} ({colour}) rolled {die}: choose a piece.",
    "turn.bonus": "{who} ({colour}): choose a piece for the bonus move of {steps}.",
    # events
    "ev.roll": "{who} rolled {die}.",
    "ev.enter": "{who} brought piece {piece} out.",
    "ev.enter.rolled": "{who} rolled {die} and brought piece {piece} out.",
    "ev.move": "{who} moved piece {piece} {frm} {to}.",
    "ev.move.rolled": "{who} rolled {die} and moved piece {piece} {frm} {to}.",
    "ev.move.bounce": "{who} moved piece {piece} {frm} {to} (bouncing off home).",
    "ev.move.rolled.bounce": "{who} rolled {die} and moved piece {piece} {frm} {to} "
    "(bouncing off home).",
    "ev.home": "{who} brought piece {piece} home!",
    "ev.home.rolled": "{who} rolled {die} and brought piece {piece} home!",
    "ev.capture": "{who} captured {victim}'s piece {piece}: back to base.",
    "ev.tower": "{who} built a tower.",
    "ev.barrier": "{who} formed a barrier.",
    "ev.extra": "{who} rolls again.",
    "ev.extra.six": "{who} rolls again for the 6.",
    "ev.extra.capture": "{who} rolls again for the capture.",
    "ev.extra.home": "{who} rolls again for reaching home.",
    "ev.bonus": "{who} earns a bonus move of {steps}.",
    "ev.bonus.six": "{who} earns a bonus move of {steps} for the 6.",
    "ev.bonus.capture": "{who} earns a bonus move of {steps} for the capture.",
    "ev.bonus.home": "{who} earns a bonus move of {steps} for reaching home.",
    "ev.bonus_lost": "{who} loses the bonus move: no piece can move {steps}.",
    "ev.penalty": "Third 6 in a row: {who}'s piece {piece} goes back to base.",
    "ev.pass": "{who} rolled {die}: no piece can move.",
    "ev.pass_three_sixes": "{who} rolled a third 6 in a row: the turn passes.",
    "ev.finish": "{who} has every piece home!",
    "ev.game_over": "Game over: {winners} won!",
    # what the person who acted did, said to them alone
    "you.opened": "You opened a game of {rules} Ludo.",
    "you.joined": "You joined.",
    "you.left": "You left the lobby.",
    "you.closed_empty": "You left and nobody is seated: the game is closed.",
    "you.left_game": "You left; a computer player takes {colour}.",
    "you.ended": "You ended the game.",
    "you.roll": "You rolled {die}.",
    "you.enter": "You brought piece {piece} out.",
    "you.enter.rolled": "You rolled {die} and brought piece {piece} out.",
    "you.move": "You moved piece {piece} {frm} {to}.",
    "you.move.rolled": "You rolled {die} and moved piece {piece} {frm} {to}.",
    "you.move.bounce": "You moved piece {piece} {frm} {to} (bouncing off home).",
    "you.move.rolled.bounce": "You rolled {die} and moved piece {piece} {frm} {to} "
    "(bouncing off home).",
    "you.home": "You brought piece {piece} home!",
    "you.home.rolled": "You rolled {die} and brought piece {piece} home!",
    "you.capture": "You captured {victim}'s piece {piece}.",
    "you.tower": "You built a tower.",
    "you.barrier": "You formed a barrier.",
    "you.extra": "You roll again.",
    "you.extra.six": "You roll again for the 6.",
    "you.extra.capture": "You roll again for the capture.",
    "you.extra.home": "You roll again for reaching home.",
    "you.bonus": "You earn a bonus move of {steps}.",
    "you.bonus.six": "You earn a bonus move of {steps} for the 6.",
    "you.bonus.capture": "You earn a bonus move of {steps} for the capture.",
    "you.bonus.home": "You earn a bonus move of {steps} for reaching home.",
    "you.bonus_lost": "You lose the bonus move: no piece can move {steps}.",
    "you.penalty": "Third 6 in a row: your piece {piece} goes back to base.",
    "you.pass": "You rolled {die}: no piece can move.",
    "you.pass_three_sixes": "You rolled a third 6 in a row: the turn passes.",
    "you.finish": "You have every piece home!",
    "you.won": "You won!",
    "you.moved_board": "The board is at the bottom of the channel now.",
    "you.choose": "Choose a piece.",
    "you.choose_bonus": "Choose a piece for the bonus move of {steps}.",
    "caption.more": "…",
    # timer
    "timer.expired": "{who} ran out of time: the computer plays this turn for {colour}.",
    "timer.took_over": (
        "{who} ran out of time {count} time in a row: a computer player takes {colour} over.",
        "{who} ran out of time {count} times in a row: a computer player takes {colour} over.",
    ),
    # a slow turn's reminder, three quarters into its time ({left}: "3 hours")
    "remind.turn": "{who} ({colour}), it is your turn: {left} left before the computer plays it.",
    # the turn timer in words (bot.present.timer), and lengths of time
    "timer.off": "off",
    "timer.per_turn.days": ("a day per turn", "{count} days per turn"),
    "timer.per_turn.hours": ("an hour per turn", "{count} hours per turn"),
    "timer.per_turn.minutes": ("a minute per turn", "{count} minutes per turn"),
    "timer.per_turn.seconds": ("a second per turn", "{count} seconds per turn"),
    "time.days": ("a day", "{count} days"),
    "time.hours": ("an hour", "{count} hours"),
    "time.minutes": ("a minute", "{count} minutes"),
    "time.seconds": ("a second", "{count} seconds"),
    # buttons
    "btn.join": "Join",
    "btn.leave": "Leave",
    "btn.add_computer": "Add computer",
    # the table's computer level; a press changes it to the next one
    "btn.level": "Level: {level}",
    "btn.remove_computer": "Remove computer",
    "btn.start": "Start",
    "btn.roll": "Roll",
    # a piece's button: its number, then the mark the board shows where it lands
    "btn.enter": "{piece} → {mark} out",
    "btn.enter.captures": "{piece} → {mark} out & captures",
    "btn.home": "{piece} → {mark} home",
    "btn.capture": "{piece} → {mark} captures",
    "btn.move": "{piece} → {mark}",
    # rules
    "rules.classic": RULES_TEXT["classic"],
    "rules.tower": RULES_TEXT["tower"],
    "rules.italian": RULES_TEXT["italian"],
    "rules.super": RULES_TEXT["super"],
    "rules.options": "This game's options: {options}.",
    "game.language": "This table speaks {language} from now on.",
    # who plays, and where a piece stands
    # the board in words (the image's description, /ludo board text)
    "alt.board": "A board of {rules} Ludo.",
    "alt.die": "The die shows {die}, rolled by {who}.",
    "alt.colour": "{who} ({colour}): {pieces}.",
    "alt.home": ("{count} piece home", "{count} pieces home"),
    "alt.yard": ("{count} in the yard", "{count} in the yard"),
    "alt.track": ("{count} on square {squares}", "{count} on squares {squares}"),
    "alt.column": (
        "{count} in the home column at {squares}",
        "{count} in the home column at {squares}",
    ),
    # the landing marks of the moves to choose from (see btn.move)
    "alt.marks": "The marks show where each piece would land: {marks}.",
    "alt.mark": "{mark} on {to}",
    "alt.mark_capture": "{mark} on {to} captures a {victim_colour} piece",
    "alt.mark_home": "{mark} at home",
    "alt.mark_out": "{mark} on the start square",
    "alt.mark_out_capture": "{mark} on the start square captures a {victim_colour} piece",
    "who.computer": "Computer ({colour})",
    "who.a_computer": "Computer",
    "who.a_computer_level": "Computer ({level})",
    # the computer levels, from the weakest
    "level.easy": "easy",
    "level.normal": "normal",
    "level.hard": "hard",
    "level.expert": "expert",
    "who.player": "{colour} player",
    "who.seat": "{who} ({colour})",
    "who.pair": "{who} and {other}",
    "who.rolled": "{who} {die}",
    "sq.from": "from {n}",
    "sq.to": "to {n}",
    "sq.from_column": "from square {n} of the home column",
    "sq.to_column": "to square {n} of the home column",
    "sq.column": "column {n}",
    "sq.base": "base",
    "sq.home": "home",
    "sq.track": "square {n}",
    "words.or": "{some} or {last}",
}
