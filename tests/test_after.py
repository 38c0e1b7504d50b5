"""After the game, through the game service on real stores: the rematch, the stats
kept for good, the leaderboard, forgetting, the channel's last game."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

import engine
from bot.hosting import LOBBY, PLAYING, Game, Intent
from bot.hosting.results import entries, person_key, read_entry
from bot.hosting.tally import COMPUTERS, Tally, find_person, rated_ranking, tally
from bot.present import Text, say, table_view
from bot.present.after import month_name, stats_lines, this_month, this_week, top_lines
from bot.present.buttons import parse_press
from bot.store import Store
from tests.helpers.after import CHAN, finished_game, rematch_button, service
from tests.helpers.rating_check import expected_ratings
from tests.helpers.service import ANA, BEN, CID, DEE
from tests.helpers.stores import FakeClock, StoreFactory

# -- the rematch -----------------------------------------------------------


def test_three_presses_open_the_same_table_and_the_next_seat_starts(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    first = finished_game(svc, (ANA, BEN, CID), computers=1)
    assert first.start is not None
    game_id, version, intent = rematch_button(first)

    # Ben asks: the new table keeps every seat; Ana and Cid must say yes
    asked = svc.press(CHAN, BEN, game_id, version, intent)
    assert asked.refusal is None and asked.game is not None
    lobby = asked.game
    assert lobby.id != first.id and lobby.after == first.id and lobby.status == LOBBY
    assert [s.user for s in lobby.seats] == [s.user for s in first.seats]
    assert [s.user for s in lobby.waiting] == [ANA, CID]
    assert lobby.creator == BEN
    view = table_view(lobby, asked.happened)
    said = [say(t) for t in view.lines]
    assert said[0] == "Ben wants a rematch: same seats, same rules. Ana, Cid: press I'm in to play."
    assert said[-1] == "Waiting for Ana, Cid to press I'm in."
    assert say(view.buttons[0][0].label) == "I'm in"

    # the same Rematch button pressed by Ana says yes, as the lobby's I'm in does for Cid
    yes = svc.press(CHAN, ANA, game_id, version, intent)
    assert yes.game is not None and yes.game.id == lobby.id and yes.game.status == LOBBY
    press = parse_press(table_view(yes.game).buttons[0][0].data)
    assert press is not None and press.intent.kind == "join"
    started = svc.press(CHAN, CID, press.game_id, press.version, press.intent)
    assert started.refusal is None and started.game is not None
    game = started.game
    assert game.status == PLAYING and game.id == lobby.id
    # same people, same seats, same colours, same rules; the seat after the last first starts
    assert [(s.user, s.colour) for s in game.seats] == [(s.user, s.colour) for s in first.seats]
    assert (game.rules, game.options, game.timer) == (first.rules, first.options, first.timer)
    colours = [s.colour for s in first.seats]
    expected = colours[(colours.index(first.start["turn"]) + 1) % len(colours)]
    assert game.start is not None and game.start["turn"] == expected
    assert "rematch.ready" in [getattr(f, "key", None) for f in started.happened.facts]  # type: ignore[union-attr]


def test_a_rematch_refuses_strangers_and_needs_a_finished_game(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    nothing = svc.rematch(CHAN, ANA)
    assert nothing.refusal is not None and nothing.refusal.key == "refuse.no_last_game"
    first = finished_game(svc, (ANA, BEN))
    before = store.channel_game(CHAN)
    refused = svc.rematch(CHAN, DEE)
    assert refused.refusal is not None and refused.refusal.key == "refuse.not_in_last_game"
    assert store.channel_game(CHAN) == before  # nothing opened
    # a forged button of another channel's game
    game_id, version, intent = rematch_button(first)
    forged = svc.press("test:elsewhere", ANA, game_id, version, intent)
    assert forged.refusal is not None and forged.refusal.key == "refuse.bad_button"
    # a game running here: no rematch over it
    assert svc.open(CHAN, CID).refusal is None
    busy = svc.rematch(CHAN, ANA)
    assert busy.refusal is not None and busy.refusal.key == "refuse.game_running"


def test_a_rematch_against_computers_starts_at_once(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    finished_game(svc, (ANA,), computers=2)
    outcome = svc.rematch(CHAN, ANA)
    assert outcome.game is not None and outcome.game.status == PLAYING
    assert say(table_view(outcome.game, outcome.happened).lines[0]) == (
        "Ana starts a rematch: same seats, same rules."
    )


def test_the_host_may_start_without_those_who_did_not_answer(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    finished_game(svc, (ANA, BEN, CID))
    assert svc.rematch(CHAN, ANA).refusal is None
    # Ben, waiting, cannot start it; Ana can, without him and Cid... but two are needed
    refused = svc.act(CHAN, BEN, Intent("start"))
    assert refused.refusal is not None
    assert svc.act(CHAN, CID, Intent("join")).game is not None
    started = svc.act(CHAN, ANA, Intent("start"))
    assert started.game is not None and started.game.status == PLAYING
    assert [s.user for s in started.game.seats] == [ANA, CID]
    lines = [say(t) for t in table_view(started.game, started.happened, max_story=None).lines]
    assert "Starting without Ben, who did not answer." in lines


# -- stats -----------------------------------------------------------------


def counted(game: Game) -> Counter[tuple[str, str]]:
    """Captures made and suffered and sixes rolled per colour, from the record."""
    out: Counter[tuple[str, str]] = Counter()
    state = engine.start_of(game.record())
    for action in game.record()["actions"]:
        state, events = engine.apply(state, action)
        for e in events:
            if e.kind == "roll" and e.die == 6:
                out["six", e.colour] += 1
            if e.kind == "capture" and e.target:
                out["made", e.colour] += 1
                out["suffered", e.target[0]] += 1
    return out


def test_stats_add_up_two_games_and_rank_the_chat(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    games = [
        finished_game(svc, (ANA, BEN, CID), computers=1),
        finished_game(svc, (BEN, CID)),
    ]
    tallies = svc.records.tallies(CHAN)
    assert isinstance(tallies, dict)
    expected: dict[str, Tally] = {}
    for game in games:
        assert game.state is not None and game.state.places is not None
        counts = counted(game)
        for seat in game.seats:
            key = person_key(seat.user) if seat.user else COMPUTERS
            t = expected.setdefault(key, Tally())
            colour = seat.colour or ""
            t.games += 1
            t.wins += colour in (game.state.winner or ())
            t.places += game.state.places[colour]
            t.captures += counts["made", colour]
            t.captured += counts["suffered", colour]
            t.sixes += counts["six", colour]
            t.home += game.state.pieces[colour].count(engine.HOME)
    for key, want in expected.items():
        got = tallies[key]
        assert (got.games, got.wins, got.places) == (want.games, want.wins, want.places), key
        assert (got.captures, got.captured, got.sixes, got.home) == (
            want.captures,
            want.captured,
            want.sixes,
            want.home,
        ), key
    assert tallies[person_key(BEN)].games == 2 and tallies[person_key(ANA)].games == 1
    assert tallies[COMPUTERS].games == 1  # computers apart, never ranked
    assert sum(t.captures for t in tallies.values()) == sum(t.captured for t in tallies.values())
    order = [k for k, _ in rated_ranking(tallies, "classic")]
    assert COMPUTERS not in order and sorted(order) == sorted(
        person_key(u) for u in (ANA, BEN, CID)
    )
    best = [t.ratings["classic"].shown for _, t in rated_ranking(tallies, "classic")]
    assert best == sorted(best, reverse=True)
    # the ratings are those of an independent count (the computer seat is rated too)
    only_people = finished_game(svc, (ANA, CID), channel="test:people")
    people = svc.records.tallies("test:people")
    assert isinstance(people, dict)
    for k, (shown, played) in expected_ratings([only_people], person_key).items():
        assert (people[k].ratings["classic"].shown, people[k].rules["classic"][0]) == (
            shown,
            played,
        )

    # the texts
    ben = tallies[person_key(BEN)]
    lines = [say(t) for t in stats_lines(tallies, person_key(BEN), "Ben", "en")]
    wins = f"{ben.wins} win{'s' if ben.wins != 1 else ''}"
    assert lines[0].startswith(f"Ben here: 2 games, {wins} (")
    rating = ben.ratings["classic"]
    sure = {"settling": "still settling in", "fair": "taking shape", "settled": "settled"}
    assert lines[2] == (
        f"classic: rating {rating.shown:,}, {sure[rating.certainty]}; 2 games, {wins}."
    )
    top = [say(t) for t in top_lines(tallies, None, "en")]
    assert top[0] == "Best players here, all time, by classic rating:"
    _, first_tally = rated_ranking(tallies, "classic")[0]
    assert top[1] == (
        f"1. {first_tally.name}: {first_tally.ratings['classic'].shown:,} "
        f"({say(Text('stats.games', {'count': first_tally.games}))}, "
        f"{say(Text('stats.wins', {'count': first_tally.wins}))})"
    )
    assert top[-1].startswith("Computer players: 1 game, ")
    assert say(stats_lines(tallies, person_key(DEE), "Dee", "en")[0]) == (
        "Dee has not finished a game here yet."
    )
    # numbers and months are written the reader's way
    pt = say(top_lines(tallies, dt.date(2026, 11, 1), "pt_BR")[0], lang="pt_BR")
    assert "novembro de 2026" in pt
    assert month_name(dt.date(2026, 11, 1), "it") == "novembre 2026"


def test_the_month_and_the_chat_bound_what_counts(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    finished_game(svc, (ANA, BEN))
    clock.advance(40 * 24 * 3600)  # next month
    finished_game(svc, (ANA, CID))
    finished_game(svc, (BEN, CID), channel="test:other")
    month, since = this_month(clock())
    assert since <= clock() and month.day == 1
    recent = svc.records.tallies(CHAN, since)
    assert isinstance(recent, dict)
    assert set(recent) == {person_key(ANA), person_key(CID)}
    everything = svc.records.tallies(CHAN)
    assert isinstance(everything, dict) and everything[person_key(ANA)].games == 2
    assert everything[person_key(BEN)].games == 1  # the other chat's game is not here


def test_a_week_starts_on_monday_and_each_period_is_rated_afresh(
    store: Store, clock: FakeClock
) -> None:
    monday = dt.datetime(2026, 11, 23, tzinfo=dt.UTC).timestamp()
    assert this_week(monday + 6 * 86400 + 3600) == monday == this_week(monday)
    assert this_week(monday - 1) == monday - 7 * 86400
    svc = service(store, clock)
    clock.advance(monday - 3600 - clock())  # Sunday night
    finished_game(svc, (ANA, BEN))
    clock.advance(7200)  # Monday
    last = finished_game(svc, (ANA, BEN))
    week = svc.records.tallies(CHAN, this_week(clock()))
    assert isinstance(week, dict) and week[person_key(ANA)].games == 1
    # the week's ratings come from its games alone: one game, as if the first
    expected = expected_ratings([last], person_key)
    for who in (ANA, BEN):
        assert week[person_key(who)].ratings["classic"].shown == expected[person_key(who)][0]
    lines = [say(t) for t in top_lines(week, None, "en", week=True)]
    assert lines[0] == "Best players here this week, by classic rating:" and len(lines) == 3
    empty = [say(t, lang="pt_BR") for t in top_lines({}, None, "pt_BR", week=True)]
    assert empty == ["Nenhuma partida terminou aqui nesta semana ainda."]


def test_stats_outlive_the_games_and_a_restart(make_store: StoreFactory, clock: FakeClock) -> None:
    store = make_store(ttl=600)
    svc = service(store, clock)
    game = finished_game(svc, (ANA, BEN))
    clock.advance(601)
    assert store.load(game.id) is None, "the game itself expired"
    again = make_store(ttl=600)  # a restart: a new process on the same data
    svc2 = service(again, clock)
    tallies = svc2.records.tallies(CHAN)
    assert isinstance(tallies, dict) and tallies[person_key(ANA)].games == 1
    last = svc2.records.last_game(CHAN)
    assert isinstance(last, Game) and last.id == game.id and last.record() == game.record()
    # the rematch of an expired game still works from what was kept
    outcome = svc2.rematch(CHAN, BEN)
    assert outcome.refusal is None and outcome.game is not None
    assert outcome.game.after == game.id


def test_forget_deletes_ones_own_stats_everywhere(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    finished_game(svc, (ANA, BEN))
    finished_game(svc, (ANA, CID), channel="test:other")
    assert svc.records.forget(ANA) == 2
    assert svc.records.forget(ANA) == 0
    for chat in (CHAN, "test:other"):
        tallies = svc.records.tallies(chat)
        assert isinstance(tallies, dict) and person_key(ANA) not in tallies and len(tallies) == 1


def test_entries_of_a_game_and_finding_people() -> None:
    game = Game("abcd1234", CHAN, "classic", {}, ANA, 0)
    assert entries(game, 1.0) == {}  # not played: nothing counts
    assert read_entry(b"not json") is None and read_entry(b'{"n": 1}') is None
    t = tally([("test:1", b"garbage")])
    assert t == {}
    people = {"a": Tally(name="Ana Souza"), "b": Tally(name="Ânia"), "c": Tally(name="Ben")}
    assert find_person(people, "ana souza") == "a"
    assert find_person(people, "@BEN") == "c"
    assert find_person(people, "ania") == "b"
    assert find_person(people, "An") is None  # two people start so
    assert find_person(people, "Zed") is None


@pytest.mark.parametrize("lang", ["en", "pt_BR", "es", "it"])
def test_an_empty_chat_is_said_plainly(lang: str) -> None:
    (line,) = top_lines({}, None, lang)
    (month,) = top_lines({}, dt.date(2026, 1, 1), lang)
    assert line.key == "top.none" and month.key == "top.none_month"
    said = say(month, lang=lang)
    assert month_name(dt.date(2026, 1, 1), lang) in said and "{" not in said
    if lang != "en":
        assert say(line, lang=lang) != say(line)
