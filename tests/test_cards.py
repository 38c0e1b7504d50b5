"""The card's plan, a pure function: sent when the turn comes to a person by someone
else's doing, edited while it stays theirs, stilled when it passes, the result at the
end; never for one's own press, never to someone not on turn.  And a corner's settings."""

from __future__ import annotations

from dataclasses import replace

from bot.adapters.cards import LIVE, RESULT, STILL, CardNotes, CardPlan, plan_card
from bot.hosting import Intent, Luck, User, open_game, perform
from bot.hosting.corner import HERE, MUTED, Corner
from bot.present import TableView, table_view

ZORA = User("telegram", "1", "Zora")
QUILL = User("telegram", "2", "Quill")
Z, Q = "telegram:1", "telegram:2"


def view_of(turn: User | None, ping: User | None, rev: int = 5, **kw: object) -> TableView:
    never = Luck(lambda: 1, lambda n: 0, lambda level: None, 0.0)  # type: ignore[arg-type,return-value]
    game = open_game("0123abcd", "tg:-5", ZORA, "classic", {}, timer=0, auto_move=True, now=0)
    perform(game, QUILL, Intent("join"), never)
    perform(game, ZORA, Intent("start"), never)
    base = table_view(game)
    return replace(base, turn=turn, ping=ping, rev=rev, **kw)  # type: ignore[arg-type]


def test_a_card_is_sent_when_the_turn_comes_by_someone_elses_doing() -> None:
    assert plan_card(view_of(ZORA, ZORA), CardNotes(), Z) == CardPlan(send=LIVE)
    # the old, stilled card goes once the new one is up
    old = CardNotes("7", 3, STILL)
    assert plan_card(view_of(ZORA, ZORA), old, Z) == CardPlan(send=LIVE, remove="7")


def test_never_for_ones_own_press_nor_to_someone_not_on_turn() -> None:
    assert plan_card(view_of(ZORA, None), CardNotes(), Z) == CardPlan()
    assert plan_card(view_of(ZORA, ZORA), CardNotes(), Q) == CardPlan()
    assert plan_card(view_of(QUILL, QUILL), CardNotes("7", 3, STILL), Z) == CardPlan()


def test_a_live_card_is_edited_while_the_turn_stays_and_stilled_when_it_passes() -> None:
    live = CardNotes("7", 3, LIVE)
    assert plan_card(view_of(ZORA, None), live, Z) == CardPlan(edit="7", mode=LIVE)
    assert plan_card(view_of(QUILL, QUILL), live, Z) == CardPlan(edit="7", mode=STILL)
    # an older view, or the one shown, changes nothing
    assert plan_card(view_of(ZORA, None, rev=2), live, Z) == CardPlan()
    assert plan_card(view_of(ZORA, None, rev=3), live, Z) == CardPlan()


def test_a_reminder_or_a_time_run_out_sends_the_card_anew() -> None:
    live = CardNotes("7", 3, LIVE)
    assert plan_card(view_of(ZORA, ZORA, nudge=True), live, Z) == CardPlan(send=LIVE, remove="7")


def test_a_finished_games_card_becomes_its_result_and_no_new_one_is_sent() -> None:
    done = view_of(None, None, finished=True)
    assert plan_card(done, CardNotes("7", 3, LIVE), Z) == CardPlan(edit="7", mode=RESULT)
    assert plan_card(done, CardNotes("7", 3, STILL), Q) == CardPlan(edit="7", mode=RESULT)
    assert plan_card(done, CardNotes(), Z) == CardPlan()
    assert plan_card(done, CardNotes("7", 5, RESULT), Z) == CardPlan()


def test_a_card_not_wanted_is_never_sent_and_a_live_one_is_stilled() -> None:
    assert plan_card(view_of(ZORA, ZORA), CardNotes(), Z, wanted=False) == CardPlan()
    live = CardNotes("7", 3, LIVE)
    assert plan_card(view_of(ZORA, None), live, Z, wanted=False) == CardPlan(edit="7", mode=STILL)


def test_card_notes_read_back_and_damaged_ones_are_no_card() -> None:
    notes = CardNotes("12", 4, LIVE)
    assert CardNotes.from_bytes(notes.to_bytes()) == notes
    assert CardNotes.from_bytes(b"\xff{") == CardNotes()
    assert CardNotes.from_bytes(None) == CardNotes()


def test_a_corner_follows_the_platforms_custom_and_what_the_person_asked() -> None:
    assert not Corner().on, "nobody started the bot: no card"
    started = Corner().opened("pt_BR")
    assert started.on and started.lang == "pt_BR"
    assert not started.asked(False).on and started.asked(False).asked(True).on
    assert not started.refused().on and started.refused().opened().on
    muted = started.mute("g1")
    assert not muted.wants("g1") and muted.wants("g2")
    assert not muted.asked(True).muted, "notify on brings back every game's cards"
    many = started
    for i in range(MUTED + 5):
        many = many.mute(f"g{i}").watch(f"c{i}", True)
    assert len(many.muted) == MUTED and len(many.here) == HERE
    assert Corner.from_bytes(many.to_bytes()) == many
    assert Corner.from_bytes(b'{"c": "yes", "m": [1, "g"], "d": 5}') == Corner(muted=("g",))
    assert Corner.from_bytes(b"[]") == Corner()
