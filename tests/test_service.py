"""The game service over a real store (SQLite and Redis): whole games, the lobby, turns,
refused presses changing nothing, and looking at the rules, the status, the board and
the movable pieces."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot.hosting import Game
from bot.present import MAX_BUTTON_DATA, say
from bot.store import Store
from tests.helpers.service import (
    ANA,
    BEN,
    CID,
    DEE,
    buttons,
    current,
    lobby,
    person_on_turn,
    play_out,
    service,
    started,
    step,
    stored_bytes,
)

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
