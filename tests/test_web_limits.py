"""The board's limits: presses rate-limited as a chat's are, sessions by address, and
a viewer that cannot keep up dropped without slowing the others."""

from __future__ import annotations

import asyncio
import ipaddress
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypeVar, cast

import aiohttp
import pytest
from aiohttp import web

from bot.app.config import ConfigError, load_settings
from bot.limits.rate import LOOPBACK, Limiter, LimitSettings, Rate
from bot.ops.metrics import REGISTRY
from bot.present.buttons import game_button
from bot.service.game import GameService
from bot.store import RedisStore, SqliteStore
from bot.store.limits import MemoryBuckets
from bot.store.redis.limits import RedisBuckets
from bot.web.address import address_key, client_ip
from bot.web.auth import PLAYER, Session
from bot.web.discord import DiscordOAuth
from bot.web.hub import QUEUE, Hub, Viewer
from bot.web.live import FLOODING, MESSAGE_BURST, MESSAGES_PER_SECOND, SLOW
from bot.web.words import WORDS, words
from tests.helpers.local_redis import forget_prefix
from tests.helpers.service import playing
from tests.helpers.stores import FakeClock
from tests.helpers.telegram import init_data
from tests.helpers.web_server import ANA, BEN, Served, connect, post_session, receive, serve_board

T = TypeVar("T")


@pytest.fixture
def service(tmp_path: Path) -> GameService:
    return GameService(SqliteStore(str(tmp_path / "games.sqlite3")))


@pytest.fixture
async def served(service: GameService) -> AsyncIterator[Served]:
    # a person's session, their socket's hello and one press; then refused
    limits = LimitSettings(person=Rate(3, 0.001), chat=Rate(100, 1.0))
    s = await serve_board(service, limiter=Limiter(MemoryBuckets(), limits))
    try:
        yield s
    finally:
        await s.close()


async def test_presses_and_sessions_are_rate_limited(service: GameService, served: Served) -> None:
    game = playing(service, "tg:-100", ANA, BEN)
    waiting = BEN if game.on_turn() is not None and game.on_turn().user == ANA else ANA  # type: ignore[union-attr]
    async with aiohttp.ClientSession() as http:
        auth = "tma " + init_data(waiting, served.keys.play(game.id))
        status, body = await post_session(http, served.url, auth=auth)
        assert status == 200
        ws, _ = await connect(http, served.url, body["session"])
        roll = game_button(game.id, game.version, "roll")
        texts = []
        for n in range(3):
            await ws.send_json({"type": "press", "data": roll, "id": str(n)})
            texts.append((await receive(ws))["text"])
        assert texts[-1] == WORDS["web.slow_down"] and texts[0] != WORDS["web.slow_down"]
        # a person's sessions count with their presses: refused now
        statuses = [(await post_session(http, served.url, auth=auth))[0] for _ in range(2)]
        assert statuses[-1] == 429
    now = service.get(game.id)
    assert now is not None and now.rev == game.rev


class Stuck:
    """A socket whose sends never finish (a page that stopped reading)."""

    closed = False

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed_with: int | None = None

    async def send_str(self, text: str) -> None:
        self.sent.append(text)
        if text != "fast":
            await asyncio.Event().wait()

    async def close(self, code: int = 1000, message: bytes = b"") -> None:
        self.closed, self.closed_with = True, code


async def test_a_slow_viewer_is_dropped_and_the_others_go_on(service: GameService) -> None:
    hub = Hub(service, render=lambda game, user, lang: {})
    session = Session("telegram", "1", "A", "en", "0a1b2c3d", "tg:-1", PLAYER, 2e9)
    slow_ws, fast_ws = Stuck(), Stuck()
    slow = Viewer(cast(web.WebSocketResponse, slow_ws), session)
    fast = Viewer(cast(web.WebSocketResponse, fast_ws), session)
    hub.add(slow)
    hub.add(fast)
    assert hub.viewers == 2
    offered = [slow.offer("slow") for _ in range(QUEUE + 2)]
    for _ in range(QUEUE + 2):
        assert fast.offer("fast")
        await asyncio.sleep(0)
    assert offered[:QUEUE] == [True] * QUEUE and offered[-1] is False
    assert slow.task is not None
    assert slow.closing is not None
    await asyncio.wait([slow.task, slow.closing], timeout=5)
    assert slow.task.done() and slow_ws.closed_with == 1013
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(fast_ws.sent) == QUEUE + 2 and not fast_ws.closed
    hub.remove(slow)
    hub.remove(fast)
    assert hub.viewers == 0 and not hub.games


