"""A TCP proxy the tests put between a worker (or a replica) and Redis, to make the
network misbehave on cue.

It runs its own asyncio loop in a thread; every call below is safe from the test's
thread::

    with TcpProxy(port) as proxy:      # listens on proxy.port, forwards to ``port``
        proxy.latency = 0.2            # seconds added to every chunk, both ways
        proxy.replication_lag = 0.25   # seconds added to what a master sends a replica
                                       # (a connection that sent PSYNC or SYNC) only
        proxy.drop()                   # close every connection now (both ends)
        proxy.reset()                  # reset every connection now (RST, both ends)
        proxy.cut("request")           # the next script (EVALSHA/EVAL) sent: only half
                                       # of it reaches Redis, then both ends are reset
        proxy.cut("reply")             # ... it reaches Redis whole, and both ends are
                                       # reset before its reply comes back
        proxy.partition()              # nothing passes either way, and new connections
                                       # wait; what was sent meanwhile is held ...
        proxy.heal()                   # ... and passes now, late, as TCP would deliver it

Chunks keep their order on each connection whatever the latency.  ``counts`` tells
what happened (connections, drops, resets, cuts).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
import time
from collections import Counter
from types import TracebackType

#: what a replica's connection sends before the master streams the data set to it
_SYNC = (b"PSYNC", b"\r\nSYNC\r\n")
#: what a script call starts with in RESP (the command name is the first bulk string)
_SCRIPT = (b"EVALSHA", b"EVAL", b"evalsha", b"eval")


class _Link:
    """One proxied connection: the client's side and Redis's side."""

    def __init__(self, client: asyncio.StreamWriter, server: asyncio.StreamWriter) -> None:
        self.client, self.server = client, server
        #: a replica's connection (it sent PSYNC or SYNC first)
        self.replica = False
        #: chunks read from the client so far
        self.chunks = 0
        #: replies are thrown away (a cut after the request reached Redis)
        self.muted = False

    def writers(self) -> tuple[asyncio.StreamWriter, asyncio.StreamWriter]:
        return self.client, self.server


class TcpProxy:
    """A proxy on a free loopback port to ``127.0.0.1:target`` (see the module's doc)."""

    def __init__(self, target: int, host: str = "127.0.0.1") -> None:
        self.target, self.host = target, host
        self.latency = 0.0
        self.replication_lag = 0.0
        self.counts: Counter[str] = Counter()
        self._links: set[_Link] = set()
        self._cut: str | None = None
        self._loop = asyncio.new_event_loop()
        self._open = asyncio.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name=f"proxy-{target}", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the TCP proxy did not start")

    # -- what tests call -----------------------------------------------------------

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def drop(self) -> None:
        """Close every connection now, both ends (FIN)."""
        self._call(self._close_all, False)

    def reset(self) -> None:
        """Reset every connection now, both ends (RST)."""
        self._call(self._close_all, True)

    def cut(self, where: str) -> None:
        """Reset the connection of the next script sent: ``"request"`` after half of
        it reached Redis, ``"reply"`` after all of it did, before its answer."""
        if where not in ("request", "reply"):
            raise ValueError(where)
        self._cut = where

    def partition(self) -> None:
        """Let nothing through until :meth:`heal`; hold what is sent meanwhile."""
        self._loop.call_soon_threadsafe(self._open.clear)
        self.counts["partitions"] += 1

    def heal(self) -> None:
        self._loop.call_soon_threadsafe(self._open.set)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._call(self._shutdown)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- the loop ------------------------------------------------------------------

    def _call(self, fn: object, *args: object) -> None:
        async def run() -> None:
            result = fn(*args)  # type: ignore[operator]
            if asyncio.iscoroutine(result):
                await result

        asyncio.run_coroutine_threadsafe(run(), self._loop).result(10)

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._open.set()
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._accept, self.host, 0)
        )
        self.port: int = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _shutdown(self) -> None:
        self._server.close()
        self._close_all(True)
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _close_all(self, rst: bool) -> None:
        for link in list(self._links):
            self._end(link, rst)
        self.counts["resets" if rst else "drops"] += 1

    def _end(self, link: _Link, rst: bool) -> None:
        self._links.discard(link)
        for writer in link.writers():
            sock = writer.get_extra_info("socket")
            if rst and sock is not None:
                with contextlib.suppress(OSError):  # SO_LINGER 0: close sends RST, not FIN
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # asyncio logs a connection's task that ends cancelled ("Exception in callback"),
        # as every one does when the proxy closes: end it quietly instead
        with contextlib.suppress(asyncio.CancelledError):
            await self._serve(reader, writer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await self._open.wait()  # a partition: the connection hangs, as a SYN would
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.target)
        except OSError:
            writer.close()
            return
        link = _Link(writer, up_writer)
        self._links.add(link)
        self.counts["connections"] += 1
        await asyncio.gather(
            self._pump(link, reader, up_writer, upstream=True),
            self._pump(link, up_reader, writer, upstream=False),
            return_exceptions=True,
        )
        self._end(link, False)

    async def _pump(
        self,
        link: _Link,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        upstream: bool,
    ) -> None:
        """Forward ``reader`` to ``writer`` chunk by chunk, in order, each after
        its delay and only while there is no partition."""
        queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

        async def deliver() -> None:
            while (item := await queue.get()) is not None:
                when, data = item
                if (wait := when - time.monotonic()) > 0:
                    await asyncio.sleep(wait)
                await self._open.wait()
                if link not in self._links:
                    return
                if link.muted and not upstream:
                    continue
                cut = (
                    self._cut
                    if upstream and data.lstrip(b"*0123456789\r\n$").startswith(_SCRIPT)
                    else None
                )
                if cut is not None:
                    self._cut = None
                    self.counts[f"cut {cut}"] += 1
                    link.muted = cut == "reply"
                    writer.write(data[: len(data) // 2] if cut == "request" else data)
                    await writer.drain()
                    await asyncio.sleep(0.05 if cut == "reply" else 0)
                    self._end(link, True)
                    return
                writer.write(data)
                await writer.drain()

        sender = asyncio.ensure_future(deliver())
        try:
            while data := await reader.read(65536):
                if upstream and link.chunks < 8:
                    link.chunks += 1
                    link.replica = link.replica or any(s in data for s in _SYNC)
                lag = self.latency + (self.replication_lag if link.replica and not upstream else 0)
                queue.put_nowait((time.monotonic() + lag, data))
        except OSError:
            pass
        finally:
            queue.put_nowait(None)
            with contextlib.suppress(OSError):
                await sender
            if link in self._links and not writer.is_closing():
                writer.close()
