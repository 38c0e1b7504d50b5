"""The computer levels on the live board's lobby: the host's level button (the chat's
press), and each computer named with its level."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.present import parse_press
from bot.store.sqlite.store import SqliteStore
from bot.web.view import game_json
from tests.helpers.service import ANA, BEN, Table, current, service

CH = "tg:-100"


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return service(SqliteStore(str(tmp_path / "s.sqlite3")), seed=7)


def test_the_hosts_level_button_and_the_computers_levels(table: Table) -> None:
    table.new_game(CH, ANA, level="hard")
    table.add_computer(CH, ANA)
    table.join(CH, BEN)
    game = current(table, CH)
    host = game_json(game, ANA, "it")
    (level,) = [a for a in host["actions"] if a["kind"] == "level"]
    assert level["label"] == "Livello: difficile"
    press = parse_press(level["data"])
    assert press is not None and press.intent.level == "expert"
    assert [s["name"] for s in host["seats"]] == ["Ana", "Computer (difficile)", "Ben"]
    assert host["seats"][1]["computer"] is True
    # Ben is no host: no level button for him
    assert "level" not in [a["kind"] for a in game_json(game, BEN, "en")["actions"]]
    # the press the page sends is the chat's: the level changes, the page shows it
    reply = table.press(CH, ANA, level["data"])
    assert not reply.refused, reply.lines
    again = game_json(current(table, CH), ANA, "en")
    (level,) = [a for a in again["actions"] if a["kind"] == "level"]
    assert level["label"] == "Level: expert"
