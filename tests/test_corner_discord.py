"""Each person's corner on Discord, end to end against the fake Discord: the cards of a
game in the DMs of the people who asked for them (``/ludo notify on``, *Tell me my
turns*) or installed the app, a game played to its end from the cards alone (in a
server's channel, and in a group DM reached through a user install), one notice a turn,
DMs closed to the bot, ``/ludo notify``, ``/ludo games``, a card's *Mute this game*,
cards pressed when they should no longer be, and ``/ludo notify here``'s notes of the
games opened in a channel."""

from __future__ import annotations

import logging
import random

import pytest

from bot.adapters.discord.corners import where_of
from bot.adapters.discord.screen import clean
from bot.adapters.discord.where import channel_key
from bot.hosting import OVER, PLAYING
from bot.present import Text, say
from bot.present.buttons import corner_button
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Member, Message
from tests.helpers.discord import ANA, BEN, CID, TELL, Harness, game_id_of

pytestmark = pytest.mark.discord

#: a card's first line: where its table is
AT_LUDO = "At #ludo"
#: the dice of the games
SEED = 4


def ben_first(n: int) -> int:
    """Who starts a game: the second seat (Ana, Ben, a computer: Ben's card comes first,
    as Ana's own Start sends her none)."""
    return 1


def person(member: Member) -> str:
    return f"discord:{member.id}"


def cards_in(fake: FakeDiscord, member: Member) -> list[Message]:
    """The bot's messages in ``member``'s DM that are there now, not answers to a
    command or a press (the cards)."""
    return [m for m in fake.dm_messages(member) if not m.ephemeral and m.interaction_id is None]


def offering_play(message: Message) -> bool:
    """Whether ``message`` has a game's Roll or piece button (Rematch is no play)."""
    data = [c.split(":") for c in message.custom_ids()]
    return any(d[0] == "g" and len(d) == 4 and d[3][:1] in "rm" for d in data)


def card_posts(fake: FakeDiscord, since: int, people: dict[int, Member]) -> list[int]:
    """Whom the cards posted in DMs since ``fake.calls[since]`` went to."""
    dms = {fake.dm_of(m): m.id for m in people.values()}
    out = []
    for call in fake.calls[since:]:
        cid = call.path.split("/")[2] if call.path.startswith("/channels/") else ""
        posted = call.method == "POST" and call.path.endswith("/messages") and call.status == 200
        if posted and cid.isdigit() and int(cid) in dms:
            out.append(dms[int(cid)])
    return out


async def notify(h: Harness, member: Member, word: str, **where: int) -> Message:
    """``/ludo notify turns:<word>`` by ``member``: the private answer."""
    inter, new = await h.command(member, "notify", turns=word, **where)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = new
    assert told.ephemeral and told.visible_to == member.id
    return told


async def play_from_cards(h: Harness, game_id: str, people: dict[int, Member], table: int) -> int:
    """The person on turn presses Roll or a piece on their card, until the game ends;
    every press is checked: no card for one's own press, none for someone not on turn,
    never more than one card of the game in a DM, and the table in channel ``table``
    brought up to date.  The presses."""
    fake, rng, presses = h.fake, random.Random(3), 0
    while h.game(game_id).status == PLAYING:
        assert presses < 600, "the game does not end"
        turn = h.on_turn(game_id)
        assert turn is not None and turn.id in people
        live = [m for m in cards_in(fake, turn) if offering_play(m)]
        assert len(live) == 1, f"{turn.username} has {len(live)} cards to play"
        (card,) = live
        assert game_id_of(card) == game_id
        labels = [b["label"] for b in card.buttons() if b["custom_id"].startswith("g:")]
        since = len(fake.calls)
        inter, new = await h.press(turn, card, "Roll" if "Roll" in labels else rng.choice(labels))
        presses += 1
        assert inter.callback.type == 6, "a card's press is acknowledged; its card follows"
        assert not [m for m in new if m.ephemeral], "a valid press is not refused"
        now = h.on_turn(game_id)
        for to in card_posts(fake, since, people):
            # a card is sent only to the person the turn came to, never for their own press
            assert now is not None and to == now.id and to != turn.id, (to, turn, now)
        for member in people.values():
            assert len(cards_in(fake, member)) <= 1, "one message of the game in a DM"
        await h.settle(table, game_id)
    return presses


