"""The live board for keyboards and screen readers, in a real browser (Debian's
chromium, driven by Playwright; axe-core vendored in tests/browser/vendor).

axe finds no violation of WCAG 2.2 A and AA in any view (lobby, playing, choosing a
piece, the standings, a spectator's) in any theme, on a phone and a desktop, and the
words drawn in the board read at 4.5:1; a whole game is played with the keyboard
alone; the live region tells each move once; the pieces and the landing marks are
named in the viewer's language; the page reflows at 320 px and at 200% zoom.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import BrowserContext, Page, ViewportSize, expect

from bot.hosting import Game, User
from bot.web.geometry import board_geometry
from bot.web.view import game_json
from tests.browser.access import axed, focused, said, svg_text_contrast, tab_to, violations
from tests.browser.harness import ANA, AT_LEAST, BEN, DESKTOP, LINK_BACK, PHONE, THEMES, Site, site
from tests.helpers.service import current, person_on_turn
from tests.helpers.stores import FakeClock

# Chromium and the page's timing: these tests take turns on one worker (tests/plugin.py)
pytestmark = pytest.mark.xdist_group("browser")

#: the page's state once it shows the game after a press (not waiting for the press's
#: answer: a keyboard goes on at once): over, Roll to press, or a choice
SETTLED = """() => document.body.dataset.status === "over" ? "over"
  : document.querySelector("#actions button[data-kind=roll]") ? "roll"
  : document.querySelector("svg.board .piece.movable") ? "choose" : false"""
NEWER = "(rev) => Number(document.body.dataset.rev) > rev"
#: seconds between two presses of a person at the keyboard
PACE = 0.25


@pytest.fixture(scope="module", autouse=True)
def timed() -> Iterator[None]:
    """The whole file's time, printed (it is kept under a minute)."""
    started = time.perf_counter()
    yield
    print(f"\ntests/test_browser_a11y.py: {time.perf_counter() - started:.1f} s in all")


def press_on(s: Site, game_id: str, pick: int = 0) -> Game:
    """The person on turn presses (Roll, or one of the pieces: the ``pick``-th)."""
    game = s.table.get(game_id)
    assert game is not None and game.status == "playing"
    user = person_on_turn(game)
    assert user is not None
    view = game_json(game, user, "en")
    moves = view["moves"]
    data = moves[pick % len(moves)]["data"] if moves else view["actions"][0]["data"]
    assert not s.table.press(game.channel, user, data).refused
    got = s.table.get(game_id)
    assert got is not None
    return got


def opened(s: Site, channel: str, theme: str = "classic", timer: int = 0) -> Game:
    t = s.table
    t.svc.open(channel, ANA, "classic", theme=theme, timer=timer)
    t.join(channel, ANA)
    t.join(channel, BEN)
    return current(t, channel)


def choosing(s: Site, channel: str, theme: str = "classic") -> Game:
    """A started game of Ana and Ben, played on until the person on turn has a choice."""
    game = opened(s, channel, theme)
    s.table.start(channel, ANA)
    for _ in range(2000):
        user = person_on_turn(game)
        if user is not None and len(game_json(game, user, "en")["moves"]) >= 2:
            return game
        game = press_on(s, game.id)
    raise AssertionError("no choice in 2000 presses")


def views(s: Site, k: int, theme: str) -> dict[str, tuple[Game, User | None]]:
    """Each view of the board, as a game and who looks at it (None: a spectator)."""
    lobby = opened(s, f"tg:-1{k}", theme, timer=60)
    playing = opened(s, f"tg:-2{k}", theme, timer=60)
    s.table.start(playing.channel, ANA)
    playing = current(s.table, playing.channel)
    chosen = choosing(s, f"tg:-3{k}", theme)
    over = choosing(s, f"tg:-4{k}", theme)
    for _ in range(5000):
        if over.status != "playing":
            break
        over = press_on(s, over.id)
    assert over.status == "over"
    return {
        "lobby": (lobby, ANA),
        "playing": (playing, person_on_turn(playing)),
        "choosing": (chosen, person_on_turn(chosen)),
        "standings": (over, ANA),
        "watching": (chosen, None),
    }


