"""A disk that fills up, and files nothing may write, under a running SQLite store:
real conditions, the kernel refusing the store's writes, not a store that pretends.

* :class:`FullDisk`: a small tmpfs mounted for the test, filled by a ballast file
  (writes fail with ENOSPC, as on any full disk) and freed by removing it.  Where the
  tests may not mount (a container without CAP_SYS_ADMIN), the folder stays on the
  ordinary disk and "full" is a limit on the size of the files this process writes
  (RLIMIT_FSIZE just past the biggest file there, SIGXFSZ ignored): a write that would
  grow a file falls short, which SQLite takes as a full disk too.  Either works for
  root and for anyone else, so the tests never skip.
* :class:`Unwritable`: the database and its ``-wal`` file made immutable (root,
  FS_IOC_SETFLAGS: every write fails with EPERM, as on a file system the kernel turned
  read-only they fail with EROFS).  File modes cannot do it to a running store (they
  are checked when a file is opened, and the store holds its files open), nor a
  read-only remount (the kernel refuses it while a file is open for writing).  Where
  the flag cannot be set (no CAP_LINUX_IMMUTABLE, a file system without it), no file
  may be written by this process at all (RLIMIT_FSIZE 0).  The ``-shm`` file is left
  alone: SQLite writes it through a shared mapping, and a write fault there is a
  SIGBUS that kills the process (what a read-only file system does to any SQLite
  program in WAL mode).

The limit of the fallbacks is the whole process's, for the moments between ``fill``
(or ``on``) and ``free`` (or ``off``) only; both are undone by :meth:`close`.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import os
import resource
import signal
import subprocess
from pathlib import Path

#: the tmpfs of :class:`FullDisk`, big enough for a store and a few games
TMPFS_SIZE = "4m"
#: ioctls of ``chattr`` (linux/fs.h, 64-bit) and the immutable flag
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IMMUTABLE_FL = 0x80086601, 0x40086602, 0x10


class _SizeLimit:
    """RLIMIT_FSIZE for this process, with SIGXFSZ ignored (a write past it fails)."""

    def __init__(self) -> None:
        self._saved: tuple[int, int] | None = None
        self._handler: object = None

    def set(self, limit: int) -> None:
        if self._saved is None:
            self._saved = resource.getrlimit(resource.RLIMIT_FSIZE)
            self._handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, self._saved[1]))

    def lift(self) -> None:
        if self._saved is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, self._saved)
            signal.signal(signal.SIGXFSZ, self._handler)  # type: ignore[arg-type]
            self._saved = None


class FullDisk:
    """A folder whose disk is filled (:meth:`fill`) and freed (:meth:`free`) at will."""

    def __init__(self, folder: Path, *, mount: bool = True) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.ballast = folder / "ballast"
        self._limit = _SizeLimit()
        self.mounted = mount and _mount_tmpfs(folder)
        #: how the disk is filled: ``"tmpfs"`` or ``"file size limit"``
        self.how = "tmpfs" if self.mounted else "file size limit"

    def fill(self, *, limit: int | None = None) -> None:
        """No room left: the next write that needs more space fails.  Without a tmpfs:
        no write past ``limit`` bytes into any file (by default just past the biggest
        file in the folder, so that the next write that would grow it falls short)."""
        if not self.mounted:
            if limit is None:
                limit = 1 + max((p.stat().st_size for p in self.folder.iterdir()), default=0)
            self._limit.set(limit)
            return
        fd = os.open(self.ballast, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for chunk in (65536, 4096, 1):
                with contextlib.suppress(OSError):  # ENOSPC: this size no longer fits
                    while os.write(fd, b"\0" * chunk) == chunk:
                        pass
        finally:
            os.close(fd)
        assert os.statvfs(self.folder).f_bavail == 0, "the tmpfs is not full"

    def free(self) -> None:
        """Room again."""
        self._limit.lift()
        with contextlib.suppress(FileNotFoundError):
            self.ballast.unlink()

    def close(self) -> None:
        self.free()
        if self.mounted:
            if subprocess.run(["umount", str(self.folder)], capture_output=True).returncode:
                subprocess.run(["umount", "-l", str(self.folder)], capture_output=True)
            self.mounted = False


def _mount_tmpfs(folder: Path) -> bool:
    """Whether a small tmpfs could be mounted on ``folder`` (root with mount rights)."""
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "tmpfs", str(folder)],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


class Unwritable:
    """The files of a database made so that nothing may write them (:meth:`on`), and
    writable again (:meth:`off`)."""

    def __init__(self, database: Path) -> None:
        self.files = [database, Path(f"{database}-wal")]
        self._limit = _SizeLimit()
        self._flagged: list[Path] = []
        #: how: ``"immutable"`` or ``"file size limit"`` (no file may be written)
        self.how = "immutable" if _can_flag(database.parent) else "file size limit"

    def on(self) -> None:
        if self.how == "file size limit":
            self._limit.set(0)
            return
        for path in self.files:
            _set_immutable(path, True)
            self._flagged.append(path)

    def off(self) -> None:
        self._limit.lift()
        while self._flagged:
            _set_immutable(self._flagged.pop(), False)

    close = off


def _set_immutable(path: Path, on: bool) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        value = flags[0] | FS_IMMUTABLE_FL if on else flags[0] & ~FS_IMMUTABLE_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, array.array("i", [value]))
    finally:
        os.close(fd)


def _can_flag(folder: Path) -> bool:
    """Whether files in ``folder`` can be made immutable (and back) here."""
    probe = folder / ".immutable-probe"
    probe.touch()
    try:
        _set_immutable(probe, True)
    except OSError:
        return False
    else:
        _set_immutable(probe, False)
        return True
    finally:
        probe.unlink()