# -- sessions and sockets per address and per person ----------------------------

#: an address: a burst of 3, then one every 2.5 s
ADDRESS = Rate(3, 0.4)
#: as good as none
PLENTY = Rate(10_000, 1000.0)


def limiter(clock: FakeClock, **limits: Any) -> Limiter:
    settings = LimitSettings(**{"person": PLENTY, "chat": PLENTY, "address": ADDRESS, **limits})
    return Limiter(MemoryBuckets(clock), settings, clock)


async def ask(
    http: aiohttp.ClientSession,
    url: str,
    body: dict[str, Any],
    *,
    forwarded: str | None = None,
    lang: str | None = None,
    auth: str | None = None,
) -> tuple[int, str | None, dict[str, Any]]:
    """POST /api/session: the status, the Retry-After header and the JSON.  The tests
    run on this host, a trusted proxy by default: ``forwarded`` names the client."""
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    if lang is not None:
        headers["Accept-Language"] = lang
    if auth is not None:
        headers["Authorization"] = auth
    async with http.post(f"{url}/api/session", json=body, headers=headers) as r:
        return r.status, r.headers.get("Retry-After"), await r.json()


async def hello(
    http: aiohttp.ClientSession, url: str, session: str, forwarded: str | None = None
) -> tuple[aiohttp.ClientWebSocketResponse, dict[str, Any]]:
    """A socket said hello with ``session`` (from ``forwarded``), and its first answer."""
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    ws = await http.ws_connect(f"{url}/api/ws", headers=headers)
    await ws.send_json({"type": "hello", "session": session})
    return ws, await receive(ws)


