"""The game service over a real store (SQLite and Redis): lobby, turns, buttons,
refusals, restarts, timers."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis

import engine
from bot.hosting import MAX_TIMEOUTS, SCHEMA, Game, Intent
from bot.metrics import REGISTRY
from bot.present import MAX_BUTTON_DATA, Text, say
from bot.store import Store
from bot.store.base import StoreUnavailable
from tests.service_helpers import (
    ANA,
    BEN,
    CID,
    DEE,
    Clock,
    Flaky,
    Reply,
    current,
    person_on_turn,
    play_out,
    reply_of,
    service,
    step,
    stored_bytes,
)


def buttons(reply: Reply) -> dict[str, str]:
    """label key -> data, for the buttons of a reply (first of each kind)."""
    out: dict[str, str] = {}
    for row in reply.buttons:
        for b in row:
            out.setdefault(b.label.key, b.data)
    return out


def lobby(
    store: Store,
    rules: str = "classic",
    options: dict[str, Any] | None = None,
    *,
    seats: int = 2,
    computers: int = 0,
    seed: int = 1,
    timer: int = 0,
    channel: str = "chan",
    auto_move: bool = True,
    **kw: Any,
) -> tuple[Any, Reply]:
    svc = service(store, seed=seed, **kw)
    reply = svc.new_game(channel, ANA, rules, options, timer=timer, auto_move=auto_move)
    assert not reply.refused, reply.lines
    for user in (BEN, CID, DEE)[: seats - 1]:
        reply = svc.press(channel, user, buttons(reply)["btn.join"])
        assert not reply.refused, reply.lines
    for _ in range(computers):
        reply = svc.press(channel, ANA, buttons(reply)["btn.add_computer"])
        assert not reply.refused, reply.lines
    return svc, reply


def started(
    store: Store, rules: str = "classic", options: dict[str, Any] | None = None, **kw: Any
) -> tuple[Any, Reply]:
    svc, reply = lobby(store, rules, options, **kw)
    reply = svc.press(kw.get("channel", "chan"), ANA, buttons(reply)["btn.start"])
    assert not reply.refused, reply.lines
    return svc, reply


# --------------------------------------------------------------------------
# whole games


@pytest.mark.parametrize(
    ("rules", "options"),
    [("classic", {}), ("tower", {}), ("italian", {}), ("super", {}), ("italian", {"teams": True})],
)
def test_whole_game_two_people_two_computers_and_a_restart(
    store: Store, rules: str, options: dict[str, Any]
) -> None:
    # two people press buttons only; the store is the only memory, and halfway
    # through a new service (a restarted bot) takes over with the old buttons
    channel = f"whole-{rules}"
    svc, reply = started(store, rules, options, seats=2, computers=2, channel=channel)
    rng = random.Random(rules)
    presses = {ANA.id: 0, BEN.id: 0}
    restarted = False
    for k in range(20_000):
        if reply.finished:
            break
        game = current(svc, channel)
        user = person_on_turn(game)
        assert user is not None, "computers never wait for a press"
        assert reply.mention == [user], "the player on turn is mentioned"
        assert reply.buttons, "the player on turn gets buttons"
        if k == 40 and not restarted:
            svc = service(store, seed=99)  # a restart: nothing in memory survives
            restarted = True
        flat = [b for row in reply.buttons for b in row]
        reply = svc.press(channel, user, rng.choice(flat).data)
        assert not reply.refused, reply.lines
        presses[user.id] += 1
    assert reply.finished and restarted
    assert presses[ANA.id] > 0 and presses[BEN.id] > 0
    stored = store.load(reply.game_id or "")
    assert stored is not None
    game = Game.from_bytes(stored.data)
    assert game.status == "over" and game.state is not None
    # every roll and move is on the record: the game replays exactly
    assert engine.replay(game.record()) == game.state
    # the channel is free for the next game
    assert store.channel_game(channel) is None
    assert not svc.new_game(channel, BEN, "classic").refused


def test_a_finished_game_shows_the_standings(store: Store) -> None:
    svc, reply = started(store, "classic", seats=1, computers=1, render=True)
    reply = play_out(svc, "chan", reply)
    assert reply.finished and reply.image_kind == "standings"
    assert reply.image is not None and reply.image.startswith(b"\x89PNG")
    assert any(t.key == "ev.game_over" for t in reply.lines)


# --------------------------------------------------------------------------
# lobby


def test_lobby_buttons_join_leave_add_start(store: Store) -> None:
    svc, reply = lobby(store, seats=1)
    assert set(buttons(reply)) == {
        "btn.join",
        "btn.leave",
        "btn.add_computer",
        "btn.level",
        "btn.remove_computer",
        "btn.start",
    }
    reply = svc.press("chan", BEN, buttons(reply)["btn.join"])
    assert reply.lines[0].key == "lobby.joined"
    again = svc.press("chan", BEN, buttons(reply)["btn.join"])
    assert again.refused and again.private and again.lines[0].key == "refuse.already_seated"
    reply = svc.press("chan", BEN, buttons(reply)["btn.leave"])
    assert reply.lines[0].key == "lobby.left"
    game = current(svc, "chan")
    assert [s.user for s in game.seats] == [ANA]


def test_starting_alone_is_refused(store: Store) -> None:
    svc, reply = lobby(store, seats=1)
    r = svc.press("chan", ANA, buttons(reply)["btn.start"])
    assert r.refused and r.lines[0].key == "refuse.need_players"
    assert current(svc, "chan").status == "lobby"


def test_only_the_host_starts_until_the_seats_are_full(store: Store) -> None:
    svc, reply = lobby(store, seats=3)
    r = svc.press("chan", BEN, buttons(reply)["btn.start"])
    assert r.refused and r.lines[0].key == "refuse.only_host_starts"
    reply = svc.press("chan", DEE, buttons(reply)["btn.join"])
    r = svc.press("chan", BEN, buttons(reply)["btn.start"])
    assert not r.refused and current(svc, "chan").status == "playing"


def test_joining_a_full_or_running_game_is_refused(store: Store) -> None:
    svc, reply = lobby(store, seats=4)
    extra = svc.join("chan", type(ANA)("test", "5", "Eve"))
    assert extra.refused and extra.lines[0].key == "refuse.full"
    svc.press("chan", ANA, buttons(reply)["btn.start"])
    late = svc.join("chan", type(ANA)("test", "5", "Eve"))
    assert late.refused and late.lines[0].key == "refuse.already_started"


def test_super_fills_empty_seats_with_computers(store: Store) -> None:
    # super 1: exactly 4 players, empty seats are filled by computer players
    svc, _reply = started(store, "super", seats=2)
    game = current(svc, "chan")
    assert len(game.seats) == 4 and sum(s.computer for s in game.seats) == 2
    assert [s.colour for s in game.seats] == ["red", "green", "yellow", "blue"]


def test_two_players_sit_red_and_yellow(store: Store) -> None:
    svc, _ = started(store, "classic", seats=2)
    game = current(svc, "chan")
    assert [s.colour for s in game.seats] == ["red", "yellow"]


def test_italian_highest_roll_starts(store: Store) -> None:
    _svc, reply = started(store, "italian", seats=2)
    assert any(t.key == "game.start_rolls" for t in reply.lines)


def test_a_second_game_in_the_same_channel_is_refused(store: Store) -> None:
    svc, _ = lobby(store)
    r = svc.new_game("chan", BEN, "tower")
    assert r.refused and r.lines[0].key == "refuse.game_running"
    # another channel is another game
    assert not svc.new_game("other", BEN, "tower").refused


@pytest.mark.parametrize(
    ("rules", "options", "timer", "key"),
    [
        ("ludo", {}, 0, "rules_error.unknown_rules"),
        ("italian", {"teams": "yes"}, 0, "rules_error.not_bool"),
        ("classic", {"wings": True}, 0, "rules_error.unknown_option"),
        ("classic", {"pieces": 7}, 0, "rules_error.bad_pieces"),
        ("tower", {"teams": True}, 0, "rules_error.teams_free"),
        ("classic", {}, 3, "refuse.bad_timer"),
    ],
)
def test_bad_game_settings_are_refused(
    store: Store, rules: str, options: dict[str, Any], timer: int, key: str
) -> None:
    svc = service(store)
    r = svc.new_game("chan", ANA, rules, options, timer=timer)
    assert r.refused and r.lines[0].key == key
    assert store.channel_game("chan") is None


def test_end_is_for_the_creator_or_a_moderator(store: Store) -> None:
    svc, _ = started(store, seats=2)
    r = svc.end("chan", BEN)
    assert r.refused and r.lines[0].key == "refuse.only_creator_ends"
    assert current(svc, "chan").status == "playing"
    r = svc.end("chan", BEN, can_manage=True)
    assert not r.refused and r.finished
    assert store.channel_game("chan") is None


def test_leaving_a_running_game_hands_the_seat_to_a_computer(store: Store) -> None:
    svc, _ = started(store, seats=3)
    r = svc.leave("chan", CID)
    assert not r.refused and r.lines[0].key == "game.left"
    game = current(svc, "chan")
    seat = next(s for s in game.seats if s.colour == "yellow")
    assert seat.computer and seat.took_over
    # and when the last person leaves, the game ends
    svc.leave("chan", BEN)
    r = svc.leave("chan", ANA)
    assert r.finished and store.channel_game("chan") is None


# --------------------------------------------------------------------------
# turns


def test_rolling_out_of_turn_and_moving_before_rolling_are_refused(store: Store) -> None:
    svc, _reply = started(store, seats=2)
    game = current(svc, "chan")
    on, off = (ANA, BEN) if person_on_turn(game) == ANA else (BEN, ANA)
    before = stored_bytes(store, game.id)
    r = svc.roll("chan", off)
    assert r.refused and r.private and r.lines[0].key == "refuse.not_your_turn"
    r = svc.move("chan", on, 1)
    assert r.refused and r.lines[0].key == "refuse.roll_first"
    assert stored_bytes(store, game.id) == before


def test_no_legal_move_passes_by_itself_and_says_why(store: Store) -> None:
    # everybody in base: any roll but a 6 is a pass (classic 2, 11)
    for seed in range(1, 40):
        svc, _reply = started(store, seats=2, seed=seed, channel=f"c{seed}")
        game = current(svc, f"c{seed}")
        user = person_on_turn(game)
        assert user is not None
        r = svc.roll(f"c{seed}", user)
        if any(t.key == "ev.pass" for t in r.lines):
            assert current(svc, f"c{seed}").state.turn != game.state.turn  # type: ignore[union-attr]
            return
    pytest.fail("no pass in 39 games")


def test_a_single_legal_move_is_made_by_itself(store: Store) -> None:
    # a 6 with every piece in base has one legal move (out): made at once
    for seed in range(1, 80):
        svc, _reply = started(store, seats=2, seed=seed, channel=f"c{seed}")
        game = current(svc, f"c{seed}")
        user = person_on_turn(game)
        assert user is not None
        r = svc.roll(f"c{seed}", user)
        if current(svc, f"c{seed}").actions.startswith("6"):
            # the roll and the move it forced are told in one line
            assert r.lines[0].key == "ev.enter" and r.lines[0].params["die"] == 6
            assert current(svc, f"c{seed}").actions.startswith("6a")
            return
    pytest.fail("no 6 in 79 games")


def test_auto_move_can_be_switched_off(store: Store) -> None:
    for seed in range(1, 80):
        svc = service(store, seed=seed)
        ch = f"c{seed}"
        svc.new_game(ch, ANA, "classic", timer=0, auto_move=False)
        svc.join(ch, BEN)
        svc.start(ch, ANA)
        user = person_on_turn(current(svc, ch))
        assert user is not None
        r = svc.roll(ch, user)
        if any(t.key == "ev.roll" and t.params.get("die") == 6 for t in r.lines):
            assert not any(t.key == "ev.enter" for t in r.lines)
            assert [b.label.key for row in r.buttons for b in row] == ["btn.enter"]
            return
    pytest.fail("no 6 in 79 games")


def test_move_buttons_say_where_each_piece_goes(store: Store) -> None:
    svc, reply = started(store, seats=2, seed=3)
    for _ in range(400):
        game = current(svc, "chan")
        user = person_on_turn(game)
        assert user is not None
        labels = [b.label for row in reply.buttons for b in row]
        if len(labels) >= 2 and game.state is not None and game.state.phase == "move":
            moves = engine.legal_moves(game.state)
            assert [t.params["piece"] for t in labels] == [m.piece + 1 for m in moves]
            for data in (b.data for row in reply.buttons for b in row):
                assert len(data.encode()) <= MAX_BUTTON_DATA
            return
        reply = step(svc, "chan", reply)
    pytest.fail("never a choice of two moves")


# --------------------------------------------------------------------------
# refused presses change nothing


@pytest.mark.parametrize(
    "data",
    [
        "",
        "garbage",
        "g:zzzzzzzz:1:r",
        "g::1:r",
        "x" * 200,
        "g:00000000:1:r",
        "g:{id}:1:q",
        "g:{id}:{ver}:m9",
        "g:{id}:-1:r",
        "g:{id}:{ver}:r:extra",
        "\x00\xff",
    ],
)
def test_garbage_and_forged_button_data_is_refused(store: Store, data: str) -> None:
    svc, _reply = started(store, seats=2)
    game = current(svc, "chan")
    before = stored_bytes(store, game.id)
    user = person_on_turn(game)
    assert user is not None
    r = svc.press("chan", user, data.format(id=game.id, ver=game.version))
    assert r.refused and r.private
    assert stored_bytes(store, game.id) == before


def test_a_button_from_another_channel_is_refused(store: Store) -> None:
    svc, reply = started(store, seats=2)
    game = current(svc, "chan")
    before = stored_bytes(store, game.id)
    user = person_on_turn(game)
    assert user is not None
    svc.new_game("elsewhere", user, "classic")
    r = svc.press("elsewhere", user, buttons(reply)["btn.roll"])
    assert r.refused and r.lines[0].key == "refuse.bad_button"
    assert stored_bytes(store, game.id) == before


def test_an_outdated_button_is_refused_with_the_current_board(store: Store) -> None:
    svc, reply = started(store, seats=2, render=True)
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None
    old = buttons(reply)["btn.roll"]
    svc.press("chan", user, old)
    game = current(svc, "chan")
    before = stored_bytes(store, game.id)
    r = svc.press("chan", user, old)
    assert r.refused and r.private and r.lines[0].key == "refuse.outdated"
    assert r.image is not None and r.image_kind == "board"
    assert stored_bytes(store, game.id) == before


def test_a_press_by_someone_not_seated_is_refused_privately(store: Store) -> None:
    svc, reply = started(store, seats=2)
    game = current(svc, "chan")
    before = stored_bytes(store, game.id)
    r = svc.press("chan", CID, buttons(reply)["btn.roll"])
    assert r.refused and r.private and r.lines[0].key == "refuse.not_seated"
    assert stored_bytes(store, game.id) == before


def test_unknown_game_and_no_game(store: Store) -> None:
    svc = service(store)
    r = svc.roll("nowhere", ANA)
    assert r.refused and r.lines[0].key == "refuse.no_game"
    r = svc.press("nowhere", ANA, "g:0123abcd:2:r")
    assert r.refused and r.lines[0].key == "refuse.no_game"


# --------------------------------------------------------------------------
# stored games from elsewhere


def test_a_corrupt_stored_game_is_refused_and_frees_the_channel(store: Store) -> None:
    assert store.create("deadbeef", b"\x00not json{", channel="chan")
    svc = service(store)
    r = svc.roll("chan", ANA)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert r.channel == "chan" and r.chat == [Text("game.damaged")]  # the chat is told
    # it is gone: its buttons find no game, and a new game may start here
    r = svc.press("chan", ANA, "g:deadbeef:1:r")
    assert r.refused and r.lines[0].key == "refuse.no_game" and not r.chat
    assert store.load("deadbeef") is None and store.channel_game("chan") is None
    assert not svc.new_game("chan", ANA, "classic").refused


def test_a_game_from_a_newer_schema_is_refused_clearly(store: Store) -> None:
    svc, _ = lobby(store)
    game = current(svc, "chan")
    data = json.loads(stored_bytes(store, game.id))
    data["schema"] = SCHEMA + 1
    stored = store.load(game.id)
    assert stored is not None and store.save(game.id, json.dumps(data).encode(), stored.rev)
    r = svc.join("chan", BEN)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert "newer" in r.lines[0].params["why"]
    # not damaged, only newer: a worker of the newer version plays it on
    assert not r.chat and store.load(game.id) is not None
    assert store.channel_game("chan") == game.id
    assert svc.new_game("chan", BEN).refused
    assert not svc.fire_due()


def test_a_game_costs_few_bytes_in_the_store(store: Store) -> None:
    svc, reply = started(store, seats=2, computers=2)
    reply = play_out(svc, "chan", reply)
    stored = store.load(reply.game_id or "")
    assert stored is not None
    # a whole finished game, with its record, in well under 4 KB
    assert len(stored.data) < 4096, len(stored.data)


# --------------------------------------------------------------------------
# the turn timer


def test_an_expired_turn_is_played_by_the_computer(store: Store) -> None:
    clock = Clock()
    svc, _reply = started(store, seats=2, timer=60, clock=clock)
    game = current(svc, "chan")
    on_turn = game.state.turn  # type: ignore[union-attr]
    assert game.deadline == clock.now + 60
    assert svc.fire_due(clock.now + 59) == []  # not yet
    clock.advance(61)
    replies = svc.fire_due()
    assert len(replies) == 1 and replies[0].channel == "chan"
    assert replies[0].lines[0].key == "timer.expired"
    game = current(svc, "chan")
    assert game.state.turn != on_turn  # type: ignore[union-attr]
    seat = next(s for s in game.seats if s.colour == on_turn)
    assert seat.timeouts == 1 and not seat.computer
    # fired once: nothing more is due now
    assert svc.fire_due() == []


def test_three_timeouts_in_a_row_hand_the_seat_to_a_computer(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=30, clock=clock)
    first = current(svc, "chan").state.turn  # type: ignore[union-attr]
    took = False
    for _ in range(40):
        clock.advance(31)
        for r in svc.fire_due():
            took = took or any(t.key == "timer.took_over" for t in r.lines)
        if took:
            break
    assert took
    game = current(svc, "chan")
    seat = next(s for s in game.seats if s.colour == first)
    assert seat.computer and seat.took_over
    assert seat.timeouts == MAX_TIMEOUTS


def test_acting_in_time_resets_the_timeout_count(store: Store) -> None:
    clock = Clock()
    svc, reply = started(store, seats=2, timer=30, clock=clock)
    late = current(svc, "chan").state.turn  # type: ignore[union-attr]
    clock.advance(31)
    reply = svc.fire_due()[0]
    # the other player plays their turn; then the late one acts in time
    for _ in range(200):
        game = current(svc, "chan")
        user = person_on_turn(game)
        assert user is not None
        seat = game.seat_of(user)
        assert seat is not None
        if seat.colour == late:
            assert seat.timeouts == 1
            svc.roll("chan", user)
            assert current(svc, "chan").seat_of(user).timeouts == 0  # type: ignore[union-attr]
            return
        reply = step(svc, "chan", reply)
    pytest.fail("the late player never came back on turn")


def test_a_restart_loses_no_deadline(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    clock.advance(50)
    fresh = service(store, seed=5, clock=clock)  # the old process is gone
    replies = fresh.fire_due()
    assert [r.game_id for r in replies] == [game.id]


def test_a_deadline_fires_once_across_workers(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    clock.advance(50)
    a = service(store, seed=5, clock=clock)
    b = service(store, seed=6, clock=clock)
    fired = a.fire_due() + b.fire_due()
    assert len(fired) == 1
    assert current(svc, "chan").seats[0].timeouts + current(svc, "chan").seats[1].timeouts == 1


def test_a_move_in_time_cancels_the_deadline(store: Store) -> None:
    clock = Clock()
    svc, _reply = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None
    clock.advance(40)
    svc.roll("chan", user)
    clock.advance(10)  # past the first deadline, not the new one
    assert svc.fire_due() == []


# --------------------------------------------------------------------------
# looking: rules, status, board, movable pieces


def test_rules_of_the_game_here_or_by_name(store: Store) -> None:
    svc, _ = lobby(store, "italian", {"teams": True}, seats=1)
    r = svc.rules("chan")
    assert [t.key for t in r.lines] == ["rules.italian", "rules.options"]
    assert "teams=True" in r.lines[1].params["options"]
    assert svc.rules(rules="tower").lines[0].key == "rules.tower"
    assert svc.rules("empty-channel").lines[0].key == "rules.classic"
    r = svc.rules(rules="chess")
    assert r.refused and r.lines[0].key == "rules_error.unknown_rules"
    assert say(r.lines[0]) == "There are no chess rules: choose classic, tower, italian or super."


def test_status_and_board_change_nothing(store: Store) -> None:
    svc, reply = lobby(store, seats=2, render=True)
    game = current(svc, "chan")
    before = stored_bytes(store, game.id)
    assert svc.status("chan").lines[0].key == "lobby.status"
    assert svc.board("chan").image is None  # no board before the start
    svc.press("chan", ANA, buttons(reply)["btn.start"])
    game = current(svc, "chan")
    before = stored_bytes(store, game.id)
    status = svc.status("chan")
    assert [t.key for t in status.lines] == ["game.status", "turn.roll"]
    board = svc.board("chan")
    assert board.image is not None and board.image_kind == "board"
    assert [t.key for t in board.lines] == ["turn.roll"]
    assert stored_bytes(store, game.id) == before
    assert svc.status("nowhere").refused


def test_movable_lists_the_pieces_for_autocomplete(store: Store) -> None:
    svc, reply = started(store, seats=2, seed=3)
    for _ in range(400):
        game = current(svc, "chan")
        user = person_on_turn(game)
        assert user is not None
        if game.state is not None and game.state.phase == "move":
            expected = [(m.piece + 1) for m in engine.legal_moves(game.state)]
            assert [n for n, _ in svc.movable("chan", user)] == expected
            other = BEN if user == ANA else ANA
            assert svc.movable("chan", other) == []  # not their turn
            return
        assert svc.movable("chan", user) == []  # nothing to move before the roll
        reply = step(svc, "chan", reply)
    pytest.fail("never a choice of moves")


def _legal(state: engine.GameState, piece: int) -> bool:
    try:
        engine.apply(state, {"move": piece})
    except engine.IllegalAction:
        return False
    return True


def test_a_move_refusal_numbers_pieces_from_one(store: Store) -> None:
    svc, reply = started(store, seats=2, seed=3, auto_move=False)
    for _ in range(400):
        game = current(svc, "chan")
        user = person_on_turn(game)
        assert user is not None and game.state is not None
        if game.state.phase == "move":
            stuck = next((n for n in range(1, 5) if not _legal(game.state, n - 1)), None)
            if stuck is None:
                reply = step(svc, "chan", reply)
                continue
            r = svc.move("chan", user, stuck)
            assert r.refused and r.lines[0].key.startswith("illegal.")
            assert r.lines[0].params["piece"] == stuck
            assert r.lines[0].key != "illegal.other", "every reason has its own words"
            said = say(r.lines[0])
            assert f"Piece {stuck} " in said or r.lines[0].key == "illegal.must_enter", said
            for lang in ("pt_BR", "es", "it"):
                assert say(r.lines[0], lang=lang) != said
            r = svc.move("chan", user, 9)
            assert r.refused and r.lines[0].key == "illegal.no_such_piece"
            assert say(r.lines[0]) == "There is no piece 9: your pieces are 1 to 4."
            return
        reply = step(svc, "chan", reply)
    pytest.fail("never a move to refuse")


def test_a_deadline_of_a_damaged_game_is_dropped(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    stored = store.load(game.id)
    assert stored is not None and store.save(game.id, b"{broken", stored.rev)
    clock.advance(50)
    assert svc.fire_due() == []
    # not claimed again and again after the lease: it is gone from the schedule
    clock.advance(3600)
    assert store.claim_due(clock.now, 30) == []


class _CrashOnSave:
    """A store whose next save dies after reaching the store (a worker killed mid-press)."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.crash = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def save(self, game_id: str, data: bytes, rev: int, **kw: Any) -> bool:
        done = self.inner.save(game_id, data, rev, **kw)
        if self.crash:
            self.crash = False
            raise SystemExit("worker killed right after its save")
        return done


