"""Why SQLite could not write, said the way an operator acts on it: SQLite says
only "database or disk is full", "attempt to write a readonly database" or "disk
I/O error"; the disk and the files beside the database say which (see
:func:`bot.store.sqlite.ops.translate`).

Looked at only when a call failed: one ``statvfs`` and a few ``access`` calls."""

from __future__ import annotations

import os
import resource
import sqlite3

#: a file system with less free space than this is full, as far as the store goes
FULL_BELOW = 1024 * 1024
#: the errors of SQLite that come of writing its files
_WRITING = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN")


def full(path: str) -> int | None:
    """The bytes an ordinary user may still write on the file system holding ``path``,
    if it is full (less than :data:`FULL_BELOW`); None if it is not, or cannot be told."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    return free if free < FULL_BELOW else None


def read_only_part(path: str) -> str | None:
    """What of the database at ``path`` cannot be written now (its file system, the
    file, its ``-wal`` or ``-shm`` file, or its directory) and what to do; None if
    all of them can be written."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "the file system holding it is read-only: remount it read-write"
    except OSError:
        pass
    names = [path + side for side in ("", "-wal", "-shm")]
    stuck = [repr(n) for n in names if os.path.exists(n) and not os.access(n, os.W_OK)]
    if len(stuck) > 1:
        return f"{' and '.join(stuck)} are read-only (or immutable): make them writable"
    if stuck:
        return f"{stuck[0]} is read-only (or immutable): make it writable"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"its directory {folder!r} is read-only: make it writable"
    return None


def size_limit(path: str) -> int | None:
    """The size past which this process may not write a file (``ulimit -f``,
    systemd's ``LimitFSIZE=``), if the database at ``path`` or its ``-wal`` file
    has reached it; None otherwise."""
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if soft == resource.RLIM_INFINITY:
        return None
    sizes = [os.path.getsize(n) for n in (path, path + "-wal") if os.path.isfile(n)]
    return soft if max(sizes, default=0) + 64 * 1024 >= soft else None


def size(n: int) -> str:
    """``n`` bytes in a few characters: ``0 bytes``, ``512 KB``, ``3.2 MB``."""
    if n < 1024:
        return "1 byte" if n == 1 else f"{n} bytes"
    value, unit = n / 1024, "KB"
    for bigger in ("MB", "GB", "TB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"


def reason(exc: sqlite3.Error, path: str) -> str | None:
    """What the disk says of ``exc`` from the database at ``path``, and what to do, in
    a few words: it is full, something of it is read-only, the files the bot may write
    are limited in size; None if it says nothing of the kind."""
    if path == ":memory:" or not writing(exc):
        return None
    name = getattr(exc, "sqlite_errorname", "") or ""
    grows = name.startswith(("SQLITE_FULL", "SQLITE_IOERR"))
    free = full(path)
    if grows and free is not None:
        return f"the disk holding it is full ({size(free)} free): free some space there"
    part = read_only_part(path)
    if part is not None:
        return f"{part} by the user running the bot"
    limit = size_limit(path) if grows else None
    if limit is not None:
        return (
            f"the bot may not write files bigger than {size(limit)} (ulimit -f, or "
            "LimitFSIZE= in its systemd unit): raise the limit"
        )
    return None


def cause(exc: sqlite3.Error, path: str) -> str | None:
    """What is wrong with the database at ``path`` that ``exc`` says, and what to do,
    in one line to follow its name ("cannot be written: the disk holding it is full
    ..."), SQLite's own words in brackets; None if ``exc`` is not about reading or
    writing its files (a lock, a bug, a file that is no database)."""
    if not writing(exc):
        return None
    name = getattr(exc, "sqlite_errorname", "") or ""
    said = f"[{exc}, {name}]"
    why = reason(exc, path)
    if why is not None:
        return f"cannot be written: {why}; play then resumes by itself {said}"
    if name.startswith("SQLITE_FULL"):
        return f"cannot grow though its disk has room (a disk quota?) {said}"
    if name.startswith("SQLITE_READONLY"):
        return f"is held read-only (moved or replaced while open? restart the bot) {said}"
    if name.startswith("SQLITE_CANTOPEN"):
        return f"cannot be used now: it or its -wal or -shm file cannot be opened {said}"
    return f"cannot be used now: check its disk and file system (dmesg) {said}"


def writing(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` comes of writing the database's files (a full disk, a read-only
    file, an I/O error), not of a lock or a bug."""
    return (getattr(exc, "sqlite_errorname", "") or "").startswith(_WRITING)


def trouble(path: str, failed: bool | None) -> str | None:
    """What ``/healthz`` says of writing the database at ``path`` (never the path):
    ``failed`` tells whether the last write failed (None: it did not) and whether the
    disk named why (True).  The disk is asked again: a full disk, a read-only file or
    a size limit that named why is over when the disk says so (the next write tells
    for sure); a failure the disk did not explain lasts until a write works."""
    if failed is None:
        return None
    now = None
    if path != ":memory:":
        if full(path) is not None:
            now = "the disk is full"
        elif read_only_part(path) is not None:
            now = "read-only"
        elif size_limit(path) is not None:
            now = "a file size limit"
    if now is None and failed:
        return None
    return f"cannot be written: {now or 'failing'}"