async def close_code(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    """The code the server closed ``ws`` with (messages before it passed by)."""
    while (await ws.receive(timeout=10)).type not in (
        aiohttp.WSMsgType.CLOSE,
        aiohttp.WSMsgType.CLOSED,
    ):
        pass
    return ws.close_code


def limited(what: str) -> float:
    return REGISTRY.get_sample_value("ludo_web_limited_total", {"what": what}) or 0.0


async def test_spectator_sessions_past_the_address_burst_get_429_in_their_language(
    service: GameService,
) -> None:
    clock = FakeClock()
    s = await serve_board(service, limiter=limiter(clock))
    watch = {"watch": s.keys.watch(not_none(service.open("tg:-1", ANA).game).id)}
    one, other = "203.0.113.5", "203.0.113.6"
    before = limited("session")
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(ADDRESS.burst):
                assert (await ask(http, s.url, watch, forwarded=one))[0] == 200
            status, retry, body = await ask(http, s.url, watch, forwarded=one, lang="es-ES,es")
            assert (status, retry) == (429, "3")  # 2.5 s, in whole seconds
            assert body == {"error": words("web.busy_network", "es")}
            assert body["error"] != WORDS["web.busy_network"]
            # any kind of session counts: a player's sign-in from there is refused too
            auth = "tma " + init_data(BEN)
            status, _, body = await ask(http, s.url, {}, forwarded=one, lang="it", auth=auth)
            assert status == 429 and body["error"] == words("web.busy_network", "it")
            # another address is not refused
            for _ in range(ADDRESS.burst):
                assert (await ask(http, s.url, watch, forwarded=other))[0] == 200
            # the bucket refills: one every 2.5 s
            clock.advance(2.5)
            assert (await ask(http, s.url, watch, forwarded=one))[0] == 200
            assert (await ask(http, s.url, watch, forwarded=one))[0] == 429
    finally:
        await s.close()
    assert limited("session") == before + 3


async def test_a_discord_code_to_exchange_counts_against_its_address(
    service: GameService,
) -> None:
    """An exchange asks Discord: a spent address is refused before Discord is asked."""
    clock = FakeClock()
    nowhere = DiscordOAuth(1, "not-asked-secret", "http://127.0.0.1:9/api", bot_token="b")
    s = await serve_board(service, limiter=limiter(clock), discord=nowhere)
    watch = {"watch": s.keys.watch(not_none(service.open("tg:-2", ANA).game).id)}
    one = "203.0.113.9"
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(ADDRESS.burst):
                assert (await ask(http, s.url, watch, forwarded=one))[0] == 200
            for where, status in ((one, 429), ("203.0.113.10", 401)):
                headers = {"X-Forwarded-For": where, "Accept-Language": "pt-BR"}
                async with http.post(
                    f"{s.url}/api/discord/token", json={"code": "abc"}, headers=headers
                ) as r:
                    assert r.status == status, where
                    body = await r.json()
                if status == 429:
                    assert r.headers["Retry-After"] == "3"
                    assert body == {"error": words("web.busy_network", "pt_BR")}
                else:  # let in: Discord (not reachable here) did not take the code
                    assert body == {"error": words("web.discord_refused", "pt_BR")}
    finally:
        await s.close()


async def test_socket_hellos_are_limited_per_address_and_per_person(
    service: GameService,
) -> None:
    clock = FakeClock()
    s = await serve_board(service, limiter=limiter(clock, person=Rate(2, 0.001)))
    game = playing(service, "tg:-100", ANA, BEN)
    where = "198.51.100.7"
    try:
        async with aiohttp.ClientSession() as http:
            # a spectator (Italian): the session and two hellos, then the address is spent
            italian = {"watch": s.keys.watch(game.id), "language": "it"}
            _, _, body = await ask(http, s.url, italian, forwarded=where)
            for _ in range(ADDRESS.burst - 1):
                ws, first = await hello(http, s.url, body["session"], where)
                assert first["type"] == "state"
                await ws.close()
            ws, refused = await hello(http, s.url, body["session"], where)
            assert refused == {
                "type": "refused",
                "retry_after": 3,
                "text": words("web.busy_network", "it"),
            }
            assert await close_code(ws) == SLOW
            # a spectator from elsewhere still gets in
            ws, first = await hello(http, s.url, body["session"], "198.51.100.8")
            assert first["type"] == "state"
            await ws.close()
            # a player: their session and one hello, then their person is spent, wherever
            # they are (and a refused hello takes nothing from its address)
            auth = "tma " + init_data(ANA, s.keys.play(game.id))
            _, _, player = await ask(http, s.url, {}, auth=auth, forwarded="192.0.2.1")
            ws, first = await hello(http, s.url, player["session"], "192.0.2.2")
            assert first["type"] == "state"
            for address in ("192.0.2.2", "192.0.2.3", "192.0.2.3"):
                refused_ws, refused = await hello(http, s.url, player["session"], address)
                assert refused["text"] == words("web.slow_down", "en")
                assert await close_code(refused_ws) == SLOW
            # watching costs only the address: they may still watch from there
            _, _, spectator = await ask(
                http, s.url, {"watch": player["watch"]}, forwarded="192.0.2.3"
            )
            watcher, first = await hello(http, s.url, spectator["session"], "192.0.2.3")
            assert first["type"] == "state" and spectator["role"] == "spectator"
            await watcher.close()
            await ws.close()
    finally:
        await s.close()


async def test_two_workers_on_one_redis_share_the_address_count(redis_url: str) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    stores = [RedisStore(redis_url, prefix=prefix) for _ in range(2)]
    settings = LimitSettings(PLENTY, PLENTY, 0, 0, Rate(4, 0.001))
    workers = [
        await serve_board(
            GameService(store),
            redis=store.client,
            limiter=Limiter(RedisBuckets.of(store), settings),
        )
        for store in stores
    ]
    first, second = workers
    try:
        lobby = not_none(GameService(stores[0]).open("tg:-5", ANA).game)
        watch = {"watch": first.keys.watch(lobby.id)}
        async with aiohttp.ClientSession() as http:
            assert (await ask(http, first.url, watch))[0] == 200
            _, _, body = await ask(http, second.url, watch)
            ws, seen = await hello(http, first.url, body["session"])
            assert seen["type"] == "state"
            other, seen = await hello(http, second.url, body["session"])
            assert seen["type"] == "state"  # four: two sessions, two hellos, on two workers
            status, retry, _ = await ask(http, first.url, watch)
            assert status == 429 and retry is not None and int(retry) >= 900
            late, told = await hello(http, second.url, body["session"])
            assert told["type"] == "refused" and await close_code(late) == SLOW
            await ws.close()
            await other.close()
    finally:
        for w in workers:
            await w.close()
        for store in stores:
            store.close()
        forget_prefix(redis_url, prefix)


# -- whose address ---------------------------------------------------------------


async def test_x_forwarded_for_counts_only_from_a_trusted_peer(service: GameService) -> None:
    clock = FakeClock()
    watch_of = service.open("tg:-1", ANA).game
    trusting = await serve_board(service, limiter=limiter(clock))  # this host: trusted
    wary = await serve_board(service, limiter=limiter(clock, trusted_proxies=()))
    try:
        watch = {"watch": trusting.keys.watch(not_none(watch_of).id)}
        async with aiohttp.ClientSession() as http:

            async def statuses(url: str, *forwarded: str) -> list[int]:
                return [(await ask(http, url, watch, forwarded=f))[0] for f in forwarded]

            # an untrusted peer's header is ignored: every request is the peer's
            forged = [f"203.0.113.{n}" for n in range(ADDRESS.burst + 1)]
            assert await statuses(wary.url, *forged) == [200] * ADDRESS.burst + [429]
            # a trusted peer's header names the client: the rightmost untrusted address
            # (what the client wrote to the left of it changes nothing)
            chains = [f"10.9.9.{n}, 198.51.100.1" for n in range(ADDRESS.burst + 1)]
            assert await statuses(trusting.url, *chains) == [200] * ADDRESS.burst + [429]
            assert await statuses(trusting.url, "198.51.100.2, 127.0.0.1") == [200]
            # IPv6 clients are counted per /64
            same = [f"2001:db8:1:2:{n}::1" for n in range(ADDRESS.burst + 1)]
            assert await statuses(trusting.url, *same) == [200] * ADDRESS.burst + [429]
            assert await statuses(trusting.url, "2001:db8:1:3::1") == [200]
            # a malformed header from the proxy: the peer itself
            nonsense = ["nonsense"] * ADDRESS.burst
            assert await statuses(trusting.url, *nonsense) == [200] * ADDRESS.burst
            assert await statuses(trusting.url, "", "x, y") == [429, 429]
    finally:
        await trusting.close()
        await wary.close()


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("203.0.113.9", ["198.51.100.1"], "203.0.113.9"),  # untrusted peer: its header ignored
        ("127.0.0.1", [], "127.0.0.1"),
        ("127.0.0.1", ["198.51.100.1"], "198.51.100.1"),
        ("127.0.0.1", ["6.6.6.6, 198.51.100.1, 10.0.0.2"], "198.51.100.1"),
        ("127.0.0.1", ["6.6.6.6", "198.51.100.1"], "198.51.100.1"),  # two headers: one list
        ("127.0.0.1", ["junk, 198.51.100.1"], "198.51.100.1"),  # left of the client: ignored
        ("127.0.0.1", ["198.51.100.1, junk"], "127.0.0.1"),  # the proxy's part: malformed
        ("127.0.0.1", ["10.0.0.3, 10.0.0.2"], "10.0.0.3"),  # all trusted: the leftmost
        ("127.0.0.1", ["198.51.100.1:4431"], "198.51.100.1"),
        ("127.0.0.1", ["[2001:db8::7]:443"], "2001:db8::/64"),
        ("::ffff:127.0.0.1", ["::ffff:198.51.100.1"], "198.51.100.1"),
        ("::1", ["2001:db8:aa:bb:cc::1"], "2001:db8:aa:bb::/64"),
        (None, ["198.51.100.1"], "?"),
    ],
)
def test_the_client_address(peer: str | None, forwarded: list[str], client: str) -> None:
    trusted = (*LOOPBACK, ipaddress.ip_network("10.0.0.0/8"))
    assert address_key(client_ip(peer, forwarded, trusted)) == client


