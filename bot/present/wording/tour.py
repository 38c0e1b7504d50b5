"""Tournaments: the sign-up, the rounds, the standings, the winner, and their refusals."""

from __future__ import annotations

TOUR: dict[str, str | tuple[str, str]] = {
    "tour.header.swiss": "🏆 Tournament of {rules} hosted by {host}: Swiss, {rounds} rounds, "
    "up to {size} players, {timer} s a turn.",
    "tour.header.knockout": "🏆 Tournament of {rules} hosted by {host}: knockout (the first two "
    "of each table go through to the final table), up to {size} players, {timer} s a turn.",
    "tour.signed_up": (
        "Signed up ({count} of {size}): {players}.",
        "Signed up ({count} of {size}): {players}.",
    ),
    "tour.signup_help": "Press Join to sign up. It starts when it is full, or when the host "
    "presses Start (at least {need} players).",
    "tg.help.tournament": "<b>Tournaments</b>: <code>/ludo tournament</code> opens one here "
    "(<code>/ludo tournament knockout size=12 timer=60</code>; Swiss rounds by default), "
    "people press <b>Join</b>, and the bot seats every round by rating and posts the "
    "standings; <code>/ludo tournament end</code> stops it.",
    "dc.help.tournament": "**Tournaments**: `/ludo {tournament}` opens one in this channel "
    "(Swiss rounds or a knockout), people press **Join**, and the bot seats every round by "
    "rating, each table in a thread of its own, and posts the standings.",
    "tour.told": "Done: the tournament's message is in the channel.",
    "tour.joined": "{who} signed up.",
    "tour.left": "{who} is no longer signed up.",
    "tour.started": (
        "The tournament starts with {count} player.",
        "The tournament starts with {count} players.",
    ),
    "tour.standings_after": "Standings after round {round} (points, then the points of "
    "the opponents met):",
    "tour.row.swiss": "{place}. {name}: {points} ({tiebreak})",
    "tour.row.knockout": "{place}. {name}: reached round {round}",
    "tour.round": "Round {round}:",
    "tour.final": "The final table:",
    "tour.table": "Table {table}: {players}",
    "tour.one_by_one": "The tables play here one after another.",
    "tour.in_rooms": "Each table plays in a thread (or topic) of its own, named after it, all "
    "at the same time.",
    "tour.room": "🏆 Tournament table {table}",
    "tour.won": "🏆 {who} wins the tournament!",
    "tour.won_shared": "🏆 {players} share first place: they win the tournament together!",
    "tour.podium": "Podium: {places}",
    "tour.podium.place": "{medal} {name}",
    "tour.final_standings": "Final standings:",
    "tour.final_standings.swiss": "Final standings (points, then the points of the opponents met):",
    "tour.ended_by": "{who} ended the tournament. It has no winner.",
    "tour.table_opened": "🏆 Tournament, round {round}, table {table}: {players}. Press "
    "I'm in. The game starts when everybody has, or in {timer} s, with the computer playing "
    "for anyone who is not there.",
    "tour.no_shows": "The computer plays for {players}, who did not come.",
    "tour.table_stopped": "The tournament ended, and this table with it.",
    "btn.tour_join": "Join",
    "btn.tour_leave": "Leave",
    "btn.tour_start": "Start",
    "refuse.tour_number": "{name} takes a whole number, such as {name}=8.",
    "refuse.tour_running": "A tournament is already running here.",
    "refuse.no_tour": "There is no tournament here. Start one with /ludo tournament.",
    "refuse.tour_format": "A tournament is swiss or knockout.",
    "refuse.tour_size": "A tournament takes {low} to {high} players.",
    "refuse.tour_rounds": "A Swiss tournament has {low} to {high} rounds.",
    "refuse.tour_timer": "A tournament needs a turn timer of {low} to {high} seconds.",
    "refuse.tour_signed_up": "You are signed up already.",
    "refuse.tour_full": "The tournament is full ({size} players).",
    "refuse.tour_not_signed_up": "You are not signed up.",
    "refuse.tour_host_stays": "The host cannot leave the sign-up; end the tournament instead.",
    "refuse.tour_only_host": "Only {host}, who hosts it, or a moderator can do that.",
    "refuse.tour_need": "A tournament needs at least {need} players; {count} have signed up.",
    "refuse.tour_signup_closed": "The sign-up is closed: the tournament is being played.",
    "refuse.tour_over": "That tournament is over.",
    "refuse.tour_table_leave": "This is a tournament table: if you do not play, the computer "
    "plays your seat when the time is up.",
    "refuse.tour_table_end": "A tournament's table ends with its tournament: the host can end "
    "it with /ludo tournament end.",
    "refuse.tour_table_join": "This table is seated by the tournament.",
    "refuse.tour_table_set": "A tournament's table is seated and started by the tournament.",
    # Discord: /ludo tournament, its options and choices (names: Discord's rules)
    "dc.name.tournament": "tournament",
    "dc.name.action": "action",
    "dc.name.format": "format",
    "dc.name.size": "size",
    "dc.name.rounds": "rounds",
    "dc.desc.tournament": "Open a tournament in this channel, or sign up, start, end or show it",
    "dc.desc.tournament.action": "What to do (default: show the one here, or open one)",
    "dc.desc.tournament.format": "Swiss rounds (default) or knockout",
    "dc.desc.tournament.size": "The most players (4 to 32, default 8)",
    "dc.desc.tournament.rounds": "Swiss only: how many rounds (1 to 6, default 3)",
    "dc.desc.tournament.timer": "Seconds per turn (10 to 3600, default 120)",
    "dc.desc.tournament.rules": "The rule set of every table (default: classic)",
    "dc.desc.tournament.teams": "Italian only: 2 against 2 at every table, partners seated by "
    "the bot",
    "dc.desc.tournament.level": "How well the computers play for those who do not come "
    "(default: normal)",
    "dc.choice.tour_open": "Open a new one",
    "dc.choice.tour_join": "Sign up",
    "dc.choice.tour_leave": "Leave the sign-up",
    "dc.choice.tour_start": "Start it",
    "dc.choice.tour_end": "End it",
    "dc.choice.tour_show": "Show it",
    "dc.choice.swiss": "Swiss",
    "dc.choice.knockout": "Knockout",
}
