"""The board's page and files: served from the static directory only, with their
types (ES modules as JavaScript) and the Content-Security-Policy; the geometry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.app.web import start_web
from bot.web.pages import page_routes


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[str]:
    static = tmp_path / "static"
    (static / "vendor").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html><title>board</title>")
    (static / "app.js").write_text("export const a = 1;")
    (static / "vendor" / "sdk.mjs").write_text("export default 1;")
    (static / ".secret.js").write_text("no")
    (static / "notes.exe").write_text("no")
    (tmp_path / "outside.js").write_text("no")
    (static / "link.js").symlink_to(tmp_path / "outside.js")
    server = await start_web("127.0.0.1", 0, {}, routes=page_routes(static))
    try:
        yield server.url
    finally:
        await server.close()


async def test_files_with_their_types_and_policy(site: str) -> None:
    async with aiohttp.ClientSession() as http:
        for path, kind in (
            ("/board/", "text/html"),
            ("/board/static/app.js", "text/javascript"),
            ("/board/static/vendor/sdk.mjs", "text/javascript"),
        ):
            async with http.get(site + path) as r:
                assert r.status == 200 and r.content_type == kind, path
                assert "script-src 'self'" in r.headers["Content-Security-Policy"]
                assert "frame-ancestors" in r.headers["Content-Security-Policy"]
                assert r.headers["X-Content-Type-Options"] == "nosniff"
        async with http.get(site + "/board", allow_redirects=False) as r:
            assert r.status == 308 and r.headers["Location"] == "board/"
        async with http.get(site + "/?frame_id=abc&instance_id=i-1", allow_redirects=False) as r:
            # a Discord Activity opens at its mapping's root: to the page, query kept
            assert (
                r.status == 302 and r.headers["Location"] == "board/?frame_id=abc&instance_id=i-1"
            )
        async with http.get(site + "/") as r:
            assert r.status == 200 and str(r.url).endswith("/board/")


@pytest.mark.parametrize(
    "path",
    [
        "/board/static/../outside.js",
        "/board/static/%2e%2e/outside.js",
        "/board/static/..%2foutside.js",
        "/board/static/.secret.js",
        "/board/static/notes.exe",
        "/board/static/link.js",
        "/board/static/missing.js",
        "/board/static/vendor/",
        "/board/static//etc/passwd.txt",
    ],
)
async def test_nothing_else_is_served(site: str, path: str) -> None:
    async with aiohttp.ClientSession() as http, http.get(site + path) as r:
        assert r.status == 404, path
        assert await r.read() != b"no"


async def test_geometry(site: str) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.get(site + "/api/geometry?rules=tower") as r:
            assert r.status == 200 and isinstance(await r.json(), dict)
        async with http.get(site + "/api/geometry?rules=chess") as r:
            assert r.status == 400 and "error" in await r.json()