# -- each socket's own pace ----------------------------------------------------------


async def test_a_flooding_socket_is_refused_then_closed_and_a_normal_pace_never(
    service: GameService,
) -> None:
    clock = FakeClock()
    s = await serve_board(service)
    s.board.clock = clock
    game = playing(service, "tg:-100", ANA, BEN)
    seat = not_none(game.on_turn())
    roll = game_button(game.id, game.version, "roll")
    slow = words("web.slow_down", "pt_BR")
    try:
        async with aiohttp.ClientSession() as http:
            auth = "tma " + init_data(not_none(seat.user), s.keys.play(game.id), lang="pt-br")
            _, _, player = await ask(http, s.url, {}, auth=auth)
            ws, _ = await hello(http, s.url, player["session"])

            async def send(data: str, nonce: str) -> dict[str, Any]:
                """The answer to a press (a new state, after a move, passed by)."""
                await ws.send_json({"type": "press", "data": data, "id": nonce})
                while (answer := await receive(ws))["type"] == "state":
                    pass
                return answer

            # the burst: taken (not understood: nothing to play)
            for n in range(MESSAGE_BURST):
                answer = await send("nothing", f"b{n}")
                assert answer["type"] == "refused" and answer["text"] != slow
            # then even a good press is refused, and does nothing; one taken in between
            # starts the count again
            for n in range(FLOODING - 1):
                assert await send(roll, f"f{n}") == {"type": "refused", "id": f"f{n}", "text": slow}
            clock.advance(1 / MESSAGES_PER_SECOND)
            assert (await send("nothing", "x"))["text"] != slow
            for n in range(FLOODING):
                assert await send(roll, f"g{n}") == {"type": "refused", "id": f"g{n}", "text": slow}
            assert await close_code(ws) == SLOW
            assert not_none(service.get(game.id)).rev == game.rev
            # a page at a steady pace, after a burst, is never refused
            ws, _ = await hello(http, s.url, player["session"])
            for n in range(MESSAGE_BURST + 3 * FLOODING):
                if n >= MESSAGE_BURST:
                    clock.advance(1 / MESSAGES_PER_SECOND)
                assert (await send("nothing", f"p{n}"))["text"] != slow
            clock.advance(1 / MESSAGES_PER_SECOND)  # and one more, a good one: played
            assert await send(roll, "roll") == {"type": "ack", "id": "roll"}
            await ws.close()
    finally:
        await s.close()
    assert not_none(service.get(game.id)).rev > game.rev


