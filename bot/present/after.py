"""After the game, in words: a person's stats, the chat's leaderboard, forgetting,
the captions of the replay and the record.

Numbers, percentages and the month are written the reader's way (Babel, from
CLDR: ``42%`` or ``42 %``, ``1.8`` or ``1,8``, "novembro de 2026"), so these take the language.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.dates import format_skeleton
from babel.numbers import format_decimal, format_percent

from ..hosting import Game
from ..hosting.tally import COMPUTERS, Tally, ranking
from .catalog import SOURCE
from .narrate import seating
from .text import Text

#: the leaderboard shows this many people
TOP = 10


def _locale(lang: str | None) -> Locale:
    try:
        return Locale.parse(lang or SOURCE)
    except (ValueError, UnknownLocaleError):
        return Locale.parse(SOURCE)


def _counts(t: Tally, lang: str | None) -> dict[str, Any]:
    loc = _locale(lang)
    return {
        "games": Text("stats.games", {"count": t.games}),
        "wins": Text("stats.wins", {"count": t.wins}),
        "rate": format_percent(t.win_rate, locale=loc),
        "place": format_decimal(round(t.average_place, 1), format="0.#", locale=loc),
    }


def stats_lines(tallies: dict[str, Tally], who: str, name: str, lang: str | None) -> list[Text]:
    """The stats of person ``who`` (called ``name``) in a chat: games, wins, win rate,
    average place, captures made and suffered, sixes, pieces home, and per rule set."""
    t = tallies.get(who)
    if t is None or not t.games:
        return [Text("stats.none", {"who": name})]
    counts = _counts(t, lang)
    lines = [
        Text("stats.person", {"who": t.name or name, **counts}),
        Text(
            "stats.play",
            {"made": t.captures, "suffered": t.captured, "sixes": t.sixes, "home": t.home},
        ),
    ]
    for rules, (games, wins) in sorted(t.rules.items(), key=lambda kv: (-kv[1][0], kv[0])):
        lines.append(
            Text(
                "stats.rules",
                {
                    "rules": rules,
                    "games": Text("stats.games", {"count": games}),
                    "wins": Text("stats.wins", {"count": wins}),
                },
            )
        )
    return lines


def month_name(month: dt.date, lang: str | None) -> str:
    """ "November 2026", "novembro de 2026": a month and its year, the reader's way."""
    return format_skeleton("yMMMM", month, locale=_locale(lang))


def top_lines(tallies: dict[str, Tally], month: dt.date | None, lang: str | None) -> list[Text]:
    """The leaderboard of a chat (all time, or of ``month``): the best :data:`TOP`
    people, then the computers' line."""
    when = {"month": month_name(month, lang)} if month is not None else {}
    people = ranking(tallies)
    if not people:
        return [Text("top.none_month" if month else "top.none", when)]
    lines = [Text("top.month" if month else "top.all", when)]
    for place, (_, t) in enumerate(people[:TOP], start=1):
        counts = _counts(t, lang)
        lines.append(
            Text(
                "top.line",
                {
                    "place": place,
                    "who": t.name,
                    "wins": counts["wins"],
                    "games": counts["games"],
                    "rate": counts["rate"],
                    "average": counts["place"],
                },
            )
        )
    computers = tallies.get(COMPUTERS)
    if computers is not None and computers.games:
        counts = _counts(computers, lang)
        lines.append(
            Text(
                "stats.computers",
                {"games": counts["games"], "wins": counts["wins"], "rate": counts["rate"]},
            )
        )
    return lines


def forget_text(count: int) -> Text:
    return Text("forget.done", {"count": count}) if count else Text("forget.none")


def replay_caption(game: Game) -> Text:
    return Text("replay.caption", {"rules": game.rules, "players": seating(game)})


def record_caption(game: Game) -> Text:
    return Text("record.caption", {"rules": game.rules})


def this_month(now: float) -> tuple[dt.date, float]:
    """The calendar month of ``now`` (UTC): its first day, and that day's Unix time."""
    day = dt.datetime.fromtimestamp(now, dt.UTC).date().replace(day=1)
    start = dt.datetime(day.year, day.month, 1, tzinfo=dt.UTC).timestamp()
    return day, start
