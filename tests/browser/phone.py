"""A first visit to the board on a phone on a slow network, measured in Chromium.

The profile is Lighthouse's "slow 4G" phone, set through the Chrome DevTools
Protocol: 1.6 Mbps down, 750 kbps up, 150 ms round trip
(``Network.emulateNetworkConditions``), the CPU four times slower
(``Emulation.setCPUThrottlingRate``), no cache.  Measured by the page itself:
the time from the start of the navigation to the board drawn (the mark
``ludo:board-drawn`` app.js sets once its first state is on screen), and the
bytes that came over the network before it (Resource Timing's ``transferSize``
of the page and of every file and API answer that ended before the mark: headers
and compressed bodies, as they travelled).
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.async_api import BrowserContext

from bot.hosting import User
from tests.browser.harness import Site
from tests.helpers.service import current

ANA = User("telegram", "101", "Ana")
BEN = User("telegram", "102", "Ben")

#: Lighthouse's slow-4G phone (bytes a second, as the protocol takes them)
NETWORK = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1_600_000 / 8,
    "uploadThroughput": 750_000 / 8,
}
CPU_SLOWDOWN = 4
#: the page has drawn its first board
DRAWN = "() => performance.getEntriesByName('ludo:board-drawn').length > 0"
MEASURE = """() => {
  const drawn = performance.getEntriesByName("ludo:board-drawn")[0].startTime;
  const nav = performance.getEntriesByType("navigation")[0];
  const before = performance.getEntriesByType("resource").filter((r) => r.responseEnd <= drawn);
  return {
    ms: drawn,
    bytes: nav.transferSize + before.reduce((sum, r) => sum + r.transferSize, 0),
    requests: 1 + before.length,
    names: performance.getEntriesByType("resource").map((r) => r.name),
  };
}"""


@dataclass(frozen=True)
class Load:
    """One first visit: the time to the board drawn, what came before it."""

    ms: float
    bytes: int
    requests: int
    #: every file or answer the page asked for (by the end of the measure)
    names: tuple[str, ...]

    @property
    def kb(self) -> float:
        return self.bytes / 1000

    def says(self, what: str) -> str:
        return (
            f"{what}: board drawn at {self.ms:.0f} ms, {self.kb:.1f} KB in "
            f"{self.requests} requests before it"
        )


async def first_visit(ctx: BrowserContext, url: str, init_script: str | None = None) -> Load:
    """``url`` opened in a new page of ``ctx`` on the slow phone, measured."""
    page = await ctx.new_page()
    if init_script is not None:
        await page.add_init_script(init_script)
    cdp = await ctx.new_cdp_session(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    await cdp.send("Network.emulateNetworkConditions", NETWORK)
    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    await page.goto(url)
    await page.wait_for_function(DRAWN, timeout=30_000)
    got = await page.evaluate(MEASURE)
    await page.close()
    return Load(float(got["ms"]), int(got["bytes"]), int(got["requests"]), tuple(got["names"]))


def visits(s: Site) -> dict[str, tuple[str, str | None]]:
    """A game of Ana and Ben started on ``s``, and the two first visits measured of it:
    a spectator's (its link) and a Telegram player's (Ana's Mini App): what to open,
    and the page's init script."""
    t = s.table
    channel = "tg:-5150"
    t.svc.open(channel, ANA, "classic")
    t.join(channel, ANA)
    t.join(channel, BEN)
    t.start(channel, ANA)
    game = current(t, channel)
    return {
        "spectator": (f"{s.url}/board/?watch={s.board.keys.watch(game.id)}", None),
        "Telegram player": (f"{s.url}/board/", s.telegram_script(ANA, game.id)),
    }
