"""Dice anyone can verify: the rolls of a hosted game come from a seed promised at
the start and revealed at the end; ``ludo-bot verify`` checks a record."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.app.cli import main
from bot.hosting.dice import check, commitment, new_seed, roll
from bot.service.game import GameService
from bot.store import SqliteStore
from tests.helpers.service import ANA, BEN, Clock, Table, current, play_out

SEED = "5eed" * 16


def test_rolls_are_fair_and_come_from_the_seed_alone() -> None:
    faces = Counter(roll(SEED, n) for n in range(60_000))
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    expected = 10_000
    chi2 = sum((faces[f] - expected) ** 2 / expected for f in range(1, 7))
    assert chi2 < 20.5, faces  # 5 degrees of freedom, p = 0.001
    assert [roll(SEED, n) for n in range(50)] == [roll(SEED, n) for n in range(50)]
    other = new_seed()
    assert [roll(other, n) for n in range(50)] != [roll(SEED, n) for n in range(50)]
    assert [roll(SEED, n, "start") for n in range(50)] != [roll(SEED, n) for n in range(50)]


def test_a_byte_that_would_favour_low_faces_is_skipped() -> None:
    """252 = 42 x 6: a byte of 252..255 would give 1..4 once more than 5 and 6."""
    key = bytes.fromhex(SEED)
    for n in range(5000):
        digest = hmac.new(key, f"roll {n}".encode(), hashlib.sha256).digest()
        if digest[0] >= 252:
            kept = next(b for b in digest if b < 252)
            assert roll(SEED, n) == kept % 6 + 1
            return
    pytest.fail("no roll starting with a byte of 252..255 in 5000")


def verifiable_game(tmp_path: Path) -> tuple[Table, Any]:
    """A classic game of Ana against a computer, its rolls from its own seed, played out."""
    store = SqliteStore(str(tmp_path / "games.sqlite3"))
    table = Table(GameService(store, clock=Clock()))
    table.new_game("chan", ANA)
    table.act("chan", ANA, "add_computer")
    start = table.act("chan", ANA, "start")
    return table, start


def test_a_hosted_game_promises_its_dice_and_reveals_them_at_the_end(tmp_path: Path) -> None:
    table, start = verifiable_game(tmp_path)
    game = current(table, "chan")
    assert game.seed is not None
    promised = [t for t in start.lines if t.key == "game.dice"]
    assert promised and promised[0].params["commitment"] == commitment(game.seed)
    assert game.seed not in repr(start.lines)  # secret while playing
    assert game.record()["dice"] == {"commitment": commitment(game.seed), "seed": None}
    rolls, problems = check(game.record())
    assert problems == ["the seed is not revealed yet: it is shown when the game ends"]
    last = play_out(table, "chan", start)
    game = table.svc.get(game.id)
    assert game is not None and game.state is not None and game.state.is_over
    revealed = [t for t in last.lines if t.key == "game.dice_seed"]
    assert revealed and revealed[0].params["seed"] == game.seed
    record = game.record()
    assert engine.replay(record) == game.state  # the dice do not stop a replay
    rolls, problems = check(record)
    assert problems == [] and rolls == sum(1 for a in record["actions"] if "roll" in a) > 10


def test_ludo_bot_verify_accepts_a_real_record_and_refuses_a_changed_roll(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, start = verifiable_game(tmp_path)
    game_id = current(table, "chan").id
    play_out(table, "chan", start)
    game = table.svc.get(game_id)
    assert game is not None
    record = game.record()
    good = tmp_path / "game.json"
    good.write_text(json.dumps(record))
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"all {check(record)[0]} rolls came from the seed")

    # one roll changed: the dice say so, whether or not the game still replays
    rolls = [k for k, a in enumerate(record["actions"]) if "roll" in a]
    changed = json.loads(json.dumps(record))
    k = rolls[len(rolls) // 2]
    was = changed["actions"][k]["roll"]
    changed["actions"][k]["roll"] = was % 6 + 1
    n = rolls.index(k) + 1
    assert check(changed)[1] == [f"roll {n} is {was % 6 + 1}, but the seed gives {was}"]
    bad = tmp_path / "changed.json"
    bad.write_text(json.dumps(changed))
    assert main(["verify", str(bad)]) == 1
    assert capsys.readouterr().err.strip()

    # another seed than the one promised
    other = json.loads(json.dumps(record))
    other["dice"]["seed"] = new_seed()
    assert "the seed does not match the commitment shown at the start" in check(other)[1]


@pytest.mark.parametrize(
    ("text", "status"),
    # status 1: the record is wrong, as for ludo-bot replay and render (README)
    [("{", 1), ("[]", 1), ('{"rules": "classic", "players": 2}', 1)],
)
def test_ludo_bot_verify_refuses_what_is_not_a_record_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, status: int
) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    assert main(["verify", str(path)]) == status
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_game_given_its_dice_has_no_seed(tmp_path: Path) -> None:
    from tests.helpers.service import service

    table = service(SqliteStore(str(tmp_path / "g.sqlite3")))
    table.new_game("chan", BEN)
    assert current(table, "chan").seed is None
    assert "dice" not in current(table, "chan").record()
