"""Discord answering errors for a while (issue 37: no acknowledged move lost, whatever
fails), end to end against the fake Discord with the real discord.py: a game played to
its end through a storm of global 429s, and one through a storm of 502s on the
channel's messages that sometimes hide a success.

"Minutes" are compressed to seconds (a storm of a few seconds, ``retry_after`` 1 s); the
code is the same.  People type their commands (``/ludo roll``, ``/ludo move``) during
the storm: interactions are answered (Discord does not bind them to the global rate
limit), the channel's tables wait.  discord.py waits out each 429 itself and tries a 5xx
again a few times before it gives up; past that the adapter keeps the newest view of
each game and shows it once Discord answers (:mod:`bot.adapters.discord.retries`).
Checked after each storm: nothing lost (the newest table, the final board and the
standings), nothing shown twice (the fake's messages counted; a post is repeated only
with its nonce), no request made before a 429's ``retry_after`` had passed (the fake
keeps those), and at most three lines in the operator's log for the storm.
"""

from __future__ import annotations

import logging
import re
import time

import pytest

import engine
from bot.hosting import OVER, PLAYING
from tests.fakes.discord import FakeDiscord, Storm
from tests.helpers.discord import ANA, BEN, Harness, boards, check_one_table, is_replay
from tests.helpers.storms import near_the_end, operator_lines, until_logged

pytestmark = pytest.mark.discord

#: a channel's messages, and one of them
MESSAGES = r"/channels/\d+/messages(/\d+)?"


async def play(h: Harness, game_id: str, most: int) -> int:
    """The person on turn types ``/ludo roll`` or ``/ludo move`` (their first piece that
    can move) until the game is over, or ``most`` commands; how many were typed.  Each
    command is answered (privately), and its step saved; its table may wait."""
    for n in range(most):
        game = h.game(game_id)
        if game.status != PLAYING:
            return n
        assert game.state is not None
        member = h.on_turn(game_id)
        assert member is not None
        if game.state.phase == "roll":
            inter = await h.fake.slash(member, "roll")
        else:
            piece = engine.legal_moves(game.state)[0].piece + 1
            inter = await h.fake.slash(member, "move", piece=piece)
        await h.fake.answered(inter)
        await h.fake.wait_for(lambda g=game: h.game(game_id).rev > g.rev, 15, "the step saved")
    return most


def channel_calls(fake: FakeDiscord, since: int) -> list[str]:
    """The requests about the channel's messages that Discord did, from ``calls[since]``."""
    return [
        f"{c.method} {'message' if c.path.endswith('/messages') else 'message/id'}"
        for c in fake.calls[since:]
        if re.fullmatch(MESSAGES, c.path) and 200 <= c.status < 300
    ]


def figures(storm: Storm, shown_at: float, lines: list[str]) -> str:
    return (
        f"storm {storm.until - storm.began:.1f} s, {len(storm.refused)} requests refused, "
        f"{len(lines)} log lines, newest shown {shown_at - storm.until:.2f} s after it"
    )


@pytest.mark.slow
async def test_a_game_played_to_its_end_through_a_storm_of_global_429s(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers every request but the interactions' with a global 429 (retry
    after 1 s) while the last moves are typed, longer than discord.py waits on its own:
    nothing is asked before Discord said, and once it answers the table is brought to the
    end in the usual requests (edited into the final board, the standings posted below)."""
    caplog.set_level(logging.DEBUG)
    fake = h.fake
    await h.start()
    game_id, _, _ = await h.started(ANA, BEN)
    near_the_end(h.store, game_id)
    await h.command(ANA, "board", settle=game_id)
    table = check_one_table(h, game_id, fake.channel_id)
    mark, logged = len(fake.calls), len(caplog.records)

    storm = fake.storm(429, 60.0, retry_after=1.0)
    typed = await play(h, game_id, most=60)
    assert h.game(game_id).status == OVER and typed >= 3
    # past discord.py's five tries of a request, and a moment after the last move
    storm.until = max(storm.began + 6.5, time.monotonic() + 1.0)
    await fake.wait_for(lambda: h.settled(fake.channel_id, game_id), 20, "the standings")
    await h.adapter.tables.quiet()
    await h.quiet()
    shown = [
        c for c in fake.calls[mark:] if re.fullmatch(MESSAGES, c.path) and 200 <= c.status < 300
    ]
    assert shown and min(c.at for c in shown) >= storm.until, "a request in the storm went"
    # the usual end, once: the table edited into the final board, the standings below
    # (and the replay of the whole game after them)
    assert channel_calls(fake, mark) == ["PATCH message/id", "POST message", "POST message"]
    final, standings = boards(h, fake.channel_id)
    assert final is table and final.buttons() == []
    assert (standings.embed_image() or ("",))[0] == "standings.png"
    assert standings.labels() == ["Rematch"]
    assert is_replay(fake.public_messages()[-1])
    # every wait Discord asked for was kept, and the interactions were all answered
    assert fake.early == []
    assert storm.refused and all(c.status == 429 for c in storm.refused)
    h.check_clean()
    await until_logged(caplog.records, "answers again")
    lines = operator_lines(caplog.records[logged:])
    print(figures(storm, shown[1].at, lines), lines)
    assert len(lines) <= 3, lines
    assert lines[0].startswith("WARNING bot.adapters.discord.client: Discord answers 429 to ")
    assert "Discord answers again after " in lines[-1]
    assert shown[1].at - storm.until < 3.0, "the standings came late"


async def test_a_storm_of_502s_that_hide_successes_posts_each_table_once(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers the channel's message requests 502 but does them all the same,
    while the turn passes back and forth: discord.py tries them again itself, a post
    with the same nonce, so Discord hands back the message it made instead of a second
    one; edits and deletions are simply done again.  One table, the newest."""
    caplog.set_level(logging.DEBUG)
    fake = h.fake
    await h.start()
    game_id, _, _ = await h.started(ANA, BEN)
    mark, logged = len(fake.calls), len(caplog.records)

    storm = fake.storm(502, 60.0, pattern=MESSAGES, took_effect=True)
    await play(h, game_id, most=8)
    last = h.game(game_id)
    assert last.status == PLAYING
    storm.until = max(storm.began + 3.0, time.monotonic() + 0.5)
    await fake.wait_for(lambda: h.settled(fake.channel_id, game_id), 30, "the newest table")
    await h.adapter.tables.quiet()
    await h.quiet()
    check_one_table(h, game_id, fake.channel_id)
    # every post carried its nonce; one made several times (a 502 that hid the first)
    # made one message
    posts = [c for c in fake.calls[mark:] if c.method == "POST" and c.path.endswith("/messages")]
    nonces = [str((c.body or {}).get("nonce")) for c in posts]
    assert all(c.body and c.body.get("enforce_nonce") for c in posts)
    repeated = {n for n in nonces if nonces.count(n) > 1}
    assert repeated, "no post was tried again"
    made = {fake.nonces[(fake.channel_id, n)].id for n in set(nonces)}
    assert len(made) == len(set(nonces)), "a nonce made two messages"
    hidden = [c for c in storm.refused if c.method == "POST"]
    assert hidden, "no post hid its success"
    await until_logged(caplog.records, "answers again")
    lines = operator_lines(caplog.records[logged:])
    shown_at = max(c.at for c in fake.calls[mark:] if 200 <= c.status < 300)
    print(figures(storm, shown_at, lines), lines)
    assert len(lines) <= 3, lines
    assert "Discord answers 502 to " in lines[0]
