"""Privacy: ``/ludo forget`` takes the person out of the kept games too (both stores),
``ludo-bot forget PLATFORM:ID`` does it for an operator, and the SQLite database and
its backups are created readable by their owner alone."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.hosting import Game, Refusal, User
from bot.hosting.privacy import forget_in
from bot.hosting.results import person_key
from bot.present import say
from bot.present.after import replay_caption
from bot.present.pictures import picture_names
from bot.store import SqliteStore, Store
from tests.helpers.after import CHAN, finished_game, rematch_button, service
from tests.helpers.rating_check import expected_ratings
from tests.helpers.service import ANA, BEN, CID
from tests.helpers.stores import FakeClock

ROOT = Path(__file__).resolve().parent.parent


def names_in(data: bytes, user: User) -> bool:
    """Whether a stored game names ``user``: their name or their id anywhere in it."""
    text = data.decode()
    return user.name in text or json.dumps([user.platform, user.id])[1:-1] in text


def test_forget_takes_the_person_out_of_the_last_game_and_its_rematch(
    store: Store, clock: FakeClock
) -> None:
    svc = service(store, clock)
    first = finished_game(svc, (ANA, BEN, CID))  # Ana opened it: the red seat
    kept = store.last_game(CHAN)
    assert kept is not None and names_in(kept, ANA)

    assert svc.records.forget(ANA) == 1  # her stats of one game
    kept = store.last_game(CHAN)
    assert kept is not None and not names_in(kept, ANA)
    last = Game.from_bytes(kept)
    red = last.seat_for("red")
    assert red is not None and red.user is not None and red.user.forgotten
    assert not last.creator.same(ANA)
    # the replay draws and tells her seat by its colour only
    assert picture_names(last)["red"] == "Red player"
    assert picture_names(last, "pt_BR")["red"].startswith("Jogador")
    caption = say(replay_caption(last))
    assert "Ana" not in caption and "red player" in caption, caption
    # the finished game the store still has, behind its standings' Rematch button, too
    stored = store.load(first.id)
    assert stored is not None and not names_in(stored.data, ANA)
    # Ben asks for a rematch (by that button): Cid is asked, Ana's seat is open
    game_id, version, intent = rematch_button(first)
    asked = svc.press(CHAN, BEN, game_id, version, intent)
    assert asked.refusal is None and asked.game is not None
    assert [s.user for s in asked.game.seats] == [BEN, CID]
    assert [s.user for s in asked.game.waiting] == [CID]
    # Ana may sit down in the open seat, as anyone may, not in a seat kept for her
    joined = svc.rematch(CHAN, ANA)
    assert joined.refusal is None and joined.game is not None
    assert [(s.user, s.waiting) for s in joined.game.seats] == [
        (BEN, False),
        (CID, True),
        (ANA, False),
    ]
    # forgetting again finds nothing left
    assert svc.records.forget(ANA) == 0


def test_a_rematch_left_with_one_person_waits_for_others(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    finished_game(svc, (ANA, BEN))
    assert svc.records.forget(ANA) == 1
    refused = svc.rematch(CHAN, ANA)  # no longer one of the last game's people
    assert refused.refusal is not None and refused.refusal.key == "refuse.not_in_last_game"
    asked = svc.rematch(CHAN, BEN)  # nobody to wait for, too few to start: a lobby
    assert asked.refusal is None and asked.game is not None
    assert [s.user for s in asked.game.seats] == [BEN] and asked.game.state is None


def test_forget_leaves_other_channels_and_people_alone(store: Store, clock: FakeClock) -> None:
    svc = service(store, clock)
    finished_game(svc, (ANA, BEN))
    finished_game(svc, (BEN, CID), channel="test:other")
    other = store.last_game("test:other")
    count, games = svc.records.forget_person("test:1")
    assert (count, games) == (1, 1)
    assert store.last_game("test:other") == other  # Ana never played there
    kept = store.last_game(CHAN)
    assert kept is not None and names_in(kept, BEN)
    assert {who for who, _ in store.entries(CHAN)} == {"test:2"}


def test_a_shared_account_cannot_forget() -> None:
    class Nothing:
        def forget(self, *args: object) -> int:
            raise AssertionError("a shared account reached the store")

    from bot.service.faults import Outage
    from bot.service.records import Records

    shared = User("telegram", "1087968824", "Group", shared=True)
    refused = Records(Nothing(), Outage()).forget(shared)  # type: ignore[arg-type]
    assert isinstance(refused, Refusal) and refused.key == "refuse.as_yourself"


def test_forget_in_a_game_takes_out_the_creator_who_left() -> None:
    game = Game(id="g", channel="c", rules="classic", options={}, creator=ANA, timer=0)
    assert forget_in(game, "test:1") and game.creator.forgotten
    assert not forget_in(game, "test:1")


# -- files readable by their owner alone ------------------------------------------


@pytest.fixture
def umask() -> Iterator[None]:
    """The common umask (022): files are made readable by all unless made otherwise."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_and_its_side_files_are_the_owners_alone(tmp_path: Path, umask: None) -> None:
    path = tmp_path / "ludo.sqlite3"
    store = SqliteStore(str(path))
    try:
        service(store, FakeClock()).open(CHAN, ANA)
        for name in ("ludo.sqlite3", "ludo.sqlite3-wal", "ludo.sqlite3-shm"):
            assert mode(tmp_path / name) == 0o600, name
    finally:
        store.close()


