"""The board's page and files: served from the static directory only, with their
types (ES modules as JavaScript) and the Content-Security-Policy; the geometry."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from bot.app.web import start_web
from bot.web.pages import Assets, accepts_gzip, page_routes


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


# -- a light page: versioned files cached for good, compressed, revalidated -----------

REAL = Path(__file__).resolve().parent.parent / "bot" / "web" / "static"


@pytest.fixture
async def real_site() -> AsyncIterator[str]:
    server = await start_web("127.0.0.1", 0, {}, routes=page_routes())
    try:
        yield server.url
    finally:
        await server.close()


async def test_the_page_names_its_files_under_its_version(real_site: str) -> None:
    assets = Assets(REAL)
    async with aiohttp.ClientSession() as http:
        async with http.get(real_site + "/board/") as r:
            page = await r.text()
            assert r.headers["Cache-Control"] == "no-cache" and r.headers["ETag"]
            etag = r.headers["ETag"]
        linked = re.findall(r'(?:href|src)="(static/[^"]+)"', page)
        assert linked and all(link.startswith(f"static/{assets.version}/") for link in linked)
        for link in linked:
            async with http.get(f"{real_site}/board/{link}") as r:
                assert r.status == 200, link
                assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        # unchanged: the browser's copy is good (304, no body)
        async with http.get(real_site + "/board/", headers={"If-None-Match": etag}) as r:
            assert r.status == 304 and await r.read() == b""
        # another release's version: served, but not kept for long
        async with http.get(f"{real_site}/board/static/v000000000000/app.js") as r:
            assert r.status == 200 and r.headers["Cache-Control"] == "public, max-age=300"
        async with http.get(f"{real_site}/board/static/{assets.version}/nothing.js") as r:
            assert r.status == 404


async def test_text_travels_gzipped_to_a_client_that_takes_it(real_site: str) -> None:
    plain = (REAL / "board.js").read_bytes()
    async with aiohttp.ClientSession(auto_decompress=False) as http:
        gz = {"Accept-Encoding": "gzip, deflate, br"}
        async with http.get(real_site + "/board/static/board.js", headers=gz) as r:
            body = await r.read()
            assert (
                r.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in r.headers["Vary"]
            )
            assert gzip.decompress(body) == plain and len(body) < len(plain) / 2
            etag = r.headers["ETag"]
        async with http.get(
            real_site + "/board/static/board.js", headers=gz | {"If-None-Match": etag}
        ) as r:
            assert r.status == 304
        for refuses in ("identity", "gzip;q=0", ""):
            headers = {"Accept-Encoding": refuses}
            async with http.get(real_site + "/board/static/board.js", headers=headers) as r:
                assert "Content-Encoding" not in r.headers and await r.read() == plain, refuses
        async with http.get(real_site + "/api/geometry?rules=super", headers=gz) as r:
            body = await r.read()
            assert r.headers["Content-Encoding"] == "gzip"
            assert json.loads(gzip.decompress(body))["rules"] == "super"


def test_every_module_the_page_imports_is_preloaded_and_the_sdk_is_not() -> None:
    """The page fetches app.js's imports at once (modulepreload), not one round trip
    later; Discord's SDK is imported only inside Discord (a dynamic import)."""
    page = (REAL / "index.html").read_text()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="static/([^"]+)">', page))
    imported: set[str] = set()
    todo = ["app.js"]
    while todo:
        source = (REAL / todo.pop()).read_text()
        for name in re.findall(r'^import [^;]*? from "\./([^"]+)";', source, re.M | re.S):
            if name not in imported:
                imported.add(name)
                todo.append(name)
    assert imported and imported == preloaded
    assert not any("vendor" in name for name in imported)
    assert 'import("./vendor/discord-embedded-app-sdk' in (REAL / "net.js").read_text()


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("*", True),
        ("gzip;q=0", False),
        ("br", False),
        ("", False),
        ("gzip;q=x", False),
    ],
)
def test_accept_encoding(header: str, takes: bool) -> None:
    assert accepts_gzip(header) is takes


async def test_a_long_json_answer_is_gzipped_by_the_server() -> None:
    async def big(request: web.Request) -> web.Response:
        return web.json_response({"words": ["Ludo"] * 500})

    async def small(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    routes = [web.get("/big", big), web.get("/small", small)]
    server = await start_web("127.0.0.1", 0, {}, routes=routes)
    try:
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            gz = {"Accept-Encoding": "gzip"}
            async with http.get(server.url + "/big", headers=gz) as r:
                body = await r.read()
                assert r.headers["Content-Encoding"] == "gzip"
                assert json.loads(gzip.decompress(body)) == {"words": ["Ludo"] * 500}
            async with http.get(server.url + "/big", headers={"Accept-Encoding": "br"}) as r:
                assert "Content-Encoding" not in r.headers and len(await r.read()) > 3000
            async with http.get(server.url + "/small", headers=gz) as r:
                assert "Content-Encoding" not in r.headers
    finally:
        await server.close()
