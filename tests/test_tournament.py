"""Tournaments without I/O: seating (pairing), the steps, the standings, the stored form."""

from __future__ import annotations

from itertools import combinations

import pytest

from bot.hosting import Happened, Refusal, User
from bot.hosting import tournament as tour
from bot.hosting.pairing import met_pairs, snake, swiss, table_sizes
from bot.hosting.tour_codec import dump, load
from bot.hosting.tournament import Tournament


def people(n: int) -> list[User]:
    return [User("telegram", str(k), f"P{k}") for k in range(n)]


def opened(n: int, fmt: str = tour.SWISS, rounds: int = 3, size: int = 8) -> Tournament:
    users = people(n)
    t = tour.open_tournament(
        "0000abcd", "telegram:-1", users[0], "classic", None,
        fmt=fmt, size=size, rounds=rounds, timer=60, now=1e9, rating=1000,
    )  # fmt: skip
    for k, u in enumerate(users[1:], 1):
        tour.sign_up(t, u, 1000 + 10 * k, Happened())
    return t


def play_round(t: Tournament, order: str = "seat") -> None:
    """Every table of the round finishes: seats in order (or reversed)."""
    for k, table in enumerate(list(t.current())):
        table.game = f"g{t.round}-{k}"
        players = table.players if order == "seat" else table.players[::-1]
        tour.record(t, table.game, {p: i + 1 for i, p in enumerate(players)}, Happened())


def test_table_sizes_are_fours_then_as_even_as_can_be() -> None:
    assert table_sizes(8) == [4, 4]
    assert table_sizes(12) == [4, 4, 4]
    assert table_sizes(10) == [4, 3, 3]
    assert table_sizes(9) == [3, 3, 3]
    assert table_sizes(5) == [3, 2]
    assert all(sum(table_sizes(n)) == n and max(table_sizes(n)) <= 4 for n in range(2, 40))
    with pytest.raises(ValueError):
        table_sizes(1)


def test_snake_shares_the_strong_out() -> None:
    rating = {f"p{k}": 2000 - k for k in range(12)}
    tables = snake(list(rating), rating)
    assert [t[0] for t in tables] == ["p0", "p1", "p2"]  # the three best at three tables
    assert tables[2][:2] == ["p2", "p3"]  # the turn deals the last table twice
    assert sorted(p for t in tables for p in t) == sorted(rating)


def test_swiss_avoids_every_repeat_it_can() -> None:
    players = [f"p{k}" for k in range(16)]
    rating = dict.fromkeys(players, 1000)
    first = [players[k : k + 4] for k in range(0, 16, 4)]
    second = swiss(players, dict.fromkeys(players, 0.0), rating, met_pairs(first))
    assert (
        sum(met_pairs(first)[pair] for t in second for pair in map(frozenset, combinations(t, 2)))
        == 0
    )


def test_swiss_puts_similar_scores_together() -> None:
    players = [f"p{k}" for k in range(8)]
    points = {p: 3.0 if k < 4 else 0.0 for k, p in enumerate(players)}
    tables = swiss(players, points, dict.fromkeys(players, 1000), met_pairs([]))
    assert sorted(map(sorted, tables)) == [players[:4], players[4:]]


def test_sign_up_fills_and_starts_by_itself() -> None:
    t = opened(8)
    assert t.status == tour.RUNNING and t.round == 1
    assert [len(x.players) for x in t.current()] == [4, 4]
    happened = Happened()
    with pytest.raises(Refusal) as refused:
        tour.sign_up(t, User("telegram", "99", "Late"), 1000, happened)
    assert refused.value.key == "refuse.tour_signup_closed"


def test_refusals_of_the_sign_up() -> None:
    t = opened(3, size=8)
    host, p1 = people(2)
    with pytest.raises(Refusal, match=r"refuse\.tour_signed_up"):
        tour.sign_up(t, p1, 1000, Happened())
    with pytest.raises(Refusal, match=r"refuse\.tour_host_stays"):
        tour.withdraw(t, host, Happened())
    with pytest.raises(Refusal, match=r"refuse\.tour_only_host"):
        tour.start(t, p1, False, Happened())
    with pytest.raises(Refusal, match=r"refuse\.tour_need"):
        tour.start(t, host, False, Happened())
    tour.withdraw(t, p1, Happened())
    assert [e.user.name for e in t.entrants] == ["P0", "P2"]
    with pytest.raises(Refusal, match=r"refuse\.tour_not_signed_up"):
        tour.withdraw(t, p1, Happened())
    shared = User("telegram", "5", "Channel", shared=True)
    with pytest.raises(Refusal, match=r"refuse\.as_yourself"):
        tour.sign_up(t, shared, 1000, Happened())


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"size": 3}, "refuse.tour_size"),
        ({"size": 33}, "refuse.tour_size"),
        ({"rounds": 0}, "refuse.tour_rounds"),
        ({"timer": 0}, "refuse.tour_timer"),
        ({"fmt": "league"}, "refuse.tour_format"),
        ({"rules": "checkers"}, "refuse.bad_rules"),
        ({"opts": {"pieces_to_win": 9}, "rules": "italian"}, "refuse.bad_rules"),
    ],
)
def test_a_tournament_set_up_wrong_is_refused(change: dict[str, object], key: str) -> None:
    asked: dict[str, object] = {
        "rules": "classic", "opts": None, "fmt": tour.SWISS, "size": 8, "rounds": 3, "timer": 60,
    }  # fmt: skip
    asked.update(change)
    with pytest.raises(Refusal) as refused:
        tour.open_tournament(
            "0000abcd", "c", people(1)[0], str(asked["rules"]), asked["opts"],  # type: ignore[arg-type]
            fmt=str(asked["fmt"]), size=int(asked["size"]), rounds=int(asked["rounds"]),  # type: ignore[call-overload]
            timer=int(asked["timer"]), now=0.0, rating=1000,  # type: ignore[call-overload]
        )  # fmt: skip
    assert refused.value.key == key


