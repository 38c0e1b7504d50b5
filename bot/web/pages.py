"""The board's page and files (``GET /board/``, ``GET /board/static/<file>``) from
``bot/web/static/``, and the board's geometry (``GET /api/geometry``).

A file is served only if its name is plain (letters, digits, ``.``, ``_``,
``-`` and ``/`` between parts, no part starting with a dot) and it lies under
the static directory once resolved; its type comes from its extension (ES
modules as ``text/javascript``).  Every answer carries a Content-Security-Policy
that lets scripts come from the bot only, and names who may frame the page (the
Telegram and Discord clients)."""

from __future__ import annotations

import re
from pathlib import Path

from aiohttp import web

#: where the web client's files are
STATIC = Path(__file__).resolve().parent / "static"
#: the rule sets the geometry is given for
RULES = ("classic", "tower", "italian", "super")
#: a file's name under /board/static/
NAME = re.compile(r"(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}/){0,4}[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")
#: the types of the files served, by extension
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}
#: who may frame the page: Telegram's web clients and Discord's Activity proxy
FRAMERS = (
    "https://web.telegram.org https://*.telegram.org https://discord.com "
    "https://*.discord.com https://*.discordsays.com"
)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; "
    f"base-uri 'none'; form-action 'none'; frame-ancestors 'self' {FRAMERS}"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def page_routes(static: Path = STATIC) -> list[web.RouteDef]:
    async def index(request: web.Request) -> web.StreamResponse:
        return _file(static, "index.html", cache="no-cache")

    async def asset(request: web.Request) -> web.StreamResponse:
        return _file(static, request.match_info["name"], cache="public, max-age=300")

    return [
        web.get("/board/", index),
        web.get("/board", _redirect),
        web.get("/", _root),
        web.get("/board/static/{name:.+}", asset),
        web.get("/api/geometry", geometry),
    ]


async def _redirect(request: web.Request) -> web.StreamResponse:
    raise web.HTTPPermanentRedirect("board/")  # relative: right behind a proxy's path too


async def _root(request: web.Request) -> web.StreamResponse:
    """A Discord Activity opens at its URL mapping's root, with ``frame_id`` and the
    rest in the query: to the page, the query kept."""
    query = request.query_string
    raise web.HTTPFound("board/" + (f"?{query}" if query else ""))


def _file(static: Path, name: str, cache: str) -> web.StreamResponse:
    kind = TYPES.get(Path(name).suffix.lower())
    if kind is None or not NAME.fullmatch(name):
        raise web.HTTPNotFound()
    root = static.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise web.HTTPNotFound()
    headers = {**HEADERS, "Content-Type": kind, "Cache-Control": cache}
    return web.FileResponse(path, headers=headers)


async def geometry(request: web.Request) -> web.Response:
    rules = request.query.get("rules", "classic")
    if rules not in RULES:
        return web.json_response({"error": f"rules must be one of {', '.join(RULES)}"}, status=400)
    from .geometry import board_geometry

    return web.json_response(
        board_geometry(rules), headers={**HEADERS, "Cache-Control": "public, max-age=3600"}
    )
