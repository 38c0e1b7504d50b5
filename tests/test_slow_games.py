"""Slow games, games that may take days: turn timers of up to 7 days typed as ``12h`` or
``3d`` and said in words, one reminder three quarters into a slow turn (exactly once, on
both stores and across workers), and a game kept while its deadline is ahead, however
short the store's ttl (docs/decisions.md, "Decisions about slow games")."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.app.config import ConfigError, load_settings
from bot.hosting import (
    LOBBY,
    PLAYING,
    TIMER_RANGE,
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
from bot.hosting.slow import SLOW, reminder_at
from bot.players import RandomPlayer
from bot.present import Text, refusal_text, say, status_lines, table_view
from bot.present.timer import (
    TOO_LONG,
    UNREADABLE,
    asked_timer,
    bad_timer,
    duration,
    per_turn,
    time_left,
    timer_seconds,
    typed_timer,
)
from bot.store import KEEP, RedisStore, SqliteStore, Store
from tests.helpers.service import ANA, BEN, current, person_on_turn, service, started
from tests.helpers.stores import STORE_TTL, FakeClock, StoreFactory

HOUR, DAY = 3600, 24 * 3600
LANGS = ("en", "es", "it", "pt_BR")


# --------------------------------------------------------------------------
# the timer as people type it


@pytest.mark.parametrize(
    ("typed", "seconds"),
    [
        ("12h", 12 * HOUR),
        ("3d", 3 * DAY),
        ("90m", 90 * 60),
        ("45s", 45),
        ("60", 60),
        ("off", 0),
        ("0", 0),
        ("OFF", 0),
        ("None", 0),
        ("12H", 12 * HOUR),
        ("3D", 3 * DAY),
        ("1h30m", 90 * 60),
        ("1d12h", 36 * HOUR),
        (" 2 h ", 2 * HOUR),
        ("7d", 7 * DAY),
        ("1234567", TOO_LONG),  # a number of more than 6 digits: out of range
        ("9999999d", TOO_LONG),
        ("1h30", None),  # 30 what?
        ("1.5h", None),
        ("-5", None),
        ("soon", None),
        ("", None),
        ("h", None),
        ("30m1h", None),  # largest unit first
        ("٣h", None),  # digits are ASCII digits
    ],
)
def test_a_timer_is_typed_in_seconds_minutes_hours_or_days(typed: str, seconds: int) -> None:
    assert timer_seconds(typed) == seconds


def test_a_typed_timer_that_is_none_is_refused_saying_what_a_timer_looks_like() -> None:
    assert typed_timer("12h") == 12 * HOUR
    refused = typed_timer("soon")
    assert refused == Text("tg.bad_timer", {"value": "soon"})
    for lang in LANGS:
        said = say(refused, lang=lang)
        assert "soon" in said and "12h" in said and "3d" in said, said
    # Discord's option: not given, a timer, or no timer at all (refused by the lobby)
    assert asked_timer(None) is None
    assert asked_timer("3d") == 3 * DAY
    assert asked_timer("soon") == UNREADABLE


@pytest.mark.parametrize(
    ("timer", "refused"),
    [
        (0, False),
        (TIMER_RANGE[0], False),
        (7 * DAY, False),
        (TIMER_RANGE[0] - 1, True),
        (7 * DAY + 1, True),
        (TOO_LONG, True),
        (UNREADABLE, True),
    ],
)
def test_the_timer_is_off_or_from_10_seconds_to_7_days(timer: int, refused: bool) -> None:
    assert TIMER_RANGE == (10, 7 * DAY)
    try:
        game = open_game("g", "c", ANA, "classic", {}, timer=timer, auto_move=True, now=0)
    except Refusal as no:
        assert refused and no.key == "refuse.bad_timer"
        # the refusal states the range in words, in every language
        assert refusal_text(no) == bad_timer()
        assert say(refusal_text(no)) == (
            "The turn timer is off (0) or from 10 seconds to 7 days, written like 45s, 90m, "
            "12h or 3d."
        )
        words = {"es": "7 días", "it": "7 giorni", "pt_BR": "7 dias"}
        for lang, week in words.items():
            assert week in say(refusal_text(no), lang=lang)
    else:
        assert not refused and game.timer == timer


def test_the_default_timer_may_be_up_to_7_days() -> None:
    assert load_settings({"LUDO_TURN_SECONDS": str(7 * DAY)}).turn_seconds == 7 * DAY
    with pytest.raises(ConfigError, match="LUDO_TURN_SECONDS must be from 0 to 604800"):
        load_settings({"LUDO_TURN_SECONDS": str(7 * DAY + 1)})


# --------------------------------------------------------------------------
# the timer in words


@pytest.mark.parametrize(
    ("seconds", "english"),
    [
        (DAY, "a day per turn"),
        (3 * DAY, "3 days per turn"),
        (36 * HOUR, "36 hours per turn"),
        (HOUR, "an hour per turn"),
        (12 * HOUR, "12 hours per turn"),
        (120, "2 minutes per turn"),
        (60, "a minute per turn"),
        (90, "90 seconds per turn"),
        (90 * 60, "90 minutes per turn"),
        (0, "off"),
    ],
)
def test_the_timer_in_words(seconds: int, english: str) -> None:
    assert say(per_turn(seconds)) == english


def test_the_timer_in_words_counts_in_every_language() -> None:
    one = {lang: say(per_turn(HOUR), lang=lang) for lang in LANGS}
    two = {lang: say(per_turn(2 * HOUR), lang=lang) for lang in LANGS}
    assert one == {
        "en": "an hour per turn",
        "es": "una hora por turno",
        "it": "un'ora per turno",
        "pt_BR": "uma hora por jogada",
    }
    assert two == {
        "en": "2 hours per turn",
        "es": "2 horas por turno",
        "it": "2 ore per turno",
        "pt_BR": "2 horas por jogada",
    }
    assert [say(duration(s), lang="it") for s in (DAY, 2 * DAY, 10)] == [
        "un giorno",
        "2 giorni",
        "10 secondi",
    ]
    # a time left, rounded to what a person would say
    assert [say(time_left(s)) for s in (42 * HOUR, 3 * HOUR, 1350, 30, 2 * DAY + 5)] == [
        "42 hours",
        "3 hours",
        "23 minutes",
        "30 seconds",
        "2 days",
    ]


def test_the_lobby_and_the_status_say_the_timer_in_words() -> None:
    game = open_game("g", "c", ANA, "classic", {}, timer=12 * HOUR, auto_move=True, now=0)
    (status,) = table_view(game).status
    assert status.key == "lobby.status" and status.params["timer"] == per_turn(12 * HOUR)
    assert say(status) == (
        "Waiting to start classic Ludo: 1/4 seated (Ana). Timer: 12 hours per turn."
    )
    assert say(status, lang="it").endswith("Tempo: 12 ore per turno.")
    off = open_game("g", "c", ANA, "classic", {}, timer=0, auto_move=True, now=0)
    assert say(table_view(off).status[0]).endswith("Timer: off.")
    assert say(status_lines(off)[0]) == say(table_view(off).status[0])
    perform(game, BEN, Intent("join"), _luck(0))
    perform(game, ANA, Intent("start"), _luck(0))
    line = say(status_lines(game)[0])
    assert line.endswith("Timer: 12 hours per turn.") and "Ana (red)" in line, line


# --------------------------------------------------------------------------
# the reminder, in the hosting domain


def _luck(now: float) -> Luck:
    """Chance at ``now``: every roll a 2 (nothing leaves the base), the first seat starts."""
    player = RandomPlayer(random.Random(1))
    return Luck(lambda: 2, lambda n: 0, lambda level: player, now)


def _slow_game(timer: int, now: float = 0.0) -> Game:
    game = open_game("g", "c", ANA, "classic", {}, timer=timer, auto_move=True, now=now)
    perform(game, BEN, Intent("join"), _luck(now))
    perform(game, ANA, Intent("start"), _luck(now))
    return game


def test_a_slow_turn_is_reminded_once_three_quarters_into_its_time() -> None:
    game = _slow_game(4 * HOUR)
    assert game.status == PLAYING and game.deadline == 4 * HOUR
    # the store wakes the game for the reminder first
    assert game.due == 3 * HOUR == reminder_at(game.timer, game.deadline, False)
    version, actions, turn = game.version, game.actions, game.state.turn  # type: ignore[union-attr]
    with pytest.raises(Refusal) as early:
        timeout(game, _luck(3 * HOUR - 1), Happened())
    assert early.value.key == "timer.not_due"
    happened = Happened()
    timeout(game, _luck(3 * HOUR + 5), happened)
    assert happened.reminder and game.reminded
    assert happened.facts == [
        Note("remind.turn", {"who": "Ana", "colour": "red", "left": HOUR - 5}),
    ]
    # nothing moved: same turn, same buttons, the same deadline, now the store's
    assert (game.version, game.actions, game.state.turn) == (version, actions, turn)  # type: ignore[union-attr]
    assert game.deadline == 4 * HOUR and game.due == game.deadline
    # once: the mark is saved with the game
    again = Game.from_bytes(game.to_bytes())
    assert again.reminded and again.due == 4 * HOUR
    with pytest.raises(Refusal):
        timeout(again, _luck(3 * HOUR + 10), Happened())
    # the deadline itself still plays the turn, as ever
    expired = Happened()
    timeout(again, _luck(4 * HOUR), expired)
    assert [f.key for f in expired.facts if isinstance(f, Note)] == ["timer.expired"]
    assert not expired.reminder and again.state.turn != turn  # type: ignore[union-attr]
    # the turn passed: a new deadline, and the mark reset for its reminder
    assert not again.reminded and again.deadline == 8 * HOUR and again.due == 7 * HOUR


def test_a_move_resets_the_reminder_and_short_timers_have_none() -> None:
    game = _slow_game(HOUR)
    happened = Happened()
    timeout(game, _luck(45 * 60), happened)
    assert happened.reminder and game.reminded
    perform(game, ANA, Intent("roll"), _luck(50 * 60))  # a 2: the turn passes
    assert not game.reminded and game.due == 50 * 60 + 45 * 60
    quick = _slow_game(SLOW - 1)  # under an hour: no reminder, only the deadline
    assert quick.due == quick.deadline == SLOW - 1
    with pytest.raises(Refusal):
        timeout(quick, _luck(SLOW - 2), Happened())


def test_a_reminder_comes_only_to_a_person_on_turn_in_a_game() -> None:
    lobby_game = open_game("g", "c", ANA, "classic", {}, timer=DAY, auto_move=True, now=0)
    assert lobby_game.status == LOBBY and lobby_game.due == lobby_game.deadline is None
    finished = _slow_game(DAY)
    perform(finished, ANA, Intent("end"), _luck(0))
    assert finished.due is None and not finished.reminded


def test_games_saved_before_slow_games_still_load_and_slow_ones_keep_older_bots_away() -> None:
    game = _slow_game(120)
    old = json.loads(game.to_bytes())
    assert old["schema"] == 1 and "rmd" not in old  # as every game was saved before
    again = Game.from_bytes(json.dumps(old).encode())
    assert again.timer == 120 and not again.reminded and again.due == again.deadline
    slow = _slow_game(3 * DAY)
    slow.reminded = True
    data = json.loads(slow.to_bytes())
    # a timer over a day: a format an older ludo-bot leaves alone (saved by a newer one)
    assert data["schema"] == 2 and data["rmd"] == 1 and data["timer"] == 3 * DAY
    assert Game.from_bytes(slow.to_bytes()).reminded


# --------------------------------------------------------------------------
# the reminder, through the service, on both stores


def test_the_service_reminds_once_then_plays_the_expired_turn(
    store: Store, make_store: StoreFactory, clock: FakeClock
) -> None:
    clock.now = round(clock.now)  # whole seconds: a saved deadline keeps 3 decimals
    svc, _ = started(store, seats=2, timer=12 * HOUR, clock=clock)
    game = current(svc, "chan")
    ana, colour = person_on_turn(game), game.state.turn  # type: ignore[union-attr]
    assert ana is not None and game.deadline == clock.now + 12 * HOUR
    clock.advance(9 * HOUR - 1)
    assert svc.fire_due() == []
    clock.advance(1)
    # two workers (two stores on the same data) look at once: one reminder
    other = service(make_store(), seed=7, clock=clock)
    [reminded] = svc.fire_due() + other.fire_due()
    view = reminded.view
    assert view is not None and view.remind and not view.nudge
    assert view.turn == ana and [t.key for t in view.story] == ["remind.turn"]
    assert say(view.story[0]) == (
        f"{ana.name} ({colour}), it is your turn: 3 hours left before the computer plays it."
    )
    after = current(svc, "chan")
    assert after.reminded and (after.version, after.actions) == (game.version, game.actions)
    # a retry (a stale deadline, a worker that took it again): no second reminder
    store.schedule(game.id, clock.now)
    clock.advance(60)
    assert svc.fire_due() + other.fire_due() == []
    # the deadline still plays the turn for them, as it always did
    clock.advance(3 * HOUR - 60)
    [expired] = other.fire_due()
    assert expired.lines[0].key == "timer.expired" and not expired.view.remind  # type: ignore[union-attr]
    moved = current(svc, "chan")
    assert person_on_turn(moved) != ana and not moved.reminded
    assert moved.seat_of(ana).timeouts == 1  # type: ignore[union-attr]
    # the next turn has its own reminder
    clock.advance(9 * HOUR)
    [next_one] = svc.fire_due()
    assert next_one.view is not None and next_one.view.remind
    assert next_one.view.turn == person_on_turn(moved)


def test_only_a_reminder_view_asks_for_a_reminder(store: Store, clock: FakeClock) -> None:
    clock.now = round(clock.now)
    svc, reply = started(store, seats=2, timer=DAY, clock=clock)
    assert reply.view is not None and not reply.view.remind
    clock.advance(DAY * 3 // 4)
    [reminded] = svc.fire_due()
    assert reminded.view is not None and reminded.view.remind
    looked = svc.board("chan")  # the same game, looked at: no reminder
    assert looked.view is not None and not looked.view.remind


# --------------------------------------------------------------------------
# a slow game is kept while it is played


def test_a_slow_game_outlives_a_short_ttl_while_its_deadline_is_ahead(
    store: Store, clock: FakeClock
) -> None:
    assert STORE_TTL == HOUR  # the store forgets a game an hour after its last save...
    clock.now = round(clock.now)
    svc, _ = started(store, seats=2, timer=3 * DAY, clock=clock)
    game = current(svc, "chan")
    if isinstance(store, RedisStore):  # Redis itself keeps the keys that long too
        assert store.client.pttl(store._game(game.id)) > 2 * DAY * 1000
        assert store.client.pttl(store._chan("chan")) > 2 * DAY * 1000
    clock.advance(2 * DAY)  # ...but not while its turn has days to go
    assert svc.game_in("chan") is not None and store.load(game.id) is not None
    clock.advance(DAY // 4)
    [reminded] = svc.fire_due()
    assert reminded.view is not None and reminded.view.remind
    clock.advance(DAY * 3 // 4)
    [expired] = svc.fire_due()
    assert expired.lines[0].key == "timer.expired"
    assert current(svc, "chan").state.turn != game.state.turn  # type: ignore[union-attr]


def test_a_quick_game_left_alone_still_expires_after_the_ttl(
    store: Store, clock: FakeClock
) -> None:
    svc, _ = started(store, seats=2, timer=60, clock=clock, lobby_minutes=0)
    clock.advance(STORE_TTL + 59)
    assert svc.game_in("chan") is not None
    clock.advance(2)
    assert svc.game_in("chan") is None


def test_the_store_keeps_a_game_until_its_deadline_and_a_ttl_after(
    store: Store, clock: FakeClock
) -> None:
    week = clock.now + 7 * DAY
    assert store.create("g", b"x", channel="c", due=week)
    clock.advance(6 * DAY)
    assert store.load("g") is not None and store.channel_game("c") == "g"
    # a save keeping the deadline keeps the expiry that outlasts it
    assert store.save("g", b"y", 1, due=KEEP)
    clock.advance(DAY + STORE_TTL - 1)
    assert store.load("g") is not None and store.channel_game("c") == "g"
    clock.advance(2)
    assert store.load("g") is None and store.channel_game("c") is None
    # a deadline moved nearer, or taken away: a ttl from the save, as ever
    assert store.create("f", b"x", channel="e", due=clock.now + 7 * DAY)
    assert store.save("f", b"y", 1, due=clock.now + 60)
    clock.advance(STORE_TTL + 59)
    assert store.save("f", b"z", 2, due=None)
    clock.advance(STORE_TTL - 1)
    assert store.load("f") is not None
    clock.advance(2)
    assert store.load("f") is None
    # a save with a far deadline renews the game until then, and a ttl after
    assert store.create("h", b"x", channel="d")
    assert store.save("h", b"y", 1, due=clock.now + 3 * DAY)
    clock.advance(3 * DAY + STORE_TTL - 1)
    assert store.load("h") is not None
    assert store.claim_due(clock.now, 30) == ["h"]
    clock.advance(2)
    assert store.load("h") is None


def test_sqlite_never_purges_a_game_whose_deadline_is_ahead(
    tmp_path: Path, clock: FakeClock
) -> None:
    with SqliteStore(str(tmp_path / "slow.sqlite3"), ttl=100, clock=clock) as s:
        s.create("slow", b"x", channel="c1")
        s.schedule("slow", clock.now + 1000)  # a deadline moved past its expiry
        s.create("quick", b"y", channel="c2")
        clock.advance(101)
        assert s.purge() == 1  # the quick one went
        rows = [r[0] for r in s._conn.execute("SELECT id FROM games")]
        assert rows == ["slow"]
        clock.advance(1000)
        assert s.purge() == 1
        assert s._conn.execute("SELECT count(*) FROM deadlines").fetchone()[0] == 0
