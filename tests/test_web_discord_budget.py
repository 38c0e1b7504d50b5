"""A stranger on the web cannot get the bot shut out of Discord.

Discord shuts an address out of its whole API after 10,000 invalid requests (401, 403,
429) in 10 minutes.  Against the fake Discord (401 for made-up tokens, ``invalid_grant``
for made-up codes, 404 for made-up instances, 429 with ``Retry-After`` past a route's
rate): a token the bot never issued is refused with no call to Discord; every request
a web request causes shares one budget, in the store, across workers; Discord's 429 and
``X-RateLimit-*`` are obeyed; floods from 400 addresses draw at most 100 refusals in a
minute, and a real person's sign-in works right after."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.hosting import User
from bot.limits.budget import BudgetRates, CallBudget
from bot.limits.rate import Limiter, LimitSettings
from bot.ops.metrics import REGISTRY
from bot.present.buttons import game_button
from bot.service.game import GameService
from bot.store import RedisStore, SqliteStore
from bot.store.limits import MemoryBuckets, Rate
from bot.store.redis.limits import RedisBuckets
from bot.store.redis.signin import RedisHolds, RedisIssued
from bot.store.signin import GLOBAL, MemoryHolds, MemoryIssued, digest
from bot.web.discord import DiscordLogin, DiscordOAuth
from bot.web.words import words
from tests.fakes.discord import FakeDiscord
from tests.helpers.service import playing
from tests.helpers.stores import FakeClock
from tests.helpers.web_server import Served, connect, receive, serve_board

pytestmark = pytest.mark.discord

#: the attacks' addresses, and the simulated minute they send for, in steps
ADDRESSES = 400
STEPS, STEP = 6, 10.0
#: what the issue allows an attack to draw from Discord in a minute
MOST_REFUSED = 100
LOOKUP = r"/applications/\d+/activity-instances/[^/]+"


def invalid_total(caller: str) -> float:
    return REGISTRY.get_sample_value("ludo_discord_invalid_total", {"caller": caller}) or 0.0


def refused(fake: FakeDiscord, since: int = 0) -> list[Any]:
    """The requests Discord refused (any 4xx: its invalid requests and the rest)."""
    return [c for c in fake.calls[since:] if 400 <= c.status < 500]


async def exchange(
    http: aiohttp.ClientSession, url: str, code: str, address: str | None = None, lang: str = "en"
) -> tuple[int, dict[str, Any], str | None]:
    headers = {"Accept-Language": lang}
    if address is not None:
        headers["X-Forwarded-For"] = address
    async with http.post(f"{url}/api/discord/token", json={"code": code}, headers=headers) as r:
        return r.status, await r.json(), r.headers.get("Retry-After")


async def session(
    http: aiohttp.ClientSession,
    url: str,
    token: str,
    channel: int,
    instance: str,
    address: str | None = None,
) -> tuple[int, dict[str, Any], str | None]:
    headers = {"Authorization": f"discord {token}"}
    if address is not None:
        headers["X-Forwarded-For"] = address
    body = json.dumps({"channel": str(channel), "instance": instance})
    async with http.post(f"{url}/api/session", data=body, headers=headers) as r:
        return r.status, await r.json(), r.headers.get("Retry-After")


def oauth(fake: FakeDiscord, **kw: Any) -> DiscordOAuth:
    return DiscordOAuth(fake.app_id, fake.client_secret, fake.api_base, bot_token=fake.token, **kw)


@pytest.fixture
async def served(tmp_path: Path, fake: FakeDiscord) -> AsyncIterator[Served]:
    s = await serve_board(
        GameService(SqliteStore(str(tmp_path / "g.sqlite3"))), discord=oauth(fake)
    )
    try:
        yield s
    finally:
        await s.close()


# -- tokens the bot never issued --------------------------------------------------------


async def test_a_token_the_bot_never_issued_is_refused_with_no_call_to_discord(
    served: Served, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    channel = fake.channel_id
    served.board.service.open(f"dc:{channel}", User("discord", "777", "Dana"))
    instance = fake.add_instance(channel, [777, 778])
    # a token Discord really gave, but through someone else's exchange, and made-up ones
    code = fake.mint_code(778, "Eli")
    async with http.post(
        f"{fake.api_base}/oauth2/token",
        data={
            "client_id": str(fake.app_id),
            "client_secret": fake.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        },
    ) as r:
        elsewhere = (await r.json())["access_token"]
    before = len(fake.calls)
    for token in (elsewhere, "made-up", "x" * 256, "a" * 300, "sp ace"):
        status, body, _ = await session(http, served.url, token, channel, instance)
        assert status == 401 and "session" not in body, token
        assert body["error"] == words("web.discord_refused", "en")
    assert fake.calls[before:] == []  # Discord was not asked once
    # a real sign-in: Discord is asked who the token is once, at the exchange
    status, body, _ = await exchange(http, served.url, fake.mint_code(777, "Dana", locale="it"))
    assert status == 200
    token = body["access_token"]
    assert [c.path for c in fake.calls[before:]] == ["/oauth2/token", "/users/@me"]
    for _ in range(3):
        status, answer, _ = await session(http, served.url, token, channel, instance)
        assert status == 200 and answer["role"] == "player" and answer["language"] == "it"
    assert len(fake.calls_to("GET", "/users/@me")) == 1  # not asked again at each session
    assert len(fake.calls_to("GET", LOOKUP)) == 1  # the instance, kept briefly
    assert fake.invalid(before) == []


async def test_issued_tokens_are_known_to_every_worker_until_they_expire(
    tmp_path: Path, redis_store: RedisStore, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    """Two workers on one Redis: a token exchanged at one signs in at the other; once
    Discord's ``expires_in`` has passed it is refused there, with no call."""
    fake.token_seconds = 2
    service = GameService(redis_store)
    workers = [
        await serve_board(
            service,
            discord=oauth(
                fake,
                budget=CallBudget(RedisBuckets.of(redis_store), RedisHolds.of(redis_store)),
                issued=RedisIssued.of(redis_store),
            ),
        )
        for _ in range(2)
    ]
    try:
        channel = fake.channel_id
        service.open(f"dc:{channel}", User("discord", "777", "Dana"))
        instance = fake.add_instance(channel, [777])
        status, body, _ = await exchange(http, workers[0].url, fake.mint_code(777, "Dana"))
        assert status == 200
        token = body["access_token"]
        status, answer, _ = await session(http, workers[1].url, token, channel, instance)
        assert status == 200 and answer["role"] == "player"
        # what the store keeps is a digest: the token itself is nowhere in Redis
        keys = redis_store.client.keys(f"{redis_store.base}dt:*")
        assert [k.decode() for k in keys] == [f"{redis_store.base}dt:{digest(token)}"]
        assert token.encode() not in redis_store.client.get(keys[0])
        await asyncio.sleep(2.2)
        before = len(fake.calls)
        status, body, _ = await session(http, workers[1].url, token, channel, instance)
        assert status == 401 and fake.calls[before:] == []
    finally:
        for w in workers:
            await w.close()


