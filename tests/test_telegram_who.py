"""Who may act on Telegram, end to end (the real python-telegram-bot against the fake
Bot API, a real SQLite file): messages sent as a channel or by an anonymous admin
(Telegram gives them all one shared account) change nothing and are told to post as
themselves; host rights pass on when the creator leaves; only the host or a chat admin
adds or removes computer players."""

from __future__ import annotations

from typing import Any

import pytest

from bot.hosting import PLAYING
from bot.hosting.results import read_entry
from bot.store import Kept, Store
from tests.fakes.telegram import FakeTelegram, make_user
from tests.helpers.telegram import ANA, BEN, CID, game_id_of, running

pytestmark = [pytest.mark.telegram, pytest.mark.usefixtures("no_logged_errors")]

POST_AS_YOURSELF = "Post as yourself to play, not as a channel or an anonymous admin."


def answers(calls: list[Any]) -> list[str]:
    return [str(c.params["text"]) for c in calls if c.method == "sendMessage" and c.ok]


async def test_a_channel_poster_or_an_anonymous_admin_cannot_join_end_or_forget(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Shared accounts")
    news = fake.channel("Ludo news")
    async with running(fake, db, clock, seed=2) as bot:
        game_id = await bot.started(group, ANA, [BEN])
        before = bot.stored(game_id)
        for text in ("/end", "/join", "/roll", "/leave", "/language it", "/ludo forget"):
            for channel in (news, None):
                mark = fake.mark()
                fake.send_as_chat(group, text, channel)
                await bot.settle()
                said = answers(fake.calls[mark:])
                assert said == [POST_AS_YOURSELF], (text, channel, said)
                assert bot.stored(game_id) == before, text
        assert bot.game(game_id).status == PLAYING
        # nor can one open a game in another chat
        other = fake.group("Elsewhere")
        mark = fake.mark()
        fake.send_as_chat(other, "/ludo classic", news)
        await bot.settle()
        assert answers(fake.calls[mark:]) == [POST_AS_YOURSELF]
        assert db.channel_game(f"tg:{other['id']}") is None
        # a person posting as themselves still plays as before
        calls = await bot.say(group, BEN, "/end")
        assert answers(calls) and "Only" in answers(calls)[0]
        calls = await bot.say(group, ANA, "/end")
        assert bot.game(game_id).status != PLAYING


async def test_a_shared_account_cannot_forget_anyones_stats(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    """``/ludo forget`` by an anonymous admin must not delete the shared id's stats (in
    every chat): those would be every anonymous admin's at once."""
    group = fake.group("Anonymous admins")
    chat = f"tg:{group['id']}"
    # stats kept under the shared account's key (a store from before this check)
    entry = b'{"n":"Group","r":"classic","f":1,"p":1,"w":1,"s":2,"cm":0,"cs":0,"6":0,"h":4,"c":0}'
    assert read_entry(entry) is not None
    db.keep(Kept("k.1", chat, chat, 1.0, b"{}", {"telegram:1087968824": entry}))
    async with running(fake, db, clock, seed=2) as bot:
        mark = fake.mark()
        fake.send_as_chat(group, "/ludo forget")
        await bot.settle()
        assert answers(fake.calls[mark:]) == [POST_AS_YOURSELF]
    assert [who for who, _ in db.entries(chat)] == ["telegram:1087968824"]


async def test_a_creator_who_left_cannot_end_and_the_next_seated_person_can(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Hand over")
    async with running(fake, db, clock, seed=2) as bot:
        game_id = await bot.started(group, ANA, [BEN, CID])
        await bot.say(group, ANA, "/leave")
        game = bot.game(game_id)
        assert game.status == PLAYING and game.creator.id == str(BEN["id"])
        for text in ("/end", "/language it"):
            calls = await bot.say(group, ANA, text)
            assert answers(calls) and "Ben" in answers(calls)[0], text
        assert bot.game(game_id).status == PLAYING and bot.game(game_id).lang == "en"
        await bot.say(group, BEN, "/end")
        assert bot.game(game_id).status != PLAYING


async def test_only_the_host_or_a_chat_admin_adds_or_removes_computers(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Seats")
    dee = make_user(105, "Dee")
    fake.set_member(group, dee, "administrator")
    async with running(fake, db, clock, seed=2) as bot:
        lobby = await bot.open_lobby(group, ANA)
        game_id = game_id_of(lobby)
        await bot.seat(lobby, ANA, [BEN, dee])
        for label in ("Add computer", "Remove computer"):
            before = bot.stored(game_id)
            click = await bot.click(lobby, BEN, label=label)
            assert click.toast and "Only Ana Silva or a moderator" in click.toast, click.toast
            assert bot.stored(game_id) == before
        # a chat admin at the table may (asked of Telegram only once refused as no host)
        mark = fake.mark()
        click = await bot.click(lobby, dee, label="Add computer")
        assert click.toast == "A computer player (normal) sat down."
        asked = fake.calls_of("getChatMember", since=mark)
        assert [c.params["user_id"] for c in asked] == [dee["id"]]
        assert [s.computer for s in bot.game(game_id).seats] == [False, False, False, True]
        mark = fake.mark()
        click = await bot.click(lobby, ANA, label="Remove computer")
        assert click.toast == "A computer player left."
        assert len(bot.game(game_id).seats) == 3
        assert not fake.calls_of("getChatMember", since=mark)  # the host: no need to ask