async def test_a_socket_blasting_messages_gets_every_answer_then_is_closed(
    service: GameService,
) -> None:
    """Sent all at once, before reading any answer: each is answered in turn (the
    socket is not dropped as a slow reader), then it is closed for flooding."""
    s = await serve_board(service)
    s.board.clock = FakeClock()
    lobby = not_none(service.open("tg:-7", ANA).game)
    try:
        async with aiohttp.ClientSession() as http:
            _, _, body = await ask(http, s.url, {"watch": s.keys.watch(lobby.id)}, lang="es")
            ws, _ = await hello(http, s.url, body["session"])
            for n in range(MESSAGE_BURST + FLOODING + 5):
                await ws.send_json({"type": "press", "data": "nothing", "id": str(n)})
            answers = [await receive(ws) for _ in range(MESSAGE_BURST + FLOODING)]
            assert [a["id"] for a in answers] == [str(n) for n in range(len(answers))]
            texts = [a["text"] for a in answers]
            slow = words("web.slow_down", "es")
            assert texts == [words("web.only_players", "es")] * MESSAGE_BURST + [slow] * FLOODING
            assert await close_code(ws) == SLOW
    finally:
        await s.close()


# -- settings ----------------------------------------------------------------------


def test_the_web_limits_default_and_are_read() -> None:
    limits = load_settings({}).limits
    assert limits.address == Rate(60, 2.0) and limits.trusted_proxies == LOOPBACK
    limits = load_settings(
        {
            "LUDO_WEB_ADDRESS_BURST": "0",
            "LUDO_WEB_ADDRESS_PER_SECOND": "0.5",
            "LUDO_TRUSTED_PROXIES": "10.0.0.0/8, 2001:db8::/32,192.0.2.7",
        }
    ).limits
    assert limits.address == Rate(0, 0.5) and not limits.address.on
    assert [str(n) for n in limits.trusted_proxies] == [
        "10.0.0.0/8",
        "2001:db8::/32",
        "192.0.2.7/32",
    ]
    assert load_settings({"LUDO_TRUSTED_PROXIES": "none"}).limits.trusted_proxies == ()


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("LUDO_WEB_ADDRESS_BURST", "many", "LUDO_WEB_ADDRESS_BURST must be a whole number"),
        ("LUDO_WEB_ADDRESS_BURST", "-1", "LUDO_WEB_ADDRESS_BURST must be from 0 to 10000"),
        ("LUDO_WEB_ADDRESS_PER_SECOND", "0", "LUDO_WEB_ADDRESS_PER_SECOND must be from 0.01"),
        ("LUDO_TRUSTED_PROXIES", "proxy.local", "LUDO_TRUSTED_PROXIES must be IP addresses"),
        ("LUDO_TRUSTED_PROXIES", "127.0.0.1,,::1", "LUDO_TRUSTED_PROXIES must be IP addresses"),
        ("LUDO_TRUSTED_PROXIES", "10.1.2.3/8", "LUDO_TRUSTED_PROXIES: '10.1.2.3/8' has host"),
    ],
)
def test_a_wrong_web_limit_names_its_setting(name: str, value: str, said: str) -> None:
    with pytest.raises(ConfigError) as e:
        load_settings({name: value})
    assert str(e.value).startswith(said)


def not_none(value: T | None) -> T:
    assert value is not None
    return value
