"""Each person's corner beside the games, in both stores: settings, cards with their
own compare-and-set, the games a person sits in, a chat's watchers, forgetting."""

from __future__ import annotations

import threading

from bot.store import Store, corners_of
from bot.store.corners import SEATS, WATCHERS, MemoryCorners


def test_a_persons_settings_are_kept_and_forgotten(store: Store) -> None:
    corners = corners_of(store)
    assert corners.person("tg:1") is None
    corners.set_person("tg:1", b'{"cards":true}')
    corners.set_person("tg:1", b'{"cards":false}')
    assert corners_of(store).person("tg:1") == b'{"cards":false}'  # another worker reads it
    corners.sit("tg:1", "g1")
    corners.watch("tg:-5", "tg:1", True)
    corners.forget("tg:1", ["tg:-5"])
    assert corners.person("tg:1") is None
    assert corners.seats("tg:1") == []
    assert corners.watchers("tg:-5") == []


def test_a_card_is_written_by_one_worker_only(store: Store) -> None:
    corners = corners_of(store)
    assert corners.card("g1", "tg:1") is None
    assert corners.save_card("g1", "tg:1", b"first", 0)
    assert not corners.save_card("g1", "tg:1", b"late", 0)  # another worker came first
    found = corners.card("g1", "tg:1")
    assert found is not None and (found.data, found.rev) == (b"first", 1)
    assert corners.save_card("g1", "tg:1", b"second", 1)
    assert corners.card("g1", "tg:2") is None  # each person's card is their own
    wins = []

    def race() -> None:
        wins.append(corners_of(store).save_card("g2", "tg:1", b"x", 0))

    threads = [threading.Thread(target=race) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1


def test_the_games_a_person_sits_in_are_a_bounded_list_newest_last(store: Store) -> None:
    corners = corners_of(store)
    for i in range(SEATS + 3):
        corners.sit("tg:1", f"g{i}")
    corners.sit("tg:1", "g5")  # sat again: newest
    seats = corners.seats("tg:1")
    assert len(seats) == SEATS and seats[-1] == "g5" and "g0" not in seats
    corners.unsit("tg:1", ["g5", "g10"])
    assert "g5" not in corners.seats("tg:1") and "g10" not in corners.seats("tg:1")


def test_a_chat_has_a_bounded_list_of_watchers(store: Store) -> None:
    corners = corners_of(store)
    for i in range(WATCHERS):
        assert corners.watch("dc:9", f"dc:{i}", True)
    assert not corners.watch("dc:9", "dc:late", True)
    assert corners.watch("dc:9", "dc:3", True)  # already there: still fine
    assert len(corners.watchers("dc:9")) == WATCHERS
    assert corners.watch("dc:9", "dc:3", False)
    assert "dc:3" not in corners.watchers("dc:9")


def test_card_notes_age_out_in_memory() -> None:
    now = [1000.0]
    corners = MemoryCorners(clock=lambda: now[0])
    assert corners.save_card("g1", "tg:1", b"x", 0)
    now[0] += 31 * 24 * 3600
    assert corners.card("g1", "tg:1") is None
    assert corners.save_card("g1", "tg:1", b"y", 0)
