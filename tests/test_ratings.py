"""Skill ratings (bot/hosting/rating.py) from kept results, and what the results keep for them."""

from __future__ import annotations

import random

import pytest

from bot.hosting import OVER, DamagedGame, Game, Intent, Refusal, Seat
from bot.hosting.privacy import forget_in, named
from bot.hosting.rating import BASE, Played, Rating, games, identity, ratings, rivals
from bot.hosting.results import Entry, person_key, read_entry
from bot.present import say, table_view
from bot.store import Store
from tests.helpers.after import CHAN, finished_game, play_out, service
from tests.helpers.rating_check import expected_ratings, signed
from tests.helpers.service import ANA, BEN, CID
from tests.helpers.stores import FakeClock


def entry(place: int, *, game: str, t: float, rules: str = "classic", **kw: object) -> bytes:
    fields: dict[str, object] = dict(
        name=str(kw.pop("name", "")),
        rules=rules,
        finished=t,
        place=place,
        won=place == 1,
        seats=int(kw.pop("seats", 4)),
        captures=0,
        captured=0,
        sixes=0,
        home=0,
        computer=bool(kw.pop("computer", False)),
        game=game,
    )
    fields.update(kw)
    return Entry(**fields).to_bytes()  # type: ignore[arg-type]


def league(results: list[list[str]], rules: str = "classic") -> list[tuple[str, bytes]]:
    """Games given as the order people finished in (first = winner)."""
    kept = []
    for g, order in enumerate(results):
        for place, who in enumerate(order, 1):
            kept.append((who, entry(place, game=f"g{g}", t=1000.0 + g, rules=rules, name=who)))
    return kept


def test_a_newcomer_shows_the_base_and_the_better_player_rises() -> None:
    assert Rating().shown == BASE
    rng = random.Random(5)
    results = []
    for _ in range(60):  # a beats b beats c beats d, with some luck
        order = ["a", "b", "c", "d"]
        if rng.random() < 0.3:
            i = rng.randrange(3)
            order[i], order[i + 1] = order[i + 1], order[i]
        results.append(order)
    r = ratings(league(results)).by_rules["classic"]
    assert [w for w, _ in sorted(r.items(), key=lambda x: -x[1].shown)] == ["a", "b", "c", "d"]
    assert r["a"].games == 60 and r["a"].shown > 1500 > r["d"].shown
    assert r["a"].certainty == "fair"  # sure of the order, less of how far apart
    even = []
    for _ in range(120):  # even players: the rating settles
        order = ["a", "b", "c", "d"]
        rng.shuffle(order)
        even.append(order)
    settled = ratings(league(even)).by_rules["classic"]
    assert {r.certainty for r in settled.values()} == {"settled"}
    assert all(1250 < r.shown < 1650 for r in settled.values())
    # one game: unsure, and its change is against the newcomer's rating
    first = ratings(league([["x", "y"]])).by_rules["classic"]
    assert first["x"].certainty == "settling" and first["x"].before is None
    assert first["x"].change == first["x"].shown - BASE and first["x"].change > 0
    assert first["y"].change < 0


def test_each_change_is_the_difference_the_latest_game_made() -> None:
    rated = ratings(league([["a", "b"], ["b", "a"], ["a", "b"]]))
    before = ratings(league([["a", "b"], ["b", "a"]]))
    a, a0 = rated.of("classic", "a"), before.of("classic", "a")
    assert a is not None and a0 is not None
    assert a.before == a0.shown and a.change == a.shown - a0.shown > 0


def test_rule_sets_are_rated_apart_and_places_can_tie() -> None:
    kept = league([["a", "b"]], rules="classic") + league([["b", "a"]], rules="tower")
    r = ratings(kept)
    classic_a, tower_a = r.of("classic", "a"), r.of("tower", "a")
    assert classic_a is not None and tower_a is not None
    assert classic_a.shown > BASE > tower_a.shown
    # a tie moves nobody's mean
    tied = [(w, entry(2, game="t", t=1.0)) for w in ("a", "b")]
    tied += [("c", entry(1, game="t", t=1.0))]
    t = ratings(tied).by_rules["classic"]
    assert abs(t["a"].mu - t["b"].mu) < 1e-9 and t["c"].mu > t["a"].mu


def test_computers_are_rated_by_level_and_a_level_seated_twice_learns_twice() -> None:
    kept = [("telegram:1", entry(1, game="g", t=1.0))]
    kept += [
        ("computer:green", entry(2, game="g", t=1.0, computer=True, level="expert")),
        ("computer:yellow", entry(3, game="g", t=1.0, computer=True, level="expert")),
        ("computer:blue", entry(4, game="g", t=1.0, computer=True, level="easy")),
    ]
    r = ratings(kept).by_rules["classic"]
    assert set(r) == {"telegram:1", "computer:expert", "computer:easy"}
    alone = ratings(
        [
            ("telegram:1", entry(1, game="g", t=1.0)),
            ("computer:green", entry(2, game="g", t=1.0, computer=True, level="expert")),
            ("computer:blue", entry(3, game="g", t=1.0, computer=True, level="easy")),
        ]
    ).by_rules["classic"]
    # two seats of evidence shrink the uncertainty more than one
    assert r["computer:expert"].sigma < alone["computer:expert"].sigma
    assert identity("computer:red", read_entry(kept[1][1])) == "computer:expert"  # type: ignore[arg-type]


