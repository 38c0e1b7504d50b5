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

from engine import RULE_SETS

from ..hosting import Game
from ..hosting.rating import Rating, Ratings
from ..hosting.seasons import Season
from ..hosting.tally import COMPUTERS, Tally, main_rules, rated_ranking
from .catalog import SOURCE
from .narrate import seating
from .text import Text

#: the leaderboard shows this many people
TOP = 10


def locale_of(lang: str | None) -> Locale:
    """The Babel locale of ``lang`` (English if unknown)."""
    try:
        return Locale.parse(lang or SOURCE)
    except (ValueError, UnknownLocaleError):
        return Locale.parse(SOURCE)


def _counts(t: Tally, lang: str | None) -> dict[str, Any]:
    loc = locale_of(lang)
    return {
        "games": Text("stats.games", {"count": t.games}),
        "wins": Text("stats.wins", {"count": t.wins}),
        "rate": format_percent(t.win_rate, locale=loc),
        "place": format_decimal(round(t.average_place, 1), format="0.#", locale=loc),
    }


def rating_text(rating: Rating | int, lang: str | None) -> str:
    """A shown rating the reader's way: ``1,512`` or ``1.512``."""
    shown = rating if isinstance(rating, int) else rating.shown
    return format_decimal(shown, locale=locale_of(lang))


def ratings_line(game: Game, lang: str | None) -> Text | None:
    """The standings' new ratings, best place first: "New ratings: Ana 1,512 (+23),
    Ben 987 (-12)", a loss with a true minus sign (None: none were told)."""
    state = game.state
    if not game.rated or state is None or state.places is None:
        return None
    places = state.places
    told = []
    for colour in sorted(game.rated, key=lambda c: (places.get(c, 9), c)):
        seat = game.seat_for(colour)
        person = (seat.user or seat.was) if seat is not None else None
        if person is None or person.forgotten:
            continue
        shown, change = game.rated[colour]
        rated = {"rating": rating_text(shown, lang), "change": signed(change, lang)}
        told.append(Text("standings.rating", {"who": person.name, **rated}))
    return Text("standings.ratings", {"ratings": tuple(told)}) if told else None


def signed(change: int, lang: str | None) -> str:
    """A change of rating: +23, a true minus sign before a loss (no markup reads it
    as a list), and ± for none."""
    sign = "+" if change > 0 else "\u2212" if change < 0 else "\u00b1"
    return sign + format_decimal(abs(change), locale=locale_of(lang))


def stats_lines(
    tallies: dict[str, Tally],
    who: str,
    name: str,
    lang: str | None,
    across: Ratings | None = None,
    platform: str = "",
) -> list[Text]:
    """The stats of person ``who`` (called ``name``) in a chat: games, wins, win rate,
    average place, captures made and suffered, sixes, pieces home, and per rule set;
    with ``across``, their ratings across all the chats of ``platform``."""
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
        counted = {
            "rules": rules,
            "games": Text("stats.games", {"count": games}),
            "wins": Text("stats.wins", {"count": wins}),
        }
        rating = t.ratings.get(rules)
        if rating is None:
            lines.append(Text("stats.rules", counted))
            continue
        sure = Text(f"rating.{rating.certainty}")
        rated = {"rating": rating_text(rating, lang), "certainty": sure}
        lines.append(Text("stats.rules_rated", counted | rated))
    for key, rival in (("stats.best_rival", t.best), ("stats.worst_rival", t.worst)):
        if rival is not None:
            lines.append(
                Text(key, {"who": rival.name, "ahead": rival.ahead, "together": rival.games})
            )
    if across is not None:
        mine = [(r, rules) for rules in RULE_SETS if (r := across.of(rules, who)) is not None]
        mine.sort(key=lambda pair: (-pair[0].games, pair[1]))
        told = tuple(
            Text("stats.across_rating", {"rules": rules, "rating": rating_text(r, lang)})
            for r, rules in mine
        )
        if told:
            lines.append(Text("stats.across", {"platform": platform, "ratings": told}))
    return lines


