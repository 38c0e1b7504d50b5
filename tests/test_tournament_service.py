"""Tournaments through the service, on both stores: sign-up, tables opened one after
another, no-shows played by the computer when the timer runs out, a restart in the middle
of a round, and the standings checked against an independent count of the kept results."""

from __future__ import annotations

from bot.hosting import LOBBY, PLAYING, Intent, User
from bot.hosting import tournament as tour
from bot.service.outcome import TourOutcome
from tests.helpers.stores import FakeClock, StoreFactory
from tests.helpers.tour_check import (
    knockout_podium,
    knockout_through,
    swiss_order,
    swiss_points,
    tables,
)
from tests.helpers.tournament import CHANNEL, people, run, run_one, services, sign_up


def test_swiss_of_eight_in_three_rounds_with_a_restart(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    users = people(8)
    svc, tours = services(make_store(), clock)
    out = sign_up(tours, users, fmt="swiss", size=8, rounds=3)
    assert out.tour is not None and out.tour.status == tour.RUNNING
    assert len(out.tables) == 1 and out.tables[0].game is not None  # the first table opened
    assert out.tables[0].game.status == LOBBY and len(out.tables[0].game.waiting) == 4
    present = {"1", "2", "3"}  # three people play; five never come
    # round 2 under way: a new process on the same store takes over
    for _ in range(5000):
        t = tours.get(CHANNEL)
        assert t is not None
        if t.round == 2 and t.playing() is not None:
            break
        run_one(svc, tours, clock, present)
    svc, tours = services(make_store(), clock, seed=8)
    news = run(svc, tours, clock, present)
    won = [n for n in news if isinstance(n, TourOutcome) and n.tour.status == tour.DONE]
    assert len(won) == 1
    final = won[0].tour
    played = tables(svc.store, CHANNEL)
    assert len(played) == 6  # 3 rounds of 2 tables
    names = {e.key: e.user.name for e in final.entrants}
    rows = tour.standings(final)
    assert {r.key: round(r.points, 6) for r in rows} == {
        k: round(v, 6) for k, v in swiss_points(played).items()
    }
    assert [r.key for r in rows] == swiss_order(played, names)
    assert len(final.tables) == 6 and all(x.done for x in final.tables)
    assert tours.get(CHANNEL) is None  # the channel is free for the next one


def test_knockout_of_twelve_to_the_final(make_store: StoreFactory, clock: FakeClock) -> None:
    users = people(12)
    svc, tours = services(make_store(), clock, seed=3)
    sign_up(tours, users, fmt="knockout", size=12)
    news = run(svc, tours, clock, {"1", "5", "9", "12"})
    final = next(n.tour for n in news if isinstance(n, TourOutcome) and n.tour.status == tour.DONE)
    played = tables(svc.store, CHANNEL)
    assert [len(t) for t in played] == [4, 4, 4, 3, 3, 4]
    assert knockout_through(played)
    rows = tour.standings(final)
    assert [r.key for r in rows[:3]] == knockout_podium(played)


def test_a_tournament_table_is_seated_by_the_tournament(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    users = people(4)
    svc, tours = services(make_store(), clock)
    sign_up(tours, users, fmt="swiss", size=4, rounds=1)
    stranger = User("telegram", "99", "Stranger")
    for who, intent, key in [
        (users[0], Intent("leave"), "refuse.tour_table_leave"),
        (users[0], Intent("end", can_manage=True), "refuse.tour_table_end"),
        (users[0], Intent("start"), "refuse.tour_table_set"),
        (users[0], Intent("add_computer"), "refuse.tour_table_set"),
        (stranger, Intent("join"), "refuse.tour_table_join"),
    ]:
        out = svc.act(CHANNEL, who, intent)
        assert out.refusal is not None and out.refusal.key == key
    assert tours.open(CHANNEL, stranger).refusal.key == "refuse.tour_running"  # type: ignore[union-attr]
    for u in users:  # everybody says yes: the table starts at once
        out = svc.act(CHANNEL, u, Intent("join"))
    assert out.game is not None and out.game.status == PLAYING


def test_buttons_of_another_version_change_nothing(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    users = people(3)
    _, tours = services(make_store(), clock)
    out = tours.open(CHANNEL, users[0], "classic", timer=30, size=8)
    t = out.tour
    assert t is not None
    tours.act(CHANNEL, users[1], "join")
    stale = tours.press(CHANNEL, users[2], t.id, t.version, "join", False)
    assert stale.refusal is not None and stale.refusal.key == "refuse.outdated"
    fresh = tours.get(CHANNEL)
    assert fresh is not None and len(fresh.entrants) == 2
    ok = tours.press(CHANNEL, users[2], fresh.id, fresh.version, "join", False)
    assert ok.refusal is None and len(ok.tour.entrants) == 3  # type: ignore[union-attr]
    ended = tours.act(CHANNEL, users[0], "end")
    assert ended.tour is not None and ended.tour.status == tour.ENDED
    assert tours.get(CHANNEL) is None
    assert tours.act(CHANNEL, users[0], "join").refusal.key == "refuse.no_tour"  # type: ignore[union-attr]


def test_tables_in_rooms_play_at_once(make_store: StoreFactory, clock: FakeClock) -> None:
    """A chat that can have rooms (threads, forum topics): the tournament waits for the
    adapter to make them, then each round's tables open at once, table k in room k."""
    users = people(8)
    svc, tours = services(make_store(), clock)
    out = tours.open(CHANNEL, users[0], "classic", timer=30, size=8, rounds=2, rooms=True)
    for u in users[1:]:
        out = tours.act(CHANNEL, u, "join")
    t = out.tour
    assert t is not None and t.status == tour.RUNNING and t.awaiting_rooms
    assert out.tables == [] and svc.game_in(CHANNEL) is None  # no table before its room
    rooms = [f"{CHANNEL}:{k}" for k in (11, 12)]
    made = tours.rooms(CHANNEL, t.id, rooms)
    assert made.refusal is None and [o.game.channel for o in made.tables if o.game] == rooms
    again = tours.rooms(CHANNEL, t.id, ["elsewhere"])  # told twice: the first rooms stay
    assert again.tour is not None and again.tour.rooms == rooms and again.tables == []
    seen_at_once = 0
    for _ in range(200):
        live = [g for g in (svc.game_in(r) for r in rooms) if g is not None]
        seen_at_once = max(seen_at_once, len(live))
        if tours.get(CHANNEL) is None:
            break
        clock.advance(31)
        svc.fire_due()
    assert seen_at_once == 2
    played = tables(svc.store, CHANNEL)  # the results count in the tournament's chat
    assert len(played) == 4
    assert all(svc.store.channel_game(r) is None for r in rooms)
    assert {k for table in played for k in table} == {f"telegram:{u.id}" for u in users}


def test_a_chat_whose_rooms_cannot_be_made_plays_one_table_after_another(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    users = people(4)
    _, tours = services(make_store(), clock)
    out = tours.open(CHANNEL, users[0], "classic", timer=30, size=4, rounds=1, rooms=True)
    for u in users[1:]:
        out = tours.act(CHANNEL, u, "join")
    assert out.tour is not None and out.tour.awaiting_rooms
    made = tours.rooms(CHANNEL, out.tour.id, [])
    assert made.tour is not None and not made.tour.rooms_wanted
    assert [o.game.channel for o in made.tables if o.game] == [CHANNEL]


def test_a_team_tournament_of_eight(make_store: StoreFactory, clock: FakeClock) -> None:
    """Italian teams, Swiss of two rounds: each table two against two, each partner
    scoring the team's result, as an independent count of the kept results says."""
    from tests.helpers.tour_check import team_points

    users = people(8)
    svc, tours = services(make_store(), clock)
    out = tours.open(CHANNEL, users[0], "italian", {"teams": True}, timer=30, size=8, rounds=2)
    assert out.refusal is None
    for u in users[1:]:
        out = tours.act(CHANNEL, u, "join")
    news = run(svc, tours, clock, {"2", "5"})
    final = next(n.tour for n in news if isinstance(n, TourOutcome) and n.tour.status == tour.DONE)
    played = tables(svc.store, CHANNEL)
    assert len(played) == 4 and all(len(t) == 4 for t in played)
    expected = team_points(svc.store, CHANNEL)
    assert {k: round(v, 6) for k, v in tour.points(final).items()} == expected
    assert sum(expected.values()) == 4 * 2 * 3  # two winners at each of the four tables


def test_ending_a_tournament_ends_every_table_of_its_round(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    users = people(8)
    svc, tours = services(make_store(), clock)
    told: list[tuple[str, str, int]] = []  # the live board's hub listens so
    svc.listeners.append(lambda game_id, channel, rev: told.append((game_id, channel, rev)))
    out = tours.open(CHANNEL, users[0], "classic", timer=30, size=8, rooms=True)
    for u in users[1:]:
        out = tours.act(CHANNEL, u, "join")
    assert out.tour is not None
    rooms = [f"{CHANNEL}:{k}" for k in (21, 22)]
    opened = tours.rooms(CHANNEL, out.tour.id, rooms).tables
    assert len(opened) == 2
    assert sorted(told) == sorted((o.game.id, o.game.channel, 1) for o in opened if o.game)
    refused = tours.act(CHANNEL, users[3], "end")
    assert refused.refusal is not None and refused.refusal.key == "refuse.tour_only_host"
    ended = tours.act(CHANNEL, users[3], "end", can_manage=True)  # a moderator may
    assert ended.tour is not None and ended.tour.status == tour.ENDED
    assert sorted(o.game.channel for o in ended.tables if o.game) == rooms
    assert all(o.game.status == "ended" for o in ended.tables if o.game)
    assert sorted(told[2:]) == sorted(
        (o.game.id, o.game.channel, 2) for o in ended.tables if o.game
    )
    assert all(svc.game_in(r) is None for r in rooms) and tours.get(CHANNEL) is None
    assert svc.store.entries(CHANNEL) == []  # nothing was played: nothing counts


def test_a_damaged_tournament_is_let_go_and_a_new_one_opens(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    from bot.service.tour_store import key_of
    from bot.store import new_game_id

    store = make_store()
    users = people(2)
    _, tours = services(store, clock)
    bad = new_game_id(key_of(CHANNEL))
    assert store.create(bad, b'{"T": 1, "id": 5}', channel=key_of(CHANNEL))
    assert tours.get(CHANNEL) is None  # unreadable: as if there were none
    told = tours.act(CHANNEL, users[1], "join")
    assert told.refusal is not None and told.refusal.key == "refuse.no_tour"
    out = tours.open(CHANNEL, users[0], "classic", timer=30)
    assert out.refusal is None and out.tour is not None and out.tour.id != bad
    assert store.load(bad) is None and tours.get(CHANNEL) is not None


def test_a_forged_game_button_naming_a_tournament_changes_nothing(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    """The tournament's id is on its buttons: a game's button forged with it (or a board
    asked for it) is refused as no game, and never lets the tournament go as a damaged
    game."""
    from bot.hosting.tour_codec import dump

    users = people(2)
    svc, tours = services(make_store(), clock)
    out = tours.open(CHANNEL, users[0], "classic", timer=30)
    t = out.tour
    assert t is not None and dump(t).startswith(b'{"T":')  # what the service tells apart
    for intent in (Intent("join"), Intent("roll"), Intent("end", can_manage=True)):
        forged = svc.press(f"tour:{CHANNEL}", users[1], t.id, 1, intent)
        assert forged.refusal is not None and forged.refusal.key == "refuse.no_game"
        assert forged.freed is None
    assert svc.get(t.id) is None and svc.game_in(f"tour:{CHANNEL}") is None
    assert svc.look(f"tour:{CHANNEL}").refusal.key == "refuse.no_game"  # type: ignore[union-attr]
    still = tours.get(CHANNEL)
    assert still is not None and still.id == t.id and still.entrants[0].user == users[0]


def test_a_sign_up_left_a_day_gives_way_to_a_new_tournament(
    make_store: StoreFactory, clock: FakeClock
) -> None:
    users = people(3)
    _, tours = services(make_store(ttl=14 * 24 * 3600.0), clock)  # kept as in production
    first = tours.open(CHANNEL, users[0], "classic", timer=30).tour
    assert first is not None
    clock.advance(3600)
    refused = tours.open(CHANNEL, users[1], "classic", timer=30)
    assert refused.refusal is not None and refused.refusal.key == "refuse.tour_running"
    clock.advance(24 * 3600)
    fresh = tours.open(CHANNEL, users[1], "tower", timer=30)
    assert fresh.refusal is None and fresh.tour is not None and fresh.tour.id != first.id
    now = tours.get(CHANNEL)
    assert now is not None and now.rules == "tower" and now.host == users[1]
    stale = tours.press(CHANNEL, users[2], first.id, first.version, "join", False)
    assert stale.refusal is not None and stale.refusal.key == "refuse.outdated"
