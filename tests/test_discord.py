"""The Discord adapter end to end, in play: the real discord.py client against the fake
Discord (:mod:`tests.fakes.discord`: REST under ``/api/v10`` and the gateway), over a
real store.

Starting (commands synced, old buttons still working), whole games with the buttons and
with slash commands, ``/ludo board``, a restart in the middle, ending a game and who may,
games in threads, and the host's rights.  People act only as they can on Discord (see
:mod:`tests.helpers.discord`); the tests then look at what the channel shows, what the
REST calls carried and what the store holds."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot.hosting import ENDED, LOBBY, OVER, PLAYING, User
from bot.present import languages, say, table_view
from bot.present.view import move_label
from bot.service.game import GameService
from bot.store import Store
from tests.fakes.discord import EPHEMERAL, PRIVILEGED_INTENTS, FakeDiscord
from tests.helpers.discord import (
    ANA,
    BEN,
    CID,
    MOD,
    SUBCOMMANDS,
    TELL,
    Harness,
    boards,
    check_board,
    check_one_table,
    game_id_of,
    is_replay,
    play_with_buttons,
    version_of,
)
from tests.helpers.languages import LOBBY_LABELS
from tests.helpers.service import Dice

pytestmark = pytest.mark.discord


# ----------------------------------------------------------------------
# start


@pytest.mark.parametrize("guild", [False, True], ids=["global", "guild"])
async def test_start_syncs_commands_and_keeps_old_buttons_working(
    h: Harness, fake: FakeDiscord, guild: bool
) -> None:
    # a lobby opened before this process started, its message already in the channel
    svc = GameService(h.store, dice=Dice(1))
    opened = svc.open(f"dc:{fake.channel_id}", User("discord", str(ANA.id), "Ana"))
    assert opened.game is not None
    game_id = opened.game.id
    view = table_view(opened.game, opened.happened)
    old = fake.plant_message(
        fake.channel_id,
        description="Ana opened a game",
        buttons=[[(say(b.label), b.data) for b in row] for row in view.buttons],
    )

    await h.start(guild_id=fake.guild_id if guild else None)

    # logged in with the token, then the commands
    assert fake.calls[0].path == "/users/@me"
    assert fake.calls[0].authorization == f"Bot {fake.token}"
    scope = fake.guild_id if guild else None
    assert [s for s, _ in fake.command_syncs] == [scope]
    (ludo,) = fake.commands[scope]
    assert ludo["name"] == "ludo" and ludo["type"] == 1
    # installed to a server or to a person, and used in servers, the bot's DM and other
    # DMs and group DMs (issue 36: a table wherever people talk)
    assert sorted(ludo["integration_types"]) == [0, 1]
    assert sorted(ludo["contexts"]) == [0, 1, 2]
    subs = {o["name"]: o for o in ludo["options"]}
    assert set(subs) == SUBCOMMANDS
    assert all(o["type"] == 1 for o in subs.values())

    def described(d: dict[str, Any]) -> bool:
        text = d.get("description", "")
        return 1 <= len(text) <= 100 and text.strip("….") != ""

    assert described(ludo)
    for sub in subs.values():
        assert described(sub), sub
        for opt in sub.get("options", []):
            assert described(opt), (sub["name"], opt)
    new_opts = {o["name"]: o for o in subs["new"]["options"]}
    assert {c["value"] for c in new_opts["rules"]["choices"]} == {
        "classic",
        "tower",
        "italian",
        "super",
    }
    assert new_opts["teams"]["type"] == 5
    assert (new_opts["pieces_to_win"]["min_value"], new_opts["pieces_to_win"]["max_value"]) == (
        2,
        3,
    )
    assert new_opts["timer"]["type"] == 3  # a string: "12h", "3d", "90m", "45s", "60", "off"
    assert [c["value"] for c in new_opts["language"]["choices"]] == languages()
    assert not new_opts["language"].get("required")
    (language,) = subs["language"]["options"]
    assert language["name"] == "language" and language["required"]
    assert language["choices"] == new_opts["language"]["choices"]
    (piece,) = subs["move"]["options"]
    assert piece["name"] == "piece" and piece["type"] == 4
    assert piece["required"] and piece["autocomplete"]

    # one gateway session, no privileged intents, heartbeats answered
    await fake.wait_for(lambda: fake.connections[0].heartbeats >= 1, 5, "a heartbeat")
    (conn,) = fake.connections
    assert conn.identify is not None and conn.identify["token"] == fake.token
    assert conn.identify["intents"] & PRIVILEGED_INTENTS == 0

    # the button sent before the start works: Ben joins
    inter, new = await h.press(BEN, old, "Join", settle=game_id)
    assert inter.callback.type == 7 and new == []
    joined = fake.messages[old.id].description
    assert "Ben joined" in joined and "2/4" in joined, joined
    assert [s.user.name for s in h.game(game_id).seats if s.user] == ["Ana", "Ben"]
    # the message shown before the start is the game's table from now on
    assert h.table(game_id) is fake.messages[old.id]
    h.check_clean()


# ----------------------------------------------------------------------
# whole games


def figures(h: Harness, channel_id: int, since: int, **counts: int) -> dict[str, Any]:
    """What a game left in the channel and what it cost, for the record."""
    visible = [
        m for m in h.fake.public_messages(channel_id) if m.author["id"] == str(h.fake.bot_id)
    ]
    out: dict[str, Any] = {
        "visible": len(visible),
        "with_buttons": sum(bool(m.buttons()) for m in visible),
        "deleted": len(h.fake.deleted_messages(channel_id)),
        **counts,
        "rest": h.fake.call_counts(since),
    }
    print(f"\nfigures: {out}")
    return out


async def test_whole_game_with_buttons(h_any: Harness, fake: FakeDiscord) -> None:
    h = h_any
    await h.start(seed=11)
    since = len(fake.calls)
    game_id, lobby = await h.lobby(ANA, BEN, computers=2)
    assert lobby.labels() == [*LOBBY_LABELS, TELL]  # and the presser's turns to their DMs
    assert "A computer player (normal) sat down" in lobby.description and "4/4" in lobby.description
    assert lobby.content == "" and lobby.allowed_mentions == {"parse": []}
    assert h.table(game_id) is lobby and fake.public_messages() == [lobby]

    inter, new = await h.press(ANA, lobby, "Start", settle=game_id)
    # the lobby becomes a board: a new table in the channel, and the lobby is deleted
    assert inter.callback.type == 6
    game = h.game(game_id)
    assert game.status == PLAYING
    (board,) = new
    assert "classic Ludo begins" in board.description
    assert board.interaction_id is None and h.table(game_id) is board
    assert fake.messages[lobby.id].deleted and fake.public_messages() == [board]
    # the first person on turn is notified, unless it is Ana, who pressed Start
    first = h.on_turn(game_id)
    assert board.pinged_users == ({first.id} if first not in (None, ANA) else set())

    stats = await play_with_buttons(h, game_id, fake.channel_id, random.Random(11))

    game = h.game(game_id)
    assert game.status == OVER
    final, last, replay = fake.public_messages()
    assert final.embed_image()[0] == "board.png" and final.buttons() == []  # type: ignore[index]
    assert last.embed_image()[0] == "standings.png"  # type: ignore[index]
    assert "Game over" in last.description and last.labels() == ["Rematch"]
    assert is_replay(replay) and replay.buttons() == []
    assert engine.replay(game.record()) == game.state
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    # computers played between the two people, told in the one message that followed
    assert stats["computer_summaries"] >= 1, stats
    assert stats["in_place"] >= 1 and stats["new"] >= 1, stats
    # a quiet chat: the final board, the standings (with Rematch) and the replay left,
    # nobody pinged by their own press, every passing turn pinged its player once
    assert stats["most_visible"] == 1, stats
    assert stats["pings_of_causer"] == 0 and stats["pings_of_next"] == stats["new"], stats
    got = figures(h, fake.channel_id, since, **stats)
    assert got["visible"] == 3 and got["with_buttons"] == 1, got
    # every table but the last was deleted (the lobby, and one per passing turn)
    assert got["deleted"] == 1 + stats["new"], got
    # no press was answered by an interaction's followup: new tables are channel messages
    assert not any(k.endswith("webhook") for k in got["rest"]), got
    h.check_clean()


async def test_whole_game_with_slash_commands_and_autocomplete(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=5)
    since = len(fake.calls)
    inter, new = await h.command(ANA, "new", rules="italian", pieces_to_win=2, timer="0")
    # the command is answered privately; the lobby is a plain message of the channel
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (lobby,) = [m for m in new if not m.ephemeral]
    assert lobby.interaction_id is None
    game_id = game_id_of(lobby)
    assert h.table(game_id) is lobby
    game = h.game(game_id)
    assert (game.rules, game.options.get("pieces_to_win"), game.timer) == ("italian", 2, 0)
    # the lobby is edited in place; the command is answered privately with what it did
    inter, (joined,) = await h.command(BEN, "join", settle=game_id)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    assert joined.ephemeral and joined.visible_to == BEN.id and joined.content == "You joined."
    assert "Ben joined" in fake.messages[lobby.id].description
    assert h.table(game_id) is lobby
    for _ in range(2):
        await h.press(ANA, lobby, "Add computer", settle=game_id)
    # the lobby becomes a board: posted in the channel, the lobby deleted, Ana told
    inter, new = await h.command(ANA, "start", settle=game_id)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    (started,) = [m for m in new if not m.ephemeral]
    assert told.visible_to == ANA.id and "italian Ludo begins" in told.content
    assert "italian Ludo begins" in started.description.split("\n")[0]
    assert started.interaction_id is None
    assert h.table(game_id) is started and lobby.deleted
    assert fake.public_messages() == [started]

    checked_others = 0
    commands = 0
    stats = {"in_place": 0, "new": 0, "pings_of_causer": 0, "most_visible": 0}
    while h.game(game_id).status == PLAYING:
        assert commands < 1500, "the game does not end"
        game = h.game(game_id)
        member = h.on_turn(game_id)
        assert member is not None
        other = BEN if member is ANA else ANA
        state = game.state
        assert state is not None
        before = check_one_table(h, game_id, fake.channel_id)
        stats["most_visible"] = max(stats["most_visible"], len(fake.public_messages()))
        if state.phase == "roll":
            inter, new = await h.command(member, "roll", settle=game_id)
        else:
            movable = sorted(m.piece + 1 for m in engine.legal_moves(state))
            ac = await fake.autocomplete(member, "move", "piece")
            await fake.answered(ac)
            assert ac.callback.type == 8
            assert sorted(c["value"] for c in ac.choices) == movable, (ac.choices, movable)
            # each piece labelled as its button is ("3 → ③", "2 → ② out")
            labels = {m.piece + 1: say(move_label(m)) for m in engine.legal_moves(state)}
            assert {c["value"]: c["name"] for c in ac.choices} == labels
            if checked_others < 3:
                checked_others += 1
                typed = str(movable[-1])
                ac = await fake.autocomplete(member, "move", "piece", typed)
                await fake.answered(ac)
                assert [c["value"] for c in ac.choices] == [
                    n for n in movable if str(n).startswith(typed)
                ]
                ac = await fake.autocomplete(other, "move", "piece")
                await fake.answered(ac)
                assert ac.choices == [], "only the player on turn gets pieces"
            inter, new = await h.command(
                member, "move", piece=random.Random(commands).choice(movable), settle=game_id
            )
        commands += 1
        # every command is answered privately, with what the asker did
        assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
        (ack,) = [m for m in new if m.ephemeral]
        assert ack.visible_to == member.id and ack.content.startswith("You "), ack.content
        assert ack.pinged_users == set()
        public = [m for m in new if not m.ephemeral and not is_replay(m)]
        stats["pings_of_causer"] += sum(member.id in m.pinged_users for m in public)
        after = h.game(game_id)
        table = h.table(game_id)
        assert table.interaction_id is None, "the table is no answer to a command"
        if after.status == OVER:
            # the table becomes the final board, the standings below it
            (standings,) = public
            assert table is standings and not before.deleted and before.buttons() == []
            check_board(before, after)
            check_board(standings, after, kind="standings.png")
            assert fake.public_messages()[-3:-1] == [before, standings]
            assert is_replay(fake.public_messages()[-1])
        elif public:
            # the turn passed on: a new table at the bottom pings the next player
            stats["new"] += 1
            (board,) = public
            assert table is board and before.deleted
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not member
            assert board.pinged_users == {turn.id}
            check_board(board, after)
        else:
            # the same player goes on: the table edited in place
            stats["in_place"] += 1
            assert table is before and table.edits >= 1
            check_board(table, after)
        assert h.live(fake.channel_id, game_id) == ([table] if after.status == PLAYING else [])

    game = h.game(game_id)
    assert game.status == OVER
    assert engine.replay(game.record()) == game.state
    assert checked_others == 3
    assert stats["in_place"] >= 1 and stats["new"] >= 1, stats
    assert stats["most_visible"] == 1 and stats["pings_of_causer"] == 0, stats
    got = figures(h, fake.channel_id, since, commands=commands, **stats)
    assert got["visible"] == 3 and got["with_buttons"] == 1, got
    # the interactions only ever answered privately: no webhook followups, no UPDATE
    assert set(got["rest"]) <= {"DELETE message", "PATCH message", "POST message"} | {
        "callback 4",
        "callback 7",
        "callback 8",
    }, got
    h.check_clean()


async def test_board_command_moves_the_table_to_the_bottom(h: Harness, fake: FakeDiscord) -> None:
    """``/ludo board`` after people chatted: the table posted anew below the chat, the old
    one deleted (no copy is left), nobody pinged, the asker told privately; the new table's
    buttons work."""
    await h.start(seed=31)
    game_id, lobby = await h.lobby(ANA, BEN)
    # in the lobby too: the lobby moves down
    chat = fake.plant_message(fake.channel_id, content="who else joins?", author=CID)
    inter, new = await h.command(CID, "board", settle=game_id)
    (moved,) = [m for m in new if not m.ephemeral]
    assert lobby.deleted and fake.public_messages() == [chat, moved] and h.table(game_id) is moved
    assert moved.labels() == lobby.labels() and moved.pinged_users == set()
    await h.press(ANA, moved, "Start", settle=game_id)

    for asker in (CID, ANA, BEN):
        old = check_one_table(h, game_id, fake.channel_id)
        turn = h.on_turn(game_id)
        assert turn is not None
        said = fake.plant_message(fake.channel_id, content="nice move", author=CID)
        assert fake.public_messages()[-2:] == [old, said]
        before = len(fake.public_messages())
        inter, new = await h.command(asker, "board", settle=game_id)
        assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
        (told,) = [m for m in new if m.ephemeral]
        assert told.visible_to == asker.id and told.content
        (board,) = [m for m in new if not m.ephemeral]
        assert old.deleted and h.table(game_id) is board
        assert fake.public_messages()[-2:] == [said, board], "the table is the newest"
        assert len(fake.public_messages()) == before, "one board before, one after"
        assert boards(h, fake.channel_id) == [board]
        # it names the player on turn, yet pings nobody: the turn did not pass
        assert board.content == f"<@{turn.id}>" and board.pinged_users == set()
        assert board.interaction_id is None and version_of(board) == version_of(old)
        check_board(board, h.game(game_id))
        # its buttons work
        rolled = len(h.game(game_id).actions)
        await h.press(turn, board, custom_id=board.custom_ids()[0], settle=game_id)
        assert len(h.game(game_id).actions) > rolled
    h.check_clean()


# ----------------------------------------------------------------------
# restart


async def test_restart_in_the_middle_keeps_buttons_working(
    fake: FakeDiscord, store: Store, make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=2)
        game_id, lobby = await h.lobby(ANA, BEN, computers=1)
        await h.press(ANA, lobby, "Start", settle=game_id)
        await play_with_buttons(h, game_id, fake.channel_id, random.Random(2), stop_after=6)
        msg = fake.latest_with_buttons()
        assert msg is not None
        before = h.game(game_id)
        await h.adapters[0].stop()
        assert fake.connections[0].closed

        # another process on the same data (a new store connection, a new service)
        await h.start(make_store(), seed=3)
        assert len(fake.connections) == 2 and fake.connections[1].ready
        member = h.on_turn(game_id)
        assert member is not None
        inter, _ = await h.press(member, msg, custom_id=msg.custom_ids()[0], settle=game_id)
        # answered by an edit in place (7), or deferred for a new table (6)
        assert inter.callback.type in (6, 7)
        after = h.game(game_id)
        assert len(after.actions) > len(before.actions)
        assert after.version > before.version
        # and play goes on with the new process
        await play_with_buttons(h, game_id, fake.channel_id, random.Random(3), stop_after=4)
        h.check_clean()
    finally:
        await h.stop_all()


# ----------------------------------------------------------------------
# ending


async def test_end_needs_creator_or_manage_messages(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    stored = h.stored(game_id)
    board = fake.latest_with_buttons()
    assert board is not None

    # Ben plays but did not open the game, and may not manage messages
    inter, (refusal,) = await h.command(BEN, "end")
    assert inter.callback.type == 4 and refusal.ephemeral and refusal.visible_to == BEN.id
    assert "Only Ana or a moderator can end the game" in refusal.content
    assert h.stored(game_id) == stored

    # Mo is not in the game but may manage messages (permission bit 1 << 13): told
    # privately, the table edited in place into the last board, without buttons
    board_buttons = board.custom_ids()
    inter, (told,) = await h.command(MOD, "end")
    assert inter.callback.type == 4 and told.ephemeral and told.visible_to == MOD.id
    assert told.content == "You ended the game."
    ended = fake.messages[board.id]
    assert not ended.deleted and h.table(game_id) is ended
    assert "Mo ended the game." in ended.description and ended.embed_image() is not None
    assert ended.content == "" and ended.allowed_mentions == {"parse": []}
    assert h.game(game_id).status == ENDED
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    assert fake.public_messages() == [ended]

    # the old board's buttons are gone (but Rematch); one left on a message (a lost edit)
    # is dead
    assert board.labels() == ["Rematch"] and h.live(fake.channel_id, game_id) == []
    left = fake.plant_message(fake.channel_id, buttons=[[("Roll", board_buttons[0])]])
    inter, (dead,) = await h.press(BEN, left, custom_id=board_buttons[0])
    assert dead.ephemeral and "This game is over" in dead.content
    assert left.deleted and fake.public_messages() == [ended]

    # and the channel is free: a new lobby, which its creator can end (the lobby says so
    # in place, the creator is told privately)
    _game2, lobby2 = await h.lobby(BEN)
    inter, (ended2,) = await h.command(BEN, "end")
    assert ended2.ephemeral and ended2.content == "You ended the game."
    assert "Ben ended the game." in lobby2.description and lobby2.buttons() == []
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    h.check_clean()


async def test_last_one_leaving_closes_the_lobby_message(h: Harness, fake: FakeDiscord) -> None:
    await h.start()
    game_id, lobby = await h.lobby(ANA, BEN)
    inter, new = await h.press(BEN, lobby, "Leave", settle=game_id)
    assert inter.callback.type == 7 and new == []
    left = fake.messages[lobby.id].description
    assert "Ben left the lobby" in left and "1/4" in left, left
    inter, new = await h.press(ANA, lobby, "Leave")
    assert inter.callback.type == 7 and new == []
    closed = fake.messages[lobby.id]
    assert "nobody is seated: the game is closed" in closed.description
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    # the closed lobby offers no buttons any more
    assert closed.buttons() == [], closed.labels()
    h.check_clean()


async def test_buttons_of_an_ended_lobby_say_the_game_is_over(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    _game_id, lobby = await h.lobby(ANA)
    join = lobby.button("Join")["custom_id"]
    inter, (told,) = await h.command(ANA, "end")
    assert inter.callback.type == 4 and told.ephemeral and told.content == "You ended the game."
    # the lobby says so, without buttons
    assert "Ana ended the game." in lobby.description and lobby.buttons() == []
    # a Join left on some message (an edit that never arrived) says the game is over
    left = fake.plant_message(fake.channel_id, buttons=[[("Join", join)]])
    _inter, (answer,) = await h.press(BEN, left, "Join")
    assert answer.ephemeral and answer.visible_to == BEN.id
    assert "This game is over" in answer.content, answer.content
    assert left.deleted and fake.public_messages() == [lobby]
    h.check_clean()


# ----------------------------------------------------------------------
# threads


async def test_games_in_threads_are_their_own(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=8)
    in_thread, thread_lobby = await h.lobby(ANA, BEN, channel_id=fake.thread_id)
    in_channel, channel_lobby = await h.lobby(CID, channel_id=fake.channel_id)
    # a thread the bot never saw in GUILD_CREATE (the interaction carries the channel)
    in_late, late_lobby = await h.lobby(BEN, channel_id=fake.late_thread_id)
    assert len({in_thread, in_channel, in_late}) == 3
    assert h.store.channel_game(f"dc:{fake.thread_id}") == in_thread
    assert h.store.channel_game(f"dc:{fake.channel_id}") == in_channel
    assert h.store.channel_game(f"dc:{fake.late_thread_id}") == in_late
    assert thread_lobby.channel_id == fake.thread_id
    assert late_lobby.channel_id == fake.late_thread_id

    await h.press(ANA, thread_lobby, "Start", settle=in_thread)
    await play_with_buttons(h, in_thread, fake.thread_id, random.Random(8), stop_after=6)
    assert all(m.channel_id == fake.thread_id for m in fake.public_messages(fake.thread_id))
    # the channel's game did not move
    assert h.game(in_channel).status == LOBBY
    assert [m.id for m in fake.public_messages(fake.channel_id)] == [channel_lobby.id]
    # /ludo board in the thread moves the thread's game to the bottom
    before = h.table(in_thread)
    _inter, new = await h.command(BEN, "board", channel_id=fake.thread_id)
    (board,) = [m for m in new if not m.ephemeral]
    assert board.channel_id == fake.thread_id and game_id_of(board) == in_thread
    assert before.deleted and fake.public_messages(fake.thread_id) == [board]
    assert [m.id for m in fake.public_messages(fake.channel_id)] == [channel_lobby.id]
    h.check_clean()


# ----------------------------------------------------------------------
# who may act: the host's rights


async def test_only_the_host_or_a_moderator_adds_or_removes_computers(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, BEN, MOD)
    for label in ("Add computer", "Remove computer"):
        stored = h.stored(game_id)
        _inter, (refusal,) = await h.press(BEN, lobby, label)
        assert refusal.ephemeral and refusal.visible_to == BEN.id
        assert "Only Ana or a moderator can add or remove computer players" in refusal.content
        assert h.stored(game_id) == stored
    # Mo may manage messages (and sits at the table): allowed; Ana hosts: allowed
    await h.press(MOD, lobby, "Add computer", settle=game_id)
    assert [s.computer for s in h.game(game_id).seats] == [False, False, False, True]
    await h.press(ANA, lobby, "Remove computer", settle=game_id)
    assert len(h.game(game_id).seats) == 3 and h.game(game_id).status == LOBBY


async def test_a_creator_who_left_cannot_end_and_the_next_seated_person_can(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, BEN, CID)
    await h.press(ANA, lobby, "Start", settle=game_id)
    await h.command(ANA, "leave", settle=game_id)
    assert h.game(game_id).creator.id == str(BEN.id)
    _inter, (refusal,) = await h.command(ANA, "end")
    assert refusal.ephemeral and "Only Ben or a moderator can end the game" in refusal.content
    assert h.game(game_id).status == PLAYING
    _inter, (told,) = await h.command(BEN, "end")
    assert told.content == "You ended the game." and h.game(game_id).status != PLAYING
