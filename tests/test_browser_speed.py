"""A light, fast page: a first visit on a slow phone (tests/browser/phone.py) brings
at most 60 KB before the board shows, outside Discord, and never Discord's SDK.
The time to the drawn board is printed (a figure, not a gate here:
``bench/page.py`` measures it over many visits)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.harness import PHONE, site
from tests.browser.phone import first_visit, visits

# Chromium and the page's timing: these tests take turns on one worker (tests/plugin.py)
pytestmark = pytest.mark.xdist_group("browser")


#: the most bytes before the board shows, outside Discord
MOST_BYTES = 60_000


async def test_a_first_visit_on_a_slow_phone_is_light(tmp_path: Path) -> None:
    async with site(tmp_path) as s:
        kinds = visits(s)
        lines = []
        for what, (url, script) in kinds.items():
            ctx = await s.context(PHONE)
            load = await first_visit(ctx, url, script)
            await ctx.close()
            lines.append(load.says(what))
            assert load.bytes <= MOST_BYTES, load.says(what)
            # the page, its style and modules, the session and the geometry at least
            assert load.requests >= 7, load.names
            assert not any("discord-embedded-app-sdk" in name for name in load.names), load.names
        print("\nslow phone (1.6 Mbps, 150 ms RTT, 4x CPU), first visit:\n  " + "\n  ".join(lines))
