"""A person's corner in words: their open games (``/ludo games``), each with where its
table is and whose turn it is, and how long is left of a turn."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta

from babel.dates import format_timedelta

from ..hosting import LOBBY, Game
from ..hosting.results import person_key
from .catalog import find_language
from .narrate import name_of
from .text import Text

#: the most games ``/ludo games`` lists (a person sits in few at once)
GAMES_SHOWN = 12


def time_left(seconds: float, lang: str) -> str:
    """``seconds`` in words, rounded as people say it ("2 hours", "3 days")."""
    locale = find_language(lang) or "en"
    return format_timedelta(timedelta(seconds=max(1.0, seconds)), locale=locale, threshold=1.1)


def game_status(game: Game, person: str, now: float, lang: str) -> Text:
    """Where ``game`` stands for ``person``: waiting to start, their turn (with the time
    left, if timed), or whom it waits for."""
    if game.status == LOBBY or game.state is None:
        return Text("games.lobby")
    seat = game.on_turn()
    if seat is not None and seat.user is not None and person_key(seat.user) == person:
        if game.deadline is not None and game.timer:
            return Text("games.your_turn_left", {"left": time_left(game.deadline - now, lang)})
        return Text("games.your_turn")
    return Text("games.waiting_for", {"who": name_of(game, game.state.turn)})


def games_lines(
    games: Sequence[Game], person: str, now: float, lang: str, where: Callable[[Game], Text]
) -> list[Text]:
    """The lines of ``/ludo games``: a title and one numbered line a game (at most
    :data:`GAMES_SHOWN`), or that there is none."""
    if not games:
        return [Text("games.none")]
    lines = [Text("games.title")]
    for n, game in enumerate(games[:GAMES_SHOWN], 1):
        status = game_status(game, person, now, lang)
        lines.append(Text("games.line", {"n": n, "place": where(game), "status": status}))
    return lines
