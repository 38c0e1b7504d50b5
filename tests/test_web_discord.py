"""The Discord Activity's sign-in against the fake Discord: the code exchanged with
the client secret (form-encoded), the user from ``/users/@me``, and the person's
place in the Activity instance the page names, asked of Discord with the bot's
token (briefly kept); refusals."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.app.board import board_routes, make_board
from bot.app.config import load_settings
from bot.app.web import start_web
from bot.hosting import User
from bot.present.buttons import game_button
from bot.service.game import GameService
from bot.service.outcome import Outcome
from bot.store import SqliteStore, Store
from bot.web.discord import INSTANCE_SECONDS, RECHECK_SECONDS, DiscordOAuth, DiscordRefused
from bot.web.words import words
from tests.fakes.discord import FakeDiscord
from tests.helpers.discord import ANA, BEN, CID, Harness
from tests.helpers.service import playing
from tests.helpers.web_server import Served, connect, post_session, receive, serve_board

pytestmark = pytest.mark.discord

#: the instance look-ups the bot made
LOOKUP = r"/applications/\d+/activity-instances/[^/]+"
DANA = User("discord", "777", "Dana")
ELI = User("discord", "778", "Eli")


class Clock:
    """The Activity client's clock, moved on by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def served(tmp_path: Path, fake: FakeDiscord, clock: Clock) -> AsyncIterator[Served]:
    service = GameService(SqliteStore(str(tmp_path / "games.sqlite3")))
    oauth = DiscordOAuth(
        fake.app_id, fake.client_secret, fake.api_base, bot_token=fake.token, clock=clock
    )
    s = await serve_board(service, discord=oauth)
    try:
        yield s
    finally:
        await s.close()


async def token_for(http: aiohttp.ClientSession, url: str, code: str) -> tuple[int, Any]:
    async with http.post(f"{url}/api/discord/token", json={"code": code}) as r:
        return r.status, await r.json()


async def signed_in(
    fake: FakeDiscord, http: aiohttp.ClientSession, url: str, user: User, locale: str = "es-ES"
) -> str:
    """``user``'s access token, as the page gets it through the SDK."""
    status, body = await token_for(
        http, url, fake.mint_code(int(user.id), user.name, locale=locale)
    )
    assert status == 200, body
    return str(body["access_token"])


async def activity_session(
    http: aiohttp.ClientSession, url: str, token: str, channel: int | str, instance: Any
) -> tuple[int, dict[str, Any]]:
    body = {"channel": str(channel), "instance": instance}
    return await post_session(http, url, body, f"discord {token}")


def lookups(fake: FakeDiscord) -> int:
    return len(fake.calls_to("GET", LOOKUP))