def check_after(h: Harness, game_id: str, people: dict[int, Member]) -> None:
    """The game is over: nothing offering play is left in any DM, one card at most."""
    assert h.game(game_id).status == OVER
    for member in people.values():
        assert not [m for m in h.fake.dm_messages(member) if offering_play(m)]
        assert len(cards_in(h.fake, member)) <= 1


@pytest.mark.slow
async def test_a_channel_game_played_to_its_end_from_the_cards_alone(
    h: Harness, fake: FakeDiscord
) -> None:
    """Ana and Ben ask for their turns in their DMs, then play a table in #ludo with a
    computer, the timer off, from the cards alone: a card comes when the turn comes to
    them by someone else's doing, the table names them without a mention, and the table
    follows every press on a card."""
    people = {ANA.id: ANA, BEN.id: BEN}
    await h.start(seed=SEED, draw=ben_first)
    for member in people.values():
        told = await notify(h, member, "on")
        assert told.content == say(Text("dc.corner.on", {"notify": "notify"}))
        assert h.svc.corners.corner(person(member)).on
    game_id, lobby = await h.lobby(ANA, BEN, computers=1, timer="off")
    assert cards_in(fake, ANA) == [] and cards_in(fake, BEN) == [], "no card of a lobby"
    await h.press(ANA, fake.messages[lobby.id], "Start", settle=game_id)
    # the first person on turn gets a card (not Ana: her own press sends her none)
    first = h.on_turn(game_id)
    assert first is BEN
    (card,) = cards_in(fake, BEN)
    assert offering_play(card) and cards_in(fake, ANA) == []
    (embed,) = card.embeds
    assert embed["title"] == AT_LUDO
    assert embed["url"] == f"https://discord.com/channels/{fake.guild_id}/{fake.channel_id}"
    picture = card.embed_image()
    assert picture is not None and picture[0] == "board.png"
    assert card.pinged_users == set() and "Mute this game" in card.labels()
    table = h.table(game_id)
    assert table.pinged_users == set() and f"<@{BEN.id}>" in table.content

    presses = await play_from_cards(h, game_id, people, fake.channel_id)
    assert presses > 10
    check_after(h, game_id, people)
    # the table followed: the standings are up, and it never pinged anyone with a card
    assert any("Game over" in m.description for m in fake.public_messages())
    pinged = [m for m in fake.messages.values() if m.pinged_users]
    assert not [m for m in pinged if m.channel_id == fake.channel_id]
    h.check_clean()


@pytest.mark.slow
async def test_a_group_dm_game_through_a_user_install_played_from_the_cards(
    h: Harness, fake: FakeDiscord
) -> None:
    """Ana and Ben installed the app to their accounts (their consent) and play in a
    group DM, the bot not in it: the table lives on the interactions' tokens there, and
    the cards come in each one's DM with the bot, played to the end."""
    people = {ANA.id: ANA, BEN.id: BEN}
    await h.start(seed=SEED, draw=ben_first)
    group = fake.group_dm()
    await h.command(ANA, "new", channel_id=group, timer="off")
    (table,) = [m for m in fake.public_messages(group) if m.embeds]
    game_id = game_id_of(table)
    await h.command(BEN, "join", channel_id=group)
    for member in people.values():
        corner = h.svc.corners.corner(person(member))
        assert corner.started and corner.on, "a user install is consent"
    await h.press(ANA, fake.messages[table.id], "Add computer")
    await h.press(ANA, fake.messages[table.id], "Start")
    assert h.on_turn(game_id) is BEN
    (card,) = cards_in(fake, BEN)
    assert card.embeds[0]["title"] == "At friends"
    assert card.embeds[0]["url"] == f"https://discord.com/channels/@me/{group}"

    await play_from_cards(h, game_id, people, group)
    check_after(h, game_id, people)
    # the group DM's one table followed through the tokens; no channel endpoint called
    assert [m.id for m in fake.public_messages(group) if m.embeds] == [table.id]
    assert "won" in fake.messages[table.id].description
    assert not [c for c in fake.calls if f"/channels/{group}" in c.path]
    h.check_clean()


