"""The Telegram adapter end to end, in play: the real python-telegram-bot ``Application``
against the fake Bot API (:mod:`tests.fakes.telegram`), over a real store.

Whole games in a group by buttons and by commands (the group's limit kept, the table
always the newest message), ``/board``, a restart in the middle, refused presses and
who may press what, the turn timer, people joining at once, forum topics and private
chats, and any display name.  People act only the way Telegram lets them (see
:mod:`tests.helpers.telegram`)."""

from __future__ import annotations

import asyncio
import html
import random
import re
from typing import Any

import pytest

import engine
from bot.adapters.telegram import COMMANDS
from bot.app.runner import run_timers
from bot.hosting import OVER, PLAYING, Game
from bot.present import Text, languages, say
from bot.present.pictures import board_png
from bot.store import Store
from renderer import render_standings
from tests.fakes.telegram import FakeTelegram, make_user
from tests.helpers.telegram import (
    ANA,
    BEN,
    CID,
    DEE,
    IMAGE_SIZE,
    MENTION,
    PHOTO_CALLS,
    SENDING,
    full_name,
    game_id_of,
    plain,
    running,
    shown_message,
    told,
)

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]


# --------------------------------------------------------------------------
# a whole game


#: the group limit in the end-to-end games: Telegram's 20 messages or edits, in a
#: shorter window than its minute so that a game takes seconds
LIMIT, PERIOD = 20, 1.0
#: the bot keeps a little more than that: a call reaches the server a moment after it
#: leaves, later still on a busy test machine (the fake and the bot share one event loop)
KEPT = 1.25


def chat_figures(fake: FakeTelegram, chat_id: int, presses: int) -> dict[str, Any]:
    """What a game left in the group, and what it cost."""
    calls = fake.group_calls(chat_id)
    visible = fake.chat_messages(chat_id)
    return {
        "presses": presses,
        "messages": sum(c.method.startswith("send") for c in calls),
        "edits": sum(c.method.startswith("edit") for c in calls),
        "deletes": len(
            [c for c in fake.calls_of("deleteMessage", ok=True) if c.chat_id == chat_id]
        ),
        "calls_per_press": round(len(calls) / presses, 2),
        "busiest_window": fake.busiest(chat_id, PERIOD),
        "visible": len(visible),
        "with_buttons": sum(bool(m.keyboard) for m in visible),
    }


