"""Computer levels on Telegram, end to end on the fake Bot API: ``/ludo classic
level=expert`` (a level's name in any language the bot speaks; a level that is none
refused in the asker's words), the lobby's level button (the host or a chat admin
only), and the lobby naming each computer with its level."""

from __future__ import annotations

from typing import Any

import pytest

from bot.store import Store
from tests.fakes.telegram import FakeTelegram
from tests.helpers.telegram import ANA, BEN, CID, GIA, game_id_of, plain, running, told

pytestmark = pytest.mark.telegram


def labels(message: Any) -> list[str]:
    return [b["text"] for b in message.buttons]


async def test_a_game_opened_at_a_level_and_its_level_button(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Levels")
    fake.set_member(group, CID, "administrator")
    async with running(fake, db, clock, seed=5) as bot:
        await bot.say(group, ANA, "/ludo classic level=expert")
        lobby = fake.latest(group["id"], buttons=True)
        game_id = game_id_of(lobby)
        assert bot.game(game_id).level == "expert"
        assert labels(lobby)[-1] == "Level: expert"
        click = await bot.click(lobby, ANA, label="Add computer")
        told(click, "A computer player (expert) sat down.")
        lobby = fake.message(group["id"], lobby.message_id)
        assert "(Ana Silva, Computer (expert))" in plain(lobby.text or "")
        # Ben is no host and no admin: told why, nothing changes
        await bot.click(lobby, BEN, label="Join")
        before = bot.stored(game_id)
        click = await bot.click(lobby, BEN, label="Level: expert")
        assert click.toast == "Only Ana Silva or a moderator can change the computer level."
        assert bot.stored(game_id) == before
        await bot.click(lobby, BEN, label="Leave")
        # Cid, an admin of the chat, seated, may: expert -> easy
        await bot.click(lobby, CID, label="Join")
        click = await bot.click(lobby, CID, label="Level: expert")
        told(click, "Computer level: easy.")
        lobby = fake.message(group["id"], lobby.message_id)
        assert labels(lobby)[-1] == "Level: easy"
        click = await bot.click(lobby, ANA, label="Add computer")
        told(click, "A computer player (easy) sat down.")
        game = bot.game(game_id)
        assert [s.level for s in game.seats if s.user is None] == ["expert", "easy"]
        lobby = fake.message(group["id"], lobby.message_id)
        assert "Computer (expert), Cid Campeador, Computer (easy))" in plain(lobby.text or "")


async def test_a_level_that_is_none_is_refused_in_the_askers_words(
    fake: FakeTelegram, db: Store, clock: Any
) -> None:
    group = fake.group("Livelli")
    async with running(fake, db, clock, seed=6) as bot:
        calls = await bot.say(group, ANA, "/ludo classic level=godlike")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert plain(said.params["text"]) == (
            "There is no such computer level. Choose easy, normal, hard or expert."
        )
        assert db.channel_game(f"tg:{group['id']}") is None
        calls = await bot.say(group, GIA, "/ludo classic level=fortissimo")
        (said,) = [c for c in calls if c.method == "sendMessage" and c.ok]
        assert plain(said.params["text"]) == (
            "Questo livello del computer non esiste. Scegli facile, normale, difficile o esperto."
        )
        assert db.channel_game(f"tg:{group['id']}") is None
        # a level's name in the asker's language is understood
        await bot.say(group, GIA, "/ludo classic level=Difficile")
        lobby = fake.latest(group["id"], buttons=True)
        assert bot.game(game_id_of(lobby)).level == "hard"
        assert labels(lobby)[-1] == "Livello: difficile"
