"""Two OS processes press the same buttons at the same moment, hundreds of
times, against one real store: exactly one press of each pair applies."""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

import engine
from bot.hosting import Game
from bot.store import RedisStore, SqliteStore, Store
from tests.helpers.service import ANA, BEN, CID, DEE, person_on_turn, service

ROUNDS = 250


def _open(kind: str, target: str, prefix: str) -> Store:
    if kind == "redis":
        return RedisStore(target, prefix=prefix)
    return SqliteStore(target)


def _presser(
    kind: str, target: str, prefix: str, channel: str, seed: int, barrier: Any, results: Any
) -> None:
    """One worker: each round, read the game, agree on the button, press it together."""
    store = _open(kind, target, prefix)
    svc = service(store, seed=seed)
    for k in range(ROUNDS):
        barrier.wait()
        game = svc.game_in(channel)
        if game is None or game.status != "playing":
            results.put((k, None, "over"))
            barrier.wait()
            continue
        user = person_on_turn(game)
        reply = svc.board(channel)
        data = reply.buttons[0][0].data
        barrier.wait()  # both have read the same game; now press at once
        pressed = svc.press(channel, user, data)  # type: ignore[arg-type]
        results.put((k, game.version, "ok" if not pressed.refused else pressed.lines[0].key))
    store.close()


def test_simultaneous_presses_apply_exactly_once(make_store: Any) -> None:
    store = make_store()
    svc = service(store, seed=7)
    channel = "race"
    svc.new_game(channel, ANA, "classic", timer=0)
    for user in (BEN, CID, DEE):
        svc.join(channel, user)
    assert not svc.start(channel, ANA).refused
    game = svc.game_in(channel)
    assert game is not None
    start_version = game.version

    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    results = ctx.Queue()
    workers = [
        ctx.Process(
            target=_presser,
            args=(
                make_store.kind,
                make_store.target,
                make_store.prefix,
                channel,
                seed,
                barrier,
                results,
            ),
        )
        for seed in (1, 2)
    ]
    for w in workers:
        w.start()
    got = [results.get(timeout=120) for _ in range(2 * ROUNDS)]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0

    by_round: dict[int, list[str]] = {}
    for k, _version, outcome in got:
        by_round.setdefault(k, []).append(outcome)
    applied = 0
    for k, outcomes in sorted(by_round.items()):
        if outcomes == ["over", "over"]:
            continue
        # one press applies; the other finds the version moved on (or, after
        # the winning move, the game over)
        assert sorted(outcomes) in (["ok", "refuse.outdated"], ["ok", "refuse.game_over"]), (
            k,
            outcomes,
        )
        applied += 1
    assert applied > 100

    stored = store.load(game.id)
    assert stored is not None
    final = Game.from_bytes(stored.data, stored.rev)
    # none lost, none doubled: each applied press moved the version on by one
    assert final.version - start_version == applied
    assert final.state is not None
    assert engine.replay(final.record()) == final.state