@pytest.mark.slow
@pytest.mark.parametrize("make_store", ["redis"], indirect=True)
async def test_a_whole_game_in_a_group_by_buttons_only(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    """A whole game, once, on Redis (the store that workers share; the typed game below
    runs on SQLite, and the presses on either store are checked by the next test)."""
    group = fake.group("Friday Ludo")
    fake.group_limit = (LIMIT, PERIOD)
    people = {ANA["id"]: ANA, BEN["id"]: BEN}
    async with running(
        fake, store, clock, seed=11, group_rate=LIMIT, group_period=KEPT, max_retries=3
    ) as bot:
        # the commands are registered
        assert fake.commands == [
            {"command": c, "description": say(Text(f"tg.cmd.{c}"))} for c in COMMANDS
        ]
        assert {"ludo", "join", "leave", "roll", "move", "board", "rules", "end", "help"} <= {
            c["command"] for c in fake.commands
        }
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN], computers=2)
        lobby_now = fake.message(group["id"], lobby.message_id)
        assert "Ana Silva" in lobby_now.text and "Ben" in lobby_now.text and "4/4" in lobby_now.text
        first = await bot.start(lobby, ANA)
        assert "begins" in plain(first.photos[0].caption or "")

        clicks = await bot.play(group["id"], game_id, people, presses=800, rng=random.Random(5))
        game = bot.game(game_id)
        assert game.status == OVER, "the game did not end"

        # every button press was answered, exactly once, and said what it did
        assert set(fake.answered) == set(fake.queries)
        assert len(fake.calls_of("answerCallbackQuery")) == len(fake.queries)
        toasts = [str(c.params.get("text") or "") for c in fake.calls_of("answerCallbackQuery")]
        assert all(toasts), "a press answered without a word"
        assert any(re.fullmatch(r"You rolled \d\. Choose a piece\.", t) for t in toasts)

        # computers' moves come summed up in the caption of one picture
        captions = [plain(c.photos[0].caption or "") for c in clicks]
        assert any(
            sum("Computer (" in line for line in caption.splitlines()) >= 2 for caption in captions
        ), "no caption sums up several computer moves"
        # a caption tells the latest few lines, not a log
        assert max(len(c.splitlines()) for c in captions) <= 7

        # the end: the final board without buttons, the standings below it
        last = fake.calls_of(*PHOTO_CALLS, ok=True)[-1]
        assert last.method == "sendPhoto"
        assert plain(last.caption or "").startswith("Game over"), last.caption
        assert game.state is not None and game.state.is_over
        assert last.photo == render_standings(game.state, names=game.names(), size=IMAGE_SIZE)
        final, standings, replay = fake.chat_messages(group["id"])
        assert standings.photo == last.photo
        assert [b["text"] for b in standings.buttons] == ["Rematch"], "only a rematch is offered"
        # and the whole game again, as an animation below them
        assert replay.animation is not None and replay.animation[:6] == b"GIF89a"
        assert final.keyboard == [] and final.photo is not None and final.history[0].keyboard
        assert final.photo == board_png(game, IMAGE_SIZE), "the final position"

        # the record in the store replays to the final position
        assert engine.replay(game.record()) == game.state

        # what the game left in the group, and what it cost
        presses = len(fake.queries)
        figures = chat_figures(fake, group["id"], presses)
        print("telegram, buttons:", figures)
        assert figures["visible"] <= 4 and figures["with_buttons"] <= 1, figures
        assert figures["calls_per_press"] <= 1.3, figures
        assert figures["busiest_window"] <= LIMIT, figures
        assert not [c for c in fake.calls if c.status == 429], "over the group's limit"

        # a button of the final board's past: a toast, nothing changes
        before = bot.stored(game_id)
        click = await bot.click(final, ANA, final.history[0].keyboard[0][0]["callback_data"])
        assert click.toast and not click.sent(*SENDING)
        assert bot.stored(game_id) == before

    # nothing the bot sent was refused by the server (well-formed HTML, lengths...)
    refused = [c for c in fake.calls_of(*SENDING) if not c.ok]
    assert not refused, refused


async def test_presses_by_buttons_are_kept_alike_on_either_store(
    fake: FakeTelegram, store: Store, make_store: Any, clock: Any
) -> None:
    """The first presses of a game by buttons, on SQLite and on Redis: each is answered
    once, and another worker's store reads the same game, whose record replays to it."""
    group = fake.group("Monday Ludo")
    people = {ANA["id"]: ANA, BEN["id"]: BEN}
    async with running(fake, store, clock, seed=11) as bot:
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN], computers=2)
        await bot.start(lobby, ANA)
        clicks = await bot.play(group["id"], game_id, people, presses=12, rng=random.Random(5))
        assert len(clicks) == 12
        assert set(fake.answered) == set(fake.queries)
        assert len(fake.calls_of("answerCallbackQuery")) == len(fake.queries)
        game = bot.game(game_id)
        got = make_store().load(game_id)
        assert got is not None and got.data == bot.stored(game_id)
        other = Game.from_bytes(got.data, got.rev)
        assert other.rev == game.rev and other.state == game.state is not None
        assert engine.replay(other.record()) == game.state


