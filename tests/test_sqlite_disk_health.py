"""What the operator is told while SQLite's disk is full or its files cannot be
written, and the presses are refused (tests/test_sqlite_disk.py): ``/healthz``'s store
check fails, saying so (the store still reads), and the outage is one, however long
the players wait between presses, ending once there is room again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app.health import run_checks, store_check
from bot.store import SqliteStore
from tests.fakes.telegram import TOKEN, FakeTelegram
from tests.helpers.cli import environment, start_ludo_bot
from tests.helpers.disk import FullDisk, Unwritable
from tests.helpers.service import started, step

REFUSED = "refuse.store_down"


@pytest.fixture(params=["tmpfs", "file size limit"])
def disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FullDisk]:
    made = FullDisk(tmp_path / "disk", mount=request.param == "tmpfs")
    try:
        yield made
    finally:
        made.close()


def said(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(start)]


async def test_a_full_disk_fails_the_health_check_and_is_one_outage_until_there_is_room(
    disk: FullDisk, caplog: pytest.LogCaptureFixture
) -> None:
    path = disk.folder / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        svc, reply = started(store, seats=2)
        outage = svc.svc.outage
        check = {"store": store_check(store, outage)}
        assert await run_checks(check) == {"store": "ok"}
        caplog.set_level(logging.INFO, logger="bot")
        outage.settle = 0  # an outage would end at the first answer
        disk.fill()
        try:
            assert step(svc, "chan", reply).lines[0].key == REFUSED
            assert store.write_trouble() is not None
            for _ in range(3):  # players look at the board, the check reads: all answered
                assert not svc.board("chan").refused
                got = (await run_checks(check))["store"]
                assert got.startswith("cannot be written: "), got
                assert str(disk.folder) not in got  # never where the store is
                assert outage.down  # ... and yet writes fail: the outage goes on
            expected = "the disk is full" if disk.how == "tmpfs" else "a file size limit"
            assert got == f"cannot be written: {expected}"
            assert step(svc, "chan", reply).lines[0].key == REFUSED
        finally:
            disk.free()
        assert await run_checks(check) == {"store": "ok"}  # room again: told at once
        assert not outage.down
        r = step(svc, "chan", reply)
        assert not r.refused, r.lines
        assert store.write_trouble() is None
    assert len(said(caplog, "the game store is unreachable")) == 1
    assert len(said(caplog, "the game store is back after")) == 1


async def test_files_nothing_may_write_fail_the_health_check_until_they_can_be_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.sqlite3"
    with SqliteStore(str(path)) as store:
        svc, reply = started(store, seats=2)
        check = {"store": store_check(store, svc.svc.outage)}
        unwritable = Unwritable(path)
        unwritable.on()
        try:
            assert step(svc, "chan", reply).lines[0].key == REFUSED
            expected = "read-only" if unwritable.how == "immutable" else "a file size limit"
            assert await run_checks(check) == {"store": f"cannot be written: {expected}"}
        finally:
            unwritable.off()
        assert await run_checks(check) == {"store": "ok"}
        assert not step(svc, "chan", reply).refused


@pytest.mark.telegram
async def test_a_start_on_a_full_disk_exits_so_that_systemd_starts_it_again(
    fake: FakeTelegram, disk: FullDisk
) -> None:
    # 75 (EX_TEMPFAIL), not 2: deploy/ludo-bot.service restarts it until there is room
    path = disk.folder / "games.sqlite3"
    SqliteStore(str(path)).close()
    env = environment(TELEGRAM_TOKEN=TOKEN, TELEGRAM_API_URL=fake.url, LUDO_DATABASE=str(path))
    disk.fill(limit=1)
    try:
        proc = await start_ludo_bot("run", env=env, cwd=disk.folder.parent)
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        disk.free()
    said = err.decode()
    assert proc.returncode == 75, said
    assert said.startswith(f"ludo-bot: cannot open SQLite database {str(path)!r}: "), said
    assert said.count("\n") == 1, said


def test_a_write_failure_the_disk_does_not_explain_lasts_until_a_write_works(
    tmp_path: Path,
) -> None:
    import sqlite3

    from bot.store.sqlite import disk as sqlite_disk

    path = str(tmp_path / "games.sqlite3")
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorname = "SQLITE_IOERR"  # type: ignore[attr-defined]
    assert sqlite_disk.writing(error)
    assert sqlite_disk.trouble(path, None) is None
    assert sqlite_disk.trouble(path, True) is None  # named by the disk, which has room now
    assert sqlite_disk.trouble(path, False) == "cannot be written: failing"
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorname = "SQLITE_BUSY"  # type: ignore[attr-defined]
    assert not sqlite_disk.writing(locked)