def month_name(month: dt.date, lang: str | None) -> str:
    """ "November 2026", "novembro de 2026": a month and its year, the reader's way."""
    return format_skeleton("yMMMM", month, locale=locale_of(lang))


def top_lines(
    tallies: dict[str, Tally], month: dt.date | None, lang: str | None, *, week: bool = False
) -> list[Text]:
    """The leaderboard of a chat (all time, of ``month``, or of this ``week``): the
    best :data:`TOP` people by their rating in the rule set most played here (the
    ratings of these games alone: each period starts afresh), then the computers' line."""
    period = "week" if week else "month" if month is not None else "all"
    when: dict[str, Any] = {"month": month_name(month, lang)} if month is not None else {}
    rules = main_rules(tallies)
    people = rated_ranking(tallies, rules) if rules is not None else []
    if not people:
        return [Text("top.none" if period == "all" else f"top.none_{period}", when)]
    lines = [Text(f"top.{period}", when | {"rules": rules})]
    for place, (_, t) in enumerate(people[:TOP], start=1):
        games, wins = t.rules[rules or ""]
        lines.append(
            Text(
                "top.line",
                {
                    "place": place,
                    "who": t.name,
                    "rating": rating_text(t.ratings[rules or ""], lang),
                    "games": Text("stats.games", {"count": games}),
                    "wins": Text("stats.wins", {"count": wins}),
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


#: the medals of a season's podium
MEDALS = ("\N{FIRST PLACE MEDAL}", "\N{SECOND PLACE MEDAL}", "\N{THIRD PLACE MEDAL}")


def _podium(places: list[tuple[str, int]], lang: str | None) -> tuple[str, ...]:
    return tuple(
        f"{medal} {name} ({rating_text(shown, lang)})"
        for medal, (name, shown) in zip(MEDALS, places, strict=False)
    )


def season_line(game: Game, lang: str | None) -> Text | None:
    """The season that just ended, told by the first game of the new month."""
    if game.season is None:
        return None
    month, rules, podium = game.season
    day = dt.date(int(month[:4]), int(month[5:]), 1)
    places = _podium([(name, shown) for _, name, shown in podium], lang)
    return Text("season.over", {"month": month_name(day, lang), "rules": rules, "podium": places})


def fame_lines(ended: list[Season], lang: str | None) -> list[Text]:
    """The hall of fame: each ended month's podium, the latest first."""
    if not ended:
        return [Text("fame.none")]
    lines = [Text("fame.title")]
    for season in ended:
        podium = _podium([(name, shown) for _, name, shown in season.podium], lang)
        lines.append(
            Text(
                "fame.line",
                {"month": month_name(season.month, lang), "rules": season.rules, "podium": podium},
            )
        )
    return lines


def forget_text(count: int) -> Text:
    return Text("forget.done", {"count": count}) if count else Text("forget.none")


def replay_caption(game: Game) -> Text:
    return Text("replay.caption", {"rules": game.rules, "players": seating(game)})


def record_caption(game: Game) -> Text:
    return Text("record.caption", {"rules": game.rules})


def this_week(now: float) -> float:
    """The Unix time this week (UTC, from Monday) began."""
    day = dt.datetime.fromtimestamp(now, dt.UTC).date()
    monday = day - dt.timedelta(days=day.weekday())
    return dt.datetime(monday.year, monday.month, monday.day, tzinfo=dt.UTC).timestamp()


def this_month(now: float) -> tuple[dt.date, float]:
    """The calendar month of ``now`` (UTC): its first day, and that day's Unix time."""
    day = dt.datetime.fromtimestamp(now, dt.UTC).date().replace(day=1)
    start = dt.datetime(day.year, day.month, 1, tzinfo=dt.UTC).timestamp()
    return day, start