async def test_an_activity_signs_in_and_plays_as_its_user(
    served: Served, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    channel = fake.channel_id
    lobby = served.board.service.open(f"dc:{channel}", DANA).game
    assert lobby is not None
    instance = fake.add_instance(channel, [777])
    code = fake.mint_code(777, "Dana", locale="es-ES")
    async with http.get(f"{served.url}/api/discord/config") as r:  # for the page's SDK
        assert r.status == 200 and await r.json() == {"client_id": str(fake.app_id)}
    status, body = await token_for(http, served.url, code)
    assert status == 200 and set(body) == {"access_token"}
    exchange = next(c for c in fake.calls if c.path == "/oauth2/token")
    assert exchange.body["client_secret"] == fake.client_secret  # form-encoded, as Discord wants
    assert exchange.body["grant_type"] == "authorization_code"
    token = body["access_token"]
    status, session = await activity_session(http, served.url, token, channel, instance)
    assert status == 200 and session["role"] == "player" and session["language"] == "es"
    # the bot asked Discord for the instance, as the bot, for its own application
    (lookup,) = fake.calls_to("GET", LOOKUP)
    assert lookup.path == f"/applications/{fake.app_id}/activity-instances/{instance}"
    assert lookup.authorization == f"Bot {fake.token}" and lookup.status == 200
    ws, state = await connect(http, served.url, session["session"])
    assert state["game"]["id"] == lobby.id
    await ws.close()
    # a code is good once; a made-up one, and a made-up token, are refused
    assert (await token_for(http, served.url, code))[0] == 401
    assert (await token_for(http, served.url, "made-up"))[0] == 401
    status, body = await activity_session(http, served.url, "not-a-real-token", channel, instance)
    assert status == 401 and "session" not in body
    # an Activity in a channel without a game
    elsewhere = fake.add_instance(1, [777])
    status, _ = await activity_session(http, served.url, token, 1, elsewhere)
    assert status == 404


async def test_only_the_people_in_the_activity_of_that_channel_get_in(
    served: Served, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    """Someone who once authorized the Activity cannot name another channel's game:
    not from an Activity elsewhere, not from one in that channel they are not in, not
    with a made-up or missing instance.  Each is refused with no session, in their
    language, and the game is as it was."""
    service = served.board.service
    here, there = fake.channel_id, fake.add_channel("elsewhere")
    lobby = service.open(f"dc:{here}", ELI).game
    assert lobby is not None
    stored = service.store.load(lobby.id)
    assert stored is not None
    theirs = fake.add_instance(there, [777])  # Dana's Activity runs in another channel
    not_hers = fake.add_instance(here, [778])  # Eli's, where the game is: she is not in it
    token = await signed_in(fake, http, served.url, DANA)
    not_in = words("web.not_in_activity", "es")
    bad = words("web.bad_request", "es")
    refusals: list[tuple[Any, int, str]] = [
        (theirs, 403, not_in),
        (not_hers, 403, not_in),
        ("i-1-gc-2-3", 403, not_in),  # no such instance
        (None, 400, bad),  # none named
        ("", 400, bad),
        ("i-../../users/@me", 400, bad),  # not an instance id: Discord is not asked
        ("i" * 101, 400, bad),
        (12345, 400, bad),
    ]
    for instance, code, error in refusals:
        body: dict[str, Any] = {"channel": str(here)}
        if instance is not None:
            body["instance"] = instance
        status, answer = await post_session(http, served.url, body, f"discord {token}")
        assert (status, answer) == (code, {"error": error}), instance
        after = service.store.load(lobby.id)
        assert after is not None and after.data == stored.data and after.rev == stored.rev
    game = service.get(lobby.id)
    assert game is not None and [s.user for s in game.seats] == [ELI]
    # Discord was asked about real-looking instance ids only, once each
    asked = [c.path.rsplit("/", 1)[1] for c in fake.calls_to("GET", LOOKUP)]
    assert asked == [theirs, not_hers, "i-1-gc-2-3"]
    assert [c.status for c in fake.calls_to("GET", LOOKUP)] == [200, 200, 404]
    # in her own Activity's channel she is in
    status, _ = await activity_session(http, served.url, token, there, theirs)
    assert status == 404  # no game there: her channel, no other's
    assert lookups(fake) == 3


async def test_a_player_in_the_activity_plays_over_the_websocket(
    served: Served, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    channel = fake.channel_id
    game = playing(served.board.service, f"dc:{channel}", DANA, ELI)
    instance = fake.add_instance(channel, [777, 778])
    on_turn = game.on_turn()
    assert on_turn is not None and on_turn.user is not None
    token = await signed_in(fake, http, served.url, on_turn.user, locale="it")
    status, session = await activity_session(http, served.url, token, channel, instance)
    assert status == 200 and session["role"] == "player" and session["language"] == "it"
    ws, state = await connect(http, served.url, session["session"])
    assert state["game"]["id"] == game.id and state["game"]["rev"] == game.rev
    await ws.send_json(
        {"type": "press", "data": game_button(game.id, game.version, "roll"), "id": "r"}
    )
    while (message := await receive(ws))["type"] != "ack":
        assert message["type"] == "state", message
    saved = served.board.service.get(game.id)
    assert saved is not None and saved.rev > game.rev
    await ws.close()


async def test_the_instance_is_kept_briefly_and_asked_again_for_a_newcomer(
    served: Served, fake: FakeDiscord, clock: Clock, http: aiohttp.ClientSession
) -> None:
    channel = fake.channel_id
    assert served.board.service.open(f"dc:{channel}", DANA).game is not None
    instance = fake.add_instance(channel, [777, 778])
    dana = await signed_in(fake, http, served.url, DANA)
    eli = await signed_in(fake, http, served.url, ELI)
    fay = await signed_in(fake, http, served.url, User("discord", "779", "Fay"))
    stranger = await signed_in(fake, http, served.url, User("discord", "780", "Gus"))

    async def status_of(token: str) -> int:
        return (await activity_session(http, served.url, token, channel, instance))[0]

    # a reload, and another person of the same Activity: one look-up
    assert [await status_of(dana), await status_of(dana), await status_of(eli)] == [200] * 3
    assert lookups(fake) == 1
    # Fay opens the Activity after it was looked up: refused at once without asking
    # (it was just asked), and let in once it may be asked again
    fake.join_instance(instance, 779)
    assert await status_of(fay) == 403 and lookups(fake) == 1
    clock.now += RECHECK_SECONDS
    assert await status_of(fay) == 200 and lookups(fake) == 2
    # a stranger gets the bot to ask at most once per RECHECK_SECONDS
    assert [await status_of(stranger) for _ in range(5)] == [403] * 5
    assert lookups(fake) == 2
    clock.now += RECHECK_SECONDS
    assert [await status_of(stranger) for _ in range(5)] == [403] * 5
    assert lookups(fake) == 3
    # the people in it are let in from what was kept, until it is too old
    assert await status_of(eli) == 200 and lookups(fake) == 3
    clock.now += INSTANCE_SECONDS
    assert await status_of(eli) == 200 and lookups(fake) == 4


async def test_people_asking_at_once_share_one_look_up(fake: FakeDiscord) -> None:
    channel = str(fake.channel_id)
    instance = fake.add_instance(fake.channel_id, [777, 778])
    oauth = DiscordOAuth(fake.app_id, fake.client_secret, fake.api_base, bot_token=fake.token)
    try:
        people = ("777", "778", "779", "777")
        found = await asyncio.gather(*(oauth.in_activity(instance, channel, p) for p in people))
        assert found == [True, True, False, True] and lookups(fake) == 1
    finally:
        await oauth.close()


async def test_discord_not_answering_is_a_clear_refusal(
    served: Served, fake: FakeDiscord, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    channel = fake.channel_id
    lobby = served.board.service.open(f"dc:{channel}", DANA).game
    assert lobby is not None
    instance = fake.add_instance(channel, [777])
    token = await signed_in(fake, http, served.url, DANA, locale="pt-BR")
    failing = fake.fail("GET", LOOKUP, status=502, message="502: Bad Gateway")
    with caplog.at_level(logging.INFO):
        status, body = await activity_session(http, served.url, token, channel, instance)
    assert (status, body) == (503, {"error": words("web.discord_unavailable", "pt_BR")})
    assert len(failing.hits) == 1 and "HTTP 502" in caplog.text
    assert "Traceback" not in caplog.text and "Exception" not in caplog.text
    assert fake.token not in caplog.text and token not in caplog.text
    # nothing was kept of it: the next session asks again, and gets in
    status, body = await activity_session(http, served.url, token, channel, instance)
    assert status == 200 and body["role"] == "player"


async def test_a_bot_token_discord_refuses_is_a_clear_refusal(
    tmp_path: Path, fake: FakeDiscord, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    service = GameService(SqliteStore(str(tmp_path / "games.sqlite3")))
    oauth = DiscordOAuth(fake.app_id, fake.client_secret, fake.api_base, bot_token="not-the-token")
    assert "not-the-token" not in repr(oauth) and fake.client_secret not in repr(oauth)
    s = await serve_board(service, discord=oauth)
    try:
        instance = fake.add_instance(fake.channel_id, [777])
        token = await signed_in(fake, http, s.url, DANA)
        with caplog.at_level(logging.INFO):
            status, body = await activity_session(http, s.url, token, fake.channel_id, instance)
        assert (status, body) == (503, {"error": words("web.discord_unavailable", "es")})
        (lookup,) = fake.calls_to("GET", LOOKUP)
        assert lookup.status == 401
        assert "not-the-token" not in caplog.text and token not in caplog.text
    finally:
        await s.close()


async def test_the_fake_serves_instances_as_discord_does(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    dm = fake.add_instance(42, [777], guild_id=None, instance_id="i-dm")
    url = f"{fake.api_base}/applications/{fake.app_id}/activity-instances/i-dm"
    bot = {"Authorization": f"Bot {fake.token}"}
    async with http.get(url, headers=bot) as r:
        assert r.status == 200 and dm == "i-dm"
        assert await r.json() == {
            "application_id": str(fake.app_id),
            "instance_id": "i-dm",
            "launch_id": str(fake.instances["i-dm"].launch_id),
            "location": {"id": "pc-42", "kind": "pc", "channel_id": "42"},
            "users": ["777"],
        }
    async with http.get(url) as r:
        assert r.status == 401
    other = url.replace(str(fake.app_id), "1234")
    async with http.get(other, headers=bot) as r:
        assert r.status == 403 and (await r.json())["code"] == 50001
    async with http.get(url + "x", headers=bot) as r:
        assert r.status == 404 and (await r.json())["message"].startswith("Unknown")
    here = fake.add_instance(fake.channel_id, [777])
    fake.join_instance(here, 778)
    async with http.get(url.replace("i-dm", here), headers=bot) as r:
        found = await r.json()
    assert found["location"]["kind"] == "gc" and found["users"] == ["777", "778"]
    assert found["location"]["guild_id"] == str(fake.guild_id)


async def test_a_launched_activity_lets_its_launcher_in(
    tmp_path: Path, fake: FakeDiscord, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    """The table's "Open the board" launches the Activity (callback 12): Discord starts
    an instance in the channel with the presser, whose page is then let in."""
    store: Store = SqliteStore(str(tmp_path / "ludo.sqlite3"))
    fake.activities = True
    h = Harness(fake, store, caplog)
    oauth = DiscordOAuth(fake.app_id, fake.client_secret, fake.api_base, bot_token=fake.token)
    s = await serve_board(GameService(store), discord=oauth)
    try:
        await h.start(seed=4, activity=True)
        game_id, lobby = await h.lobby(ANA)
        inter, _ = await h.press(BEN, fake.messages[lobby.id], custom_id=f"b:{game_id}")
        assert inter.callback.type == 12
        instance = f"i-{inter.id}"
        assert fake.instances[instance].users == [BEN.id]
        assert fake.instances[instance].channel_id == fake.channel_id
        # Cid presses it too: he joins the Activity running in the channel
        inter, _ = await h.press(CID, fake.messages[lobby.id], custom_id=f"b:{game_id}")
        assert inter.callback.type == 12 and fake.instances[instance].users == [BEN.id, CID.id]
        for member in (BEN, CID):
            token = await signed_in(fake, http, s.url, User("discord", str(member.id), "X"))
            status, body = await activity_session(http, s.url, token, fake.channel_id, instance)
            assert status == 200 and body["role"] == "player" and body["game"]["id"] == game_id
        assert lookups(fake) == 1
        # Ana, whose game it is, has not opened that Activity
        ana = await signed_in(fake, http, s.url, User("discord", str(ANA.id), "Ana"))
        status, body = await activity_session(http, s.url, ana, fake.channel_id, instance)
        assert status == 403 and "session" not in body
        h.check_clean()
    finally:
        await s.close()
        await h.stop_all()
        store.close()


async def test_the_bots_board_asks_with_the_bots_token(
    tmp_path: Path, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    """The board ``ludo-bot run`` makes from its settings: the Activity's client asks
    Discord about instances with DISCORD_TOKEN."""
    env = {
        "DISCORD_TOKEN": fake.token,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_CLIENT_ID": str(fake.app_id),
        "DISCORD_CLIENT_SECRET": fake.client_secret,
        "LUDO_WEB_PORT": "8080",
        "LUDO_PUBLIC_URL": "http://127.0.0.1",
        "LUDO_DATABASE": str(tmp_path / "ludo.sqlite3"),
    }
    settings = load_settings(env)
    service = GameService(SqliteStore(str(tmp_path / "games.sqlite3")))

    async def show(outcome: Outcome) -> None:
        return None

    board = make_board(settings, service, None, show)
    assert board.discord is not None and fake.token not in repr(board.discord)
    await board.hub.start()
    server = await start_web("127.0.0.1", 0, {}, routes=board_routes(board))
    try:
        assert service.open(f"dc:{fake.channel_id}", DANA).game is not None
        instance = fake.add_instance(fake.channel_id, [777])
        token = await signed_in(fake, http, server.url, DANA)
        status, body = await activity_session(http, server.url, token, fake.channel_id, instance)
        assert status == 200 and body["role"] == "player"
        (lookup,) = fake.calls_to("GET", LOOKUP)
        assert lookup.authorization == f"Bot {fake.token}"
    finally:
        await board.close()
        await server.close()


async def test_a_wrong_client_secret_is_refused(fake: FakeDiscord) -> None:
    oauth = DiscordOAuth(fake.app_id, "not-the-secret", fake.api_base, bot_token=fake.token)
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
            status, body = await activity_session(http, s.url, "tok", 1, "i-1")
            assert status == 404 and "session" not in body
    finally:
        await s.close()
