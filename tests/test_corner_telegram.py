"""Each person's corner on Telegram, end to end against the fake Bot API: the cards of
a game in the private chats of the people who started the bot, a game played to its end
from the cards alone, one notice a turn, ``/ludo notify``, a card's *Mute this game*,
and a person who blocked the bot."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import pytest

from bot.hosting import OVER, PLAYING
from bot.store import Store
from tests.fakes.telegram import FakeMessage, FakeTelegram, make_user
from tests.helpers.telegram import ANA, BEN, CID, MENTION, Bot, Click, game_id_of, running, told

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]

SENDS = ("sendMessage", "sendPhoto")


def cards_in(fake: FakeTelegram, user: dict[str, Any]) -> list[FakeMessage]:
    """The bot's messages in ``user``'s private chat that carry a game's buttons or are
    a card (its first line says where the table is)."""
    return [
        m
        for m in fake.chat_messages(user["id"])
        if m.photo is not None
        or any(b.get("callback_data", "").startswith("g:") for b in m.buttons)
    ]


def offering_play(message: FakeMessage) -> bool:
    """Whether ``message`` has a game's Roll or piece button (Rematch is no play)."""
    data = [b.get("callback_data", "").split(":") for b in message.buttons]
    return any(d[0] == "g" and len(d) == 4 and d[3][:1] in "rm" for d in data)


async def started_bot(bot: Bot, fake: FakeTelegram, *people: dict[str, Any]) -> None:
    for user in people:
        chat = fake.private(user)
        calls = await bot.say(chat, user, "/start")
        assert any(c.method == "sendMessage" for c in calls)


async def press_at_table(
    bot: Bot, fake: FakeTelegram, group: dict[str, Any], game_id: str
) -> Click:
    """The person on turn (Ana, Ben or Cid) presses Roll, or the first piece, on the
    table in the group."""
    turn = bot.on_turn(game_id)
    user = {ANA["id"]: ANA, BEN["id"]: BEN, CID["id"]: CID}[int(turn or 0)]
    board = [m for m in fake.chat_messages(group["id"]) if m.keyboard][-1]
    labels = [b["text"] for b in board.buttons]
    return await bot.click(board, user, label="Roll" if "Roll" in labels else labels[0])


async def play_from_cards(
    bot: Bot, fake: FakeTelegram, game_id: str, people: dict[int, dict[str, Any]]
) -> list[Click]:
    """The person on turn presses Roll or a piece on their card, until the game ends;
    every press is checked: no card for one's own press, none for someone not on turn,
    never more than one card of the game in a private chat."""
    rng = random.Random(3)
    clicks = []
    for _ in range(600):
        game = bot.game(game_id)
        if game.status != PLAYING:
            break
        turn = bot.on_turn(game_id)
        assert turn is not None
        user = people[int(turn)]
        live = [m for m in cards_in(fake, user) if offering_play(m)]
        assert len(live) == 1, f"{user['first_name']} has {len(live)} cards to play"
        card = live[0]
        assert game_id_of(card) == game_id
        labels = [b["text"] for b in card.buttons if b.get("callback_data", "").startswith("g:")]
        label = "Roll" if "Roll" in labels else rng.choice(labels)
        click = await bot.click(card, user, label=label)
        told(click, "You ")
        now = bot.on_turn(game_id)
        for c in click.calls:
            if c.method in SENDS and c.ok and c.chat_id in people:
                # a card is sent only to the person the turn came to, never for their own press
                assert c.chat_id != int(turn) or now != turn, c
                assert str(c.chat_id) == now, (c, now)
        for person in people.values():
            assert len(cards_in(fake, person)) <= 1, "one message of the game a corner"
        clicks.append(click)
    return clicks


