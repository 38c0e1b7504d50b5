"""The Discord Activity's sign-in against the fake Discord: the code exchanged with
the client secret (form-encoded), the user from ``/users/@me``; refusals."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.hosting import User
from bot.service import GameService
from bot.store import SqliteStore
from bot.web.discord import DiscordOAuth, DiscordRefused
from tests.fake_discord import FakeDiscord
from tests.web_server import Served, connect, post_session, serve_board


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    f = FakeDiscord()
    await f.start()
    try:
        yield f
    finally:
        await f.close()


@pytest.fixture
async def served(tmp_path: Path, fake: FakeDiscord) -> AsyncIterator[Served]:
    service = GameService(SqliteStore(str(tmp_path / "games.sqlite3")))
    oauth = DiscordOAuth(fake.app_id, fake.client_secret, fake.api_base)
    s = await serve_board(service, discord=oauth)
    try:
        yield s
    finally:
        await s.close()


async def token_for(http: aiohttp.ClientSession, url: str, code: str) -> tuple[int, Any]:
    async with http.post(f"{url}/api/discord/token", json={"code": code}) as r:
        return r.status, await r.json()


async def test_an_activity_signs_in_and_plays_as_its_user(
    served: Served, fake: FakeDiscord
) -> None:
    channel = fake.channel_id
    dana = User("discord", "777", "Dana")
    lobby = served.board.service.open(f"dc:{channel}", dana).game
    assert lobby is not None
    code = fake.mint_code(777, "Dana", locale="es-ES")
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{served.url}/api/discord/config") as r:  # for the page's SDK
            assert r.status == 200 and await r.json() == {"client_id": str(fake.app_id)}
        status, body = await token_for(http, served.url, code)
        assert status == 200 and set(body) == {"access_token"}
        exchange = next(c for c in fake.calls if c.path == "/oauth2/token")
        assert (
            exchange.body["client_secret"] == fake.client_secret
        )  # form-encoded, as Discord wants
        assert exchange.body["grant_type"] == "authorization_code"
        token = body["access_token"]
        status, session = await post_session(
            http, served.url, {"channel": str(channel)}, f"discord {token}"
        )
        assert status == 200 and session["role"] == "player" and session["language"] == "es"
        ws, state = await connect(http, served.url, session["session"])
        assert state["game"]["id"] == lobby.id
        await ws.close()
        # a code is good once; a made-up one, and a made-up token, are refused
        assert (await token_for(http, served.url, code))[0] == 401
        assert (await token_for(http, served.url, "made-up"))[0] == 401
        status, body = await post_session(
            http, served.url, {"channel": str(channel)}, "discord not-a-real-token"
        )
        assert status == 401 and "session" not in body
        # a channel without a game
        status, _ = await post_session(http, served.url, {"channel": "1"}, f"discord {token}")
        assert status == 404


async def test_a_wrong_client_secret_is_refused(fake: FakeDiscord) -> None:
    oauth = DiscordOAuth(fake.app_id, "not-the-secret", fake.api_base)
    try:
        with pytest.raises(DiscordRefused, match="invalid_client"):
            await oauth.exchange(fake.mint_code(1))
        with pytest.raises(DiscordRefused):
            await oauth.exchange("spaces are not a code")
    finally:
        await oauth.close()
    assert "not-the-secret" not in repr(oauth)


async def test_without_the_activity_its_routes_say_so(tmp_path: Path) -> None:
    service = GameService(SqliteStore(str(tmp_path / "games.sqlite3")))
    s = await serve_board(service)
    try:
        async with aiohttp.ClientSession() as http:
            headers = {"Accept-Language": "it-IT"}
            async with http.get(f"{s.url}/api/discord/config", headers=headers) as r:
                assert r.status == 404 and "error" in await r.json()
            status, body = await token_for(http, s.url, "any")
            assert status == 404 and "access_token" not in body
    finally:
        await s.close()
