"""Computer levels per seat and per table (issue 24's wiring) over a real store
(SQLite file and Redis): stored and read back, refused when damaged, chosen in the
lobby by its host, given to the computers added, filling seats, and taking over."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.hosting import Game, Intent, Seat
from bot.hosting.game import DamagedGame
from bot.hosting.turns import level_of
from bot.players import LEVELS, RandomPlayer
from bot.present import Text, parse_press, say
from bot.present.buttons import level_button
from bot.store import Store
from engine import GameState, Move
from tests.helpers.service import ANA, BEN, Clock, Reply, buttons, current, service, stored_bytes


def level_press(svc: Any, user: Any, reply: Reply) -> Reply:
    return svc.press("chan", user, buttons(reply)["btn.level"])


def button_label(reply: Reply, key: str) -> Text:
    return next(b.label for row in reply.buttons for b in row if b.label.key == key)


def test_levels_are_stored_compactly_and_read_back(store: Store) -> None:
    svc = service(store)
    reply = svc.new_game("chan", ANA, level="hard")
    assert not reply.refused, reply.lines
    assert say(button_label(reply, "btn.level")) == "Level: hard"
    reply = svc.add_computer("chan", ANA)  # a hard computer
    reply = level_press(svc, ANA, reply)  # hard -> expert
    assert reply.lines[0] == Text("lobby.level", {"level": Text("level.expert")})
    assert say(reply.lines[0]).startswith("Computer level: expert.")
    reply = svc.add_computer("chan", ANA)
    reply = level_press(svc, ANA, reply)  # expert -> easy
    game = current(svc, "chan")
    assert game.level == "easy"
    assert [s.level for s in game.seats] == ["normal", "hard", "expert"]
    raw = json.loads(stored_bytes(store, game.id))
    assert raw["lvl"] == "easy"
    assert [s.get("l") for s in raw["seats"]] == [None, "hard", "expert"]
    again = Game.from_bytes(stored_bytes(store, game.id))
    assert (again.level, [s.level for s in again.seats]) == ("easy", ["normal", "hard", "expert"])
    # the lobby names each computer's level
    assert "(Ana, Computer (hard), Computer (expert))" in say(reply.lines[-1])
    assert "Computador (especialista)" in say(reply.lines[-1], lang="pt_BR")


def test_a_normal_table_stores_no_level_and_old_games_load_as_normal(store: Store) -> None:
    svc = service(store)
    svc.new_game("chan", ANA)
    svc.add_computer("chan", ANA)
    game = current(svc, "chan")
    raw = json.loads(stored_bytes(store, game.id))
    assert "lvl" not in raw and all("l" not in s for s in raw["seats"])
    assert game.level == "normal" and game.seats[1].level == "normal"


@pytest.mark.parametrize(
    ("where", "value"),
    [("lvl", "godlike"), ("lvl", 3), ("lvl", None), ("l", "Expert"), ("l", ["hard"])],
)
def test_a_damaged_level_is_refused_on_load(where: str, value: Any) -> None:
    game = Game("0123abcd", "chan", "classic", {}, ANA, 0)
    game.seats = [Seat(ANA), Seat(None, level="hard")]
    raw = json.loads(game.to_bytes())
    if where == "lvl":
        raw["lvl"] = value
    else:
        raw["seats"][1]["l"] = value
    with pytest.raises(DamagedGame, match=r"level|lvl"):
        Game.from_bytes(json.dumps(raw).encode())


def test_only_the_host_or_a_moderator_changes_the_level_and_only_in_the_lobby(
    store: Store,
) -> None:
    svc = service(store)
    svc.new_game("chan", ANA)
    reply = svc.join("chan", BEN)
    refused = level_press(svc, BEN, reply)
    assert refused.refused and refused.lines[0].key == "refuse.only_host_level"
    assert say(refused.lines[0]) == "Only Ana or a moderator can change the computer level."
    assert current(svc, "chan").level == "normal"
    # a moderator may
    done = svc.act("chan", BEN, "level", level="expert", can_manage=True)
    assert not done.refused and current(svc, "chan").level == "expert"
    # a level that is none: refused, the levels listed in the asker's words
    bad = svc.act("chan", ANA, "level", level="godlike")
    assert bad.refused and bad.lines[0].key == "refuse.bad_level"
    assert say(bad.lines[0]) == (
        "There is no such computer level. Choose easy, normal, hard or expert."
    )
    assert say(bad.lines[0], lang="it") == (
        "Questo livello del computer non esiste. Scegli facile, normale, difficile o esperto."
    )
    assert current(svc, "chan").level == "expert"
    # started: nobody changes it any more
    reply = svc.start("chan", ANA)
    late = svc.act("chan", ANA, "level", level="easy")
    assert late.refused and late.lines[0].key == "refuse.already_started"
    assert current(svc, "chan").level == "expert"


def test_level_buttons_forged_or_stale_change_nothing(store: Store) -> None:
    svc = service(store)
    reply = svc.new_game("chan", ANA)
    data = buttons(reply)["btn.level"]
    press = parse_press(data)
    assert press is not None and press.intent == Intent("level", level="hard")
    game_id, version = press.game_id, press.version
    for forged in ("v", "v0", "v5", "v9", "v12", "vx"):
        assert parse_press(f"g:{game_id}:{version}:{forged}") is None
    assert parse_press(level_button(game_id, version, "expert")) is not None
    # the button sets the level it showed next: pressed twice, it is hard still
    svc.press("chan", ANA, data)
    svc.press("chan", ANA, data)
    assert current(svc, "chan").level == "hard"
    # a press from another game's button: refused, nothing changes
    other = svc.press("chan", ANA, level_button("ffffffff", version, "easy"))
    assert other.refused and current(svc, "chan").level == "hard"


def test_computers_added_and_filling_seats_take_the_table_level(store: Store) -> None:
    svc = service(store)
    reply = svc.new_game("chan", ANA, "italian", {"teams": True}, level="hard")
    svc.add_computer("chan", ANA)
    svc.act("chan", ANA, "level", level="easy")
    reply = svc.start("chan", ANA)
    assert not reply.refused, reply.lines
    game = current(svc, "chan")
    assert [s.level for s in game.seats] == ["normal", "hard", "easy", "easy"]
    filled = next(t for t in reply.lines if t.key == "lobby.computer_filled")
    assert say(filled) == "Computer players (easy) take the empty seats."


class Recorder:
    """The service's computers: records which level is asked for, for which colour."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []
        self.rng = random.Random(3)

    def __call__(self, level: str) -> Recorder.Player:
        assert level in LEVELS
        return Recorder.Player(self, level)

    class Player:
        def __init__(self, recorder: Recorder, level: str) -> None:
            self.recorder, self.level = recorder, level

        def choose(self, state: GameState, moves: list[Move]) -> Move:
            self.recorder.asked.append((self.level, state.turn))
            return RandomPlayer(self.recorder.rng).choose(state, moves)


