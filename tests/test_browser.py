"""The web board in a real browser (Debian's chromium, driven by Playwright).

Few and fast: one page walks every rule set and theme; two Telegram players play a
whole game to its end while a spectator follows (the press-to-other-page latency
printed); the Discord Activity signs in through its SDK.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

import engine
from bot.hosting import Game, User
from bot.store.sqlite.store import SqliteStore
from bot.web.discord import DiscordOAuth
from bot.web.geometry import board_geometry
from bot.web.words import words
from tests.browser.harness import (
    ANA,
    AT_LEAST,
    BEN,
    DESKTOP,
    LINK_BACK,
    PHONE,
    THEMES,
    Site,
    percentile,
    ready,
    site,
)
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import FakeTelegram, make_user
from tests.helpers.chat_scenarios import shown_version
from tests.helpers.service import current, person_on_turn
from tests.helpers.stores import FakeClock
from tests.helpers.telegram import Bot, running

# Chromium and the page's timing: these tests take turns on one worker (tests/plugin.py)
pytestmark = pytest.mark.xdist_group("browser")

DOCS = Path(__file__).resolve().parent.parent / "docs" / "board"


def opened(s: Site, channel: str, rules: str, theme: str = "classic", moves: int = 0) -> Game:
    """A game of Ana and Ben (computers fill super) started, ``moves`` presses in."""
    t = s.table
    t.svc.open(channel, ANA, rules, theme=theme)
    t.join(channel, ANA)
    t.join(channel, BEN)
    t.start(channel, ANA)
    game = current(t, channel)
    for _ in range(moves):
        user = person_on_turn(game)
        if user is None:
            break
        reply = t.board(channel)
        t.press(channel, user, reply.buttons[0][-1].data)
        got = t.get(game.id)
        assert got is not None
        game = got
    return game


async def board_facts(page: Page) -> dict[str, object]:
    return dict(
        await page.evaluate(
            """() => {
            const svg = document.querySelector('svg.board');
            return {
              theme: svg.dataset.theme, rules: svg.dataset.rules,
              squares: svg.querySelectorAll('[data-square]').length,
              stars: svg.querySelectorAll('.star').length,
              pieces: svg.querySelectorAll('.piece').length,
              movable: svg.querySelectorAll('.piece.movable').length,
              actions: document.querySelectorAll('#actions button').length,
            };
        }"""
        )
    )


@pytest.mark.slow
async def test_every_rule_set_and_theme_drawn_with_screenshots(tmp_path: Path) -> None:
    async with site(tmp_path) as s:
        ctx = await s.context(PHONE)
        page = await ctx.new_page()
        for k, rules in enumerate(engine.RULE_SETS):
            for theme in THEMES:
                game = opened(s, f"tg:-{k}{len(theme)}", rules, theme)
                await page.goto(f"{s.url}/board/?watch={s.board.keys.watch(game.id)}")
                await ready(page)
                facts = await board_facts(page)
                stars = {"star": 4, "shelter": 4, "none": 0}[board_geometry(rules)["star_style"]]
                assert game.state is not None
                pieces = sum(len(p) for p in game.state.pieces.values())
                assert facts == {
                    "theme": theme,
                    "rules": rules,
                    "squares": 72,
                    "stars": stars,
                    "pieces": pieces,
                    "movable": 0,
                    "actions": 0,
                }, facts
        # the screenshots of docs/board: a game some moves in, three themes, phone and desktop
        DOCS.mkdir(parents=True, exist_ok=True)
        for theme in THEMES:
            game = opened(s, f"tg:-9{len(theme)}", "classic", theme, moves=60)
            user = person_on_turn(game)
            assert user is not None
            for name, size in (("phone", PHONE), ("desktop", DESKTOP)):
                shot = await s.context(size)
                player = await s.telegram_page(shot, user, game.id)
                await player.screenshot(path=str(DOCS / f"{theme}-{name}.png"), full_page=True)
                await shot.close()
        # and a game's end, as a player sees it (Rematch and the standings)
        game = opened(s, "tg:-88", "classic", moves=5000)
        assert game.status == "over"
        shot = await s.context(PHONE)
        player = await s.telegram_page(shot, BEN, game.id, "pt_BR")
        await player.wait_for_selector("#actions button[data-kind=rematch]")
        await player.screenshot(path=str(DOCS / "standings-phone.png"), full_page=True)
        await shot.close()
        await ctx.close()
        # moves, captures and the die animated, where motion is welcome
        game = opened(s, "tg:-77", "classic")
        watching = await s.context(motion=True)
        page = await s.watch_page(watching, game.id)
        moved: set[str] = set()
        for _ in range(400):
            user = person_on_turn(game)
            assert user is not None
            t = s.table
            t.press(game.channel, user, t.board(game.channel).buttons[0][-1].data)
            game = current(t, game.channel)
            await page.wait_for_function(AT_LEAST, arg=game.rev)
            move = game.last.get("move")
            if move and len(move) >= 6:  # a capture: the mover's and the victim's pieces
                moved = {f"{move[0]}-{move[1] + 1}", f"{move[4]}-{move[5] + 1}"}
                break
        else:
            raise AssertionError("no capture in 400 presses")
        animated = set(await page.evaluate("window.__animated"))
        assert moved <= animated, (moved, animated)
        assert await page.evaluate("window.__rolled") > 0
        await watching.close()


async def turn_ready(page: Page, rev_at_least: int) -> None:
    await page.wait_for_function(AT_LEAST, arg=rev_at_least)


@pytest.mark.slow
async def test_two_players_play_a_whole_game_while_a_spectator_follows(
    tmp_path: Path, clock: FakeClock
) -> None:
    fake = FakeTelegram()
    await fake.start()
    store = SqliteStore(str(tmp_path / "games.sqlite3"), ttl=3600, clock=clock)
    try:
        async with (
            running(fake, store, clock) as bot,
            site(tmp_path, svc=bot.service, show=bot.adapter.show) as s,
        ):
            await play_a_whole_game(s, bot)
    finally:
        store.close()
        await fake.close()


async def play_a_whole_game(s: Site, bot: Bot) -> None:
    """Ana opens a game in a Telegram group; Ben joins and Ana starts it on their pages,
    then they play it on their pages to the end, the group's table in step."""
    fake = bot.fake
    group = fake.group()
    fake.send_text(group, make_user(int(ANA.id), ANA.name), "/ludo classic timer=0")
    await bot.settle()
    game_id = current(s.table, f"tg:{group['id']}").id
    t = s.table
    ana = await s.telegram_page(await s.context(), ANA, game_id)
    ben = await s.telegram_page(await s.context(), BEN, game_id, "pt_BR")
    watcher = await s.watch_page(await s.context(), game_id)
    sent: list[str] = []

    def frame(payload: str | bytes) -> None:
        sent.append(payload if isinstance(payload, str) else payload.decode())

    watcher.on("websocket", lambda ws: ws.on("framesent", frame))
    await watcher.reload()
    await ready(watcher)
    # the lobby, through the pages: Ben joins (in Portuguese), Ana starts
    assert await ben.locator("#actions button").all_inner_texts() == ["Entrar"]
    assert await watcher.locator("#actions button").count() == 0
    await ben.click("#actions button[data-kind=join]")
    await ana.wait_for_selector("#seats li:nth-child(2)")
    await ana.screenshot(path=str(DOCS / "lobby-phone.png"), full_page=True)
    await ana.click("#actions button[data-kind=start]")
    # the press went over the page's socket: the game has started once the page says so
    await expect(ana.locator("body")).to_have_attribute("data-status", "playing")
    pages = {ANA.id: ana, BEN.id: ben}
    latency: list[float] = []
    tapped = False
    for _ in range(3000):
        game = t.get(game_id)
        assert game is not None
        if game.status != "playing":
            break
        user = person_on_turn(game)
        assert user is not None
        me, other = pages[user.id], pages[BEN.id if user.id == ANA.id else ANA.id]
        for page in (me, other, watcher):
            await turn_ready(page, game.rev)
        if not tapped:  # a spectator's tap does nothing: no press leaves the page
            for piece in await watcher.locator("svg.board .piece").all():
                await piece.dispatch_event("click")
            tapped = True
        if len(latency) == 20:
            # the group's table shows the game as the pages do
            await bot.settle()
            assert shown_version(fake, group["id"], game_id) == game.version
            # the server drops every socket: the pages come back
            for viewers in list(s.board.hub.games.values()):
                for viewer in list(viewers):
                    await viewer.ws.close()
            for page in (me, other, watcher):
                await page.wait_for_function(LINK_BACK)
        roll = me.locator("#actions button[data-kind=roll]")
        started = time.perf_counter()
        if await roll.count():
            await roll.click()
        else:
            await me.locator("svg.board .piece.movable").first.dispatch_event("click")
        await other.wait_for_function(AT_LEAST, arg=game.rev + 1, polling="raf")
        latency.append(time.perf_counter() - started)
    else:
        raise AssertionError("no end in 3000 presses")
    final = t.get(game_id)
    assert final is not None and final.status == "over"
    for page in (ana, ben, watcher):
        await turn_ready(page, final.rev)
        await page.wait_for_selector("#standings:not([hidden])")
        assert await page.get_attribute("body", "data-status") == "over"
        rows = await page.locator("#standings-rows li").all_inner_texts()
        plain = [r.replace(".", "").replace(",", "") for r in rows]  # 1.086 in Portuguese
        for seat in final.seats:  # every person's new rating is on every page
            if seat.user is not None and seat.colour is not None:
                shown = final.rated[seat.colour][0]
                assert any(seat.user.name in r and f" · {shown} (" in r for r in plain), rows
    assert await ana.locator("#actions button[data-kind=rematch]").count() == 1
    assert await ben.locator("#actions button[data-kind=rematch]").count() == 1
    assert await watcher.locator("#actions button").count() == 0
    # the players asked for reduced motion: nothing moved but at once
    assert await ana.evaluate("[window.__animated.length, window.__rolled]") == [0, 0]
    assert not any('"press"' in frame for frame in sent) and sent, sent
    # every press made on a page was shown in the group, which shows the final table
    await bot.settle()
    assert len(s.shown) == len(latency) + 2  # the join and the start too
    assert shown_version(fake, group["id"], game_id) == final.version
    p50, p95 = percentile(latency, 0.5), percentile(latency, 0.95)
    print(
        f"\nweb board: {len(latency)} presses, press to the other page: "
        f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {max(latency) * 1000:.0f} ms"
    )