@pytest.mark.slow
@pytest.mark.parametrize("make_store", ["sqlite"], indirect=True)
async def test_a_group_game_played_to_its_end_from_the_cards_alone(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    group = fake.group("Family")
    people = {ANA["id"]: ANA, BEN["id"]: BEN}
    async with running(fake, store, clock, seed=6, first=0) as bot:
        await started_bot(bot, fake, ANA, BEN)
        # two pieces home win: a whole game, shorter
        await bot.say(group, ANA, "/ludo classic pieces_to_win=2")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN], computers=2)
        start = await bot.click(lobby, BEN, label="Start")  # every seat taken: anyone may
        told(start, "Ludo begins")
        # the first person on turn gets a card (not Ben: his own press would not send him
        # one); the table names them without a mention
        first = bot.on_turn(game_id)
        assert first == str(ANA["id"])
        table = next(c for c in start.photos if c.chat_id == group["id"])
        assert MENTION.findall(table.caption or "") == []
        card = cards_in(fake, people[int(first or 0)])
        assert len(card) == 1 and "At Family" in (card[0].caption or ""), card
        shown = fake.message(group["id"], table.message_id)
        assert card[0].photo == shown.photo, "the card shows the table's picture"
        sent = next(c for c in fake.calls if c.method == "sendPhoto" and c.chat_id == int(first))
        assert [bool(c.files) for c in (table, sent)].count(True) == 1, (
            "the picture is uploaded once: the table and the card share it (its file id)"
        )

        clicks = await play_from_cards(bot, fake, game_id, people)
        assert bot.game(game_id).status == OVER and clicks
        # one notice a turn: the table never mentions someone who gets a card
        posted = [c for c in fake.calls if c.chat_id == group["id"] and c.method in SENDS]
        assert len(posted) > 10 and not any(MENTION.findall(c.caption or "") for c in posted)
        # the table in the group followed: its standings are up
        shown = fake.chat_messages(group["id"])
        assert any("Game over" in (m.caption or "") for m in shown)
        # nothing offering play is left in either private chat, and one message of the game
        for person in people.values():
            assert not [m for m in fake.chat_messages(person["id"]) if offering_play(m)]
            assert len(cards_in(fake, person)) <= 1


@pytest.mark.parametrize("make_store", ["sqlite"], indirect=True)
async def test_cards_follow_what_people_asked(
    fake: FakeTelegram, store: Store, clock: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """``/ludo notify off`` stops the cards, ``on`` brings them back; a card's Mute stops
    one game's; someone who never started the bot gets none; a person who blocked the bot
    is told of once in the logs, nothing is tried again, and the game goes on."""
    group = fake.group("Family")
    async with running(fake, store, clock, seed=5) as bot:
        await started_bot(bot, fake, ANA, BEN)
        calls = await bot.say(fake.private(BEN), BEN, "/ludo notify off")
        assert any("No more cards" in (c.params.get("text") or "") for c in calls)
        calls = await bot.say(group, ANA, "/ludo notify maybe")
        assert any("/ludo notify on" in (c.params.get("text") or "") for c in calls)
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN, CID])
        told(await bot.click(lobby, ANA, label="Start"), "Ludo begins")
        assert cards_in(fake, BEN) == [] and fake.chat_messages(CID["id"]) == []
        fake.blocked.add(ANA["id"])
        caplog.set_level(logging.INFO, logger="bot.adapters.cards")
        # everyone plays at the table in the group
        for _ in range(40):
            game = bot.game(game_id)
            if game.status != PLAYING:
                break
            await press_at_table(bot, fake, group, game_id)
        refused = [c for c in fake.calls if c.chat_id == ANA["id"] and c.status == 403]
        assert len(refused) == 1, "one refusal, never tried again"
        lines = [r for r in caplog.records if "cards stopped" in r.getMessage()]
        assert len(lines) == 1
        assert cards_in(fake, BEN) == [], "Ben turned them off"
        # Ana writes to the bot again: her cards come back
        fake.blocked.discard(ANA["id"])
        await bot.say(fake.private(ANA), ANA, "/start")
        assert not bot.service.corners.corner("telegram:101").blocked


@pytest.mark.parametrize("make_store", ["redis"], indirect=True)
async def test_my_games_brings_a_cards_and_mute_and_forget_keep_their_word(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    """``/ludo games`` lists the games a person sits in, with a button bringing each
    one's card; *Mute this game* stills the card and no other comes; ``/ludo forget``
    erases the corner (no card until they start the bot again)."""
    group = fake.group("Family")
    async with running(fake, store, clock, seed=5) as bot:
        await started_bot(bot, fake, ANA, BEN)
        private = fake.private(ANA)
        calls = await bot.say(private, ANA, "/ludo games")
        assert any("not playing in any game" in (c.params.get("text") or "") for c in calls)
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN, CID])
        calls = await bot.say(group, ANA, "/ludo games")
        assert any("in private" in (c.params.get("text") or "") for c in calls)
        listed = [m for m in fake.chat_messages(ANA["id"]) if "Your games" in (m.text or "")]
        assert listed and "At Family: waiting to start" in (listed[-1].text or "")
        # the card, asked for: the lobby's, with its buttons
        click = await bot.click(listed[-1], ANA, label="Card 1")
        lobby_card = [c for c in click.calls if c.method == "sendMessage" and c.ok]
        assert len(lobby_card) == 1 and "At Family" in (lobby_card[0].params.get("text") or "")
        # Cid never started the bot: the list goes nowhere, he is told to start it
        calls = await bot.say(group, CID, "/ludo games")
        assert any("private chat first" in (c.params.get("text") or "") for c in calls)
        told(await bot.click(lobby, ANA, label="Start"), "Ludo begins")
        # whoever has a card mutes it: it is stilled at once, and no card of the game comes
        for _ in range(30):
            live = [m for u in (ANA, BEN) for m in cards_in(fake, u) if offering_play(m)]
            if live:
                break
            await press_at_table(bot, fake, group, game_id)
        card = live[0]
        owner = ANA if card.chat_id == ANA["id"] else BEN
        click = await bot.click(card, owner, label="Mute this game")
        told(click, "No more cards of this game")
        assert not offering_play(fake.message(card.chat_id, card.message_id))
        mark = fake.mark()
        for _ in range(30):
            if bot.game(game_id).status != PLAYING:
                break
            await press_at_table(bot, fake, group, game_id)
        assert not [
            c for c in fake.calls[mark:] if c.method in SENDS and c.chat_id == owner["id"]
        ], "a muted game sends no card"
        # forgotten: the corner is gone
        await bot.say(fake.private(ANA), ANA, "/ludo forget")
        assert not bot.service.corners.corner("telegram:101").started
        assert bot.service.corners.games("telegram:101") == []


