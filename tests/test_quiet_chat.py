"""A quiet chat, below the adapters: what a press says to its presser alone, how much
a caption tells, and Telegram's group limit kept in a sliding window."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.adapters.telegram.pacing import Pending, Shows, Window
from bot.hosting import Intent
from bot.present import TableView, say, table_view
from bot.present.view import MAX_STORY
from bot.service import GameService
from bot.store import Store
from tests.service_helpers import ANA, BEN, Dice, person_on_turn


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


def test_the_window_counts_calls_in_any_period_per_group() -> None:
    clock = Clock()
    window = Window(3, 10.0, clock)  # kept 11 s: a tenth more
    for _ in range(3):
        assert window.wait_time(-1) == 0
        asyncio.run(window.take(-1))
        clock.now += 1
    # a fourth call must wait until the first is 11 s old; other chats are free
    assert window.wait_time(-1) == 8.0
    assert window.wait_time(-2) == 0 and window.wait_time(5) == 0
    clock.now += 8
    assert window.wait_time(-1) == 0
    asyncio.run(window.take(-1))
    assert window.wait_time(-1) == 1.0  # the second call leaves the window next
    # private chats are not limited here; a rate of 0 limits nothing
    for _ in range(10):
        asyncio.run(window.take(7))
    assert window.wait_time(7) == 0
    assert Window(0, 60.0, clock).wait_time(-1) == 0


def test_shows_keep_only_the_newest_view_of_a_game_while_its_chat_waits(store: Store) -> None:
    svc = GameService(store, dice=Dice(3), clock=lambda: 1000.0)
    outcomes: list[Any] = [svc.open("tg:-5", ANA, "classic", timer=0)]
    outcomes.append(svc.act("tg:-5", BEN, Intent("join")))
    outcomes.append(svc.act("tg:-5", ANA, Intent("add_computer")))
    outcomes.append(svc.act("tg:-5", ANA, Intent("add_computer")))
    views = [table_view(o.game, o.happened) for o in outcomes]
    shown: list[TableView] = []

    async def run() -> None:
        window = Window(1, 0.2)

        async def show(p: Pending) -> None:
            await window.take(-5)
            shown.append(p.view)

        shows = Shows(window, show, lambda channel: -5)
        for view, outcome in zip(views, outcomes, strict=True):
            shows.submit(Pending(view, outcome.shown))
            await asyncio.sleep(0)  # the first is shown at once, the rest wait
        await asyncio.wait_for(shows.quiet(), 5)

    asyncio.run(run())
    assert [v.rev for v in shown] == [views[0].rev, views[-1].rev]
    assert [t.key for t in shown[-1].story] == [
        "lobby.joined",
        "lobby.computer_added",
        "lobby.computer_added",
    ]
