"""The seasons of a chat: each calendar month (UTC) is a season, rated afresh from
its own games; its podium is the best three people by that month's rating in the
rule set played most that month.  The hall of fame is the podiums of the seasons
that have ended.  Pure: computed from the kept entries, nothing stored."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from .rating import Played
from .results import read_entry
from .tally import main_rules, rated_ranking, tally

#: seasons shown in the hall of fame, the latest first
SEASONS = 12
#: places on a podium
PODIUM = 3


@dataclass(frozen=True)
class Season:
    #: the month's first day
    month: dt.date
    rules: str
    #: (person key, name, shown rating), best first
    podium: tuple[tuple[str, str, int], ...]


def month_of(when: float) -> dt.date:
    """The first day of the calendar month (UTC) of Unix time ``when``."""
    return dt.datetime.fromtimestamp(when, dt.UTC).date().replace(day=1)


def season_told(kept: list[tuple[str, bytes]], played: list[Played], key: str) -> Season | None:
    """The season that ended before the month of kept game ``key``, if that game is
    the first of its month in the chat (so it is told once: the first game in the
    order the ratings take, whichever worker keeps it) and the season had games.
    ``played``: ``kept`` read as games (:func:`~.rating.games`)."""
    mine = next((g for g in played if g.key == key), None)
    if mine is None:
        return None
    month = month_of(mine.finished)
    first = next(g for g in played if month_of(g.finished) == month)
    if first.key != key:
        return None
    ended = seasons(kept, mine.finished)
    previous = (month - dt.timedelta(days=1)).replace(day=1)
    return ended[0] if ended and ended[0].month == previous else None


def seasons(kept: Iterable[tuple[str, bytes]], now: float) -> list[Season]:
    """The podiums of the seasons ended before the month of ``now``, the latest first."""
    current = month_of(now)
    months: dict[dt.date, list[tuple[str, bytes]]] = {}
    for who, data in kept:
        entry = read_entry(data)
        if entry is None:
            continue
        month = month_of(entry.finished)
        if month < current:
            months.setdefault(month, []).append((who, data))
    out = []
    for month in sorted(months, reverse=True)[:SEASONS]:
        tallies = tally(months[month])
        rules = main_rules(tallies)
        if rules is None:
            continue
        best = rated_ranking(tallies, rules)[:PODIUM]
        podium = tuple((k, t.name, t.ratings[rules].shown) for k, t in best)
        if podium:
            out.append(Season(month, rules, podium))
    return out