async def test_closed_dms_stop_the_cards_once_and_the_game_goes_on(
    h: Harness, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    """Ana asked for her turns, but her DMs are closed to the bot: Discord refuses her
    first card (50007), which is logged once and never tried again; her turns are then
    told at the table, Ben's cards come, and the game is played to its end.  Her next
    word in her DM with the bot opens the way again."""
    caplog.set_level(logging.INFO, logger="bot.adapters.cards")
    people = {ANA.id: ANA, BEN.id: BEN}
    await h.start(seed=SEED, draw=ben_first)
    for member in people.values():
        await notify(h, member, "on")
    fake.close_dms(ANA)
    game_id, lobby = await h.lobby(ANA, BEN, computers=1, timer="off")
    await h.press(ANA, fake.messages[lobby.id], "Start", settle=game_id)
    rng = random.Random(5)
    while h.game(game_id).status == PLAYING:
        turn = h.on_turn(game_id)
        assert turn is not None
        table = h.table(game_id)
        ids = [c for c in table.custom_ids() if c.startswith("g:")]
        await h.press(turn, table, custom_id=rng.choice(ids), settle=game_id)
    refused = [c for c, body in fake.errors if body.get("code") == 50007]
    assert len(refused) == 1, "refused once, never tried again"
    assert refused[0].path == f"/channels/{fake.dm_of(ANA)}/messages"
    lines = [r for r in caplog.records if "cards stopped" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert h.svc.corners.corner(person(ANA)).blocked
    assert fake.dm_messages(ANA) == []
    # once refused, the table mentions her on her turns again; Ben got his cards
    assert any(ANA.id in m.pinged_users for m in fake.messages.values())
    assert card_posts(fake, 0, {BEN.id: BEN})
    check_after(h, game_id, people)
    h.check_clean(refusals=lambda call, body: body.get("code") == 50007)
    # her next word in her DM with the bot: cards on again
    fake.open_dms(ANA)
    await h.command(ANA, "games", channel_id=fake.dm(ANA))
    corner = h.svc.corners.corner(person(ANA))
    assert corner.on and corner.dm == str(fake.dm_of(ANA))


async def test_notify_tell_me_my_turns_my_games_and_mute(h: Harness, fake: FakeDiscord) -> None:
    """``/ludo notify`` (an unknown word is answered, on, off, offered as one types),
    *Tell me my turns* under a lobby, ``/ludo games`` with a button bringing a game's
    card, and a card's *Mute this game*: each answered privately."""
    await h.start(seed=SEED, draw=ben_first)
    told = await notify(h, ANA, "maybe")
    assert told.content == say(Text("dc.corner.bad_word", {"notify": "notify"}))
    assert h.svc.corners.corner(person(ANA)).cards is None
    typed = await fake.autocomplete(ANA, "notify", "turns", "of")
    await fake.answered(typed)
    assert [c["value"] for c in typed.choices] == ["off"]
    told = await notify(h, ANA, "off")
    assert "No more cards" in told.content and h.svc.corners.corner(person(ANA)).cards is False
    _, (listed,) = await h.command(ANA, "games")
    assert listed.ephemeral and listed.content == say(Text("games.none")) and not listed.buttons()

    game_id, lobby = await h.lobby(ANA, BEN, CID, timer="off")
    # Tell me my turns: Ben's cards on, said to him alone; the lobby is not touched
    edits = fake.messages[lobby.id].edits
    inter, (told,) = await h.press(BEN, fake.messages[lobby.id], TELL)
    assert inter.callback.type == 4 and told.ephemeral and told.visible_to == BEN.id
    assert told.content == say(Text("dc.corner.on", {"notify": "notify"}))
    assert h.svc.corners.corner(person(BEN)).on
    assert fake.messages[lobby.id].edits == edits
    # /ludo games: the list, and Card 1 brings the lobby's card to Ana's DMs (cards off:
    # she asked for this one)
    _, (listed,) = await h.command(ANA, "games")
    shown = listed.content.replace("\\", "")  # as Discord shows it (\# is a #)
    assert listed.ephemeral and f"1. {AT_LUDO}: waiting to start" in shown
    inter, new = await h.press(ANA, listed, "Card 1")
    (told,) = [m for m in new if m.ephemeral]
    assert told.visible_to == ANA.id and told.content == say(Text("dc.card.sent"))
    (card,) = cards_in(fake, ANA)
    assert [m.id for m in new if not m.ephemeral] == [card.id]
    assert card.embeds[0]["title"] == AT_LUDO and "Join" in card.labels()
    # Cid leaves; the game starts: Ben's card comes, Ana's lobby card is stilled
    await h.press(CID, fake.messages[lobby.id], "Leave", settle=game_id)
    await h.press(ANA, fake.messages[lobby.id], "Add computer", settle=game_id)
    await h.press(ANA, fake.messages[lobby.id], "Start", settle=game_id)
    assert fake.messages[card.id].buttons() == []
    (live,) = cards_in(fake, BEN)
    assert offering_play(live)
    # Mute this game: said privately, the card stilled, and no card of it comes again
    inter, (told,) = await h.press(BEN, live, "Mute this game")
    assert told.ephemeral and told.content == say(Text("corner.muted"))
    assert fake.messages[live.id].buttons() == []
    since = len(fake.calls)
    rng = random.Random(2)
    while h.game(game_id).status == PLAYING:
        turn = h.on_turn(game_id)
        assert turn is not None
        table = h.table(game_id)
        ids = [c for c in table.custom_ids() if c.startswith("g:")]
        await h.press(turn, table, custom_id=rng.choice(ids), settle=game_id)
    assert card_posts(fake, since, {BEN.id: BEN}) == [], "a muted game sends no card"
    h.check_clean()


async def test_cards_that_should_no_longer_be_pressed(h: Harness, fake: FakeDiscord) -> None:
    """A card pressed after its game ended, a card of a game the person left, and a
    card of a game that never was: each is answered privately, and nothing changes."""
    await h.start(seed=SEED, draw=ben_first)
    game_id, lobby = await h.lobby(ANA, BEN, CID, timer="off")
    version = h.game(game_id).version
    await h.press(CID, fake.messages[lobby.id], "Leave", settle=game_id)
    # what old cards still offered (a card stilled in vain: a worker stopped meanwhile)
    left = fake.plant_message(fake.dm(CID), buttons=[[("Roll", f"g:{game_id}:{version}:r")]])
    forged = fake.plant_message(fake.dm(BEN), buttons=[[("Roll", "g:0badcafe:1:r")]])
    stored = h.stored(game_id)
    _, (told,) = await h.press(CID, left, "Roll")
    assert told.ephemeral and told.content == say(Text("refuse.not_seated"))
    _, (told,) = await h.press(BEN, forged, "Roll")
    assert told.ephemeral and told.content == say(Text("refuse.game_over"))
    assert h.stored(game_id) == stored
    # the game ends: a card of it pressed then is refused as over
    await h.press(ANA, fake.messages[lobby.id], "Add computer", settle=game_id)
    await h.press(ANA, fake.messages[lobby.id], "Start", settle=game_id)
    version = h.game(game_id).version
    old = fake.plant_message(fake.dm(ANA), buttons=[[("Roll", f"g:{game_id}:{version}:r")]])
    await h.command(ANA, "end", settle=game_id)
    stored = h.stored(game_id)
    _, (told,) = await h.press(ANA, old, "Roll")
    assert told.ephemeral and told.content == say(Text("refuse.game_over"))
    assert h.stored(game_id) == stored
    h.check_clean()


async def test_a_table_in_the_bots_dm_is_its_own_card(h: Harness, fake: FakeDiscord) -> None:
    """Ana plays the computer in her DM with the bot, her cards on: the table there is
    her card, no other comes; her DM told the bot where her corner is."""
    await h.start(seed=SEED)
    dm = fake.dm(ANA)
    await notify(h, ANA, "on", channel_id=dm)
    assert h.svc.corners.corner(person(ANA)).dm == str(dm)
    game_id, lobby = await h.lobby(ANA, computers=1, channel_id=dm, timer="off")
    await h.press(ANA, fake.messages[lobby.id], "Start", settle=game_id)
    for _ in range(6):
        table = h.table(game_id)
        ids = [c for c in table.custom_ids() if c.startswith("g:")]
        await h.press(ANA, table, custom_id=ids[0], settle=game_id)
    tables = [m for m in fake.public_messages(dm) if m.embeds]
    assert tables == [h.table(game_id)], "one message of the game: its table"
    assert not [c for c in fake.calls if c.path == "/users/@me/channels"]
    h.check_clean()


async def test_notify_here_sends_a_note_whose_join_seats_the_person(
    h: Harness, fake: FakeDiscord
) -> None:
    """Ben asks ``/ludo notify here`` in #ludo (offered as he types): when Ana opens a
    game there, a note with Join comes to his DM (none to Ana, its host); Join seats him,
    the lobby in the channel lists him, and the note's button goes.  Asked again: no more
    notes.  In a DM, it is refused with the words saying where to ask; a Join of a game
    that is over is refused."""
    await h.start(seed=SEED)
    typed = await fake.autocomplete(BEN, "notify", "turns", "he")
    await fake.answered(typed)
    assert [c["value"] for c in typed.choices] == ["here"]
    told = await notify(h, BEN, "here")
    assert told.content == say(Text("dc.corner.here_on", {"notify": "notify"}))
    here = channel_key(fake.channel_id)
    assert h.svc.corners.corner(person(BEN)).here == (here,)
    assert h.svc.corners.watchers(here) == [person(BEN)]
    await notify(h, ANA, "here")  # the host hears of the channel too: no note of her own game

    _, new = await h.command(ANA, "new", timer="off")
    (lobby,) = [m for m in new if not m.ephemeral and m.channel_id == fake.channel_id]
    game_id = game_id_of(lobby)
    assert cards_in(fake, ANA) == []
    (note,) = cards_in(fake, BEN)
    assert [m.id for m in new if not m.ephemeral] == [lobby.id, note.id]
    game = h.game(game_id)
    words = {"host": game.creator.name, "rules": game.rules, "place": where_of(game)}
    assert note.content == say(Text("corner.opened", words), clean)
    assert AT_LUDO in note.content.replace("\\", "") and note.labels() == ["Join"]
    assert note.pinged_users == set()

    _, new = await h.press(BEN, note, "Join")
    await h.settle(fake.channel_id, game_id)
    (told,) = new
    assert told.ephemeral and told.visible_to == BEN.id and "joined" in told.content.lower()
    assert [s.user.id for s in h.game(game_id).seats if s.user] == [str(ANA.id), str(BEN.id)]
    assert "Ben" in fake.messages[lobby.id].description
    assert fake.messages[note.id].buttons() == [], "the note is done"

    told = await notify(h, BEN, "here")
    assert told.content == say(Text("dc.corner.here_off", {"notify": "notify"}))
    assert h.svc.corners.corner(person(BEN)).here == ()
    assert h.svc.corners.watchers(here) == [person(ANA)]
    await h.command(ANA, "end", settle=game_id)
    await h.lobby(ANA, timer="off")
    assert [m.id for m in cards_in(fake, BEN)] == [note.id], "no more notes"
    told = await notify(h, BEN, "here", channel_id=fake.dm(BEN))
    assert told.content == say(Text("dc.corner.here_dm", {"notify": "notify"}))
    # a Join of a game that is over
    old = fake.plant_message(fake.dm(BEN), buttons=[[("Join", corner_button("join", game_id))]])
    _, (told,) = await h.press(BEN, old, "Join")
    assert told.ephemeral and told.content == say(Text("refuse.game_over"))
    h.check_clean()
