"""Names meant to break a page, in Chromium with the page's real Content-Security-Policy:
markup, script URLs, 129 characters without a space, right-to-left text and overrides,
zero-width characters, emoji.  Wherever the page shows a name (the lobby's seats, the
yards drawn on the board, whose turn it is, the story of the last moves, the standings)
it shows as text, nothing runs, and the layout holds on a phone, at 320 px too."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page

from bot.hosting import Game, User
from tests.browser.harness import PHONE, Site, site
from tests.helpers.service import current, person_on_turn

# Chromium and the page's timing: these tests take turns on one worker (tests/plugin.py)
pytestmark = pytest.mark.xdist_group("browser")

#: what a page would run if a name were taken as markup or a link
TRAPS = """
window.__ran = [];
window.__violations = [];
document.addEventListener(
  "securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective));
"""
HOSTILE = [
    User("telegram", "201", '<img src=x onerror="window.__ran.push(1)">'),
    User("telegram", "202", "<script>window.__ran.push(2)</script><b>bold</b>"),
    User("telegram", "203", "javascript:window.__ran.push(3)//https://example.org"),
    User("telegram", "204", "W" * 129),
]
STRANGE = [
    User("telegram", "205", "\u202eevil\u202c override \u2069 \u2067 close"),
    User("telegram", "206", "مُحَمَّد עִבְרִית"),
    User("telegram", "207", "Ze\u200bro\u200d\u2060wi\ufeffdth\u200e"),
    User("telegram", "208", "👩‍👩‍👧‍👦🎲🔥 Zoë"),
]
#: the bidi controls a name may carry that could reach past it (they are dropped; the
#: name is isolated instead)
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def shown(name: str) -> str:
    """A name as the page shows it: without bidi controls of its own."""
    return "".join(c for c in name if c not in BIDI)


def table(s: Site, channel: str, people: list[User], rules: str = "classic") -> Game:
    t = s.table
    t.svc.open(channel, people[0], rules)
    for person in people:
        t.join(channel, person)
    return current(t, channel)


def play(s: Site, game: Game, presses: int) -> Game:
    t = s.table
    for _ in range(presses):
        user = person_on_turn(game)
        if user is None:
            break
        t.press(game.channel, user, t.board(game.channel).buttons[0][-1].data)
        got = t.get(game.id)  # a finished game frees its channel
        assert got is not None
        game = got
    return game


async def nothing_ran(page: Page) -> None:
    assert await page.evaluate("window.__ran") == []
    assert await page.evaluate("window.__violations") == []
    made = await page.evaluate(
        """() => ({
          img: document.querySelectorAll("img, image, script:not([src]), iframe, object").length,
          b: document.querySelectorAll("b").length,
          links: [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"))
            .filter((h) => !h.includes("?watch=")),
        })"""
    )
    assert made == {"img": 0, "b": 0, "links": []}, made


async def layout_holds(page: Page) -> None:
    """No sideways scrolling; every seat, story line, standings row and action inside
    the window; every yard's name inside its yard."""
    out = await page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          const wide = [...document.querySelectorAll(
              "#seats li, #story li, #standings-rows li, #prompt, #actions button")]
            .filter((e) => e.offsetParent !== null)
            .filter((e) => {
              const r = e.getBoundingClientRect();
              return r.left < -1 || r.right > width + 1;
            })
            .map((e) => e.textContent.slice(0, 40));
          const boxes = [...document.querySelectorAll("svg.board rect.yard")]
            .map((r) => r.getBBox());
          const yards = [...document.querySelectorAll("svg.board .yard-name")].filter((t) => {
            const a = t.getBBox();
            const [cx, cy] = [a.x + a.width / 2, a.y + a.height / 2];
            const b = boxes.find(
              (y) => cx >= y.x && cx <= y.x + y.width && cy >= y.y && cy <= y.y + y.height);
            return !b || a.x < b.x - 0.01 || a.x + a.width > b.x + b.width + 0.01;
          }).map((t) => t.textContent.slice(0, 20));
          return {scroll: document.documentElement.scrollWidth - window.innerWidth, wide, yards};
        }"""
    )
    assert out == {"scroll": 0, "wide": [], "yards": []}, out


async def names_as_text(page: Page, people: list[User], where: str) -> None:
    text = await page.evaluate(f"() => document.querySelector({where!r}).textContent")
    if where in ("#seats", "#standings-rows"):  # each name in an element of its own
        own = await page.locator(f"{where} bdi").all_text_contents()
        assert sorted(own) == sorted(shown(p.name) for p in people), own
    plain = "".join(c for c in text if c not in BIDI)
    for person in people:
        assert shown(person.name) in plain, (person.name, plain[:300])


async def test_hostile_names_show_as_text_run_nothing_and_keep_the_layout(
    tmp_path: Path,
) -> None:

    async with site(tmp_path) as s:
        for k, people in enumerate((HOSTILE, STRANGE)):
            channel = f"tg:-66{k}"
            lobby = table(s, channel, people)
            for width in (PHONE["width"], 320):
                ctx = await s.context({"width": width, "height": 800})
                await ctx.add_init_script(TRAPS)
                page = await s.telegram_page(ctx, people[1], lobby.id)
                await names_as_text(page, people, "#seats")
                await nothing_ran(page)
                await layout_holds(page)
                await ctx.close()
            s.table.start(channel, people[0])
            game = play(s, current(s.table, channel), 40)
            assert game.status == "playing"
            ctx = await s.context(PHONE)
            await ctx.add_init_script(TRAPS)
            page = await s.watch_page(ctx, game.id)
            await names_as_text(page, people, "#seats")
            await names_as_text(page, people, "svg.board")
            # in a sentence, a name is isolated (FSI ... PDI), its own bidi controls dropped
            story = "".join(await page.locator("#story li").all_text_contents())
            told = [p for p in people if f"\u2068{shown(p.name)}\u2069" in story]
            assert told, story
            assert story.count("\u2068") == story.count("\u2069")
            assert not set(story) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067")
            await nothing_ran(page)
            await layout_holds(page)
            # to the end: the standings name everyone
            game = play(s, game, 5000)
            assert game.status == "over"
            await page.wait_for_function(
                "(rev) => Number(document.body.dataset.rev) >= rev", arg=game.rev
            )
            await page.wait_for_selector("#standings:not([hidden])")
            await names_as_text(page, people, "#standings-rows")
            await nothing_ran(page)
            await layout_holds(page)
            await ctx.close()