def test_what_is_kept_of_a_login_reads_back_and_damage_is_nobody() -> None:
    login = DiscordLogin(User("discord", "123", 'Dana "D" ✨'), "pt_BR")
    assert DiscordLogin.loads(login.dumps()) == login
    for damaged in ("", "[]", "{", '{"id": "12a", "name": "x"}', '{"id": "1"}', "null"):
        assert DiscordLogin.loads(damaged) is None


# -- the budget ------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
def make_budget(request: pytest.FixtureRequest, clock: FakeClock) -> Callable[[BudgetRates], Any]:
    if request.param == "memory":
        return lambda rates: CallBudget(MemoryBuckets(clock), MemoryHolds(clock), rates)
    store = request.getfixturevalue("redis_store")
    return lambda rates: CallBudget(RedisBuckets.of(store, clock), RedisHolds.of(store), rates)


def test_the_budget_takes_a_call_and_a_refusal_and_gives_the_refusal_back(
    make_budget: Callable[[BudgetRates], Any], clock: FakeClock
) -> None:
    budget = make_budget(BudgetRates(Rate(5, 1.0), Rate(3, 0.5)))
    # three refusals may be out at once: the fourth request waits for one to come back
    assert [budget.reserve("token") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = budget.reserve("token")
    assert 1.9 < wait <= 2.0
    budget.refund()  # the last one was answered well
    assert budget.reserve("token") == 0.0
    budget.refund()
    budget.refund()
    # now the calls bucket (5) is the one that is spent
    assert budget.reserve("token") == 0.0
    assert 0.9 < budget.reserve("token") <= 1.0
    clock.advance(1.0)
    assert budget.reserve("me") == 0.0
    # a refund never makes more room than the bucket holds
    for _ in range(10):
        budget.refund()
    clock.advance(60)
    assert [budget.reserve("me") for _ in range(4)][:3] == [0.0, 0.0, 0.0]


def test_a_hold_stops_its_route_or_every_route(
    make_budget: Callable[[BudgetRates], Any], clock: FakeClock
) -> None:
    budget = make_budget(BudgetRates())
    if not budget.shared:
        budget.hold("token", 0.5)
        assert 0.4 < budget.reserve("token") <= 0.5
        assert budget.reserve("me") == 0.0
        budget.hold(GLOBAL, 2.0)
        budget.hold(GLOBAL, 0.1)  # a shorter hold does not shorten it
        assert 1.9 < budget.reserve("instance") <= 2.0
        clock.advance(2.0)
        assert budget.reserve("token") == 0.0
        return
    # Redis holds by its own expiry (real time)
    budget.hold("token", 0.4)
    assert 0.3 < budget.reserve("token") <= 0.4
    assert budget.reserve("me") == 0.0
    budget.hold(GLOBAL, 0.6)
    budget.hold(GLOBAL, 0.05)
    assert 0.5 < budget.reserve("instance") <= 0.6


# -- Discord's own limits --------------------------------------------------------------


async def test_discords_rate_limit_headers_and_429_are_obeyed(
    served: Served, fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    """Past ``X-RateLimit-Remaining: 0`` nothing is asked before the reset; a 429's
    ``Retry-After`` holds the route; a global 429 holds everything.  Those turned away
    meanwhile get 503 in their language with ``Retry-After``, and get in after it."""
    fake.route_limit("token", 2, 1.0)
    people = [fake.mint_code(800 + i, f"P{i}") for i in range(3)]
    answers = [await exchange(http, served.url, code, lang="es") for code in people]
    assert [a[0] for a in answers] == [200, 200, 503]
    status, body, retry = answers[2]
    assert body["error"] == words("web.discord_busy", "es") and retry == "1"
    assert len(fake.calls_to("POST", "/oauth2/token")) == 2  # the third was not sent
    await asyncio.sleep(float(retry))
    status, _, _ = await exchange(http, served.url, people[2])
    assert status == 200
    assert fake.route_early == [] and fake.invalid() == []
    # many at once: the requests on their way before Discord's first answer said stop
    # meet a 429; nobody asks that route again before its time, and those turned away
    # (their code not used: Discord did nothing) get in later
    fake.route_limit("token", 3, 1.5)
    crowd = [fake.mint_code(900 + i, f"Q{i}") for i in range(8)]
    first = await asyncio.gather(*(exchange(http, served.url, c) for c in crowd))
    assert sorted(a[0] for a in first) == [200] * 3 + [503] * 5
    limited = len(fake.invalid())
    assert 0 < limited <= 5 and {c.status for c in fake.invalid()} == {429}
    waiting = [c for c, a in zip(crowd, first, strict=True) if a[0] == 503]
    while waiting:
        await asyncio.sleep(max(float(a[2] or 0) for a in first))
        first = [await exchange(http, served.url, c) for c in waiting]
        assert {a[0] for a in first} <= {200, 503}
        waiting = [c for c, a in zip(waiting, first, strict=True) if a[0] == 503]
    assert fake.route_early == [] and len(fake.invalid()) == limited
    # a global limit: nothing at all is asked until it is over
    fake.storm(429, 1.0, retry_after=1.0, is_global=True)
    storm_at = len(fake.calls)
    code = fake.mint_code(999, "Zed")
    answers = [await exchange(http, served.url, code) for _ in range(2)]
    assert [a[0] for a in answers] == [503, 503]
    assert len(fake.calls) - storm_at == 1  # the one that met the 429
    assert fake.early == []


# -- floods from many addresses --------------------------------------------------------

#: a real person's address
GUEST = "192.0.2.7"
DANA = User("discord", "777", "Dana")
ELI = User("discord", "778", "Eli")


async def again(
    ask: Callable[[], Awaitable[tuple[int, dict[str, Any], str | None]]], clock: FakeClock
) -> tuple[int, dict[str, Any]]:
    """``ask()`` as the page does it: after a 503, again once its Retry-After has passed
    (at most three times); the last answer."""
    for _ in range(3):
        status, body, retry = await ask()
        if status != 503:
            break
        assert body["error"] == words("web.discord_busy", "en")
        wait = float(retry or 1)
        clock.advance(wait)  # the budget's clock
        await asyncio.sleep(wait)  # Discord's holds, on Redis' own clock
    return status, body


@dataclass
class Attack:
    """An attacker's one request from ``address``: its status."""

    name: str
    send: Callable[[aiohttp.ClientSession, str, int, str], Awaitable[int]]


async def forged_token(http: aiohttp.ClientSession, url: str, n: int, address: str) -> int:
    status, _, _ = await session(http, url, f"forged-{n}", 1, "i-1", address)
    return status


async def forged_code(http: aiohttp.ClientSession, url: str, n: int, address: str) -> int:
    status, _, _ = await exchange(http, url, f"forged-code-{n}", address)
    return status


async def made_up_instance(http: aiohttp.ClientSession, url: str, n: int, address: str) -> int:
    # someone who signed in once, naming an instance that does not exist
    token = f"person-{n % ADDRESSES}"
    status, _, _ = await session(http, url, token, 1, f"i-made-up-{n}", address)
    return status


ATTACKS = {
    a.name: a
    for a in (
        Attack("forged tokens", forged_token),
        Attack("forged codes", forged_code),
        Attack("made-up instances", made_up_instance),
    )
}


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_a_flood_from_400_addresses_draws_at_most_100_refusals_in_a_minute(
    attack: str,
    redis_store: RedisStore,
    fake: FakeDiscord,
    http: aiohttp.ClientSession,
    clock: FakeClock,
) -> None:
    """400 addresses within their per-address limits for a minute (on a clock the test
    moves: each address's and the budget's), against two workers on one Redis: Discord
    refuses at most 100 of the bot's requests, the budget was really spent (the check
    can fail), boards already open go on, and a real person gets in right after."""
    service = GameService(redis_store)
    limits = LimitSettings(person=Rate(10, 2.0), address=Rate(60, 2.0))
    workers = []
    for _ in range(2):
        auth = oauth(
            fake,
            budget=CallBudget(RedisBuckets.of(redis_store, clock), RedisHolds.of(redis_store)),
            issued=RedisIssued.of(redis_store),
        )
        limiter = Limiter(RedisBuckets.of(redis_store, clock), limits, clock)
        workers.append(await serve_board(service, discord=auth, limiter=limiter))
    issued = RedisIssued.of(redis_store)
    for n in range(ADDRESSES):  # people who signed in earlier (the made-up instances)
        login = DiscordLogin(User("discord", str(5000 + n), f"P{n}"), "en")
        issued.keep(digest(f"person-{n}"), login.dumps(), 3600)
    channel = fake.channel_id
    game = playing(service, f"dc:{channel}", DANA, ELI)
    player = game.on_turn()
    assert player is not None and player.user is not None
    instance = fake.add_instance(channel, [777, 778])
    try:
        # the board of the player on turn is open before the attack
        code = fake.mint_code(int(player.user.id), player.user.name)
        _, body, _ = await exchange(http, workers[0].url, code)
        _, opened, _ = await session(http, workers[0].url, body["access_token"], channel, instance)
        ws, _ = await connect(http, workers[0].url, opened["session"])
        before, web_invalid = len(fake.calls), invalid_total("web")
        gate = asyncio.Semaphore(64)
        statuses: dict[int, int] = {}

        async def one(n: int) -> None:
            async with gate:
                address = f"10.{n % ADDRESSES // 250}.{n % ADDRESSES % 250}.1"
                url = workers[n % 2].url
                status = await ATTACKS[attack].send(http, url, n, address)
                statuses[status] = statuses.get(status, 0) + 1

        for step in range(STEPS):
            await asyncio.gather(*(one(step * ADDRESSES + i) for i in range(ADDRESSES)))
            clock.advance(STEP)
        drawn = refused(fake, before)
        assert len(drawn) <= MOST_REFUSED, statuses
        assert len(fake.invalid(before)) <= MOST_REFUSED
        assert invalid_total("web") - web_invalid == len(fake.invalid(before))
        if attack == "forged tokens":
            assert fake.calls[before:] == [] and statuses == {401: ADDRESSES * STEPS}
        else:  # the budget was spent: most were turned away with 503, not sent
            assert len(drawn) >= BudgetRates().refusals.burst, statuses
            assert statuses.get(503, 0) > ADDRESSES * STEPS // 2, statuses
        # the open board goes on while the budget is spent: the player rolls
        roll = game_button(game.id, game.version, "roll")
        await ws.send_json({"type": "press", "data": roll, "id": "p1"})
        assert (await receive(ws))["type"] in ("ack", "state")
        saved = service.get(game.id)
        assert saved is not None and saved.rev > game.rev
        await ws.close()
        # a real person signs in right after, as the page does: after Retry-After
        other = ELI if player.user.same(DANA) else DANA
        code = fake.mint_code(int(other.id), other.name, locale="pt-BR")
        status, body = await again(lambda: exchange(http, workers[1].url, code, GUEST), clock)
        assert status == 200, body
        token = body["access_token"]
        status, answer = await again(
            lambda: session(http, workers[0].url, token, channel, instance, GUEST), clock
        )
        assert status == 200 and answer["language"] == "pt_BR", answer
    finally:
        for w in workers:
            await w.close()


async def test_the_budget_in_this_process_without_redis(
    tmp_path: Path, fake: FakeDiscord, http: aiohttp.ClientSession, clock: FakeClock
) -> None:
    """The SQLite mode (one process): the budget and the tokens are the process's own,
    with the same bounds."""
    budget = CallBudget(MemoryBuckets(clock), MemoryHolds(clock))
    auth = oauth(fake, budget=budget, issued=MemoryIssued(clock))
    service = GameService(SqliteStore(str(tmp_path / "g.sqlite3")))
    served = await serve_board(service, discord=auth)
    try:
        before = len(fake.calls)
        found = await asyncio.gather(
            *(exchange(http, served.url, f"forged-{n}") for n in range(200))
        )
        statuses = sorted({a[0] for a in found})
        assert statuses == [401, 503]
        assert len(refused(fake, before)) == BudgetRates().refusals.burst
        # Discord's own 429s among them hold the route as it asked: the page waits
        code = fake.mint_code(777, "Dana")
        status, _ = await again(lambda: exchange(http, served.url, code), clock)
        assert status == 200
    finally:
        await served.close()


async def test_a_store_that_does_not_answer_stops_the_sign_in_and_not_discord(
    tmp_path: Path, fake: FakeDiscord, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    """The budget's Redis unreachable: Discord is not asked without its leave; the
    sign-in is answered 503 in the viewer's language with when to come back, and the
    operator reads one line, with no password in it."""
    import socket

    import redis

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # as the store's own client: a refused connection is not tried again for seconds
    client = redis.Redis(
        host="127.0.0.1", port=port, password="hunter2", retry=Retry(NoBackoff(), 0)
    )
    where = f"redis://:***@127.0.0.1:{port}/0"
    auth = oauth(
        fake,
        budget=CallBudget(
            RedisBuckets(client, "ludo:{ludo}:", where), RedisHolds(client, "ludo:{ludo}:", where)
        ),
        issued=RedisIssued(client, "ludo:{ludo}:", where),
    )
    served = await serve_board(GameService(SqliteStore(str(tmp_path / "g.sqlite3"))), discord=auth)
    try:
        for _ in range(3):
            status, body, retry = await exchange(http, served.url, fake.mint_code(777), lang="it")
            assert (status, retry) == (503, "5")
            assert body["error"] == words("web.discord_busy", "it")
        status, body, retry = await session(http, served.url, "some-token", 1, "i-1")
        assert (status, retry) == (503, "5")
        assert fake.calls == []
        told = [r.getMessage() for r in caplog.records if "sign-in's store" in r.getMessage()]
        assert len(told) == 1 and "hunter2" not in told[0], told
    finally:
        await served.close()