async def test_a_discord_activity_signs_in_through_the_sdk_and_plays(tmp_path: Path) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        oauth = DiscordOAuth(fake.app_id, fake.client_secret, fake.api_base, bot_token=fake.token)
        async with site(tmp_path, oauth) as s:
            channel = str(fake.channel_id)
            dana = User("discord", "777", "Dana")
            s.table.svc.open(f"dc:{channel}", dana)
            code = fake.mint_code(777, "Dana", locale="es-ES")
            ctx = await s.context()
            # Discord asked the bot to wait (or its budget is spent): the page says so in
            # the bot's words, waits as told, and signs in with the same code after
            oauth.calls.budget.hold("token", 1.2)
            page = await s.discord_page(ctx, fake, code, dana, channel)
            toast = await page.inner_text("#toast")
            assert toast == words("web.discord_busy", "en"), toast
            assert len(fake.calls_to("POST", "/oauth2/token")) == 1
            # the SDK's own handshake and commands, as Discord's client saw them
            seen = await page.evaluate("window.__discord.map((m) => [m.opcode, m.cmd])")
            assert seen == [[0, None], [1, "AUTHORIZE"], [1, "AUTHENTICATE"]], seen
            handshake = await page.evaluate("window.__discord[0].payload")
            assert handshake["client_id"] == str(fake.app_id) and handshake["frame_id"] == "frame1"
            authorize = await page.evaluate("window.__discord[1].payload.args")
            assert authorize["scope"] == ["identify"] and authorize["response_type"] == "code"
            # the real code exchange ran against the fake Discord, with the client's secret
            exchange = next(c for c in fake.calls if c.path == "/oauth2/token")
            assert exchange.body["code"] == code
            # and the bot asked Discord, as the bot, whether she is in the SDK's instance
            (lookup,) = fake.calls_to("GET", r"/applications/\d+/activity-instances/.+")
            assert lookup.path == f"/applications/{fake.app_id}/activity-instances/i-1"
            assert lookup.authorization == f"Bot {fake.token}" and lookup.status == 200
            # signed in as Dana, in her language, in her channel's game: she plays
            assert await page.get_attribute("html", "lang") == "es"
            assert await page.get_attribute("body", "data-role") == "player"
            kinds = await page.eval_on_selector_all(
                "#actions button", "(bs) => bs.map((b) => b.dataset.kind)"
            )
            assert "add_computer" in kinds and "start" in kinds and "level" in kinds
            # the level first (in Spanish: normal -> difícil), then a computer of it
            assert await page.inner_text("#actions button[data-kind=level]") == "Nivel: normal"
            await page.click("#actions button[data-kind=level]")
            await expect(page.locator("#actions button[data-kind=level]")).to_have_text(
                "Nivel: difícil"
            )
            await page.click("#actions button[data-kind=add_computer]")
            await expect(page.locator("#seats li:nth-child(2)")).to_contain_text("Bot (difícil)")
            await ctx.close()
    finally:
        await fake.close()