def test_an_existing_database_is_left_as_it_is_and_told(
    tmp_path: Path, umask: None, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "ludo.sqlite3"
    sqlite3.connect(path).close()
    path.chmod(0o644)
    with caplog.at_level(logging.WARNING), SqliteStore(str(path)):
        pass
    assert mode(path) == 0o644
    assert any("other users" in r.getMessage() for r in caplog.records)


def run_cli(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    prefixes = ("LUDO_", "TELEGRAM_", "DISCORD_", "REDIS_", "LOG_")
    base = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    return subprocess.run(
        [sys.executable, "-c", "import os, sys; os.umask(0o022); "
         "from bot.app.cli import main; sys.exit(main())", *args],
        cwd=folder,
        env={**base, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip


def test_a_backup_is_the_owners_alone(tmp_path: Path) -> None:
    live = tmp_path / "ludo.sqlite3"
    SqliteStore(str(live)).close()
    done = run_cli(tmp_path, "backup", "copy.sqlite3", LUDO_DATABASE=str(live))
    assert done.returncode == 0, done.stderr
    assert mode(tmp_path / "copy.sqlite3") == 0o600


# -- ludo-bot forget -------------------------------------------------------------

TG_ANA = User("telegram", "101", "Ana")
TG_BEN = User("telegram", "102", "Ben")


def test_ludo_bot_forget_purges_one_person_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "ludo.sqlite3"
    store = SqliteStore(str(path))
    try:
        finished_game(service(store, FakeClock()), (TG_ANA, TG_BEN), channel="tg:-5")
    finally:
        store.close()
    done = run_cli(tmp_path, "forget", "tg:101", LUDO_DATABASE=str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "forgot telegram:101: 1 stats entry deleted, 1 kept game rewritten\n"
    with SqliteStore(str(path)) as store:
        kept = store.last_game("tg:-5")
        assert kept is not None and not names_in(kept, TG_ANA) and names_in(kept, TG_BEN)
        assert {who for who, _ in store.entries("tg:-5")} == {"telegram:102"}
    again = run_cli(tmp_path, "forget", "telegram:101", LUDO_DATABASE=str(path))
    assert again.stdout == "forgot telegram:101: 0 stats entries deleted, 0 kept games rewritten\n"


@pytest.mark.parametrize("arg", ["tg101", "xx:101", "tg:abc", "tg:", "dc:-3", ":101"])
def test_ludo_bot_forget_refuses_a_bad_person_in_one_line(tmp_path: Path, arg: str) -> None:
    path = tmp_path / "ludo.sqlite3"
    SqliteStore(str(path)).close()
    before = path.read_bytes()
    done = run_cli(tmp_path, "forget", arg, LUDO_DATABASE=str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert "PLATFORM:ID" in done.stderr or "user id" in done.stderr
    assert path.read_bytes() == before


# -- ludo-bot ratings ------------------------------------------------------------


def test_ludo_bot_ratings_recomputes_a_chat_from_its_kept_results(tmp_path: Path) -> None:
    path = tmp_path / "ludo.sqlite3"
    store = SqliteStore(str(path))
    clock = FakeClock()
    try:
        svc = service(store, clock)
        played = [finished_game(svc, (TG_ANA, TG_BEN), channel="tg:-5")]
        clock.advance(1)
        played.append(finished_game(svc, (TG_ANA, TG_BEN), channel="tg:-5", rules="tower"))
    finally:
        store.close()
    done = run_cli(tmp_path, "ratings", "tg:-5", LUDO_DATABASE=str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["chat"] == "tg:-5" and out["games"] == 2
    assert set(out["rules"]) == {"classic", "tower"}
    for game in played:
        want = expected_ratings([game], person_key)
        rows = {row["who"]: row for row in out["rules"][game.rules]}
        assert {k: (rows[k]["rating"], rows[k]["games"]) for k in want} == want
        assert {rows[k]["name"] for k in want} == {"Ana", "Ben"}
        shown = [row["rating"] for row in out["rules"][game.rules]]
        assert shown == sorted(shown, reverse=True)
    tower = run_cli(tmp_path, "ratings", "tg:-5", "--rules", "tower", LUDO_DATABASE=str(path))
    only = json.loads(tower.stdout)
    assert set(only["rules"]) == {"tower"}
    # a key's beginning rates every chat that starts so, together: the platform's rating
    store = SqliteStore(str(path))
    try:
        clock.advance(1)
        played.append(finished_game(service(store, clock), (TG_ANA, TG_BEN), channel="tg:-6"))
    finally:
        store.close()
    across = json.loads(run_cli(tmp_path, "ratings", "tg:", LUDO_DATABASE=str(path)).stdout)
    assert across["games"] == 3
    want = expected_ratings([g for g in played if g.rules == "classic"], person_key)
    rows = {row["who"]: row for row in across["rules"]["classic"]}
    assert {k: (rows[k]["rating"], rows[k]["games"]) for k in want} == want
    bad = run_cli(tmp_path, "ratings", "nochat", LUDO_DATABASE=str(path))
    assert bad.returncode == 2 and "not a chat key" in bad.stderr and bad.stdout == ""


def test_forget_and_ratings_refuse_a_database_that_does_not_exist(tmp_path: Path) -> None:
    """A typo in LUDO_DATABASE (or the wrong folder) is told, with exit 2, and no empty
    database is made where there was none."""
    missing = tmp_path / "ludo.sqlite3"
    for args in (("forget", "tg:1"), ("ratings", "tg:-1")):
        done = run_cli(tmp_path, *args, LUDO_DATABASE=str(missing))
        assert done.returncode == 2, done
        assert "there is no database at" in done.stderr and len(done.stderr.splitlines()) == 1
        assert done.stdout == ""
        assert not missing.exists() and list(tmp_path.iterdir()) == []


def test_ratings_takes_only_a_rule_set_the_bot_knows(tmp_path: Path) -> None:
    path = tmp_path / "ludo.sqlite3"
    SqliteStore(str(path)).close()
    done = run_cli(tmp_path, "ratings", "tg:-1", "--rules", "chess", LUDO_DATABASE=str(path))
    assert done.returncode == 2 and "'chess' is no rule set" in done.stderr, done
    assert done.stdout == ""