def test_swiss_plays_its_rounds_and_ranks_by_points_then_opponents() -> None:
    t = opened(8)
    for r in range(3):
        assert t.status == tour.RUNNING and t.round == r + 1
        play_round(t)
    assert t.status == tour.DONE
    rows = tour.standings(t)
    pts = tour.points(t)
    assert [s.points for s in rows] == sorted(pts.values(), reverse=True)
    assert sum(pts.values()) == pytest.approx(3 * 2 * (3 + 2 + 1))  # 3 rounds, 2 tables
    assert rows[0].place == 1 and len(t.tables) == 6


def test_a_table_told_twice_counts_once() -> None:
    t = opened(8)
    table = t.current()[0]
    table.game = "g1"
    places = {p: k + 1 for k, p in enumerate(table.players)}
    assert tour.record(t, "g1", places, Happened())
    assert not tour.record(t, "g1", places, Happened())
    assert not tour.record(t, "unknown", places, Happened())


def test_knockout_of_twelve_goes_through_to_a_final_table() -> None:
    t = opened(12, fmt=tour.KNOCKOUT, size=12)
    sizes = []
    while t.status == tour.RUNNING:
        sizes.append([len(x.players) for x in t.current()])
        before = {x.number: x.players for x in t.current()}
        play_round(t, "reversed")
        if t.status == tour.RUNNING:  # the first two of each table (reversed) went on
            went = {p for players in before.values() for p in players[::-1][:2]}
            assert {p for x in t.current() for p in x.players} == went
    assert sizes == [[4, 4, 4], [3, 3], [4]]
    final = t.tables[-1].players[::-1]
    assert [s.key for s in tour.standings(t)[:4]] == final
    assert [s.place for s in tour.standings(t)[:4]] == [1, 2, 3, 4]


def test_stored_and_read_back_alike() -> None:
    t = opened(8)
    play_round(t)
    again = load(dump(t), 5)
    assert dump(again) == dump(t) and again.rev == 5
    assert tour.standings(again) == tour.standings(t)


@pytest.mark.parametrize(
    "damage",
    [
        b"not json",
        b"[]",
        b'{"T": 2}',
        b'{"T": 1}',
    ],
)
def test_a_damaged_record_is_refused_as_such(damage: bytes) -> None:
    with pytest.raises(ValueError, match="unreadable tournament"):
        load(damage)


def test_a_record_naming_a_stranger_at_a_table_is_refused() -> None:
    t = opened(8)
    data = dump(t).replace(b'"telegram:0"]', b'"telegram:77"]')
    with pytest.raises(ValueError, match="unreadable tournament"):
        load(data)


def test_ending_stops_it_without_a_winner() -> None:
    t = opened(8)
    host, p1 = people(2)
    with pytest.raises(Refusal, match=r"refuse\.tour_only_host"):
        tour.end(t, p1, False, Happened())
    happened = Happened()
    tour.end(t, p1, True, happened)  # a moderator may
    assert t.status == tour.ENDED
    with pytest.raises(Refusal, match=r"refuse\.tour_over"):
        tour.end(t, host, False, Happened())


def test_a_team_tournament_scores_each_partner_the_teams_result() -> None:
    users = people(8)
    t = tour.open_tournament(
        "0000abcd", "telegram:-1", users[0], "italian", {"teams": True},
        fmt=tour.SWISS, size=8, rounds=2, timer=60, now=1e9, rating=1000,
    )  # fmt: skip
    for k, u in enumerate(users[1:], 1):
        tour.sign_up(t, u, 1000 + 10 * k, Happened())
    assert t.teams and t.status == tour.RUNNING
    table = t.current()[0]
    table.game = "g1"
    winners, losers = table.players[::2], table.players[1::2]
    places = {**dict.fromkeys(winners, 1), **dict.fromkeys(losers, 2)}
    tour.record(t, "g1", places, Happened())
    pts = tour.points(t)
    assert [pts[k] for k in winners] == [3.0, 3.0] and [pts[k] for k in losers] == [0.0, 0.0]


def test_the_words_of_ludo_tournament_on_telegram() -> None:
    from bot.adapters.telegram.tour_args import parse_tour_args

    asked = parse_tour_args(["knockout", "super", "size=12", "timer=60", "lang=it"])
    assert (asked.fmt, asked.size, asked.rounds, asked.timer) == (tour.KNOCKOUT, 12, 3, 60)
    assert asked.rest == ["super", "lang=it"] and asked.error is None
    assert parse_tour_args(["Svizzero"]).fmt == tour.SWISS
    for bad in ("size=twelve", "rounds=", "timer=off", "size=1234567"):
        told = parse_tour_args([bad]).error
        assert told is not None and told.key == "refuse.tour_number", bad
        assert told.params["name"] == bad.partition("=")[0]