def test_each_seat_plays_at_its_level_and_a_seat_taken_over_at_the_tables(store: Store) -> None:
    clock, recorder = Clock(), Recorder()
    svc = service(store, clock=clock, computers=recorder)
    svc.new_game("chan", ANA, level="easy", timer=30)
    svc.add_computer("chan", ANA)  # easy
    svc.act("chan", ANA, "level", level="hard")
    svc.add_computer("chan", ANA)  # hard
    svc.join("chan", BEN)
    svc.act("chan", ANA, "level", level="expert")  # the people's seats, when the timer plays
    reply = svc.start("chan", ANA)
    assert not reply.refused, reply.lines
    game = current(svc, "chan")
    wanted = {s.colour: ("expert" if s.user else s.level) for s in game.seats}
    assert sorted(wanted.values()) == ["easy", "expert", "expert", "hard"]
    # nobody acts: the timer plays the people's turns, then takes their seats over
    for _ in range(400):
        now = svc.get(game.id)
        if now is None or now.status != "playing":
            break
        clock.advance(31)
        svc.fire_due()
    over = svc.get(game.id)
    assert over is not None and over.status == "over"
    game = over
    assert all(s.took_over for s in game.seats if s.colour and wanted[s.colour] == "expert")
    assert recorder.asked, "no decision was asked for"
    assert all(level == wanted[colour] for level, colour in recorder.asked)
    assert {level for level, _ in recorder.asked} == {"easy", "hard", "expert"}
    for seat in game.seats:
        assert seat.colour is not None and level_of(game, seat.colour) == wanted[seat.colour]


def test_a_rematch_keeps_the_levels(store: Store) -> None:
    svc = service(store, computers=Recorder())
    svc.new_game("chan", ANA, level="hard")
    svc.add_computer("chan", ANA)
    svc.act("chan", ANA, "level", level="easy")
    svc.start("chan", ANA)
    svc.end("chan", ANA)
    done = svc.svc.rematch("chan", ANA)
    assert done.refusal is None and done.game is not None
    assert done.game.level == "easy"
    assert [s.level for s in done.game.seats] == ["normal", "hard"]
