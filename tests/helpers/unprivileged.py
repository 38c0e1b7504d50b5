"""Running a check as an ordinary user: root ignores file modes, a bot run as a
service user does not."""

from __future__ import annotations

import os
from collections.abc import Callable


def unprivileged(attempt: Callable[[], str]) -> str:
    """What ``attempt`` returns (or the exception it raises, as text), run as
    an ordinary user: here if the tests are one, else in a child process
    that becomes ``nobody`` first (root ignores file modes)."""

    def run() -> str:
        try:
            return attempt()
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"

    if os.geteuid() != 0:
        return run()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            os.setgid(65534)
            os.setuid(65534)
            out = run()
        except BaseException as exc:
            out = f"could not become nobody: {exc}"
        os.write(write, out.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        got = pipe.read().decode()
    os.waitpid(pid, 0)
    return got
