"""The page and the web side's limits, in Chromium: a socket refused for going too fast
(4429, with ``retry_after``) is not tried again before the bot said, and then the page
comes back by itself."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.hosting import User
from bot.limits.rate import Limiter, LimitSettings, Rate, Verdict
from bot.store.limits import MemoryBuckets
from tests.browser.harness import PHONE, site
from tests.helpers.service import current

# Chromium and the page's timing: these tests take turns on one worker (tests/plugin.py)
pytestmark = pytest.mark.xdist_group("browser")

ANA = User("telegram", "101", "Ana")
BEN = User("telegram", "102", "Ben")
#: the page's link is down, then up again
BACK_UP = "() => window.__links.join(' ').endsWith('down up')"


class Told(Limiter):
    """The limits, keeping the seconds each refusal told the page to wait (the
    ``retry_after`` of its 4429), whatever the machine's load made them."""

    told: list[int]

    def check_web(self, address: str, person: str | None = None) -> Verdict:
        verdict = super().check_web(address, person)
        if not verdict.allowed:
            self.told.append(verdict.seconds)
        return verdict


async def test_a_page_refused_for_going_too_fast_waits_as_told_then_comes_back(
    tmp_path: Path,
) -> None:

    async with site(tmp_path) as s:
        t = s.table
        t.svc.open("tg:-4429", ANA, "classic")
        t.join("tg:-4429", ANA)
        t.join("tg:-4429", BEN)
        t.start("tg:-4429", ANA)
        game = current(t, "tg:-4429")
        # this address: a session and a socket at once, then one every 2 s
        settings = LimitSettings(address=Rate(2, 0.5))
        limiter = Told(MemoryBuckets(), settings, clock=time.monotonic)
        limiter.told = []
        s.board.limiter = limiter
        ctx = await s.context(PHONE)
        opened: list[float] = []
        page = await ctx.new_page()
        page.on("websocket", lambda ws: opened.append(time.monotonic()))
        await page.goto(f"{s.url}/board/?watch={s.board.keys.watch(game.id)}")
        await page.wait_for_selector("body.ready")
        await page.wait_for_function("() => document.body.dataset.link === 'up'")
        # the server drops the socket: the page's next hello comes too soon (refused,
        # 4429, come back in 2 s), and the one after waits for it
        for viewers in list(s.board.hub.games.values()):
            for viewer in list(viewers):
                await viewer.ws.close()
        await page.wait_for_function(BACK_UP, timeout=15_000)
        assert len(opened) == 3, opened
        refused_at, again_at = opened[1], opened[2]
        (told,) = limiter.told  # 1 or 2 s, as late as the machine let the page come back
        assert again_at - refused_at >= told - 0.1, (opened, told)  # what the bot asked for
        assert again_at - refused_at < told + 4, (opened, told)  # and not given up on
        assert await page.get_attribute("body", "data-rev") == str(game.rev)
        await ctx.close()
