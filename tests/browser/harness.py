"""The bot's board served for a real browser: the game service on a SQLite file, the
board's routes on the one web server, and Debian's chromium driven by Playwright.

Pages sign in as the platforms make them: Telegram's ``WebApp`` object injected with
initData signed by the test's bot token (the server's real check runs), spectators by
their link.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from bot.app.board import board_routes
from bot.app.web import WebServer, start_web
from bot.hosting import User
from bot.service.game import GameService
from bot.service.outcome import Outcome
from bot.store.sqlite.store import SqliteStore
from bot.web.auth import Keys, sign_init_data
from bot.web.board import Board, Show
from bot.web.discord import DiscordOAuth
from bot.web.hub import Hub
from tests.fakes.discord import FakeDiscord
from tests.helpers.machine import chromium
from tests.helpers.service import Table, service

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # a Discord Activity is served from https://<application id>.discordsays.com
    "--host-resolver-rules=MAP *.discordsays.com 127.0.0.1",
]
#: what the page animates, logged: window.__animated (the pieces), window.__rolled (the
#: die); and its link to the bot going down and up: window.__links
WATCH_MOTION = """
window.__animated = []; window.__rolled = 0; window.__links = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.__animated.push(this.dataset.piece || this.id);
  return animate.apply(this, args);
};
new MutationObserver((changes) => {
  for (const c of changes) {
    if (c.target.id === "die" && c.target.classList.contains("rolling")) window.__rolled++;
    if (c.attributeName === "data-link") window.__links.push(c.target.dataset.link);
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["class", "data-link"] });
"""
#: the Activity instance a Discord page runs in (the SDK's ``instance_id``)
INSTANCE = "i-1"
#: Discord's client at the Embedded App SDK's postMessage boundary (window.parent)
DISCORD_STUB = (Path(__file__).parent / "discord_stub.js").read_text()
TOKEN = "123456:TEST-token-for-the-browser-tests"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
#: the WebApp object's methods the page calls (Telegram's script makes them)
STUBS = "{ready() {}, expand() {}}"
#: Telegram's colours as a client passes them (a light theme)
THEME_PARAMS = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "link_color": "#3390ec",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
}


@dataclass
class Site:
    """The board's server and the service behind it."""

    table: Table
    board: Board
    server: WebServer
    browser: Browser
    shown: list[Outcome] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    def tg_init_data(self, user: User, game_id: str, language: str = "en") -> str:
        who = {"id": int(user.id), "first_name": user.name, "language_code": language}
        fields = {
            "user": json.dumps(who, separators=(",", ":")),
            "auth_date": str(int(time.time())),
            "start_param": self.board.keys.play(game_id),
            "query_id": "AAH-test",
        }
        return sign_init_data(fields, TOKEN)

    async def context(self, size: dict[str, int] = PHONE, motion: bool = False) -> BrowserContext:
        ctx = await self.browser.new_context(
            viewport=size,
            reduced_motion="no-preference" if motion else "reduce",
            device_scale_factor=2 if size == PHONE else 1,
        )
        await ctx.add_init_script(WATCH_MOTION)
        return ctx

    def telegram_script(self, user: User, game_id: str, language: str = "en") -> str:
        """What Telegram's script makes of a Mini App's page: ``window.Telegram.WebApp``
        with initData signed by the bot's token (an init script for the page)."""
        web_app = {
            "initData": self.tg_init_data(user, game_id, language),
            "themeParams": THEME_PARAMS,
        }
        return f"window.Telegram = {{WebApp: Object.assign({json.dumps(web_app)}, {STUBS})}};"

    async def telegram_page(
        self, ctx: BrowserContext, user: User, game_id: str, language: str = "en"
    ) -> Page:
        """A page opened as Telegram's Mini App: ``window.Telegram.WebApp`` as Telegram's
        script makes it, with initData signed by the bot's token."""
        page = await ctx.new_page()
        await page.add_init_script(self.telegram_script(user, game_id, language))
        await page.goto(f"{self.url}/board/")
        await ready(page)
        return page

    async def discord_page(
        self, ctx: BrowserContext, fake: FakeDiscord, code: str, user: User, channel: str
    ) -> Page:
        """A page opened as Discord opens an Activity: at ``<app id>.discordsays.com``
        with the SDK's query parameters, its window.parent answering as Discord's client
        does (``code``: what AUTHORIZE gives); ``user`` is in the Activity's instance
        ``i-1`` in ``channel``, which ``fake`` (Discord) runs."""
        if INSTANCE in fake.instances:
            fake.join_instance(INSTANCE, int(user.id))
        else:
            fake.add_instance(int(channel), [int(user.id)], instance_id=INSTANCE)
        app_id = fake.app_id
        config = {
            "code": code,
            "user": {"id": user.id, "username": user.name.lower(), "discriminator": "0"},
            "application": {"id": str(app_id), "name": "Ludo"},
        }
        page = await ctx.new_page()
        await page.add_init_script(DISCORD_STUB.replace("__CONFIG__", json.dumps(config)))
        query = f"frame_id=frame1&instance_id={INSTANCE}&platform=mobile&channel_id={channel}"
        await page.goto(f"http://{app_id}.discordsays.com:{self.server.port}/board/?{query}")
        await ready(page)
        return page

    async def watch_page(self, ctx: BrowserContext, game_id: str) -> Page:
        page = await ctx.new_page()
        await page.goto(f"{self.url}/board/?watch={self.board.keys.watch(game_id)}")
        await ready(page)
        return page


async def ready(page: Page) -> None:
    await page.wait_for_selector("body.ready svg.board .piece, body.ready[data-status=lobby]")


@asynccontextmanager
async def site(
    tmp: Path,
    discord: DiscordOAuth | None = None,
    svc: GameService | None = None,
    show: Show | None = None,
) -> AsyncIterator[Site]:
    """The board's server on a free port of the loopback, and chromium: on ``svc`` (a
    service of its own on a SQLite file if None), showing the pages' presses in their
    chats through ``show`` (else only kept in :attr:`Site.shown`).  Without a Chromium
    the test is skipped (failed in CI: :mod:`tests.helpers.machine`)."""
    executable = chromium()
    table = Table(svc) if svc is not None else service(SqliteStore(str(tmp / "b.sqlite3")), seed=11)
    shown: list[Outcome] = []

    async def keep(outcome: Outcome) -> None:
        shown.append(outcome)
        if show is not None:
            await show(outcome)

    board = Board(
        table.svc, Keys([TOKEN]), Hub(table.svc), telegram_token=TOKEN, show=keep, discord=discord
    )
    await board.hub.start()
    server = await start_web("127.0.0.1", 0, {}, routes=board_routes(board))
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=executable, args=ARGS)
            try:
                yield Site(table, board, server, browser, shown)
            finally:
                await browser.close()
    finally:
        await server.close()
        await board.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


THEMES = ("classic", "dark", "colourblind")


#: two Telegram users (their pages sign in with initData signed by the test's token)
ANA = User("telegram", "101", "Ana")


BEN = User("telegram", "102", "Ben")


#: the page shows the game at this revision or a later one (a function: the page's
#: Content-Security-Policy forbids evaluating strings)
AT_LEAST = "(rev) => Number(document.body.dataset.rev) >= rev"


#: the page's link went down and came back up
LINK_BACK = "() => window.__links.join(' ').includes('down up')"
