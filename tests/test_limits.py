"""The rate limits and the quotas, below the adapters: token buckets in memory and in
one real Redis shared by two workers, a limiter whose store is down, each person's
quota of open games and of games counted in the stats (on both stores), and their
settings."""

from __future__ import annotations

import logging
import threading

import pytest
import redis

from bot.app.config import ConfigError, load_settings
from bot.hosting import LOBBY, Intent, Refusal
from bot.hosting.results import person_key
from bot.limits.quotas import Quotas
from bot.limits.rate import LET_IN, Limiter, LimitSettings, Rate
from bot.present import refusal_text, say
from bot.service.game import GameService
from bot.store import RedisStore, Store
from bot.store.limits import TELL_EVERY, Buckets, MemoryBuckets, MemoryOpenGames
from bot.store.redis.limits import RedisBuckets, RedisOpenGames
from bot.store.redis.ops import client_options
from tests.fakes.telegram import free_port
from tests.helpers.after import finished_game
from tests.helpers.service import ANA, BEN, CID, DEE, Dice
from tests.helpers.stores import FakeClock, StoreFactory

PERSON = Rate(3, 1.0)
CHAT = Rate(5, 1.0)
SETTINGS = LimitSettings(PERSON, CHAT, 0, 0)


# -- token buckets -----------------------------------------------------------


def test_a_person_gets_the_burst_then_one_token_a_second() -> None:
    clock = FakeClock(1000.0)
    limiter = Limiter(MemoryBuckets(clock), SETTINGS, clock)
    assert [limiter.check("telegram:1", None).allowed for _ in range(4)] == [True] * 3 + [False]
    refused = limiter.check("telegram:1", None)
    assert (refused.scope, refused.seconds) == ("person", 1)
    clock.advance(1.0)
    assert limiter.check("telegram:1", None).allowed
    assert not limiter.check("telegram:1", None).allowed
    clock.advance(10.0)  # full again, never more than the burst
    assert [limiter.check("telegram:1", None).allowed for _ in range(4)] == [True] * 3 + [False]


def test_people_playing_fast_are_never_limited_by_the_defaults() -> None:
    """The defaults: a person pressing twice a second for ten minutes, and a group of
    four taking turns as fast (a press every 0.4 s) are never turned away; a script
    pressing 20 times a second is held to about 2 a second after its burst."""
    clock = FakeClock(1000.0)
    limiter = Limiter(MemoryBuckets(clock), LimitSettings(), clock)
    for n in range(1200):
        assert limiter.check("telegram:1", "tg:-1").allowed, n
        clock.advance(0.5)
    for n in range(1500):
        assert limiter.check(f"telegram:{10 + n % 4}", "tg:-2").allowed, n
        clock.advance(0.4)
    let_in = 0
    for _ in range(20 * 60):
        let_in += limiter.check("telegram:99", "tg:-3").allowed
        clock.advance(0.05)
    assert 10 + 2 * 60 - 2 <= let_in <= 10 + 2 * 60 + 1


def test_a_person_refused_takes_nothing_from_the_chat() -> None:
    """Ana floods: she is refused after her burst, and her refusals cost the chat
    nothing, so Ben still has the chat's whole remaining budget."""
    clock = FakeClock(1000.0)
    limiter = Limiter(MemoryBuckets(clock), SETTINGS, clock)
    verdicts = [limiter.check("telegram:1", "tg:-5") for _ in range(20)]
    assert sum(v.allowed for v in verdicts) == 3
    assert {v.scope for v in verdicts if not v.allowed} == {"person"}
    assert [limiter.check("telegram:2", "tg:-5").allowed for _ in range(3)] == [True, True, False]
    # the chat is now empty (3 + 2): Ben's third was the chat's refusal
    third = limiter.check("telegram:3", "tg:-5")
    assert (third.allowed, third.scope) == (False, "chat")
    # another chat is not touched
    assert limiter.check("telegram:3", "tg:-6").allowed


def test_a_refused_person_is_told_once_in_a_while() -> None:
    clock = FakeClock(1000.0)
    limiter = Limiter(MemoryBuckets(clock), SETTINGS, clock)
    for _ in range(3):
        limiter.check("telegram:1", None)
    told = [limiter.check("telegram:1", None).tell for _ in range(10)]
    assert told == [True] + [False] * 9
    clock.advance(TELL_EVERY)  # full again: emptied again, and told again
    verdicts = [limiter.check("telegram:1", None) for _ in range(5)]
    assert [(v.allowed, v.tell) for v in verdicts] == [(True, False)] * 3 + [
        (False, True),
        (False, False),
    ]