def test_a_team_game_rates_partners_together() -> None:
    kept = [
        ("a", entry(1, game="g", t=1.0, team=0)),
        ("c", entry(1, game="g", t=1.0, team=0)),
        ("b", entry(3, game="g", t=1.0, team=1, won=False)),
        ("d", entry(4, game="g", t=1.0, team=1, won=False)),
    ]
    r = ratings(kept).by_rules["classic"]
    assert r["a"].mu == pytest.approx(r["c"].mu) and r["a"].mu > 25
    # the losing partners lose alike, whatever their places within the team
    assert r["b"].mu == pytest.approx(r["d"].mu) and r["b"].mu < 25


#: an entry as kept before the ratings (no game, team or level), of a computer
OLD = b'{"n":"","r":"classic","f":1,"p":1,"w":1,"s":2,"cm":0,"cs":0,"6":0,"h":0,"c":1}'


def test_old_entries_group_by_their_time_and_damaged_ones_are_skipped() -> None:
    old = [
        ("a", entry(1, game="", t=5.0)),
        ("b", entry(2, game="", t=5.0)),
        ("a", entry(2, game="", t=9.0)),
        ("c", entry(1, game="", t=9.0)),
        ("x", b"not an entry"),
        ("y", OLD.replace(b'"c":1', b'"c":0,"t":7')),  # no such team
    ]
    found = games(old)
    assert [sorted(g.seats) for g in found] == [["a", "b"], ["a", "c"]]
    assert [g.finished for g in found] == [5.0, 9.0]
    assert set(ratings(old).by_rules["classic"]) == {"a", "b", "c"}
    # an old entry reads as no team and a normal computer
    e = read_entry(OLD)
    assert e is not None and (e.game, e.team, e.level) == ("", -1, "normal")


def test_rivals_are_the_people_one_beats_most_and_least() -> None:
    results = [["me", "hard", "easy"]] * 3 + [["hard", "me", "easy"]] * 2 + [["me", "once"]]
    played = games(league(results))
    best, worst = rivals(played, "me")
    assert best is not None and (best.who, best.games, best.ahead) == ("easy", 5, 5)
    assert worst is None  # "me" finished ahead of hard 3 times in 5
    best2, worst2 = rivals(played, "hard")
    assert worst2 is not None and worst2.who == "me" and worst2.ahead == 2
    assert best2 is not None and best2.who == "easy"
    assert rivals(played, "once") == (None, None)  # met "me" once: too few
    teams: list[Played] = games(
        [
            ("p", entry(1, game="g", t=1.0, team=0)),
            ("q", entry(2, game="g", t=1.0, team=0)),
        ]
    )
    assert rivals(teams * 3, "p", least=1) == (None, None)  # a partner is no rival