def test_a_worker_killed_right_after_saving_loses_no_deadline(store: Store) -> None:
    # the deadline is set in the same atomic step as the save: a worker that
    # dies right after it cannot leave a timed turn without its timer
    clock = Clock()
    proxy = _CrashOnSave(store)
    svc, reply = lobby(proxy, seats=2, timer=45, clock=clock)  # type: ignore[arg-type]
    proxy.crash = True
    with pytest.raises(SystemExit):
        svc.press("chan", ANA, buttons(reply)["btn.start"])
    clock.advance(50)
    fresh = service(store, seed=5, clock=clock)
    replies = fresh.fire_due()
    assert len(replies) == 1 and replies[0].lines[0].key == "timer.expired"


# --------------------------------------------------------------------------
# lobbies nobody starts


def test_a_lobby_nobody_starts_closes_and_frees_its_channel(store: Store) -> None:
    clock = Clock()
    svc, reply = lobby(store, seats=2, clock=clock)  # the default: 30 minutes
    game = current(svc, "chan")
    assert game.deadline == clock.now + 30 * 60
    clock.advance(29 * 60)
    assert svc.fire_due() == []
    clock.advance(61)
    [closed] = svc.fire_due()
    assert closed.game_id == game.id and closed.channel == "chan" and closed.finished
    assert closed.lines == [Text("lobby.expired", {"count": 30})]
    assert say(closed.lines[0]) == "Nobody started this game for 30 minutes: it is closed."
    assert closed.buttons == []
    assert svc.fire_due() == []  # closed once
    # its buttons are dead, and the channel takes a new game
    r = svc.press("chan", CID, buttons(reply)["btn.join"])
    assert r.refused and r.lines[0].key == "refuse.game_over"
    assert not svc.new_game("chan", BEN).refused


