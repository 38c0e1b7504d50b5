"""The board's page and files (``GET /board/``, ``GET /board/static/...``) from
``bot/web/static/``, and the board's geometry (``GET /api/geometry``).

The files are read once, when the routes are made (:class:`Assets`): each is kept
as it is and, where that is smaller, gzipped, and served with an ETag (a request
naming it gets 304).  The page refers to its files under a versioned path,
``static/v<hash of every file>/``, which is cached for a year: a new release is a
new path, so a page never mixes files of two releases, and a returning viewer
downloads nothing but the page itself (which is revalidated every time).  The ES
modules' own imports are relative, so they stay under the same version.

A file is served only if its name is plain (letters, digits, ``.``, ``_``,
``-`` and ``/`` between parts, no part starting with a dot) and it lies under
the static directory once resolved; its type comes from its extension (ES
modules as ``text/javascript``).  Every answer carries a Content-Security-Policy
that lets scripts come from the bot only, and names who may frame the page (the
Telegram and Discord clients)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
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
#: the types worth gzipping (the others are compressed already)
TEXT = ("text/", "application/json", "image/svg+xml")
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
#: how long each kind of answer may be kept
FOREVER = "public, max-age=31536000, immutable"  # a versioned file
SHORT = "public, max-age=300"  # a file by its plain name (an older page's)
REVALIDATE = "no-cache"  # the page: asked again each time (a 304 when unchanged)
GEOMETRY = "public, max-age=3600"


@dataclass(frozen=True)
class Asset:
    """One file as served: its bytes, gzipped bytes (None: not smaller), type, ETag."""

    body: bytes
    gzipped: bytes | None
    kind: str
    etag: str

    @classmethod
    def of(cls, body: bytes, kind: str) -> Asset:
        packed = gzip.compress(body, 9, mtime=0) if kind.startswith(TEXT) else None
        if packed is not None and len(packed) >= len(body):
            packed = None
        return cls(body, packed, kind, '"' + hashlib.sha256(body).hexdigest()[:20] + '"')

    def answer(self, request: web.Request, cache: str) -> web.Response:
        """This file for ``request``: gzipped if the client takes it, 304 if it has it."""
        gz = self.gzipped is not None and accepts_gzip(request.headers.get("Accept-Encoding", ""))
        etag = self.etag[:-1] + '-gz"' if gz else self.etag
        headers = {**HEADERS, "Cache-Control": cache, "ETag": etag, "Vary": "Accept-Encoding"}
        if etag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        headers["Content-Type"] = self.kind
        if gz:
            assert self.gzipped is not None
            headers["Content-Encoding"] = "gzip"
            return web.Response(body=self.gzipped, headers=headers)
        return web.Response(body=self.body, headers=headers)


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (named, or ``*``, without q=0)."""
    for part in header.lower().split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip() in ("gzip", "*"):
            q = params.strip().removeprefix("q=")
            try:
                return not params.strip() or float(q) > 0
            except ValueError:
                return False
    return False


class Assets:
    """Every file of ``static`` read once, its release's version, and the page."""

    def __init__(self, static: Path) -> None:
        self.files: dict[str, Asset] = {}
        root = static.resolve()
        for path in sorted(root.rglob("*")):
            name = path.relative_to(root).as_posix()
            kind = TYPES.get(path.suffix.lower())
            if kind is None or not NAME.fullmatch(name) or not path.is_file():
                continue
            if not path.resolve().is_relative_to(root):  # a link out of the directory
                continue
            self.files[name] = Asset.of(path.read_bytes(), kind)
        digest = hashlib.sha256()
        for name, asset in self.files.items():
            digest.update(f"{name}\0{asset.etag}\0".encode())
        #: the path segment of this release's files
        self.version = "v" + digest.hexdigest()[:12]
        page = self.files.get("index.html")
        #: the page, its files named under the version
        self.page = (
            Asset.of(page.body.replace(b'"static/', f'"static/{self.version}/'.encode()), page.kind)
            if page is not None
            else None
        )


def page_routes(static: Path = STATIC) -> list[web.RouteDef]:
    assets = Assets(static)

    async def index(request: web.Request) -> web.StreamResponse:
        if assets.page is None:
            raise web.HTTPNotFound()
        return assets.page.answer(request, REVALIDATE)

    async def asset(request: web.Request) -> web.StreamResponse:
        return _file(assets, request, request.match_info["name"], SHORT)

    async def versioned(request: web.Request) -> web.StreamResponse:
        # another release's version (a worker not yet upgraded, or already): its
        # file is this release's, so it is not kept long
        same = request.match_info["version"] == assets.version
        return _file(assets, request, request.match_info["name"], FOREVER if same else SHORT)

    return [
        web.get("/board/", index),
        web.get("/board", _redirect),
        web.get("/", _root),
        web.get("/board/static/{version:v[0-9a-f]{12}}/{name:.+}", versioned),
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


def _file(assets: Assets, request: web.Request, name: str, cache: str) -> web.StreamResponse:
    found = assets.files.get(name) if NAME.fullmatch(name) and name != "index.html" else None
    if found is None:
        raise web.HTTPNotFound()
    return found.answer(request, cache)


_GEOMETRIES: dict[str, Asset] = {}


async def geometry(request: web.Request) -> web.Response:
    rules = request.query.get("rules", "classic")
    if rules not in RULES:
        return web.json_response({"error": f"rules must be one of {', '.join(RULES)}"}, status=400)
    if rules not in _GEOMETRIES:
        from .geometry import board_geometry

        body = json.dumps(board_geometry(rules), separators=(",", ":")).encode()
        _GEOMETRIES[rules] = Asset.of(body, "application/json")
    return _GEOMETRIES[rules].answer(request, GEOMETRY)
