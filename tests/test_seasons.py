"""Monthly seasons and the hall of fame (bot/hosting/seasons.py), on both stores."""

from __future__ import annotations

import datetime as dt

from bot.hosting.results import person_key
from bot.hosting.seasons import month_of, seasons
from bot.present import say
from bot.present.after import fame_lines
from bot.store import Store
from tests.conftest import FakeClock
from tests.rating_check import expected_top
from tests.service_helpers import ANA, BEN, CID
from tests.test_after import CHAN, finished_game, service


def at(year: int, month: int, day: int) -> float:
    return dt.datetime(year, month, day, 12, tzinfo=dt.UTC).timestamp()


def test_each_ended_month_has_its_podium_rated_afresh(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    played = {}
    for month, people in ((10, (ANA, BEN, CID)), (11, (BEN, CID))):
        clock.advance(at(2026, month, 10) - clock())
        games = [finished_game(svc, people)]
        clock.advance(60)
        games.append(finished_game(svc, people))
        played[month] = games
    # in November, only October has ended
    assert [s.month for s in seasons(store.entries(CHAN), at(2026, 11, 20))] == [
        dt.date(2026, 10, 1)
    ]
    ended = svc.records.seasons(CHAN, at(2026, 12, 1))
    assert isinstance(ended, list) and [s.month for s in ended] == [
        dt.date(2026, 11, 1),
        dt.date(2026, 10, 1),
    ]
    for season in ended:
        want = expected_top(played[season.month.month], person_key)[:3]
        assert [(k, shown) for k, _, shown in season.podium] == want
        assert season.rules == "classic"
    # told the reader's way, the latest season first, with medals
    lines = [say(t) for t in fame_lines(ended, "en")]
    assert lines[0] == "Hall of fame, the monthly seasons:"
    names = {person_key(u): u.name for u in (ANA, BEN, CID)}
    first = ", ".join(
        f"{medal} {names[k]} ({shown:,})"
        for medal, (k, _, shown) in zip("🥇🥈🥉", ended[0].podium, strict=False)
    )
    assert lines[1] == f"November 2026, classic: {first}"
    it = [say(t, lang="it") for t in fame_lines(ended, "it")]
    assert it[0] == "Albo d'oro, le stagioni mensili:" and it[2].startswith("ottobre 2026, ")
    assert [say(t) for t in fame_lines([], "en")] == [
        "No season has ended here yet: the first ends with this month."
    ]


def test_a_month_is_its_utc_calendar_month() -> None:
    assert month_of(at(2026, 11, 30)) == dt.date(2026, 11, 1)
    last_second = dt.datetime(2026, 11, 30, 23, 59, 59, tzinfo=dt.UTC).timestamp()
    assert month_of(last_second + 1) == dt.date(2026, 12, 1)