@pytest.mark.parametrize("where", ["memory", "redis"])
def test_a_busy_chat_is_told_once_not_once_per_person(
    where: str, request: pytest.FixtureRequest
) -> None:
    """Twelve people in a chat whose budget is spent: the first turned away is told,
    the others are not (the answers would flood the chat); a person over their own
    limit is told of that once, separately."""
    if where == "redis":
        buckets: Buckets = RedisBuckets.of(request.getfixturevalue("redis_store"))
    else:
        buckets = MemoryBuckets(FakeClock(1000.0))
    limiter = Limiter(buckets, LimitSettings(Rate(3, 1 / 3600), Rate(5, 1 / 3600), 0, 0))
    assert all(limiter.check(f"telegram:{p}", "tg:-9").allowed for p in range(5))
    verdicts = [limiter.check(f"telegram:{p}", "tg:-9") for p in range(10, 22)]
    assert [(v.allowed, v.scope) for v in verdicts] == [(False, "chat")] * 12
    assert [v.tell for v in verdicts] == [True] + [False] * 11
    assert not limiter.check("telegram:10", "tg:-9", tell=False).tell, "a toast: none asked"
    for _ in range(3):
        limiter.check("telegram:50", None)
    alone = [limiter.check("telegram:50", None) for _ in range(3)]
    assert [(v.scope, v.tell) for v in alone] == [("person", True)] + [("person", False)] * 2


def test_no_limit_when_the_burst_is_zero() -> None:
    limiter = Limiter(MemoryBuckets(), LimitSettings(Rate(0, 1.0), Rate(0, 1.0), 0, 0))
    assert all(limiter.check("telegram:1", "tg:-1").allowed for _ in range(1000))