@pytest.mark.slow
async def test_a_whole_game_in_a_group_by_commands(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """The same game typed: /join, /start, /roll, /move N.  Nothing answers a command
    that worked (the table tells it); the table moves down only when the turn passes."""
    group = fake.group("Typists")
    fake.group_limit = (LIMIT, PERIOD)
    people = {ANA["id"]: ANA, BEN["id"]: BEN}
    rng = random.Random(9)
    async with running(
        fake, db, clock, seed=13, group_rate=LIMIT, group_period=KEPT, max_retries=3
    ) as bot:
        await bot.say(group, ANA, "/ludo classic")
        await bot.say(group, BEN, "/join")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        for _ in range(2):
            await bot.click(lobby, ANA, label="Add computer")
        # (on Telegram, /start is the greeting: the host presses Start)
        await bot.click(lobby, ANA, label="Start")
        commands, pings_of_typist = 2, 0
        assert fake.message(group["id"], lobby.message_id).deleted
        while bot.game(game_id).status == PLAYING:
            assert commands < 2000, "the game does not end"
            game = bot.game(game_id)
            turn = bot.on_turn(game_id)
            assert turn is not None and game.state is not None
            typist = people[int(turn)]
            if game.state.phase == "roll":
                text = "/roll"
            else:
                text = f"/move {rng.choice(engine.legal_moves(game.state)).piece + 1}"
            calls = await bot.say(group, typist, text)
            commands += 1
            assert not [c for c in calls if c.method == "sendMessage"], "a command that worked"
            new = [c for c in calls if c.method in ("sendPhoto", "sendMessage") and c.ok]
            pings_of_typist += sum(turn in MENTION.findall(c.caption or "") for c in new)
            boards = [m for m in fake.chat_messages(group["id"]) if m.photo is not None]
            if bot.game(game_id).status == PLAYING:
                assert len(boards) == 1 and boards[0].keyboard, "one board, the newest"
        figures = chat_figures(fake, group["id"], commands + 3)
        print("telegram, commands:", figures, "pings of the typist:", pings_of_typist)
        assert pings_of_typist == 0
        assert figures["visible"] <= 4 and figures["with_buttons"] <= 1, figures
        assert figures["calls_per_press"] <= 1.3, figures
        assert figures["busiest_window"] <= LIMIT, figures
        assert not [c for c in fake.calls if c.status == 429], "over the group's limit"


async def test_presses_faster_than_the_group_limit_skip_to_the_newest_table(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """One message or edit a second in the group: every press is answered at once, and
    the table skips to the newest state instead of showing a backlog."""
    group = fake.group("Crowded")
    fake.group_limit = (1, 1.0)
    async with running(fake, db, clock, seed=4, group_rate=1, group_period=1.0) as bot:
        await bot.say(group, ANA, "/ludo classic timer=0")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        mark = fake.mark()
        queries = [fake.press(lobby, user, label="Join") for user in (BEN, CID, DEE)]
        await fake.wait_for(
            lambda: all(fake.answer_of(q) is not None for q in queries), 5, "the toasts"
        )
        # answered at once, though the lobby cannot show it yet
        assert [fake.answer_of(q).params.get("text") for q in queries] == ["You joined."] * 3  # type: ignore[union-attr]
        assert not fake.calls_of("editMessageText", since=mark)
        await bot.settle()
        edits = fake.calls_of("editMessageText", since=mark, ok=True)
        assert len(edits) == 1, "one edit for three presses"
        assert "4/4" in (fake.message(group["id"], lobby.message_id).text or "")

        # typed faster than the limit: the board skips, and tells the latest lines
        await bot.click(lobby, ANA, label="Start")
        mark = fake.mark()
        typed = 0
        for _ in range(12):
            game = bot.game(game_id)
            if game.status != PLAYING or game.state is None:
                break
            user = {str(u["id"]): u for u in (ANA, BEN, CID, DEE)}[bot.on_turn(game_id) or ""]
            if game.state.phase == "roll":
                text = "/roll"
            else:
                text = f"/move {engine.legal_moves(game.state)[0].piece + 1}"
            fake.send_text(group, user, text)
            await fake.wait_for(fake.delivered, 5, "the command to be fetched")
            await asyncio.wait_for(bot.adapter.app.update_queue.join(), 5)
            typed += 1
        await bot.settle()
        shown = fake.calls_of(*PHOTO_CALLS, since=mark, ok=True)
        assert typed >= 8 and len(shown) < typed / 2, (typed, len(shown))
        game = bot.game(game_id)
        board = fake.latest(group["id"], photo=True)
        assert shown_message(bot, game_id) == board.message_id
        assert board.keyboard and f":{game.version}:" in board.buttons[0]["callback_data"]
        assert len(plain(board.caption_html or "").splitlines()) <= 7
        assert not [c for c in fake.calls if c.status == 429]


async def test_a_refused_command_in_a_group_is_answered_and_the_answer_goes(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Tidy")
    async with running(fake, db, clock, notice_seconds=0.2) as bot:
        calls = await bot.say(group, ANA, "/roll")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert "no game here" in said.params["text"]
        notice = fake.message(group["id"], said.message_id)
        await fake.wait_for(lambda: notice.deleted, 5, "the answer to be deleted")
        calls = await bot.say(group, ANA, "/move x")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        notice = fake.message(group["id"], said.message_id)
        await fake.wait_for(lambda: notice.deleted, 5, "the answer to be deleted")
        # in a private chat the answer stays: nobody else's chat is cluttered
        private = fake.private(ANA)
        calls = await bot.say(private, ANA, "/roll")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        await asyncio.sleep(0.4)
        assert not fake.message(private["id"], said.message_id).deleted
        # an answer still up when the bot stops is deleted then
        bot.adapter.notices.seconds = 60
        calls = await bot.say(group, BEN, "/end")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        notice = fake.message(group["id"], said.message_id)
    assert notice.deleted
    assert not fake.chat_messages(group["id"])


async def test_board_moves_the_table_to_the_bottom(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Scrolled away")
    async with running(fake, db, clock, seed=3) as bot:
        lobby = await bot.open_lobby(group, ANA)
        await bot.seat(lobby, ANA, [BEN])
        await bot.start(lobby, ANA)
        (old,) = fake.chat_messages(group["id"])
        fake.send_text(group, CID, "lots of chatter")
        calls = await bot.say(group, CID, "/board")
        assert [c.method for c in calls if c.method in SENDING] == ["sendPhoto"]
        assert [c.method for c in calls if c.method == "deleteMessage"] == ["deleteMessage"]
        (new,) = fake.chat_messages(group["id"])
        assert new.message_id > old.message_id and fake.message(group["id"], old.message_id).deleted
        assert new.keyboard == old.keyboard and new.photo == old.photo
        assert not MENTION.findall(new.caption_html or ""), "moving the board notifies nobody"


# --------------------------------------------------------------------------
# a restart in the middle


async def test_a_restart_in_the_middle_of_a_game_loses_nothing(
    fake: FakeTelegram, store: Store, make_store: Any, clock: Any
) -> None:
    group = fake.group("Restarts")
    people = {ANA["id"]: ANA, BEN["id"]: BEN}
    async with running(fake, store, clock, seed=3) as bot:
        calls = await bot.say(group, ANA, "/ludo classic")
        lobby = fake.latest(group["id"], buttons=True)
        assert [c.method for c in calls if c.method in SENDING] == ["sendMessage"]
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN], computers=1)
        await bot.start(lobby, ANA)
        await bot.play(group["id"], game_id, people, presses=4, rng=random.Random(1))
        old = fake.latest(group["id"], buttons=True, photo=True)
        before = bot.game(game_id)
        assert before.status == PLAYING

    # a new process: a new service and adapter over the same data
    other = make_store()
    async with running(fake, other, clock, seed=4) as bot2:
        # each process set the command menus, one per language
        assert len(fake.calls_of("setMyCommands")) == 2 * len(languages())
        user = people[int(bot2.on_turn(game_id) or 0)]
        label = "Roll" if "Roll" in [b["text"] for b in old.buttons] else old.buttons[0]["text"]
        click = await bot2.click(old, user, label=label)
        told(click, "You ")
        assert len(click.photos) == 1
        after = bot2.game(game_id)
        assert after.version > before.version
        assert len(after.actions) > len(before.actions)
        # the game goes on from there
        more = await bot2.play(group["id"], game_id, people, presses=4, rng=random.Random(2))
        assert more
        assert len(bot2.game(game_id).actions) > len(after.actions)
    # no update was handled twice (answering a query twice is refused by the server)
    assert all(c.ok for c in fake.calls_of("answerCallbackQuery"))
    assert set(fake.answered) == set(fake.queries)


# --------------------------------------------------------------------------
# refused presses


async def test_refused_presses_get_a_toast_and_change_nothing(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Refusals")
    elsewhere = fake.group("Another table")
    people = {ANA["id"]: ANA, BEN["id"]: BEN}
    async with running(fake, db, clock, seed=21) as bot:
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN], computers=2)
        first = await bot.start(lobby, ANA)
        first_board = fake.message(group["id"], first.photos[0].message_id)
        first_buttons = first_board.history[0].keyboard
        assert first_buttons
        await bot.play(group["id"], game_id, people, presses=6, rng=random.Random(3))

        # another game at another table, for its (valid) button data
        other_lobby = await bot.open_lobby(elsewhere, CID)
        other_id = game_id_of(other_lobby)

        board = fake.latest(group["id"], buttons=True, photo=True)
        turn = bot.on_turn(game_id)
        waiting = BEN if str(ANA["id"]) == turn else ANA
        good = board.buttons[0]["callback_data"]
        version = good.split(":")[2]

        cases = [
            ("outdated", first_board, ANA, first_buttons[0][0]["callback_data"]),
            ("not on turn", board, waiting, good),
            ("not seated", board, CID, good),
            ("other game id", board, people[int(turn or 0)], f"g:deadbeef:{version}:r"),
            (
                "another table's game",
                board,
                people[int(turn or 0)],
                other_lobby.buttons[0]["callback_data"],
            ),
            ("garbage", board, ANA, "hello"),
            ("garbage", board, ANA, "g:zz:1:r"),
            ("garbage", board, ANA, "g:" + "9" * 62),
            ("unknown rules", board, ANA, "n:nonsense"),
            ("a running game", board, ANA, "n:classic"),
        ]
        for why, message, user, data in cases:
            before = bot.stored(game_id), bot.stored(other_id)
            board_before = fake.message(group["id"], board.message_id).snapshot()
            click = await bot.click(message, user, data)
            assert click.toast, f"{why}: no toast"
            assert len(click.toast) <= 200
            assert (bot.stored(game_id), bot.stored(other_id)) == before, f"{why}: game changed"
            assert not click.sent(*SENDING), f"{why}: {click.calls}"
            assert fake.message(group["id"], board.message_id).snapshot() == board_before

        toasts = {c.params.get("text") for c in fake.calls_of("answerCallbackQuery")}
        assert any("not your turn" in str(t) for t in toasts)
        assert any("not playing" in str(t) for t in toasts)
        assert any("outdated" in str(t) for t in toasts)

        # the press that is right still works after all that
        click = await bot.click(board, people[int(turn or 0)], good)
        told(click, "You ")
        assert len(click.photos) == 1


async def test_a_second_tap_on_roll_leaves_the_board_playable(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Roll pressed twice: the board message is edited in place with the piece buttons,
    and the second (late) press of Roll must not take those buttons away."""
    group = fake.group("Double tap")
    rng = random.Random(6)
    async with running(fake, db, clock, seed=31) as bot:
        game_id = await bot.started(group, ANA, computers=1)
        for _ in range(150):
            board = fake.latest(group["id"], buttons=True, photo=True)
            labels = [b["text"] for b in board.buttons]
            if "Roll" not in labels:
                click = await bot.click(board, ANA, label=rng.choice(labels))
                told(click, "You ")
                continue
            roll = board.button("Roll")["callback_data"]
            click = await bot.click(board, ANA, roll)
            told(click, "You ")
            now = fake.message(group["id"], board.message_id)
            if not (now.keyboard and "Roll" not in [b["text"] for b in now.buttons]):
                continue
            # Ana must choose a piece on this very message; her second tap of Roll arrives
            assert [c.method for c in click.photos] == ["editMessageMedia"]
            current = now.snapshot()
            before = bot.stored(game_id)
            second = await bot.click(now, ANA, roll)
            assert second.toast and "outdated" in second.toast
            assert bot.stored(game_id) == before
            after = fake.message(group["id"], board.message_id)
            assert after.keyboard == current.keyboard, (
                "the outdated press took the buttons of the current turn off the board"
            )
            # and the turn can be played on from that message
            click = await bot.click(after, ANA, label=current.keyboard[0][0]["text"])
            told(click, "You ")
            assert len(click.photos) == 1
            return
        pytest.fail("Ana never had a choice of pieces after a roll")


async def test_lobby_and_end_permissions(fake: FakeTelegram, db: Store, clock: Any) -> None:
    group = fake.group("Permissions")
    fake.set_member(group, CID, "administrator")
    async with running(fake, db, clock, seed=2) as bot:
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN])
        # only the host starts before the seats are full; a stranger cannot add computers
        for user, label in ((BEN, "Start"), (CID, "Add computer"), (ANA, "Join")):
            before = bot.stored(game_id)
            click = await bot.click(lobby, user, label=label)
            assert click.toast, label
            assert bot.stored(game_id) == before
        await bot.start(lobby, ANA)
        board = fake.latest(group["id"], buttons=True, photo=True)

        # /end: not by another player (who is no admin), but by an admin of the chat
        calls = await bot.say(group, BEN, "/end")
        said = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert len(said) == 1 and "Only" in said[0].params["text"]
        assert [c.params.get("user_id") for c in fake.calls_of("getChatMember")] == [BEN["id"]]
        assert bot.game(game_id).status == PLAYING

        calls = await bot.say(group, CID, "/end")
        assert bot.game(game_id).status != PLAYING
        shown = [c for c in calls if c.method in PHOTO_CALLS and c.ok]
        assert len(shown) == 1 and "ended the game" in plain(shown[0].caption or "")
        ended = fake.message(group["id"], board.message_id)
        assert [b["text"] for b in ended.buttons] == ["Rematch"], "only a rematch is offered"
        assert db.channel_game(f"tg:{group['id']}") is None

        # the chat is free for a new game
        calls = await bot.say(group, BEN, "/ludo tower")
        assert any(c.method == "sendMessage" and c.ok for c in calls)
        new_id = db.channel_game(f"tg:{group['id']}")
        assert new_id is not None and new_id != game_id


async def test_a_turn_timer_running_out_is_posted(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Slow players")
    async with running(fake, db, clock, seed=9) as bot:
        await bot.say(group, ANA, "/ludo classic timer=30")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, computers=1)
        await bot.start(lobby, ANA)
        game = bot.game(game_id)
        assert game.timer == 30 and game.deadline is not None
        actions = len(game.actions)

        clock.advance(31)
        stop = asyncio.Event()
        mark = fake.mark()
        timers = asyncio.create_task(run_timers(bot.service, [bot.adapter], stop, tick=0.02))
        try:
            shown = await fake.wait_call(
                *PHOTO_CALLS, since=mark, where=lambda c: "ran out of time" in (c.caption or "")
            )
        finally:
            stop.set()
            await asyncio.wait_for(timers, 10)
        assert f'<a href="tg://user?id={ANA["id"]}">' in (shown.caption or "")
        game = bot.game(game_id)
        assert len(game.actions) > actions and game.status == PLAYING
        assert bot.on_turn(game_id) == str(ANA["id"])


async def test_people_joining_at_once_all_show_in_the_lobby(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """Three Join presses at the same moment: everybody is seated, and the lobby
    message ends up saying so, even when the first edit is slow to arrive."""
    group = fake.group("Rush hour")
    async with running(fake, db, clock, seed=2) as bot:
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        mark = fake.mark()
        fake.delay_next("editMessageText", 0.3)
        queries = [fake.press(lobby, user, label="Join") for user in (BEN, CID, DEE)]
        await bot.settle()
        assert all(fake.answer_of(q) is not None for q in queries)
        assert [c.params.get("text") for c in fake.calls_of("answerCallbackQuery", since=mark)] == [
            "You joined."
        ] * 3
        game = bot.game(game_id)
        assert len(game.seats) == 4
        shown = fake.message(group["id"], lobby.message_id).text or ""
        assert "4/4" in shown, f"the lobby message says {shown!r} with four people seated"
        for user in (ANA, BEN, CID, DEE):
            assert full_name(user) in shown


# --------------------------------------------------------------------------
# forum topics and private chats


async def test_two_games_in_two_forum_topics_are_independent(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    forum = fake.supergroup("Ludo club", forum=True)
    one = fake.topic(forum, "Table one")
    two = fake.topic(forum, "Table two")
    async with running(fake, db, clock, seed=8) as bot:
        lobby1 = await bot.open_lobby(forum, ANA, thread=one)
        calls = await bot.say(forum, BEN, "/ludo tower", thread=two)
        lobby2 = fake.latest(forum["id"], two, buttons=True)
        assert [c.params.get("message_thread_id") for c in calls if c.method == "sendMessage"] == [
            two
        ]
        id1, id2 = game_id_of(lobby1), game_id_of(lobby2)
        assert id1 != id2
        assert db.channel_game(f"tg:{forum['id']}:{one}") == id1
        assert db.channel_game(f"tg:{forum['id']}:{two}") == id2
        assert db.channel_game(f"tg:{forum['id']}") is None

        await bot.seat(lobby1, ANA, computers=1)
        await bot.seat(lobby2, BEN, [CID])
        await bot.start(lobby1, ANA)
        await bot.start(lobby2, BEN)
        rng = random.Random(4)
        for _ in range(3):
            await bot.play(forum["id"], id1, {ANA["id"]: ANA}, presses=2, rng=rng, thread=one)
            await bot.play(
                forum["id"],
                id2,
                {BEN["id"]: BEN, CID["id"]: CID},
                presses=2,
                rng=rng,
                thread=two,
            )

        # a player of one table cannot play at the other
        board2 = fake.latest(forum["id"], two, buttons=True)
        before = bot.stored(id2)
        click = await bot.click(board2, ANA, board2.buttons[0]["callback_data"])
        assert click.toast and bot.stored(id2) == before

        # /board in a topic shows that topic's game, in that topic
        calls = await bot.say(forum, ANA, "/board", thread=one)
        shown = [c for c in calls if c.method == "sendPhoto" and c.ok]
        assert len(shown) == 1 and shown[0].params.get("message_thread_id") == one

        # every message went to its own topic, with its own game's buttons
        assert bot.game(id1).seats[0].user.name == "Ana Silva"  # type: ignore[union-attr]
        for thread, game_id in ((one, id1), (two, id2)):
            for m in fake.chat_messages(forum["id"], thread):
                for version in m.history:
                    for row in version.keyboard:
                        for b in row:
                            data = b["callback_data"]
                            assert data.startswith(f"g:{game_id}:") or data.startswith("n:")
        for c in fake.calls_of("sendMessage", "sendPhoto"):
            assert c.params.get("message_thread_id") in (one, two), c
        assert not fake.chat_messages(forum["id"], None)


async def test_one_person_against_computers_in_a_private_chat(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    chat = fake.private(DEE)
    async with running(fake, db, clock, seed=13) as bot:
        calls = await bot.say(chat, DEE, "/start")
        greeting = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert len(greeting) == 1 and "/ludo" in greeting[0].params["text"]

        lobby = await bot.open_lobby(chat, DEE)
        game_id = game_id_of(lobby)
        assert db.channel_game(f"tg:{DEE['id']}") == game_id
        await bot.seat(lobby, DEE, computers=3)
        await bot.start(lobby, DEE)
        clicks = await bot.play(
            chat["id"], game_id, {DEE["id"]: DEE}, presses=12, rng=random.Random(9)
        )
        assert len(clicks) == 12
        game = bot.game(game_id)
        assert game.status == PLAYING and len(game.actions) >= 12
        assert {c.chat_id for c in fake.calls_of(*PHOTO_CALLS)} == {DEE["id"]}
        assert any("Computer (" in plain(c.photos[0].caption or "") for c in clicks)

        # the commands play too; a deleted board message is sent anew
        board = fake.latest(chat["id"], buttons=True, photo=True)
        fake.delete(board)
        labels = [b["text"] for b in board.buttons]
        command = "/roll" if "Roll" in labels else f"/move {labels[0].split()[0]}"
        before = len(bot.game(game_id).actions)
        calls = await bot.say(chat, DEE, command)
        assert len(bot.game(game_id).actions) > before
        sent = [c for c in calls if c.method == "sendPhoto" and c.ok]
        assert len(sent) == 1, calls
        assert fake.latest(chat["id"], photo=True).message_id == sent[0].message_id
        calls = await bot.say(chat, DEE, "/move 9")
        said = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert len(said) == 1 and not [c for c in calls if c.method in PHOTO_CALLS]
        calls = await bot.say(chat, DEE, "/rules")
        said = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert len(said) == 1 and "Classic Ludo" in said[0].params["text"]
        more = await bot.play(
            chat["id"], game_id, {DEE["id"]: DEE}, presses=3, rng=random.Random(1)
        )
        assert len(more) == 3
        refused = [c for c in fake.calls_of(*SENDING) if not c.ok]
        # only the deleted message could not be edited
        assert all(c.params.get("message_id") == board.message_id for c in refused), refused


# --------------------------------------------------------------------------
# names


async def test_any_display_name_works_and_is_escaped(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Ünïcödé 🎲 <b>club</b>")
    tags = make_user(201, "<b>x</b>&")  # no last name, no username
    zoe = make_user(202, 'Ζωή 👩‍👩‍👧‍👦 "Zo\'e"', "محمد عبد الله", "zoe")
    long_first = ("Bartholomew-Maximilian 🦄 Ñandú " * 3)[:64]
    long_last = ("ワールドチャンピオン﷽ " * 8)[:64]
    longname = make_user(203, long_first, long_last)
    omega = make_user(204, "Ω")
    people = {u["id"]: u for u in (tags, zoe, longname, omega)}
    async with running(fake, db, clock, seed=17) as bot:
        lobby = await bot.open_lobby(group, tags)
        game_id = game_id_of(lobby)
        # the host's name arrives escaped, and reads as typed
        assert "&lt;b&gt;x&lt;/b&gt;&amp;" in (lobby.html or "")
        assert "<b>x</b>&" in lobby.text
        await bot.seat(lobby, tags, [zoe, longname, omega])
        lobby_now = fake.message(group["id"], lobby.message_id)
        for user in people.values():
            assert full_name(user) in lobby_now.text
        await bot.start(lobby, tags)

        seen: set[int] = set()
        for _ in range(40):
            clicks = await bot.play(
                group["id"], game_id, people, presses=1, rng=random.Random(len(seen))
            )
            for click in clicks:
                caption = click.photos[0].caption or ""
                for uid in MENTION.findall(caption):
                    user = people[int(uid)]
                    link = f'<a href="tg://user?id={uid}">{html.escape(full_name(user))}</a>'
                    assert link in caption
                    seen.add(int(uid))
            if seen == set(people):
                break
        assert seen == set(people), "not everyone was on turn"

        # a refusal naming somebody with a long name: a toast within Telegram's limit
        board = fake.latest(group["id"], buttons=True, photo=True)
        turn = bot.on_turn(game_id)
        waiting = next(u for uid, u in people.items() if str(uid) != turn)
        click = await bot.click(board, waiting, board.buttons[0]["callback_data"])
        assert click.toast and "not your turn" in click.toast

        names = bot.game(game_id).names()
        assert sorted(names.values()) == sorted(full_name(u) for u in people.values())
    # every text and caption was well-formed HTML within Telegram's limits
    refused = [c for c in fake.calls_of(*SENDING, "answerCallbackQuery") if not c.ok]
    assert not refused, refused
