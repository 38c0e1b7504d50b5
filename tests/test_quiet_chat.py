"""A quiet chat, below the adapters: what a press says to its presser alone, how much
a caption tells, and Telegram's group limit kept in a sliding window."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.adapters.telegram.outbox import Outboxes, Pace, Pending, Turn
from bot.hosting import Intent
from bot.present import TableView, say, table_view
from bot.present.view import MAX_STORY
from bot.service.game import GameService
from bot.store import Store
from bot.store.pace import Limits, MemoryPacer
from tests.helpers.service import ANA, BEN, Dice, person_on_turn


def toast(view: TableView) -> str:
    return " ".join(say(t) for t in view.toast)


def test_a_press_tells_the_presser_what_they_did_in_the_second_person(store: Store) -> None:
    svc = GameService(store, dice=Dice(2), clock=lambda: 1000.0)
    opened = svc.open("chan", ANA, "classic", timer=0)
    assert opened.game is not None
    assert toast(table_view(opened.game, opened.happened)) == "You opened a game of classic Ludo."
    joined = svc.act("chan", BEN, Intent("join"))
    assert joined.game is not None
    assert toast(table_view(joined.game, joined.happened)) == "You joined."
    started = svc.act("chan", ANA, Intent("start"))
    assert started.game is not None
    assert "Ludo begins" in toast(table_view(started.game, started.happened))
    said: set[str] = set()
    for _ in range(200):
        game = svc.game_in("chan")
        if game is None:
            break
        person = person_on_turn(game)
        assert person is not None
        kind = "roll" if game.state is not None and game.state.phase == "roll" else "move"
        piece = 0
        if kind == "move":
            moves = svc.movable("chan", person)
            piece = moves[0].piece + 1
        outcome = svc.act("chan", person, Intent(kind, piece))
        assert outcome.game is not None and not outcome.refused
        view = table_view(outcome.game, outcome.happened)
        text = toast(view)
        said.add(text.split(" ")[1] if text else "")
        # the presser is told in the second person, never by their own name
        assert text.startswith("You "), text
        assert person.name not in text.replace("Ben's", ""), text
        state = outcome.game.state
        if state is not None and state.phase == "move" and person_on_turn(outcome.game) == person:
            assert text.endswith("Choose a piece."), text
    assert {"rolled"} <= said


def test_a_caption_tells_the_latest_few_lines(store: Store) -> None:
    svc = GameService(store, dice=Dice(5), clock=lambda: 1000.0)
    svc.open("chan", ANA, "classic", timer=0)
    for _ in range(3):
        svc.act("chan", ANA, Intent("add_computer"))
    longest = 0
    outcome = svc.act("chan", ANA, Intent("start"))
    for _ in range(300):
        assert outcome.game is not None
        full = table_view(outcome.game, outcome.happened, max_story=None)
        view = table_view(outcome.game, outcome.happened)
        assert len(view.story) <= MAX_STORY
        if len(full.story) > MAX_STORY:
            longest = max(longest, len(full.story))
            # what the presser did, a "…", and the latest lines
            assert view.story[0] == full.story[0] and say(view.story[1]) == "…"
            assert view.story[2:] == full.story[-(MAX_STORY - 2) :]
        else:
            assert view.story == full.story
        if outcome.game.status != "playing":
            break
        state = outcome.game.state
        assert state is not None
        kind = "roll" if state.phase == "roll" else "move"
        piece = svc.movable("chan", ANA)[0].piece + 1 if kind == "move" else 0
        outcome = svc.act("chan", ANA, Intent(kind, piece))
    assert longest > MAX_STORY, "no long run of computer moves to cut"


def test_a_skipped_view_lends_its_story_to_the_newer_one(store: Store) -> None:
    svc = GameService(store, dice=Dice(3), clock=lambda: 1000.0)
    svc.open("chan", ANA, "classic", timer=0)
    first = svc.act("chan", BEN, Intent("join"))
    second = svc.act("chan", ANA, Intent("add_computer"))
    assert first.game is not None and second.game is not None
    older, newer = table_view(first.game, first.happened), table_view(second.game, second.happened)
    merged = Pending(older, first.shown).then(Pending(newer, second.shown))
    assert merged.view.rev == newer.rev
    assert [t.key for t in merged.view.story] == ["lobby.joined", "lobby.computer_added"]
    assert merged.view.status == newer.status
    # an older view arriving late changes nothing
    assert Pending(newer, second.shown).then(Pending(older, first.shown)).view == newer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_group_pace_allows_a_small_burst_then_one_call_every_few_seconds() -> None:
    clock = Clock()
    pacer = MemoryPacer(Limits(20, 60.0, private=1.0, overall=0, burst=3), clock)
    # a quiet group: three calls at once
    for _ in range(3):
        assert pacer.try_take(-1) == 0
    # then one every (60 + 1) / 18 s, never a minute's wait; other chats are free
    gap = 61 / 18
    assert abs(pacer.try_take(-1) - gap) < 1e-9
    assert pacer.try_take(-2) == 0 and pacer.try_take(5) == 0
    clock.now += gap
    assert pacer.try_take(-1) == 0
    assert abs(pacer.try_take(-1) - gap) < 1e-9
    # a private chat: about one a second after its burst
    for _ in range(3):
        assert pacer.try_take(5) == 0
    assert abs(pacer.try_take(5) - 1.0) < 1e-9
    # a rate of 0 limits nothing
    free = MemoryPacer(Limits(0, 60.0, private=0, overall=0), clock)
    assert all(free.try_take(c) == 0 for c in (-1, -1, -1, 5, 5, 5, 5))


def test_no_window_of_the_period_ever_holds_more_than_the_group_rate() -> None:
    """However calls are asked for, any 61 s (the minute and its margin) holds at most 20."""
    clock = Clock()
    pacer = MemoryPacer(Limits(20, 60.0, private=0, overall=0), clock)
    taken: list[float] = []
    rng = __import__("random").Random(4)
    for _ in range(3000):
        clock.now += rng.choice((0.0, 0.05, 0.5, 1.0, 3.0, 7.0, 20.0))
        if pacer.try_take(-9) == 0:
            taken.append(clock.now)
    assert len(taken) > 200
    busiest = max(sum(1 for t in taken if start <= t < start + 61.0) for start in taken)
    assert busiest <= 20, busiest


def test_the_bot_wide_pace_holds_every_chat_back() -> None:
    clock = Clock()
    pacer = MemoryPacer(Limits(0, 60.0, private=0, overall=30), clock)
    went = sum(pacer.try_take(-c) == 0 for c in range(1, 100))
    assert went == 3  # a burst of 3, then one every 1.1 / 28 s: never 30 in a second
    clock.now += 1.0
    went = sum(pacer.try_take(-c) == 0 for c in range(100, 200))
    assert went == 3


def test_shows_keep_only_the_newest_view_of_a_game_while_its_chat_waits(store: Store) -> None:
    svc = GameService(store, dice=Dice(3), clock=lambda: 1000.0)
    outcomes: list[Any] = [svc.open("tg:-5", ANA, "classic", timer=0)]
    outcomes.append(svc.act("tg:-5", BEN, Intent("join")))
    outcomes.append(svc.act("tg:-5", ANA, Intent("add_computer")))
    outcomes.append(svc.act("tg:-5", ANA, Intent("add_computer")))
    views = [table_view(o.game, o.happened) for o in outcomes]
    shown: list[TableView] = []

    async def run() -> None:
        pace = Pace(MemoryPacer(Limits(2, 0.2, private=0, overall=0, burst=1)), threaded=False)

        async def show(p: Pending, turn: Turn) -> None:
            await turn()
            shown.append(p.view)

        outboxes = Outboxes(pace, show)
        for view, outcome in zip(views, outcomes, strict=True):
            outboxes.table(-5, Pending(view, outcome.shown))
            await asyncio.sleep(0)  # the first is shown at once, the rest wait
        await asyncio.wait_for(outboxes.quiet(), 5)

    asyncio.run(run())
    assert [v.rev for v in shown] == [views[0].rev, views[-1].rev]
    assert [t.key for t in shown[-1].story] == [
        "lobby.joined",
        "lobby.computer_added",
        "lobby.computer_added",
    ]