async def open_view(s: Site, ctx: BrowserContext, game: Game, user: User | None) -> Page:
    if user is None:
        return await s.watch_page(ctx, game.id)
    return await s.telegram_page(ctx, user, game.id)


@pytest.mark.slow
async def test_every_view_passes_axe_in_every_theme_on_phone_and_desktop(tmp_path: Path) -> None:
    started = time.perf_counter()
    async with site(tmp_path) as s:
        every = {theme: views(s, k, theme) for k, theme in enumerate(THEMES)}
        found: dict[str, str] = {}
        drawn: dict[str, list[str]] = {}
        runs = 0
        for size in (PHONE, DESKTOP):
            ctx = await axed(await s.context(size))
            for theme, seen in every.items():
                colours = board_geometry("classic")["themes"][theme]
                for view, (game, user) in seen.items():
                    page = await open_view(s, ctx, game, user)
                    where = f"{view}/{theme}/{size['width']}"
                    assert await page.get_attribute("body", "data-status") == (
                        "lobby" if view == "lobby" else "over" if view == "standings" else "playing"
                    ), where
                    if view in ("playing", "standings"):
                        await expect(page.locator("#actions button").first).to_be_visible()
                    if view == "choosing":
                        await expect(page.locator("svg.board .piece.movable").first).to_be_visible()
                    bad = await violations(page)
                    runs += 1
                    if bad:
                        found[where] = said(bad)
                    kinds, poor = await svg_text_contrast(page, colours)
                    # (a lobby's board has no colours seated yet: no words on it)
                    assert view == "lobby" or kinds >= {"yard", "piece"}, (where, kinds)
                    assert ("mark" in kinds) == (view == "choosing"), (where, kinds)
                    if poor:
                        drawn[where] = poor
                    await page.close()
            await ctx.close()
    took = time.perf_counter() - started
    print(f"\naxe: {runs} views (5 views x 3 themes x 2 sizes) in {took:.1f} s")
    assert not found, "\n".join(f"{where}:\n{text}" for where, text in found.items())
    assert not drawn, drawn


