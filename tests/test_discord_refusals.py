"""What the bot refuses on Discord, end to end: presses that may not be made answered
privately and changing nothing, a double click applied once, help and rules said
privately, an overlong custom id answered; and names that look like mentions shown
escaped, never pinging anyone."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from tests.fakes.discord import EPHEMERAL, FakeDiscord, Member
from tests.helpers.discord import (
    ANA,
    BEN,
    CID,
    Harness,
    boards,
    check_board,
    game_ids,
    user_ids,
    version_of,
)

pytestmark = pytest.mark.discord

#: a mention Discord would render or ping, unless escaped
RAW_MENTION = re.compile(r"(?<!\\)(<@[!&]?\d+>|@everyone|@here)")


# ----------------------------------------------------------------------
# refusals


async def test_refused_clicks_are_ephemeral_and_change_nothing(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=4)
    # a second game, in the thread: its buttons do not belong to the channel's game
    thread_game, _thread_lobby = await h.lobby(CID, channel_id=fake.thread_id)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    member = h.on_turn(game_id)
    assert member is not None
    other = BEN if member is ANA else ANA

    # /ludo board posts the table anew, with the buttons of the turn; the old one goes
    main = fake.latest_with_buttons()
    assert main is not None
    inter, new = await h.command(member, "board", settle=game_id)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (board,) = [m for m in new if not m.ephemeral]
    assert board.interaction_id is None and board.pinged_users == set()
    assert board.buttons() and version_of(board) == {h.game(game_id).version}
    assert main.deleted and h.table(game_id) is board
    check_board(board, h.game(game_id))
    # once the player acts, the buttons of this version are outdated
    outdated = board.custom_ids()
    await h.press(member, board, custom_id=outdated[0], settle=game_id)
    current = fake.latest_with_buttons()
    assert current is not None and version_of(current) == {h.game(game_id).version}
    # a message still carrying them (its buttons were never taken off: a crash, a lost edit)
    stale = fake.plant_message(fake.channel_id, buttons=[[("Roll", outdated[0])]])

    forged = fake.plant_message(
        fake.channel_id, buttons=[[("Roll", f"g:{thread_game}:1:j"), ("Roll", "g:0badcafe:3:r")]]
    )
    alien = fake.plant_message(fake.channel_id, buttons=[[("Poll", "poll:yes")]])
    latest = fake.latest_with_buttons()
    assert latest is not None and latest.id == alien.id
    on_turn = h.on_turn(game_id)
    assert on_turn is not None
    not_on_turn = BEN if on_turn is ANA else ANA

    cases = [
        ("outdated", on_turn, stale, outdated[0], "This button is outdated"),
        ("not seated", CID, current, current.custom_ids()[0], "You are not playing"),
        ("not on turn", not_on_turn, current, current.custom_ids()[0], "It is not your turn"),
        ("other game", on_turn, forged, forged.custom_ids()[0], "does not belong"),
        ("no such game", on_turn, forged, forged.custom_ids()[1], "no game"),
        ("not ours", on_turn, alien, "poll:yes", "does not belong"),
    ]
    stored = h.stored(game_id)
    stored_thread = h.stored(thread_game)
    for what, who, message, custom_id, says in cases:
        public_before = len(fake.public_messages())
        inter, new = await h.press(who, message, custom_id=custom_id)
        assert inter.callback.type == 4, (what, inter.callback)
        assert inter.callback.data.get("flags", 0) & EPHEMERAL, what
        (answer,) = new
        assert answer.ephemeral and answer.visible_to == who.id, what
        assert says in answer.content, (what, answer.content)
        assert answer.allowed_mentions is not None and answer.allowed_mentions.get("parse") == []
        assert answer.pinged_users == set()
        assert h.stored(game_id) == stored, what
        assert h.stored(thread_game) == stored_thread, what
        if what == "outdated":
            # the stale copy goes; the table keeps the working buttons
            assert stale.deleted
            assert len(fake.public_messages()) == public_before - 1
        else:
            assert len(fake.public_messages()) == public_before, what
        assert h.live(fake.channel_id, game_id) == [current], what
    assert other in (ANA, BEN)
    h.check_clean()


async def test_double_click_applies_once(h: Harness, fake: FakeDiscord) -> None:
    """Two presses of one button at once (a double click, or two devices): one applies,
    the other is told it is outdated; both are answered once."""
    await h.start(seed=14)
    game_id, member, msg = await h.started(ANA, BEN)
    assert member is not None and msg is not None
    before = h.game(game_id)
    cid = msg.custom_ids()[0]
    first, second = await asyncio.gather(
        fake.click(member, msg, custom_id=cid), fake.click(member, msg, custom_id=cid)
    )
    await fake.answered(first)
    await fake.answered(second)
    await h.quiet()
    await h.settle(fake.channel_id, game_id)
    # one is refused privately; the other answered by the table edited in place (7), or
    # deferred (6: a new table follows, or the table was shown already by the other)
    kinds = sorted(i.callback.type for i in (first, second))
    assert kinds in ([4, 6], [4, 7]), kinds
    refused = next(i for i in (first, second) if i.callback.type == 4)
    assert refused.callback.data["flags"] & EPHEMERAL
    assert "outdated" in refused.callback.data["content"]
    after = h.game(game_id)
    assert after.rev == before.rev + 1, "applied once"
    assert len(after.actions) > len(before.actions)
    table = h.table(game_id)
    assert h.live(fake.channel_id, game_id) == [table] and boards(h, fake.channel_id) == [table]
    # the outdated press finds its message deleted already (the turn passed): no second delete
    h.check_clean()


async def test_help_and_rules_are_private(h: Harness, fake: FakeDiscord) -> None:
    await h.start()
    await h.lobby(ANA, rules="italian", teams=True)
    inter, (helped,) = await h.command(CID, "help")
    assert helped.ephemeral and helped.visible_to == CID.id
    assert "/ludo new" in helped.content
    inter, (rules,) = await h.command(CID, "rules")
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    assert rules.ephemeral and "Italian Ludo" in rules.content and "teams=True" in rules.content
    _inter, (tower,) = await h.command(CID, "rules", rules="tower")
    assert tower.ephemeral and tower.content.startswith("Tower Ludo")
    assert all(m.allowed_mentions == {"parse": []} for m in (helped, rules, tower))
    h.check_clean()


async def test_click_on_overlong_custom_id_is_answered(h: Harness, fake: FakeDiscord) -> None:
    """A custom_id of Discord's full length (100) that starts like ours but matches no button
    template: it must still be refused like any foreign button, not left unanswered."""
    await h.start()
    await h.lobby(ANA, BEN)
    odd = fake.plant_message(fake.channel_id, buttons=[[("Roll", "g:" + "0" * 98)]])
    inter = await fake.click(ANA, odd, "Roll")
    await fake.answered(inter)
    assert inter.callback.type == 4 and inter.callback.data.get("flags", 0) & EPHEMERAL
    h.check_clean()


# ----------------------------------------------------------------------
# names that look like mentions


EVE = Member(1_300_000_000_000_000_011, "eve", global_name="@everyone")
ROLE = Member(1_300_000_000_000_000_012, "rolf", global_name="Rolf", nick="<@&123>")
USR = Member(1_300_000_000_000_000_013, "ursula", global_name="<@999>")
LONG_ROLE = Member(1_300_000_000_000_000_014, "lr", global_name="<@&123456789012345678>")


async def play_with_mention_names(h: Harness, fake: FakeDiscord) -> str:
    h.extra_members = [EVE, ROLE, USR, LONG_ROLE]
    await h.start(seed=9)
    game_id, lobby = await h.lobby(EVE, ROLE, USR, LONG_ROLE)
    await h.press(EVE, lobby, "Start", settle=game_id)
    rng = random.Random(9)
    for k in range(16):
        member = h.on_turn(game_id)
        if member is None:
            break
        msg = fake.latest_with_buttons()
        assert msg is not None
        if k % 4 == 0:
            # someone not on turn presses: the refusal names the player on turn
            other = next(m for m in h.extra_members if m is not member)
            _inter, (refusal,) = await h.press(other, msg, custom_id=msg.custom_ids()[0])
            assert refusal.ephemeral and "It is not your turn" in refusal.content
        if k == 5:
            await h.command(member, "board", settle=game_id)
            msg = fake.latest_with_buttons()
            assert msg is not None
        await h.press(member, msg, custom_id=rng.choice(game_ids(msg)), settle=game_id)
    return game_id


async def test_mention_like_names_never_ping(h: Harness, fake: FakeDiscord) -> None:
    await play_with_mention_names(h, fake)
    players = {m.id for m in h.extra_members}
    messages = list(fake.messages.values())  # the deleted ones too
    assert len(messages) > 10
    for msg in messages:
        # every version of every message said who may be pinged: nobody, or one player,
        # and an edit nobody (Discord does not notify on edits: only a new table may ping)
        for k, body in enumerate(msg.history):
            if not (body.get("content") or body.get("embeds")):
                continue
            am = body.get("allowed_mentions")
            assert am is not None, f"{body} has no allowed_mentions: everything would ping"
            parse = set(am.get("parse", []))
            assert not parse & {"everyone", "roles", "users"}, am
            assert len(user_ids(am)) <= 1 and user_ids(am) <= players, am
            if user_ids(am):
                assert body.get("content") == f"<@{user_ids(am).pop()}>"
                assert k == 0, f"an edit of message {msg.id} allows a ping: {am}"
        assert not msg.pinged_everyone and not msg.pinged_roles, msg.content
        assert msg.pinged_users <= user_ids(msg.ping_allowed_mentions)
        if msg.pinged_users:
            # only the adapter's own mention of the player on turn
            (uid,) = msg.pinged_users
            assert msg.content == f"<@{uid}>"
    h.check_clean()


async def test_mention_like_names_are_shown_escaped(h: Harness, fake: FakeDiscord) -> None:
    await play_with_mention_names(h, fake)
    messages = list(fake.messages.values())  # the deleted ones too
    seen = "\n".join(t for m in messages for t in m.shown_texts())
    # the names are there, as text
    assert "@\u200beveryone opened a game" in seen
    assert "123456789012345678" in seen and "999" in seen and "123" in seen
    for msg in messages:
        for text in msg.shown_texts():
            if re.fullmatch(r"<@\d+>", text):
                continue  # the content: the mention of the player on turn
            raw = RAW_MENTION.findall(text)
            assert not raw, f"unescaped {raw} in {text!r}"
    h.check_clean()
