"""Computer levels on Discord, end to end on the fake Discord: ``/ludo new level:``,
the lobby's level button (the host or a moderator only), and the lobby naming each
computer with its level."""

from __future__ import annotations

import pytest

from bot.players import LEVELS
from bot.present import Text, say
from tests.fakes.discord import FakeDiscord
from tests.helpers.discord import ANA, BEN, MOD, RUI, Harness

pytestmark = pytest.mark.discord


def level_label(level: str, lang: str = "en") -> str:
    return say(Text("btn.level", {"level": Text(f"level.{level}")}), lang=lang)


async def test_the_level_button_sets_the_level_of_the_computers_added(h: Harness) -> None:
    await h.start(seed=3)
    game_id, lobby = await h.lobby(ANA, BEN, MOD)
    assert lobby.labels()[-2] == "Level: normal"  # above Tell me my turns
    # Ben is no host: told privately, nothing changes
    _, new = await h.press(BEN, lobby, "Level: normal")
    (told,) = new
    assert told.ephemeral and told.visible_to == BEN.id
    assert told.content == "Only Ana or a moderator can change the computer level."
    assert h.game(game_id).level == "normal"
    # Ana presses it: hard; the table says so, its button shows it
    _, new = await h.press(ANA, lobby, "Level: normal", settle=game_id)
    assert h.game(game_id).level == "hard"
    table = h.table(game_id)
    assert "Computer level: hard." in table.description
    assert table.labels()[-2] == "Level: hard"
    await h.press(ANA, table, "Add computer", settle=game_id)
    assert "A computer player (hard) sat down." in h.table(game_id).description
    # a moderator may change it too
    await h.press(MOD, h.table(game_id), "Level: hard", settle=game_id)
    assert h.game(game_id).level == "expert"
    game = h.game(game_id)
    assert [s.level for s in game.seats] == ["normal", "normal", "normal", "hard"]
    table = h.table(game_id)
    assert "Computer level: expert." in table.description
    assert "(Ana, Ben, Mo, Computer (hard))" in table.description
    # started: the level button is gone, the level is kept
    await h.press(ANA, table, "Start", settle=game_id)
    assert level_label("expert") not in h.table(game_id).labels()
    assert h.game(game_id).level == "expert"
    h.check_clean()


async def test_a_game_opened_at_a_level_in_the_openers_language(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=4)
    # the option offers the four levels, named in each reader's language
    (ludo,) = fake.commands[None]
    (new,) = [sub for sub in ludo["options"] if sub["name"] == "new"]
    (option,) = [o for o in new["options"] if o["name"] == "level"]
    assert [c["value"] for c in option["choices"]] == list(LEVELS)
    expert = next(c for c in option["choices"] if c["value"] == "expert")
    assert expert["name_localizations"]["it"] == "esperto"
    assert expert["name_localizations"]["pt-BR"] == "especialista"
    game_id, lobby = await h.lobby(RUI, level="expert")
    assert h.game(game_id).level == "expert"
    assert lobby.labels()[-2] == level_label("expert", "pt_BR") == "Nível: especialista"
    await h.press(RUI, lobby, "+ Computador", settle=game_id)
    table = h.table(game_id)
    assert "Computador (especialista)" in table.description
    assert [s.level for s in h.game(game_id).seats] == ["normal", "expert"]
    h.check_clean()