async def test_a_whole_game_played_with_the_keyboard_alone(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Ana, against a computer, with Tab, the arrows and Enter only: she adds the
    computer and starts, rolls and chooses her pieces to the end, and asks for a
    rematch; the focus is where the game goes on at every turn, its ring visible."""
    started = time.perf_counter()
    async with site(tmp_path) as s:
        # the board's clock (its sockets' pace of messages) moves a person's pace: a
        # quarter of a second from one press to the next, without waiting for it
        s.board.clock = clock
        t = s.table
        t.svc.open("tg:-500", ANA, "classic", timer=0)
        t.join("tg:-500", ANA)
        game_id = current(t, "tg:-500").id
        page = await s.telegram_page(await s.context(PHONE), ANA, game_id)
        keys = page.keyboard
        await tab_to(page, "add_computer")
        clock.advance(PACE)
        await keys.press("Enter")
        await expect(page.locator("#seats li")).to_have_count(2)
        # the button was kept: the focus is still on it
        assert (await focused(page))["kind"] == "add_computer"
        await tab_to(page, "start")
        clock.advance(PACE)
        await keys.press("Enter")
        await expect(page.locator("body")).to_have_attribute("data-status", "playing")
        rolls = choices = arrowed = 0
        ring_seen = False
        for _ in range(3000):
            state = await (await page.wait_for_function(SETTLED)).json_value()
            if state == "over":
                break
            rev = int(await page.get_attribute("body", "data-rev") or 0)
            now = await focused(page)
            if state == "roll":
                # Roll has the focus whenever it is Ana's roll: nobody tabbed to it
                assert now["kind"] == "roll", now
                if not ring_seen:
                    outline = await page.evaluate(
                        "getComputedStyle(document.activeElement).outlineStyle"
                    )
                    assert outline == "solid"
                rolls += 1
            else:
                # a choice: the focus is on the first of the pieces that can move
                first = await page.evaluate(
                    "[...document.querySelectorAll('svg.board .piece.movable')]"
                    ".sort((a, b) => a.dataset.number - b.dataset.number)[0].dataset.piece"
                )
                assert now["movable"] and now["piece"] == first, now
                movable = await page.locator("svg.board .piece.movable").count()
                assert movable >= 2
                ring = await page.evaluate(
                    "getComputedStyle(document.activeElement.querySelector('.focus')).display"
                )
                assert ring != "none"
                ring_seen = True
                for _ in range(choices % movable):
                    before = now["piece"]
                    await keys.press("ArrowRight")
                    now = await focused(page)
                    assert now["movable"] and now["piece"] != before, now
                    arrowed += 1
                choices += 1
                record = t.get(game_id)
                assert record is not None
                done = len(record.actions)
            clock.advance(PACE)
            await keys.press("Enter")
            await page.wait_for_function(NEWER, arg=rev)
            if state == "choose":
                after = t.get(game_id)
                assert after is not None
                moved = ord(after.actions[done]) - ord("a") + 1
                if "in the yard" not in now["name"]:
                    assert moved == int(now["piece"].split("-")[1]), (now, moved)
        else:
            raise AssertionError("no end in 3000 presses")
        final = t.get(game_id)
        assert final is not None and final.status == "over"
        assert rolls > 20 and choices > 3 and arrowed > 0, (rolls, choices, arrowed)
        await expect(page.locator("#standings")).to_be_visible()
        # Rematch, by keyboard: the table opens again (and starts at once: the other
        # seat is a computer's)
        await tab_to(page, "rematch")
        clock.advance(PACE)
        await keys.press("Enter")
        await expect(page.locator("body")).not_to_have_class(re.compile(r"\bbusy\b"))
        rematch = current(t, "tg:-500")
        assert rematch.id != game_id and rematch.after == game_id
        assert await page.evaluate("window.__animated.length") == 0  # reduced motion kept
    print(
        f"\nkeyboard: a whole game in {rolls} rolls and {choices} choices "
        f"({arrowed} arrow presses) in {time.perf_counter() - started:.1f} s"
    )


async def test_the_live_region_tells_each_move_once(tmp_path: Path) -> None:
    """A spectator's page hears every action of a game in words, once: the mover's
    name and the piece for each move, whose turn it is; a dropped link and a reload
    tell nothing again."""
    started = time.perf_counter()
    async with site(tmp_path) as s:
        game = opened(s, "tg:-600")
        s.table.start(game.channel, ANA)
        game = current(s.table, game.channel)
        ctx = await axed(await s.context(PHONE))
        page = await s.watch_page(ctx, game.id)
        for k in range(160):
            if game.status != "playing":
                break
            game = press_on(s, game.id, pick=k)
            await page.wait_for_function(AT_LEAST, arg=game.rev)
            if k == 60:  # the server drops every socket: the page comes back, tells nothing again
                for viewers in list(s.board.hub.games.values()):
                    for viewer in list(viewers):
                        await viewer.ws.close()
                await page.wait_for_function(LINK_BACK)
        told = await page.evaluate("window.__told")
        numbers = [int(n) for line in told for n in line["told"].split()]
        assert len(numbers) == len(set(numbers)), "an action told twice"
        record = game.record()
        assert set(numbers) == set(range(len(record["actions"])))
        # each move: who moved which piece
        import engine

        state = engine.start_of(record)
        names = {seat.colour: seat.user.name for seat in game.seats if seat.user and seat.colour}
        moves = 0
        for n, action in enumerate(record["actions"]):
            state, events = engine.apply(state, action)
            line = next(line["text"] for line in told if str(n) in line["told"].split())
            line = re.sub("[\u2066-\u2069]", "", line)  # names may come isolated (bidi)
            for e in events:
                if e.kind == "move":
                    assert e.piece is not None
                    assert f"{names[e.colour]} " in line and f"piece {e.piece + 1}" in line, line
                    moves += 1
        assert moves > 20
        assert any("roll the die" in line["text"] for line in told)
        # a reload: nothing of the past is told
        await page.reload()
        await page.wait_for_selector("body.ready")
        assert await page.evaluate("window.__told") == []
        await expect(page.locator("#announce")).to_have_attribute("aria-live", "polite")
        assert await page.get_attribute("#board", "aria-live") is None
    print(
        f"\nlive region: {len(numbers)} actions told once in {time.perf_counter() - started:.1f} s"
    )


COLOURS_PT = {"red": "vermelho", "green": "verde", "yellow": "amarelo", "blue": "azul"}


def where_pt(progress: int) -> str:
    if progress == 0:
        return "na base"
    if progress == 57:
        return "na casa final"
    return f"casa {progress - 51} da reta final" if progress > 51 else f"casa {progress}"


async def test_pieces_and_marks_are_named_in_the_viewers_language(tmp_path: Path) -> None:
    async with site(tmp_path) as s:
        game = choosing(s, "tg:-700")
        user = person_on_turn(game)
        assert user is not None and game.state is not None
        page = await s.telegram_page(await s.context(PHONE), user, game.id, "pt_BR")
        board = page.get_by_role("group", name="Tabuleiro de Ludo clássico")
        await expect(board).to_be_visible()
        await expect(page.get_by_role("link", name="Link para espectadores")).to_be_visible()
        view = game_json(game, user, "pt_BR")
        movable = {(m["colour"], n) for m in view["moves"] for n in m["pieces"]}
        for colour, pieces in game.state.pieces.items():
            for k, progress in enumerate(pieces):
                piece = f"Peça {k + 1} do {COLOURS_PT[colour]}, {where_pt(progress)}"
                if (colour, k + 1) in movable:
                    button = board.get_by_role(
                        "button", name=re.compile("^" + re.escape(piece) + ": ")
                    )
                    await expect(button).to_have_count(1)
                    assert re.search(
                        r": (vai para a casa|sai para a casa de saída|chega à casa final)",
                        await button.get_attribute("aria-label") or "",
                    )
                else:
                    await expect(board.get_by_role("img", name=piece, exact=True)).to_have_count(1)
        # a landing mark for each move, named where its piece lands
        marks = board.get_by_role("img", name=re.compile(r"^Aqui (chega|sai|a peça)"))
        await expect(marks).to_have_count(len(view["moves"]))
        snapshot = await board.aria_snapshot()
        assert 'button "Peça' in snapshot and 'img "Aqui' in snapshot, snapshot


REFLOW_CHECK = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  el.scrollIntoView({ block: "center", inline: "center" });
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const top = document.elementFromPoint(x, y);
  return {
    name: el.getAttribute("aria-label") || el.textContent,
    inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
    pressable: !!top && (top === el || el.contains(top)),
  };
})"""
CONTROLS = "#actions button, #watch, svg.board .piece.movable"


async def test_the_page_reflows_at_320_px_and_at_200_percent_zoom(tmp_path: Path) -> None:
    async with site(tmp_path) as s:
        seen = {
            "lobby": opened(s, "tg:-801"),
            "choosing": choosing(s, "tg:-802"),
        }
        over = choosing(s, "tg:-803")
        while over.status == "playing":
            over = press_on(s, over.id)
        seen["standings"] = over
        sizes = {
            "320 px": (ViewportSize(width=320, height=640), 1),
            "200%": (ViewportSize(width=640, height=400), 2),  # 1280 x 800 at 200%
        }
        for label, (viewport, scale) in sizes.items():
            ctx = await axed(
                await s.browser.new_context(
                    viewport=viewport, device_scale_factor=scale, reduced_motion="reduce"
                )
            )
            for view, game in seen.items():
                user = person_on_turn(game) or ANA
                page = await s.telegram_page(ctx, user, game.id, "pt_BR")
                where = f"{view} at {label}"
                wide = await page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
                assert wide[0] <= wide[1], (where, wide)
                controls = await page.evaluate(REFLOW_CHECK, CONTROLS)
                assert len(controls) >= 2, (where, controls)
                for c in controls:
                    assert c["inside"] and c["pressable"], (where, c)
                bad = await violations(page)
                assert not bad, f"{where}:\n{said(bad)}"
                await page.close()
            await ctx.close()