def test_a_seat_left_counts_as_played_by_whoever_left(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    assert svc.open(CHAN, ANA).refusal is None
    assert svc.act(CHAN, BEN, Intent("join")).refusal is None
    assert svc.act(CHAN, CID, Intent("join")).refusal is None
    assert svc.act(CHAN, ANA, Intent("start")).refusal is None
    assert svc.act(CHAN, CID, Intent("leave")).refusal is None
    game = play_out(svc)
    assert game.status == OVER
    (seat,) = [s for s in game.seats if s.took_over]
    assert seat.user is None and seat.was == CID
    tallies = svc.records.tallies(CHAN)
    assert isinstance(tallies, dict) and tallies[person_key(CID)].games == 1
    kept = store.entries(CHAN)
    left = read_entry(dict(kept)[person_key(CID)])
    assert left is not None and not left.computer and left.name == "Cid"
    assert {e.game for _, data in kept if (e := read_entry(data))} == {game.key}
    # the seat names them until they ask to be forgotten
    assert person_key(CID) in named(game)
    again = Game.from_bytes(game.to_bytes())
    assert again.seats == game.seats
    assert forget_in(again, person_key(CID)) and person_key(CID) not in named(again)


def test_a_seat_names_its_former_person_only_when_taken_over() -> None:
    with pytest.raises(ValueError, match="former person"):
        Seat.from_dict({"u": ["test", "1", "Ana"], "x": ["test", "2", "Ben"]}, ())
    with pytest.raises(ValueError, match="former person"):
        Seat.from_dict({"c": "red", "x": ["test", "2", "Ben"]}, ("red", "green"))
    seat = Seat.from_dict({"c": "red", "o": 1, "x": ["test", "2", "Ben"]}, ("red", "green"))
    assert seat.was == BEN and Seat.from_dict(seat.to_dict(), ("red", "green")) == seat


def test_the_standings_tell_each_persons_new_rating_and_change(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    first = finished_game(svc, (ANA, BEN, CID))
    clock.advance(1)
    second = finished_game(svc, (ANA, BEN, CID))
    for played in ([first], [first, second]):
        game = played[-1]
        saved = svc.get(game.id)
        assert saved is not None and saved.rated == game.rated and saved.rev == game.rev
        before = expected_ratings(played[:-1], person_key)
        after = expected_ratings(played, person_key)
        want = {}
        for seat in game.seats:
            assert seat.user is not None and seat.colour is not None
            k = person_key(seat.user)
            want[seat.colour] = (after[k][0], after[k][0] - before.get(k, (BASE, 0))[0])
        assert game.rated == want
    # told under the winner, best place first, the reader's way
    state = second.state
    assert state is not None and state.places is not None
    view = table_view(second)
    line = say(view.status[-1])
    order = sorted(second.rated, key=lambda c: (state.places[c], c))  # type: ignore[index]
    parts = []
    for colour in order:
        seat = second.seat_for(colour)
        assert seat is not None and seat.user is not None
        shown, change = second.rated[colour]
        parts.append(f"{seat.user.name} {shown:,} ({signed(change)})")
    assert line == f"New ratings: {', '.join(parts)}."
    # the final board above the standings tells how it ended, the standings the ratings
    assert [t.key for t in view.final_board().status] == ["ev.game_over"]
    assert [t.key for t in view.standings().status] == ["ev.game_over", "standings.ratings"]
    pt = say(table_view(second, lang="pt_BR").status[-1], lang="pt_BR")
    assert pt.startswith("Novas pontuações: ")
    # kept with the game, checked when read, and gone with a forgotten person
    again = Game.from_bytes(second.to_bytes())
    assert again.rated == second.rated
    assert forget_in(again, person_key(ANA)) and len(again.rated) == 2
    with pytest.raises(DamagedGame):
        Game.from_bytes(second.to_bytes().replace(b'"rt":{', b'"rt":{"purple":[1,2],'))


def test_a_game_against_computers_rates_the_person_and_not_a_quota_dropped_one(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    game = finished_game(svc, (ANA,), computers=2)
    (colour,) = [s.colour for s in game.seats if s.user is not None]
    assert colour is not None and list(game.rated) == [colour]
    rated = ratings(store.entries(CHAN))
    assert rated.of("classic", "computer:normal") is not None
    svc.records.counted = lambda g, entries: {}  # the quota counted nothing
    clock.advance(1)
    other = finished_game(svc, (ANA, BEN))
    assert other.rated == {}


def test_a_rating_across_a_platforms_chats_counts_every_chat_in_order(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two Telegram chats and a Discord one: a person's rating across Telegram is rated
    from both Telegram chats' games, in the order they finished, and nothing else."""
    import bot.service.records as records_module
    from bot.present.after import stats_lines

    svc = service(store, clock)
    played = []
    for chat in ("tg:-1", "tg:-2", "tg:-1"):
        played.append(finished_game(svc, (ANA, BEN, CID), channel=chat))
        clock.advance(1)
    finished_game(svc, (ANA, CID), channel="dc:9")  # another platform's
    across = svc.records.across(("tg:",))
    assert not isinstance(across, Refusal)
    want = expected_ratings(played, person_key)
    for who in (ANA, BEN, CID):
        rated = across.of("classic", person_key(who))
        assert rated is not None and (rated.shown, rated.games) == want[person_key(who)]
    one = expected_ratings([played[1]], person_key)  # the second chat alone differs
    assert one[person_key(ANA)] != want[person_key(ANA)]
    # shown in the stats, under the chat's own
    tallies = svc.records.tallies("tg:-2")
    assert not isinstance(tallies, Refusal)
    lines = stats_lines(tallies, person_key(ANA), "Ana", None, across, "Telegram")
    shown = f"{want[person_key(ANA)][0]:,}"
    assert say(lines[-1]) == f"Across all Telegram chats: classic {shown}."
    # worked out at most once a minute: a game kept meanwhile waits for the next minute
    finished_game(svc, (ANA, BEN), channel="tg:-3")
    assert svc.records.across(("tg:",)) is across
    monkeypatch.setattr(records_module, "ACROSS_SECONDS", 0.0)
    later = svc.records.across(("tg:",))
    assert not isinstance(later, Refusal) and later is not across
    assert later.of("classic", person_key(ANA)).games == 4  # type: ignore[union-attr]