def test_how_long_a_lobby_waits_is_set_per_service(store: Store) -> None:
    clock = Clock()
    svc = service(store, clock=clock, lobby_minutes=1)
    svc.new_game("one", ANA)
    forever = service(store, clock=clock, lobby_minutes=0)
    forever.new_game("two", ANA)
    clock.advance(24 * 3600)
    [closed] = svc.fire_due()
    assert closed.channel == "one" and closed.lines == [Text("lobby.expired", {"count": 1})]
    assert current(svc, "two").status == "lobby"
    with pytest.raises(ValueError):
        service(store, lobby_minutes=-1)


def test_a_started_game_does_not_expire_as_a_lobby(store: Store) -> None:
    clock = Clock()
    svc, _ = started(store, seats=2, timer=0, clock=clock)
    clock.advance(3600)
    assert svc.fire_due() == []
    assert current(svc, "chan").status == "playing"


# --------------------------------------------------------------------------
# a damaged game is let go, once, wherever it is met


def damage(store: Store, game_id: str, **change: Any) -> None:
    """Save the game with some of its fields changed (as a bad disk or hand would)."""
    stored = store.load(game_id)
    assert stored is not None
    doc = json.loads(stored.data) | change
    assert store.save(game_id, json.dumps(doc).encode(), stored.rev)


