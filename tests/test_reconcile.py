"""Reconciling a chat with the newest table view: the plan, the notes, the store budget."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from bot.adapters.reconcile import CHAT, Notes, Plan, Powers, Reconciler, plan
from bot.hosting import Intent
from bot.present import TableView, parse_press, table_view
from bot.service.game import GameService
from bot.store import Store
from tests.helpers.counting_store import CountingStore
from tests.helpers.service import ANA, BEN, Dice, person_on_turn


class FakeScreen:
    """A chat that records the calls made to it; message ids are 1, 2, 3..."""

    #: a chat the bot is a member of: it may post, edit and delete
    powers: Powers = CHAT

    def __init__(self, *, edits_fail: bool = False) -> None:
        self.calls: list[tuple[str, str | None]] = []
        self.next_id = 0
        self.edits_fail = edits_fail
        self.buttons: dict[str, bool] = {}
        #: message id -> the view it shows (messages on screen only)
        self.shows: dict[str, TableView] = {}
        #: the person each post notified (None: nobody)
        self.pings: list[tuple[str, str | None]] = []

    async def edit(self, msg: str, view: TableView) -> bool:
        self.calls.append(("edit", msg))
        if self.edits_fail or msg not in self.shows:
            return False
        self.buttons[msg] = bool(view.buttons)
        self.shows[msg] = view
        return True

    async def post(self, view: TableView) -> str | None:
        self.next_id += 1
        msg = str(self.next_id)
        self.calls.append(("post", msg))
        self.buttons[msg] = bool(view.buttons)
        self.shows[msg] = view
        self.pings.append((msg, view.ping.id if view.ping else None))
        return msg

    async def retire(self, msg: str) -> None:
        self.calls.append(("retire", msg))
        self.buttons[msg] = False

    async def remove(self, msg: str) -> bool:
        self.calls.append(("remove", msg))
        self.buttons.pop(msg, None)
        return self.shows.pop(msg, None) is not None

    def live(self) -> list[str]:
        return [m for m, on in self.buttons.items() if on]


def started(store: Store) -> tuple[GameService, Any]:
    svc = GameService(store, dice=Dice(3), draw=lambda n: 0, clock=lambda: 1000.0)
    svc.open("chan", ANA, "classic", timer=0)
    svc.act("chan", BEN, Intent("join"))
    return svc, svc.act("chan", ANA, Intent("start"))


def view_of(outcome: Any) -> TableView:
    return table_view(outcome.game, outcome.happened)


# -- the plan ---------------------------------------------------------------


def test_plan_posts_when_nothing_is_shown(store: Store) -> None:
    _svc, outcome = started(store)
    assert plan(view_of(outcome), Notes()).post


def test_plan_edits_while_the_same_person_plays_on_and_posts_when_the_turn_passes(
    store: Store,
) -> None:
    _svc, outcome = started(store)
    view = view_of(outcome)
    assert view.turn is not None
    same = Notes("7", view.rev - 1, view.turn.id, "picture")
    assert plan(view, same) == plan(view, same).__class__(edit="7")
    other = Notes("7", view.rev - 1, "someone-else", "picture")
    todo = plan(view, other)
    # posted anew at the bottom, notifying the person now on turn; the old one deleted
    assert todo.post and todo.ping and todo.edit is None and todo.remove == ("7",)
    lobby = Notes("7", view.rev - 1, None, "text")  # the lobby message is replaced by a board
    todo = plan(view, lobby)
    assert todo.post and todo.remove == ("7",)


def test_plan_edits_standings_already_up_into_their_newer_view(store: Store) -> None:
    """The standings, then the same standings telling the new ratings (one revision
    later): edited in place, never a second final board."""
    svc = GameService(store, dice=Dice(3), clock=lambda: 1000.0)
    svc.open("chan", ANA, "classic", timer=0)
    svc.act("chan", BEN, Intent("join"))
    outcome = svc.act("chan", ANA, Intent("start"))
    for _ in range(3000):
        if outcome.game.status != "playing":
            break
        seat = outcome.game.on_turn()
        press = parse_press(table_view(outcome.game).buttons[0][0].data)
        assert seat is not None and seat.user is not None and press is not None
        outcome = svc.press("chan", seat.user, press.game_id, press.version, press.intent)
    view = view_of(outcome)
    assert view.picture == "standings" and outcome.game.rated
    up = Notes("8", view.rev - 1, None, "picture", "5")  # standings 8 under final board 5
    assert plan(view, up) == plan(view, up).__class__(edit="8")
    table = Notes("8", view.rev - 1, None, "picture")  # the table: it becomes the final board
    assert plan(view, table).final == "8" and plan(view, table).post


def test_plan_does_nothing_for_an_older_or_the_same_view_but_removes_a_stale_press(
    store: Store,
) -> None:
    _svc, outcome = started(store)
    view = view_of(outcome)
    newer = Notes("9", view.rev + 1, None, "picture")
    assert plan(view, newer) == plan(view, newer).__class__()
    assert view.turn is not None
    same = Notes("9", view.rev, view.turn.id, "picture")
    assert not plan(view, same).post and plan(view, same).edit is None
    # a button of an old message was pressed: that stale copy goes
    assert plan(view, same, pressed="4").remove == ("4",)
    # asked for the board: moved to the bottom (posted anew, the old one deleted), no ping
    fresh = plan(view, same, fresh=True)
    assert fresh.post and fresh.remove == ("9",) and not fresh.ping


def test_notes_round_trip_and_damaged_notes_mean_nothing_shown() -> None:
    notes = Notes("12", 5, "101", "picture")
    assert Notes.from_bytes(notes.to_bytes()) == notes
    assert Notes.from_bytes(b"{not json") == Notes()
    assert Notes.from_bytes(b'{"r": "x"}') == Notes()
    assert Notes.from_bytes(None) == Notes()


# -- the store budget of one press --------------------------------------------


def test_one_press_is_one_load_one_save_and_one_note(store: Store) -> None:
    counting = CountingStore(store)
    svc, outcome = started(counting)  # type: ignore[arg-type]
    screen = FakeScreen()
    reconciler = Reconciler(svc)
    asyncio.run(reconciler.reconcile(view_of(outcome), outcome.shown, screen))
    for _ in range(30):
        view = view_of(outcome)
        data = next(b.data for row in view.buttons for b in row)
        press = parse_press(data)
        assert press is not None and view.turn is not None
        counting.reset()
        outcome = svc.press("chan", view.turn, press.game_id, press.version, press.intent)
        assert not outcome.refused
        asyncio.run(reconciler.reconcile(view_of(outcome), outcome.shown, screen))
        assert counting.calls == Counter(load=1, save=1, save_shown=1), counting.calls
        assert len(screen.live()) == 1, "exactly one message with working buttons"


def test_a_crash_between_saving_and_showing_is_repaired_by_the_next_press(store: Store) -> None:
    svc, outcome = started(store)
    screen = FakeScreen()
    asyncio.run(Reconciler(svc).reconcile(view_of(outcome), outcome.shown, screen))
    shown_view = view_of(outcome)
    old_button = next(b.data for row in shown_view.buttons for b in row)
    press = parse_press(old_button)
    assert press is not None and shown_view.turn is not None
    # the press is saved, and the process dies before showing it
    saved = svc.press("chan", shown_view.turn, press.game_id, press.version, press.intent)
    assert not saved.refused
    # a new process: the button still on screen is pressed again
    restarted = Reconciler(GameService(store, dice=Dice(4)))
    again = restarted.service.press(
        "chan", shown_view.turn, press.game_id, press.version, press.intent
    )
    assert again.refusal is not None and again.refusal.key == "refuse.outdated"
    assert again.game is not None
    asyncio.run(restarted.reconcile(table_view(again.game), again.shown, screen, pressed="1"))
    # the current board is up, with working buttons, and it is the one the store notes
    stored = store.load(again.game.id)
    assert stored is not None and stored.shown is not None
    notes = Notes.from_bytes(stored.shown.data)
    assert notes.rev == again.game.rev and notes.msg in screen.live()
    assert len(screen.live()) == 1


def test_two_workers_showing_one_press_leave_one_table(store: Store, make_store: Any) -> None:
    svc, outcome = started(store)
    screen = FakeScreen()
    first, second = Reconciler(svc), Reconciler(GameService(make_store()))
    view = view_of(outcome)

    async def both() -> None:
        # both read the notes before either wrote them (a webhook retry on two workers)
        await asyncio.gather(
            first.reconcile(view, outcome.shown, screen),
            second.reconcile(view, outcome.shown, screen),
        )

    asyncio.run(both())
    assert [c[0] for c in screen.calls].count("post") == 2
    assert ("remove", "2") in screen.calls or ("remove", "1") in screen.calls
    assert len(screen.live()) == 1


@pytest.mark.parametrize("edits_fail", [False, True])
def test_a_message_that_cannot_be_edited_is_posted_anew(store: Store, edits_fail: bool) -> None:
    svc, outcome = started(store)
    screen = FakeScreen(edits_fail=edits_fail)
    reconciler = Reconciler(svc)
    asyncio.run(reconciler.reconcile(view_of(outcome), outcome.shown, screen))
    view = view_of(outcome)
    turn = view.turn
    assert turn is not None
    # the same person rolls (a 6 from Dice(3)? any roll): edit, or post when the edit fails
    data = next(b.data for row in view.buttons for b in row)
    press = parse_press(data)
    assert press is not None
    outcome = svc.press("chan", turn, press.game_id, press.version, press.intent)
    asyncio.run(reconciler.reconcile(view_of(outcome), outcome.shown, screen))
    assert len(screen.live()) == 1
    stored = store.load(view.game_id)
    assert stored is not None and stored.shown is not None
    assert Notes.from_bytes(stored.shown.data).msg == screen.live()[0]


def test_a_whole_game_leaves_one_board_at_a_time_and_pings_only_whom_the_turn_passes_to(
    store: Store,
) -> None:
    """Two people and two computers, lobby to standings, every step reconciled."""
    svc = GameService(store, dice=Dice(8), clock=lambda: 1000.0)
    screen = FakeScreen()
    reconciler = Reconciler(svc)

    def show(outcome: Any) -> TableView:
        assert not outcome.refused, outcome.refusal
        view = view_of(outcome)
        asyncio.run(reconciler.reconcile(view, outcome.shown, screen))
        return view

    def table() -> TableView:
        (msg,) = screen.live()
        return screen.shows[msg]

    show(svc.open("chan", ANA, "classic", timer=0))
    show(svc.act("chan", BEN, Intent("join")))
    for _ in range(2):
        show(svc.act("chan", ANA, Intent("add_computer")))
    assert len(screen.shows) == 1 and screen.pings == [("1", None)]
    show(svc.act("chan", ANA, Intent("start")))
    # the lobby is gone: the board took its place
    assert "1" not in screen.shows and len(screen.shows) == 1

    presses = passes = 0
    while True:
        game = svc.game_in("chan")
        if game is None:
            break
        person = person_on_turn(game)
        assert person is not None
        before = [m for m, _ in screen.pings]
        data = next(b.data for row in table().buttons for b in row)
        press = parse_press(data)
        assert press is not None
        show(svc.press("chan", person, press.game_id, press.version, press.intent))
        presses += 1
        posted = screen.pings[len(before) :]
        after = svc.get(game.id)
        assert after is not None
        # exactly one message of the game on screen while it runs, the newest one
        if after.status == "playing":
            assert len(screen.shows) == 1 and len(screen.live()) == 1
            assert list(screen.shows) == [str(screen.next_id)]
            now = person_on_turn(after)
            if now is not None and not now.same(person):
                passes += 1
                # the turn passed to another person: a new table notifies them
                assert posted == [(str(screen.next_id), now.id)]
            else:
                assert posted == [], "the same person plays on: edited in place"
        # nobody is ever notified by their own press
        assert all(pinged != person.id for _, pinged in posted)
        assert presses < 3000
    # the final board (no buttons) and the standings below it, offering a rematch
    final, standings = (screen.shows[m] for m in sorted(screen.shows, key=int))
    assert screen.live() == [max(screen.shows, key=int)]
    assert final.picture == "board" and standings.picture == "standings"
    assert [t.key for t in standings.lines] == ["ev.game_over", "standings.ratings"]
    assert [parse_press(b.data).intent.kind for row in standings.buttons for b in row] == [  # type: ignore[union-attr]
        "rematch"
    ]
    assert passes >= 10


class OneMessage(FakeScreen):
    """A place that may only edit its one message "home" (a message posted through
    Telegram's inline mode, a Discord interaction's own message)."""

    powers = Powers(send=False, delete=False, upload_on_edit=False, home="home")

    def __init__(self) -> None:
        super().__init__()
        self.shows["home"] = None  # type: ignore[assignment]  # posted by the platform

    async def post(self, view: TableView) -> str | None:
        raise AssertionError("a place that cannot post was asked to")

    async def remove(self, msg: str) -> bool:
        raise AssertionError("a place that cannot delete was asked to")


def test_a_place_that_cannot_post_plays_the_whole_game_in_its_one_message(store: Store) -> None:
    """Lobby, board and standings all in the one message: only edits, each view once."""
    svc = GameService(store, dice=Dice(8), clock=lambda: 1000.0)
    screen = OneMessage()
    reconciler = Reconciler(svc)
    shown: list[int] = []

    def show(outcome: Any) -> None:
        assert not outcome.refused, outcome.refusal
        view = view_of(outcome)
        assert asyncio.run(reconciler.reconcile(view, outcome.shown, screen))
        shown.append(view.rev)

    show(svc.open("chan", ANA, "classic", timer=0))
    show(svc.act("chan", BEN, Intent("join")))
    show(svc.act("chan", ANA, Intent("start")))
    for _ in range(3000):
        game = svc.game_in("chan")
        if game is None:
            break
        person = person_on_turn(game)
        assert person is not None
        press = parse_press(next(b.data for row in screen.shows["home"].buttons for b in row))
        assert press is not None
        show(svc.press("chan", person, press.game_id, press.version, press.intent))
    assert set(screen.shows) == {"home"} and screen.shows["home"].picture == "standings"
    assert {kind for kind, _ in screen.calls} == {"edit"}
    assert [msg for _, msg in screen.calls] == ["home"] * len(shown)
    # an older view, or the same one again, changes nothing
    game = svc.get(screen.shows["home"].game_id)
    assert game is not None
    again = table_view(game)
    assert not asyncio.run(reconciler.reconcile(again, svc.shown(game.id), screen))
    assert len(screen.calls) == len(shown)


def test_plan_in_a_place_that_cannot_post_edits_its_one_message(store: Store) -> None:
    _, outcome = started(store)
    view = view_of(outcome)
    inline = Powers(send=False, delete=False, home="h")
    assert plan(view, Notes(), powers=inline).edit == "h"
    assert plan(view, Notes(), fresh=True, powers=inline).edit == "h"
    assert plan(view, Notes("h", view.rev - 1, "x", "text"), powers=inline).edit == "h"
    assert plan(view, Notes("h", view.rev, None, "picture"), powers=inline).edit is None
    nowhere = Powers(send=False, delete=False)
    assert plan(view, Notes(), powers=nowhere) == plan(view, Notes("h", view.rev + 1)) == Plan()
    # a place that may post once but never delete (a command's own answer): the first
    # table is posted, later ones edit it; a press edits its own message
    once = Powers(send=True, delete=False)
    assert plan(view, Notes(), powers=once) == Plan(post=True, ping=plan(view, Notes()).ping)
    assert plan(view, Notes("t", view.rev - 1, "x", "text"), powers=once) == Plan(edit="t")
    pressed = Powers(send=False, delete=False, home="p")
    assert plan(view, Notes("t", view.rev, None, "picture"), powers=pressed) == Plan(edit="p")