@pytest.mark.slow
@pytest.mark.parametrize("make_store", ["sqlite"], indirect=True)
async def test_an_inline_table_played_to_its_end_from_the_cards_alone(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    """Zora and Quill started the bot, then play an inline table in their own private
    chat, with a computer, the timer off: each is sent a card when the turn comes to them
    and the whole game is played from the cards (the inline table only ever edited)."""
    zora, quill = make_user(601, "Zora"), make_user(602, "Quill")
    fake.inline_mode = fake.inline_feedback = True
    chat = fake.between(zora, quill)
    people = {zora["id"]: zora, quill["id"]: quill}
    async with running(fake, store, clock, seed=3, first=1) as bot:
        await started_bot(bot, fake, zora, quill)
        asked = fake.inline_query(zora, "classic timer=0 pieces_to_win=2", "private")
        assert asked is not None
        await bot.settle()
        inline_id = fake.choose(asked, chat, title="Classic")
        assert inline_id is not None
        await bot.settle()
        table = fake.inline_message(inline_id)
        for who, label in ((quill, "Join"), (zora, "Add computer"), (zora, "Start")):
            fake.press_inline(inline_id, who, label=label)
            await bot.settle()
        game_id = table.buttons[0]["callback_data"].split(":")[1]
        assert bot.game(game_id).status == PLAYING
        first = bot.on_turn(game_id)
        assert first == str(quill["id"]), "Zora pressed Start: her own press sends her nothing"
        card = cards_in(fake, quill)
        assert len(card) == 1 and "An inline table" in card[0].content, card
        clicks = await play_from_cards(bot, fake, game_id, people)
        assert bot.game(game_id).status == OVER and len(clicks) > 10
        assert "won" in table.content, "the inline table followed the cards"
        for person in people.values():
            assert not [m for m in fake.chat_messages(person["id"]) if offering_play(m)]
        # the inline table is never posted to, only edited; the cards draw nothing
        assert not fake.calls_of(
            "sendMessage", "sendPhoto", where=lambda c: c.chat_id == chat["id"]
        )
        assert not fake.calls_of("sendPhoto", where=lambda c: c.chat_id in people)


@pytest.mark.parametrize("make_store", ["sqlite"], indirect=True)
async def test_notify_here_sends_a_private_note_whose_join_seats_the_person(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    group = fake.group("Family")
    async with running(fake, store, clock, seed=5) as bot:
        await started_bot(bot, fake, BEN)
        calls = await bot.say(fake.private(BEN), BEN, "/ludo notify here")
        assert any("in a group" in (c.params.get("text") or "") for c in calls)
        calls = await bot.say(group, BEN, "/ludo notify here")
        assert any("I will tell you in private" in (c.params.get("text") or "") for c in calls)
        await bot.say(group, ANA, "/ludo notify here")  # Ana never started the bot
        lobby = await bot.open_lobby(group, ANA)
        notes = [m for m in fake.chat_messages(BEN["id"]) if "opened a game" in (m.text or "")]
        assert len(notes) == 1 and "At Family" in (notes[0].text or ""), notes
        assert fake.chat_messages(ANA["id"]) == [], "nobody hears of their own game"
        click = await bot.click(notes[0], BEN, label="Join")
        told(click, "You joined")
        assert "Ben" in fake.message(group["id"], lobby.message_id).content
        assert fake.message(BEN["id"], notes[0].message_id).buttons == []
        # asked again: no more notes
        calls = await bot.say(group, BEN, "/ludo notify here")
        assert any("no longer hear" in (c.params.get("text") or "") for c in calls)
        assert bot.service.corners.watchers(f"tg:{group['id']}") == ["telegram:101"]


async def fire(bot: Bot) -> int:
    """One round of the turn timers, shown; how many games they changed."""
    outcomes = await asyncio.to_thread(bot.service.fire_due)
    for outcome in outcomes:
        await bot.adapter.show(outcome)
    await bot.settle()
    return len(outcomes)


@pytest.mark.parametrize("make_store", ["redis"], indirect=True)
async def test_a_slow_turn_is_reminded_once_by_a_new_card_and_its_expiry_acts_once(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    """``timer=1h``: at three quarters of the hour the person on turn gets their card
    anew (a send notifies; the old one goes), once; at the hour the computer plays that
    turn, once, and the card goes to the next person."""
    group = fake.group("Family")
    async with running(fake, store, clock, seed=5, first=1) as bot:
        await started_bot(bot, fake, ANA, BEN)
        await bot.say(group, ANA, "/ludo classic timer=1h")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN])
        told(await bot.click(lobby, ANA, label="Start"), "Ludo begins")
        assert bot.on_turn(game_id) == str(BEN["id"])
        (card,) = cards_in(fake, BEN)
        clock.advance(44 * 60)
        assert await fire(bot) == 0, "nothing is due before three quarters of the hour"
        mark = fake.mark()
        clock.advance(2 * 60)
        assert await fire(bot) == 1
        sent = [c for c in fake.calls[mark:] if c.method in SENDS and c.ok]
        assert [c.chat_id for c in sent] == [BEN["id"]], "one reminder: Ben's card, sent anew"
        assert fake.message(BEN["id"], card.message_id).deleted
        assert not [c for c in fake.calls[mark:] if c.chat_id == group["id"] and c.method in SENDS]
        assert await fire(bot) == 0, "reminded once"
        mark = fake.mark()
        clock.advance(15 * 60)
        assert await fire(bot) == 1, "the time ran out: the computer plays Ben's turn, once"
        assert await fire(bot) == 0
        game = bot.game(game_id)
        assert bot.on_turn(game_id) == str(ANA["id"]) and game.status == PLAYING
        sent = [
            c
            for c in fake.calls[mark:]
            if c.method in SENDS and c.ok and c.chat_id in (ANA["id"], BEN["id"])
        ]
        assert [c.chat_id for c in sent] == [ANA["id"]], "the turn passed: Ana's card"
        assert len([m for m in cards_in(fake, BEN) if offering_play(m)]) == 0


@pytest.mark.parametrize("make_store", ["sqlite"], indirect=True)
async def test_card_presses_that_cannot_work_are_told_and_change_nothing(
    fake: FakeTelegram, store: Store, clock: Any
) -> None:
    """A forged card, a stale one, one of a game the person left, one of a game that
    ended: each press gets a clear answer and nothing changes."""
    group = fake.group("Family")
    async with running(fake, store, clock, seed=5, first=1) as bot:
        await started_bot(bot, fake, ANA, BEN)
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN, CID])
        told(await bot.click(lobby, ANA, label="Start"), "Ludo begins")
        (card,) = cards_in(fake, BEN)
        before = bot.game(game_id)

        async def refused(user: dict[str, Any], data: str, words: str) -> None:
            click = await bot.click(card, user, data)
            assert click.toast is not None and words in click.toast, click.toast
            after = bot.game(game_id)
            assert (after.rev, after.actions) == (before.rev, before.actions)

        await refused(BEN, "g:deadbeef:1:r", "This game is over")  # none kept: a forgery
        await refused(BEN, f"g:{game_id}:{before.version + 5}:r", "outdated")
        await refused(BEN, "k:deadbeef:card", "not playing in this game")
        await refused(BEN, "k::mute", "does not belong")
        await refused(BEN, "nonsense", "does not belong")
        # Ana presses Ben's card (a forwarded one): it is not her turn
        await refused(ANA, f"g:{game_id}:{before.version}:r", "not your turn")
        # Cid never sat down at another game: a card of this one pressed by a stranger
        stranger = make_user(999, "Stranger")
        await refused(stranger, f"g:{game_id}:{before.version}:r", "not playing in this game")
        # Ben leaves the game: his card is no longer his to press
        await bot.say(group, BEN, "/leave")
        before = bot.game(game_id)
        await refused(BEN, f"g:{game_id}:{before.version}:r", "not playing in this game")
        # the game ends: its cards say so
        await bot.say(group, ANA, "/end")
        before = bot.game(game_id)
        assert before.status != PLAYING
        await refused(ANA, f"g:{game_id}:{before.version}:r", "over")
