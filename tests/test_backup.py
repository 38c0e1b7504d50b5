"""``ludo-bot backup FILE``: a copy of the live SQLite database (the online backup
API, so a game only in the WAL is in the copy too) from which play goes on."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.store import SqliteStore
from tests.helpers.service import ANA, BEN, service

ROOT = Path(__file__).resolve().parent.parent


def backup(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    prefixes = ("LUDO_", "TELEGRAM_", "DISCORD_", "REDIS_", "LOG_")
    base = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    return subprocess.run(
        [sys.executable, "-m", "bot.app.cli", "backup", *args],
        cwd=folder,
        env={**base, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_backup_of_the_live_database_restores_a_game_that_plays_on(tmp_path: Path) -> None:
    live = tmp_path / "ludo.sqlite3"
    store = SqliteStore(str(live))
    try:
        table = service(store, seed=3)
        table.new_game("tg:1", ANA)
        table.join("tg:1", BEN)
        started = table.start("tg:1", ANA)
        assert not started.refused and started.mention
        on_turn = started.mention[0]
        before = store.load_in("tg:1")
        assert before is not None
        # the bot is running: its connection is open, the game may be only in the WAL
        done = backup(tmp_path, "copy.sqlite3", LUDO_DATABASE=str(live))
    finally:
        store.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"backed up {live} to copy.sqlite3\n" and done.stderr == ""
    copy = tmp_path / "copy.sqlite3"
    # a whole database by itself: no WAL beside it is needed to read it
    assert not Path(f"{copy}-wal").exists() or Path(f"{copy}-wal").stat().st_size == 0
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    restored = SqliteStore(str(copy))
    try:
        got = restored.load_in("tg:1")
        assert got is not None and got.data == before.data and got.rev == before.rev
        table = service(restored, seed=3)
        rolled = table.roll("tg:1", on_turn)
        assert not rolled.refused
        assert rolled.version is not None and started.version is not None
        assert rolled.version > started.version
    finally:
        restored.close()


def test_backup_with_redis_says_redis_backs_itself_up(tmp_path: Path) -> None:
    done = backup(tmp_path, "copy.sqlite3", REDIS_URL="redis://127.0.0.1:1/0")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "BGSAVE" in done.stderr
    assert done.stderr.startswith("ludo-bot: the games are in Redis")
    assert list(tmp_path.iterdir()) == []


def test_backup_of_no_database_is_refused_and_makes_nothing(tmp_path: Path) -> None:
    done = backup(tmp_path, "copy.sqlite3", LUDO_DATABASE="missing.sqlite3")
    assert done.returncode == 2
    assert done.stderr == (
        "ludo-bot: there is no database at 'missing.sqlite3' (LUDO_DATABASE) to back up\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_backup_refuses_a_target_it_cannot_write(tmp_path: Path) -> None:
    live = tmp_path / "ludo.sqlite3"
    SqliteStore(str(live)).close()
    for target, words in [
        ("nowhere/copy.sqlite3", "cannot write nowhere/copy.sqlite3: the folder 'nowhere' does"),
        (str(tmp_path), "it is a folder"),
        ("ludo.sqlite3", "is the database itself"),
    ]:
        done = backup(tmp_path, target, LUDO_DATABASE=str(live))
        assert done.returncode == 2, target
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
        assert words in done.stderr
    assert not (tmp_path / "nowhere").exists()


def test_a_backup_replaces_an_older_backup_but_not_another_file(tmp_path: Path) -> None:
    live = tmp_path / "ludo.sqlite3"
    with SqliteStore(str(live)) as store:
        store.create("g1", b"first", channel="tg:1")
    assert backup(tmp_path, "copy.sqlite3", LUDO_DATABASE=str(live)).returncode == 0
    with SqliteStore(str(live)) as store:
        store.create("g2", b"second", channel="tg:2")
    again = backup(tmp_path, "copy.sqlite3", LUDO_DATABASE=str(live))
    assert again.returncode == 0, again.stderr
    with SqliteStore(str(tmp_path / "copy.sqlite3")) as copy:
        assert copy.channel_game("tg:1") == "g1" and copy.channel_game("tg:2") == "g2"
    (tmp_path / "notes.txt").write_text("my notes")
    done = backup(tmp_path, "notes.txt", LUDO_DATABASE=str(live))
    assert done.returncode == 2 and done.stderr.startswith("ludo-bot: ")
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert (tmp_path / "notes.txt").read_text() == "my notes"
