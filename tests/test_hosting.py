"""The hosting domain as functions on a Game value: no store, no platform."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

import engine
from bot.hosting import (
    LOBBY,
    MAX_TIMEOUTS,
    OVER,
    PLAYING,
    Game,
    Happened,
    Intent,
    Luck,
    Note,
    Refusal,
    open_game,
    perform,
    timeout,
)
from bot.players import RandomPlayer
from tests.service_helpers import ANA, BEN


def luck(dice: Iterator[int], now: float = 100.0, first: int = 0) -> Luck:
    import random

    return Luck(lambda: next(dice), lambda n: first % n, RandomPlayer(random.Random(1)), now)


def two_player_game(timer: int = 0) -> Game:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=timer, auto_move=True, now=0)
    perform(game, BEN, Intent("join"), luck(iter(())))
    perform(game, ANA, Intent("start"), luck(iter(())))
    return game


def test_a_lobby_fills_and_starts_without_any_store() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    assert game.status == LOBBY and [s.user for s in game.seats] == [ANA]
    happened = perform(game, BEN, Intent("join"), luck(iter(())))
    assert happened.facts == [Note("lobby.joined", {"who": "Ben"})]
    assert happened.by == BEN
    version = game.version
    perform(game, ANA, Intent("start"), luck(iter(())))
    assert game.status == PLAYING and game.version > version
    assert [s.colour for s in game.seats] == ["red", "yellow"]
    assert game.state is not None and game.state.turn == "red"  # the draw picked seat 0


def test_refusals_name_the_reason() -> None:
    game = two_player_game()
    with pytest.raises(Refusal) as no:
        perform(game, BEN, Intent("roll"), luck(iter(())))
    assert no.value.key == "refuse.not_your_turn" and no.value.params["who"] == "Ana"
    with pytest.raises(Refusal) as no:
        perform(game, ANA, Intent("move", 1), luck(iter(())))
    assert no.value.key == "refuse.roll_first"
    with pytest.raises(Refusal) as no:
        open_game("x", "c", ANA, "chess", {}, timer=0, auto_move=True, now=0)
    assert no.value.key == "refuse.bad_rules"


def test_a_roll_with_no_move_passes_and_a_six_enters_by_itself() -> None:
    game = two_player_game()
    happened = perform(game, ANA, Intent("roll"), luck(iter([3])))
    kinds = [f.kind for f in happened.facts if isinstance(f, engine.Event)]
    assert kinds == ["roll", "pass", "turn"]
    assert game.state is not None and game.state.turn == "yellow"
    assert game.actions == "3"
    # yellow rolls a 6: the only legal move (out) is made by itself, then rolls again
    perform(game, BEN, Intent("roll"), luck(iter([6])))
    assert game.actions == "36a" and game.state.phase == "roll"
    assert game.last["move"][:4] == ["yellow", 0, 0, 1]
    assert game.last["roll"] == ["yellow", 6]


def test_computer_seats_play_until_a_person_must_act() -> None:
    game = open_game("0123abcd", "chan", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    perform(game, ANA, Intent("add_computer"), luck(iter(())))
    dice = itertools.cycle([1, 2, 3, 4, 5])  # never a 6: every turn passes
    perform(game, ANA, Intent("start"), luck(dice, first=1))  # the computer starts
    assert game.state is not None and game.state.turn == "red"
    assert game.actions == "1"  # the computer's pass, then Ana must roll


def test_the_timer_plays_a_turn_then_hands_the_seat_to_a_computer() -> None:
    game = two_player_game(timer=30)
    assert game.deadline == 130.0  # started at 100 with a 30 s timer
    dice = itertools.cycle([2])  # nothing ever leaves the base: each turn passes
    ana = game.seat_of(ANA)
    assert ana is not None
    notes: list[str] = []
    # Ana and Ben let the timer run out in turn; Ana's third time is the 5th
    for _ in range(2 * MAX_TIMEOUTS - 1):
        seat = game.on_turn()
        assert seat is not None and seat.user is not None and game.deadline is not None
        happened = Happened()
        timeout(game, luck(dice, now=game.deadline + 1), happened)
        notes = [f.key for f in happened.facts if isinstance(f, Note)]
        assert notes[0] == "timer.expired"
        assert game.on_turn() is not seat  # the computer played the turn for them
    assert notes == ["timer.expired", "timer.took_over"]
    assert ana.computer and ana.took_over
    assert game.seat_of(BEN) is not None  # Ben timed out twice: still his seat


def test_a_timer_not_yet_due_is_refused() -> None:
    game = two_player_game(timer=30)
    with pytest.raises(Refusal) as no:
        timeout(game, luck(iter(()), now=0.0), Happened())
    assert no.value.key == "timer.not_due"


def test_a_game_played_out_ends_over_with_its_record_replaying() -> None:
    import random

    game = open_game("0123abcd", "chan", ANA, "tower", {}, timer=0, auto_move=True, now=0)
    perform(game, ANA, Intent("add_computer"), luck(iter(())))
    rng = random.Random(5)
    dice = iter(lambda: rng.randint(1, 6), 0)
    perform(game, ANA, Intent("start"), luck(dice))
    for _ in range(5000):
        if game.status != PLAYING:
            break
        assert game.state is not None
        if game.state.phase == "roll":
            perform(game, ANA, Intent("roll"), luck(dice))
        else:
            piece = engine.legal_moves(game.state)[0].piece + 1
            perform(game, ANA, Intent("move", piece), luck(dice))
    assert game.status == OVER and game.deadline is None
    assert engine.replay(game.record()) == game.state


def test_the_creator_or_a_moderator_changes_the_tables_language() -> None:
    game = two_player_game()
    version = game.version
    happened = perform(game, ANA, Intent("language", lang="pt_BR"), luck(iter(())))
    assert game.lang == "pt_BR" and happened.facts == [Note("game.language", {"language": "pt_BR"})]
    assert game.version == version  # the buttons stay good
    assert Game.from_bytes(game.to_bytes(), game.rev).lang == "pt_BR"  # kept with the game
    with pytest.raises(Refusal) as no:
        perform(game, BEN, Intent("language", lang="it"), luck(iter(())))
    assert no.value.key == "refuse.only_creator_language" and game.lang == "pt_BR"
    perform(game, BEN, Intent("language", lang="it", can_manage=True), luck(iter(())))
    assert game.lang == "it"
    with pytest.raises(Refusal) as no:
        perform(game, ANA, Intent("language", lang=""), luck(iter(())))
    assert no.value.key == "refuse.bad_language" and game.lang == "it"
