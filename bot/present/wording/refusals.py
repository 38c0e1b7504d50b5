"""The English wording of refusals: why a request, a move or a game's set-up is refused."""

from __future__ import annotations

REFUSALS: dict[str, str] = {
    "refuse.bad_timer": "The turn timer is off (0) or from {low} to {high}, written like 45s, "
    "90m, 12h or 3d.",
    "refuse.game_running": "A game is already running here. Its creator can end it first.",
    "refuse.no_game": "There is no game here. Start one first.",
    "refuse.damaged": "This game's saved data cannot be read. Start a new game.",
    "refuse.already_seated": "You are already in this game.",
    "refuse.full": "The game is full.",
    "refuse.not_seated": "You are not playing in this game.",
    "refuse.no_computer": "There is no computer player to remove.",
    "refuse.only_host_starts": "Only {host} can start before every seat is taken.",
    "refuse.need_players": "At least {need} players are needed: invite someone or add a "
    "computer player.",
    "refuse.not_started": "The game has not started yet.",
    "refuse.already_started": "The game has already started.",
    "refuse.game_over": "This game is over.",
    "refuse.not_your_turn": "It is not your turn: {who} is playing.",
    "refuse.move_first": "You rolled {die}: move a piece first.",
    "refuse.bonus_first": "Make your bonus move first.",
    "refuse.roll_first": "Roll the die first.",
    "refuse.no_such_piece": "There is no piece {piece}.",
    "refuse.outdated": "This button is outdated: use the buttons of the latest board.",
    "refuse.bad_button": "That button does not belong to a game here.",
    "refuse.only_creator_ends": "Only {host} or a moderator can end the game.",
    "refuse.busy": "The game is busy; please try again.",
    "refuse.store_down": "The games cannot be reached right now. Try again in a moment.",
    "refuse.store_unsure": (
        "The games stopped answering while your move was being saved. "
        "The board will show whether it was made."
    ),
    "refuse.bad_theme": "I do not know that theme. Choose one of {choices}.",
    "refuse.bad_language": "I do not speak that language. Choose one of {languages}.",
    "refuse.only_creator_language": "Only {host} or a moderator can change the game's language.",
    "refuse.only_host_computers": "Only {host} or a moderator can add or remove computer players.",
    "refuse.only_host_level": "Only {host} or a moderator can change the computer level.",
    "refuse.bad_level": "There is no such computer level. Choose {levels}.",
    "refuse.as_yourself": "Post as yourself to play, not as a channel or an anonymous admin.",
    # a move the rules do not allow (the engine's reason codes)
    "illegal.no_such_piece": "There is no piece {piece}: your pieces are 1 to {count}.",
    "illegal.home": "Piece {piece} is home already.",
    "illegal.in_base": "Piece {piece} is in the base: it needs a {need} to come out.",
    "illegal.in_base.bonus": "A bonus move cannot bring a piece out of the base.",
    "illegal.follow_up": "Piece {follow} has just come out and moves with this roll.",
    "illegal.must_enter": "A {die} must bring a piece out of the base.",
    "illegal.must_open_barrier": "A 6 must open one of your barriers.",
    "illegal.constrained": "The rules require another move.",
    "illegal.overshoot": "Piece {piece} cannot move {die}: it would go past home.",
    "illegal.blocked": "Piece {piece} cannot move {die}: a tower or a barrier blocks the way.",
    "illegal.full": "Piece {piece} cannot move {die}: the square it would land on is full.",
    "illegal.no_barrier_on_start": "Piece {piece} cannot move {die}: "
    "a barrier cannot form on a start square.",
    "illegal.foreign_start": "Piece {piece} cannot move {die}: "
    "that start square takes a second piece only of its own colour.",
    "illegal.own_on_start": "Piece {piece} cannot come out: "
    "a piece of yours already stands on your start square.",
    "illegal.start_full": "Piece {piece} cannot come out: your start square is full.",
    "illegal.tower_on_start": "Piece {piece} cannot come out: a tower stands on your start square.",
    "illegal.other": "Piece {piece} cannot move now.",
    # a game set up wrong (the engine's reason codes; option names are as typed)
    "rules_error.unknown_rules": "There are no {name} rules: choose {choices}.",
    "rules_error.not_mapping": "The options must be names with values.",
    "rules_error.unknown_option": "There is no option {option}: the options are {choices}.",
    "rules_error.not_bool": "The option {option} is on or off, not {value}.",
    "rules_error.not_in_range": "The option {option} takes a whole number "
    "from {low} to {high}, not {value}.",
    "rules_error.not_choice": "The option {option} takes {choices}, not {value}.",
    "rules_error.bad_exit_rolls": "The option exit_rolls takes die values from 1 to 6, "
    "not {value}.",
    "rules_error.bad_pieces": "The option pieces takes 4, 5 or 6 pieces each, not {value}.",
    "rules_error.bad_colour": "The option pieces names a colour that does not play, {value}: "
    "the colours are {choices}.",
    "rules_error.min_over_max": "The least number of players cannot be more than the most.",
    "rules_error.teams_free": "Teams play only with the classic or Italian rules.",
    "rules_error.teams_four": "Teams need 4 players.",
    "rules_error.four_pieces": "Towers and barriers are played with 4 pieces each.",
    "rules_error.tower_safe": "Tower Ludo has no safe squares.",
    "rules_error.open_barriers": "Opening barriers needs the barriers of Super Ludo.",
    "rules_error.bounce_barriers": "Bouncing off home cannot be played with barriers.",
    "rules_error.exit_both": "A piece that comes out cannot both move at once and be forced out.",
    "rules_error.bad_rules": "That game cannot be set up.",
}