def damage_warnings(caplog: pytest.LogCaptureFixture, game_id: str) -> list[str]:
    """The service's warnings naming ``game_id`` (the store may say what it skipped)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name == "bot.service" and game_id in r.getMessage()
    ]


@pytest.mark.parametrize("met_by", ["press", "command", "look", "timer", "open"])
def test_a_damaged_game_is_let_go_once_and_its_chat_told(
    store: Store, caplog: pytest.LogCaptureFixture, met_by: str
) -> None:
    clock = Clock()
    svc, reply = started(store, seats=2, timer=45, clock=clock)
    game = current(svc, "chan")
    damage(store, game.id, seats=[1])
    clock.advance(50)
    caplog.set_level(logging.WARNING)
    raw = svc.svc
    if met_by == "press":
        outcome = raw.press("chan", BEN, game.id, game.version, Intent("roll"))
    elif met_by == "command":
        outcome = raw.act("chan", BEN, Intent("roll"))
    elif met_by == "look":
        outcome = raw.look("chan")
    elif met_by == "timer":
        [outcome] = raw.fire_due()
    else:
        outcome = raw.open("chan", BEN)
    if met_by == "open":  # a new game opens at once in its place
        assert outcome.game is not None and not outcome.refused
        assert outcome.game.id != game.id
    else:
        assert outcome.game is None and outcome.freed == "chan" and outcome.channel == "chan"
        key = None if met_by == "timer" else "refuse.damaged"
        assert (outcome.refusal.key if outcome.refusal else None) == key
        assert reply_of(outcome).chat == [Text("game.damaged")]
        assert store.channel_game("chan") is None
    [warning] = damage_warnings(caplog, game.id)
    assert "damaged" in warning and "chan" in warning
    # gone for good: met again, nothing more is logged
    assert store.load(game.id) is None
    r = svc.press("chan", BEN, buttons(reply).get("btn.roll", f"g:{game.id}:1:r"))
    assert r.refused and r.lines[0].key in ("refuse.no_game", "refuse.bad_button")
    assert svc.fire_due() == [] and raw.look("chan").freed is None
    assert len(damage_warnings(caplog, game.id)) == 1
    if met_by != "open":
        assert not svc.new_game("chan", BEN).refused


DAMAGE: dict[str, Any] = {
    "seats": {"seats": [1]},
    "version": {"ver": "abc"},
    "deadline": {"due": "soon"},
    "state": {"state": {"v": 1, "rules": "classic", "players": ["red"], "pieces": {}}},
    "deep": None,  # nested deeper than any parser goes
    "torn": None,  # a write cut short: not JSON any more
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_one_damaged_game_among_seven_stops_no_other_timer(
    store: Store, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    clock = Clock()
    svc = service(store, clock=clock)
    ids = {}
    for k in range(7):
        channel = f"c{k}"
        svc.new_game(channel, ANA, timer=45)
        svc.join(channel, BEN)
        assert not svc.start(channel, ANA).refused
        ids[channel] = current(svc, channel).id
    bad = ids["c3"]
    if DAMAGE[kind] is not None:
        damage(store, bad, **DAMAGE[kind])
    else:
        stored = store.load(bad)
        assert stored is not None
        data = b"[" * 100_000 if kind == "deep" else stored.data[: len(stored.data) // 2]
        assert store.save(bad, data, stored.rev)
    clock.advance(50)
    caplog.set_level(logging.WARNING)
    fired: dict[str | None, list[str]] = {}
    for _ in range(2):
        for r in svc.fire_due():
            fired.setdefault(r.channel, []).extend(t.key for t in r.lines)
    healthy = [c for c in ids if c != "c3"]
    assert all(fired.get(c, [])[:1] == ["timer.expired"] for c in healthy), fired
    if kind == "deep":  # nothing says which chat it was in: it is freed, silently
        assert "c3" not in fired and store.channel_game("c3") is None
    else:
        assert fired["c3"] == ["game.damaged"]
    assert len(damage_warnings(caplog, bad)) == 1
    assert not svc.new_game("c3", CID).refused


def test_a_record_the_store_cannot_read_is_let_go_too(
    make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    store = make_store()
    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    _others, _ = started(store, seats=2, timer=45, clock=clock, channel="other")
    game = current(svc, "chan")
    if make_store.kind == "redis":
        client = redis.Redis.from_url(make_store.target)
        [key] = client.scan_iter(match=f"{make_store.prefix}*game:{game.id}")
        client.hset(key, "rev", "abc")
        client.close()
    else:
        with sqlite3.connect(make_store.target) as db:
            db.execute("UPDATE games SET rev = 'abc' WHERE id = ?", (game.id,))
    clock.advance(50)
    caplog.set_level(logging.WARNING)
    fired = svc.fire_due()  # the other game's timer fires
    assert [(r.channel, r.lines[0].key) for r in fired] == [("other", "timer.expired")]
    r = svc.roll("chan", ANA)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert r.channel == "chan" and r.chat == [Text("game.damaged")]
    assert len(damage_warnings(caplog, game.id)) == 1
    assert not svc.new_game("chan", CID).refused


# --------------------------------------------------------------------------
# the store out of reach


def store_up() -> float | None:
    return REGISTRY.get_sample_value("ludo_store_reachable")


def test_an_unreachable_store_refuses_every_request_and_warns_once(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    flaky = Flaky(store)
    clock = Clock()
    svc, _reply = started(flaky, seats=2, timer=45, clock=clock)
    raw = svc.svc
    raw.outage.settle = 0  # over at the first answer
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None and raw.store_reachable and store_up() == 1
    caplog.set_level(logging.INFO, logger="bot")
    flaky.down = True
    clock.advance(50)
    for _ in range(3):
        for outcome in (
            raw.open("elsewhere", ANA),
            raw.act("chan", user, Intent("roll")),
            raw.press("chan", user, game.id, game.version, Intent("roll")),
            raw.look("chan"),
        ):
            assert outcome.refusal is not None and outcome.refusal.key == "refuse.store_down"
            assert outcome.game is None and outcome.freed is None
        assert raw.get(game.id) is None and raw.game_in("chan") is None
        assert raw.shown(game.id) is None and raw.movable("chan", user) == []
        assert raw.note_shown(game.id, b"x", 0) is False
        assert raw.fire_due() == []
    assert not raw.store_reachable and not raw.store_answered and store_up() == 0
    assert flaky.failed >= 30
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        f"the game store is unreachable: {StoreUnavailable('cannot reach the store (a test)')}"
    ]
    # back: the same press works, the timer fires, and that is said once
    flaky.down = False
    r = svc.roll("chan", user)
    assert not r.refused, r.lines
    assert raw.store_reachable and store_up() == 1
    assert svc.fire_due() == []  # the roll came in time for its new deadline
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and said[1].startswith("the game store is back after ")
    assert all(r.exc_info is None for r in caplog.records)  # no tracebacks


def test_an_outage_is_told_once_however_many_threads_meet_it(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    flaky = Flaky(store)
    svc, _ = started(flaky, seats=2)
    raw = svc.svc
    raw.outage.settle = 0
    caplog.set_level(logging.WARNING, logger="bot")
    flaky.down = True

    def presses() -> list[str]:
        return [raw.act("chan", ANA, Intent("roll")).refusal.key for _ in range(30)]

    with ThreadPoolExecutor(8) as pool:
        keys = [k for got in pool.map(lambda _: presses(), range(8)) for k in got]
    assert keys == ["refuse.store_down"] * 240
    flaky.down = False
    with ThreadPoolExecutor(8) as pool:
        looks = list(pool.map(lambda _: raw.look("chan"), range(16)))
    assert all(o.game is not None for o in looks)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert "unreachable" in said[0] and "back after" in said[1]


def test_a_state_the_engine_refuses_is_damage_but_a_bug_keeps_the_game(
    store: Store, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.service

    clock = Clock()
    svc, _ = started(store, seats=2, timer=45, clock=clock)
    _others, _ = started(store, seats=2, timer=45, clock=clock, channel="other")
    game = current(svc, "chan")
    user = person_on_turn(game)
    assert user is not None
    caplog.set_level(logging.WARNING)

    def bug(*args: Any) -> None:
        raise KeyError("a bug")

    # a bug: logged with its traceback, refused "try again", the game kept
    monkeypatch.setattr(bot.service, "perform", bug)
    r = svc.roll("chan", user)
    assert r.refused and r.lines[0].key == "refuse.busy" and not r.chat
    assert any(rec.exc_info is not None for rec in caplog.records)
    monkeypatch.setattr(bot.service, "timeout", bug)
    clock.advance(50)
    assert svc.fire_due() == []  # both timers fail; neither game is lost
    assert store.load(game.id) is not None and store.channel_game("chan") == game.id
    monkeypatch.undo()

    # the engine refusing the state: the game cannot go on, and is let go
    def refused(*args: Any) -> None:
        raise engine.RecordError("state: a piece where none can be")

    monkeypatch.setattr(bot.service, "perform", refused)
    r = svc.roll("chan", user)
    assert r.refused and r.lines[0].key == "refuse.damaged"
    assert r.channel == "chan" and r.chat == [Text("game.damaged")]
    assert store.load(game.id) is None
    monkeypatch.undo()
    clock.advance(50)
    assert [r.channel for r in svc.fire_due()] == ["other"]