def test_two_workers_on_one_redis_share_one_budget(redis_store: RedisStore, redis_url: str) -> None:
    """Two workers, each with its own connection to one Redis, hammering from many
    threads: together they let in exactly the burst (no refill: one token an hour)."""
    other = RedisStore(redis_url, prefix=redis_store.prefix)
    try:
        slow = LimitSettings(Rate(10, 1 / 3600), Rate(25, 1 / 3600), 0, 0)
        workers = [Limiter(RedisBuckets.of(s), slow) for s in (redis_store, other)]
        let_in: list[bool] = []
        lock = threading.Lock()

        def flood(limiter: Limiter, person: str) -> None:
            for _ in range(15):
                verdict = limiter.check(person, "tg:-100")
                with lock:
                    let_in.append(verdict.allowed)

        threads = [
            threading.Thread(target=flood, args=(w, f"telegram:{p}"))
            for w in workers
            for p in (1, 1, 1, 2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Ana (8 threads x 15) got her 10, Ben (2 x 15) his 10: 20 of the chat's 25
        assert sum(let_in) == 20
        assert workers[1].check("telegram:3", "tg:-100").allowed
        # the chat has 4 left whoever asks, on either worker
        last = [workers[i % 2].check(f"telegram:{10 + i}", "tg:-100") for i in range(6)]
        assert [v.allowed for v in last] == [True] * 4 + [False] * 2
        assert {v.scope for v in last[4:]} == {"chat"}
    finally:
        other.close()


def test_redis_keys_carry_the_stores_hash_tag(redis_store: RedisStore) -> None:
    limiter = Limiter(RedisBuckets.of(redis_store), SETTINGS)
    limiter.check("telegram:1", "tg:-7")
    keys = sorted(k.decode() for k in redis_store.client.scan_iter(match=f"{redis_store.base}rl:*"))
    assert keys == [f"{redis_store.base}rl:c:tg:-7", f"{redis_store.base}rl:p:telegram:1"]
    assert all(redis_store.client.pttl(k) > 0 for k in keys), "every bucket expires on its own"


def test_a_limiter_whose_store_is_down_lets_everyone_in(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis does not answer: every check lets the person in, the operator is told
    once; when it answers again, once more; then the limits hold again."""
    port = free_port()
    dead = redis.Redis.from_url(f"redis://127.0.0.1:{port}", **client_options())
    clock = FakeClock(1000.0)
    buckets = RedisBuckets(dead, "ludo:{ludo}:", f"127.0.0.1:{port}")
    limiter = Limiter(buckets, SETTINGS, clock)
    with caplog.at_level(logging.WARNING, logger="bot.limits.rate"):
        for _ in range(20):
            assert limiter.check("telegram:1", "tg:-1") == LET_IN
            clock.advance(10.0)  # past every pause: the store is asked again each time
    lines = [r.getMessage() for r in caplog.records if r.name == "bot.limits.rate"]
    assert len(lines) == 1 and lines[0].startswith("rate limits are off"), lines
    assert "cannot reach Redis" in lines[0]
    # the store answers again (here: the buckets in memory stand for it)
    caplog.clear()
    limiter.buckets = MemoryBuckets(clock)
    with caplog.at_level(logging.WARNING, logger="bot.limits.rate"):
        verdicts = [limiter.check("telegram:1", "tg:-1").allowed for _ in range(5)]
    assert verdicts == [True] * 3 + [False] * 2
    assert [r.getMessage() for r in caplog.records] == ["rate limits are checked again"]
    dead.close()


def test_after_a_failure_the_store_is_not_asked_for_a_while() -> None:
    class Counting(MemoryBuckets):
        asked = 0

        def take(self, *args: object, **kw: object) -> object:  # type: ignore[override]
            Counting.asked += 1
            raise OSError("down")

    clock = FakeClock(1000.0)
    limiter = Limiter(Counting(clock), SETTINGS, clock)
    assert all(limiter.check("telegram:1", None).allowed for _ in range(50))
    assert Counting.asked == 1
    clock.advance(5.0)
    assert limiter.check("telegram:1", None).allowed
    assert Counting.asked == 2


# -- quotas ------------------------------------------------------------------


def quota_service(store: Store, clock: FakeClock, **limits: int) -> GameService:
    settings = LimitSettings(Rate(0, 1.0), Rate(0, 1.0), **limits)
    quotas = Quotas(store, settings, (MemoryBuckets(clock), MemoryOpenGames()))
    if isinstance(store, RedisStore):  # shared by the workers: in Redis
        quotas = Quotas(store, settings, (RedisBuckets.of(store, clock), RedisOpenGames.of(store)))
    return GameService(store, dice=Dice(3), draw=lambda n: 0, clock=clock, quotas=quotas)


def test_a_person_may_have_so_many_games_open_at_once(store: Store, clock: FakeClock) -> None:
    svc = quota_service(store, clock, open_games=2)
    assert svc.open("chan:1", ANA).refusal is None
    assert svc.open("chan:2", ANA).refusal is None
    third = svc.open("chan:3", ANA)
    assert third.refusal is not None and third.refusal.key == "refuse.too_many_games"
    assert say(refusal_text(third.refusal)) == (
        "You already have 2 games open: finish or end one first."
    )
    assert svc.game_in("chan:3") is None, "nothing was opened"
    # someone else may open there
    assert svc.open("chan:3", BEN).refusal is None
    # Ana ends one of hers: she may open again
    assert svc.act("chan:1", ANA, Intent("end")).refusal is None
    assert svc.open("chan:4", ANA).refusal is None
    again = svc.open("chan:5", ANA)
    assert again.refusal is not None and again.refusal.params == {"count": 2}


def test_a_game_counts_while_open_however_it_ends(
    store: Store, clock: FakeClock, make_store: StoreFactory
) -> None:
    svc = quota_service(store, clock, open_games=1)
    assert svc.open("chan:1", ANA, timer=0).refusal is None
    assert svc.act("chan:1", BEN, Intent("join")).refusal is None
    assert svc.act("chan:1", ANA, Intent("start")).refusal is None
    refused = svc.open("chan:2", ANA)
    assert refused.refusal is not None and refused.refusal.key == "refuse.too_many_games"
    # the game is played to the end, with nobody telling the quota
    game = svc.game_in("chan:1")
    assert game is not None
    finished = finished_game(svc, (CID, DEE), channel="chan:9")
    assert finished.status != LOBBY
    assert svc.act("chan:1", BEN, Intent("leave")).refusal is None  # a computer plays on
    assert svc.act("chan:1", ANA, Intent("end")).refusal is None
    assert svc.open("chan:2", ANA).refusal is None
    # a lobby closed by its timer frees the quota too
    clock.advance(31 * 60)
    assert svc.fire_due()
    assert svc.game_in("chan:2") is None
    assert svc.open("chan:3", ANA).refusal is None


def test_the_rematch_counts_as_opening_a_game(store: Store, clock: FakeClock) -> None:
    svc = quota_service(store, clock, open_games=1)
    finished_game(svc, (ANA, BEN))
    assert svc.open("chan:2", BEN).refusal is None  # Ben has one open elsewhere
    refused = svc.rematch("test:group", BEN)
    assert refused.refusal is not None and refused.refusal.key == "refuse.too_many_games"
    assert svc.game_in("test:group") is None
    assert svc.rematch("test:group", ANA).refusal is None


def test_games_past_the_hourly_stats_quota_are_played_but_not_counted(
    store: Store, clock: FakeClock
) -> None:
    """With ``timer=10`` and three computers a finished game could be minted every
    30 s: past two an hour, Ana's games are still played and kept as the channel's
    last game, but nobody's line of them counts."""
    svc = quota_service(store, clock, stats_per_hour=2)
    ana = person_key(ANA)
    for n in range(1, 5):
        game = finished_game(svc, (ANA,), computers=3, timer=10)
        counted = store.entries(game.chat)
        assert sum(1 for who, _ in counted if who == ana) == min(n, 2)
        assert sum(1 for who, _ in counted if who.startswith("computer:")) == 3 * min(n, 2)
        last = svc.records.last_game("test:group")
        assert not isinstance(last, Refusal) and last.id == game.id, "still kept as the last"
        clock.advance(30)
    # a game with Ben: his line counts, Ana's (past her quota) does not
    finished_game(svc, (BEN, ANA))
    people = [who for who, _ in store.entries("test:group") if not who.startswith("computer:")]
    assert people.count(ana) == 2 and people.count(person_key(BEN)) == 1
    # later on, Ana's games count again (one every half hour)
    clock.advance(1800)
    finished_game(svc, (ANA,), computers=1)
    assert [who for who, _ in store.entries("test:group")].count(ana) == 3


def test_no_quota_by_default(store: Store, clock: FakeClock) -> None:
    svc = GameService(store, dice=Dice(3), draw=lambda n: 0, clock=clock)
    for n in range(6):
        assert svc.open(f"chan:{n}", ANA).refusal is None


# -- settings ----------------------------------------------------------------


def test_the_limits_have_sensible_defaults() -> None:
    limits = load_settings({}).limits
    assert limits == LimitSettings(Rate(10, 2.0), Rate(30, 3.0), 3, 20)


def test_the_limits_are_configurable() -> None:
    limits = load_settings(
        {
            "LUDO_PERSON_BURST": "5",
            "LUDO_PERSON_PER_SECOND": "0.5",
            "LUDO_CHAT_BURST": "0",
            "LUDO_CHAT_PER_SECOND": "10",
            "LUDO_OPEN_GAMES": "1",
            "LUDO_STATS_PER_HOUR": "0",
        }
    ).limits
    assert limits == LimitSettings(Rate(5, 0.5), Rate(0, 10.0), 1, 0)
    assert not limits.chat.on and not limits.stats.on


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("LUDO_PERSON_BURST", "ten", "LUDO_PERSON_BURST must be a whole number, not 'ten'"),
        ("LUDO_PERSON_BURST", "-1", "LUDO_PERSON_BURST must be from 0 to 10000, not -1"),
        ("LUDO_CHAT_PER_SECOND", "0", "LUDO_CHAT_PER_SECOND must be from 0.01 to 1000, not 0"),
        ("LUDO_OPEN_GAMES", "2.5", "LUDO_OPEN_GAMES must be a whole number, not '2.5'"),
        ("LUDO_STATS_PER_HOUR", "1e9", "LUDO_STATS_PER_HOUR must be a whole number"),
    ],
)
def test_bad_limits_are_refused_clearly(name: str, value: str, words: str) -> None:
    with pytest.raises(ConfigError) as e:
        load_settings({name: value})
    assert str(e.value).startswith(words)