async def test_a_tournament_table_on_the_board_offers_i_am_in_to_its_players(
    tmp_path: Path,
) -> None:
    """A tournament's table on the live board: its players still to say yes see I'm in
    (and press it there), nobody may join, start or add computers, a stranger sees
    nothing to press."""
    from bot.service.tournaments import tournaments_of

    async with site(tmp_path) as s:
        tours = tournaments_of(s.table.svc)
        channel = "tg:-1009"
        people = [ANA, BEN, User("telegram", "103", "Cid"), User("telegram", "104", "Dee")]
        tours.open(channel, ANA, "classic", timer=60, size=4, rounds=1)
        for person in people[1:]:
            out = tours.act(channel, person, "join")
        (table,) = out.tables
        assert table.game is not None
        game_id = table.game.id
        ana = await s.telegram_page(await s.context(), ANA, game_id)
        stranger = await s.telegram_page(await s.context(), User("telegram", "999", "Zed"), game_id)
        assert await ana.locator("#actions button").all_inner_texts() == ["I'm in"]
        assert await stranger.locator("#actions button").count() == 0
        await ana.click("#actions button[data-kind=join]")
        await ana.wait_for_function("() => !document.querySelector('#actions button')")
        game = s.table.svc.get(game_id)
        assert game is not None and game.seat_of(ANA) is not None
        assert not game.seat_of(ANA).waiting  # type: ignore[union-attr]
        assert len(game.waiting) == 3
