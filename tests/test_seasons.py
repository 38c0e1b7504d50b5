"""Monthly seasons and the hall of fame (bot/hosting/seasons.py), on both stores."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.hosting import DamagedGame, Game
from bot.hosting.privacy import forget_in
from bot.hosting.results import person_key
from bot.hosting.seasons import month_of, seasons
from bot.present import say, table_view
from bot.present.after import fame_lines
from bot.store import Store
from tests.helpers.after import CHAN, finished_game, service
from tests.helpers.rating_check import expected_top
from tests.helpers.service import ANA, BEN, CID
from tests.helpers.stores import FakeClock


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


def test_the_first_game_of_a_month_tells_the_season_just_ended_once(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    clock.advance(at(2026, 10, 20) - clock())
    october = [finished_game(svc, (ANA, BEN, CID))]
    clock.advance(60)
    october.append(finished_game(svc, (ANA, BEN, CID)))
    assert all(g.season is None for g in october)  # no season had ended
    clock.advance(at(2026, 11, 2) - clock())
    first = finished_game(svc, (ANA, BEN))
    clock.advance(60)
    second = finished_game(svc, (ANA, BEN))
    assert second.season is None, "told once, by the month's first game"
    assert first.season is not None
    month, rules, podium = first.season
    names = {person_key(u): u.name for u in (ANA, BEN, CID)}
    want = [(k, names[k], shown) for k, shown in expected_top(october, person_key)]
    assert (month, rules, list(podium)) == ("2026-10", "classic", want)
    saved = svc.get(first.id)
    assert saved is not None and saved.season == first.season
    # under the new ratings in the standings, not on the final board above them
    view = table_view(first)
    told = [say(t) for t in view.status]
    places = ", ".join(f"{m} {n} ({s:,})" for m, (_, n, s) in zip("🥇🥈🥉", want, strict=True))
    assert told[-1] == f"The October 2026 season is over. Podium for classic: {places}."
    assert [t.key for t in view.final_board().status] == ["ev.game_over"]
    es = say(table_view(first, lang="es").status[-1], lang="es")
    assert es.startswith("La temporada de octubre de 2026 ha terminado. Podio de Ludo ")
    # kept with the game and checked when read; gone when a person on it is forgotten
    again = Game.from_bytes(first.to_bytes())
    assert again.season == first.season
    assert forget_in(again, person_key(CID)) and again.season is None
    for bad in (b'"ss":["2026-1x",', b'"ss":["2026-10","chess!",'):
        data = first.to_bytes().replace(b'"ss":["2026-10",', bad)
        with pytest.raises(DamagedGame):
            Game.from_bytes(data)
