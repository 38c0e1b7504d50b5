"""The English wording of what comes after a game: the rematch, stats and the
leaderboard, the replay and the record."""

from __future__ import annotations

AFTER: dict[str, str | tuple[str, str]] = {
    # the rematch
    "btn.rematch": "Rematch",
    "btn.ready": "I'm in",
    "rematch.opened": "{who} wants a rematch: same seats, same rules. {players}: press "
    "I'm in to play.",
    "rematch.opened.alone": "{who} starts a rematch: same seats, same rules.",
    "rematch.ready": "{who} is in.",
    "rematch.without": "Starting without {players}, who did not answer.",
    "lobby.waiting": "Waiting for {players} to press I'm in.",
    "refuse.no_rematch": "Only a finished game can be played again.",
    "refuse.not_in_last_game": "Only the players of the last game can ask for a rematch.",
    "refuse.no_last_game": "No game has finished here yet.",
    # stats
    "stats.games": ("{count} game", "{count} games"),
    "stats.wins": ("{count} win", "{count} wins"),
    "stats.person": "{who} here: {games}, {wins} ({rate}), average place {place}.",
    "stats.play": "Captures: {made} made, {suffered} suffered. Sixes rolled: {sixes}. "
    "Pieces brought home: {home}.",
    "stats.rules": "{rules}: {games}, {wins}.",
    "standings.ratings": "New ratings: {ratings}.",
    "standings.rating": "{who} {rating} ({change})",
    "stats.rules_rated": "{rules}: rating {rating}, {certainty}; {games}, {wins}.",
    "rating.settling": "still settling in",
    "rating.fair": "taking shape",
    "rating.settled": "settled",
    "stats.best_rival": "Favourite opponent: {who}, who finished behind in {ahead} of the "
    "{together} games they met.",
    "stats.worst_rival": "Toughest rival: {who}, who finished behind in only {ahead} of the "
    "{together} games they met.",
    "stats.across": "Across all {platform} chats: {ratings}.",
    "stats.across_rating": "{rules} {rating}",
    "stats.none": "{who} has not finished a game here yet.",
    "stats.computers": "Computer players: {games}, {wins} ({rate}).",
    "refuse.unknown_person": "Nobody called {name} has finished a game here.",
    "top.all": "Best players here, all time, by {rules} rating:",
    "top.month": "Best players here in {month}, by {rules} rating:",
    "top.week": "Best players here this week, by {rules} rating:",
    "top.line": "{place}. {who}: {rating} ({games}, {wins})",
    "top.none": "No game has finished here yet.",
    "top.none_month": "No game has finished here in {month} yet.",
    "top.none_week": "No game has finished here this week yet.",
    "season.over": "The {month} season is over. Podium for {rules}: {podium}.",
    "fame.title": "Hall of fame, the monthly seasons:",
    "fame.line": "{month}, {rules}: {podium}",
    "fame.none": "No season has ended here yet: the first ends with this month.",
    "forget.done": (
        "Your stats are deleted: {count} game no longer counts.",
        "Your stats are deleted: {count} games no longer count.",
    ),
    "forget.none": "There were no stats of yours to delete.",
    # the replay and the record
    "replay.caption": "Replay: {rules} Ludo, {players}.",
    "refuse.replay_busy": "A replay is already being drawn here. It will be along shortly.",
    "record.caption": "The record of this game ({rules} Ludo). Check its dice with "
    "ludo-bot verify.",
    # the live board, opened from a table (issue 23)
    "btn.open_board": "Open the board",
    "board.unavailable": "The live board cannot be opened here right now.",
}
