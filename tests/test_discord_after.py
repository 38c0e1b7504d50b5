"""End to end on the fake Discord: what comes after a game.

The real discord.py client and adapter over a real store, people acting only as
they can on Discord: a game played to its end offers Rematch and posts its
replay; three presses open the same table again and start it; ``/ludo top``,
``stats``, ``forget``, ``replay``, ``record`` and ``rematch`` answer as they
should, and every refusal is said privately.
"""

from __future__ import annotations

import io
import json
import random
import re
from typing import Any

import pytest
from PIL import Image

import engine
from bot.hosting import LOBBY, OVER, PLAYING, Game, Refusal
from bot.hosting.dice import check
from bot.present import Text, refusal_text, say
from bot.present.after import record_caption, replay_caption
from bot.store import Store
from tests.fakes.discord import EPHEMERAL, FakeDiscord, Interaction, Member, Message
from tests.helpers.discord import (
    ANA,
    BEN,
    CID,
    MOD,
    Harness,
    game_ids,
    is_replay,
    play_with_buttons,
)
from tests.helpers.faults import DownStore
from tests.helpers.rating_check import expected_told, expected_top

pytestmark = pytest.mark.discord

#: the most a replay may weigh (Discord's smallest upload limit)
GIF_LIMIT = 8 * 1024 * 1024


# ----------------------------------------------------------------------
# helpers


@pytest.fixture
def h(h: Harness) -> Harness:
    """The harness on the service's own dice (each game's seed, so that a game's record
    can be verified)."""
    h.fair_dice = True
    return h


def answer_of(fake: FakeDiscord, inter: Interaction) -> Message:
    """The message that answers a command (its response, or the followup after it)."""
    ids = [i for i in (inter.original_id, *inter.followup_ids) if i is not None]
    shown = [fake.messages[i] for i in ids if not fake.messages[i].deleted]
    assert shown, f"interaction {inter.id} was not answered by a message"
    return shown[-1]


def public_answer(fake: FakeDiscord, inter: Interaction) -> Message:
    msg = answer_of(fake, inter)
    assert not msg.ephemeral and msg.visible_to is None, "an answer for everyone expected"
    assert not msg.loading and msg.pinged_users == set()
    return msg


def private_answer(fake: FakeDiscord, inter: Interaction, member: Member) -> Message:
    msg = answer_of(fake, inter)
    assert msg.ephemeral and msg.visible_to == member.id, "a private answer expected"
    return msg


def check_gif(data: bytes) -> int:
    """A valid animated GIF within Discord's upload limit: its number of frames."""
    assert data[:6] in (b"GIF87a", b"GIF89a")
    assert len(data) <= GIF_LIMIT, len(data)
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "GIF"
        frames = int(getattr(image, "n_frames", 1))
    assert frames > 1, "a replay moves"
    return frames


def check_replay(msg: Message, game: Game) -> None:
    """A replay of ``game``: its caption, and the animation as ``ludo-<id>.gif``."""
    assert is_replay(msg)
    (gif,) = msg.attachments
    assert gif.filename == f"ludo-{game.id}.gif"
    check_gif(gif.data)
    assert msg.content == say(replay_caption(game))
    assert msg.pinged_users == set() and not msg.buttons()


async def finish(
    h: Harness, game_id: str, seed: int, *, checked: bool = True, channel_id: int | None = None
) -> Game:
    """Play ``game_id`` to its end with the buttons: ``checked``, every table on the way
    (the channel's first game), else only that the person on turn can always press."""
    rng = random.Random(seed)
    if checked:
        await play_with_buttons(h, game_id, channel_id or h.fake.channel_id, rng)
    for _ in range(3000):
        if h.game(game_id).status != PLAYING:
            break
        member = h.on_turn(game_id)
        assert member is not None, "a person must be on turn when the bot waits"
        table = h.table(game_id)
        await h.press(member, table, custom_id=rng.choice(game_ids(table)), settle=game_id)
    game = h.game(game_id)
    assert game.status == OVER
    return game


def standings_of(h: Harness, game: Game) -> Message:
    """The standings of a finished game: a picture, and the Rematch button."""
    (standings,) = [
        m
        for m in h.fake.public_messages()
        if (m.embed_image() or ("",))[0] == "standings.png"
        and any(c.startswith(f"g:{game.id}:") for c in m.custom_ids())
    ]
    assert standings.labels() == ["Rematch"]
    return standings


def expected_ranking(games: list[Game]) -> list[tuple[str, int, int]]:
    """(name, games, wins) of every person, from the games' results: most wins, the
    better win rate, more games, the better average place, then by key."""
    table: dict[str, list[Any]] = {}
    for game in games:
        state = game.state
        assert state is not None and state.places is not None
        for seat in game.seats:
            assert seat.user is not None and seat.colour is not None
            key = f"discord:{seat.user.id}"
            row = table.setdefault(key, [seat.user.name, 0, 0, 0])
            row[1] += 1
            row[2] += seat.colour in (state.winner or ())
            row[3] += state.places[seat.colour]
    ordered = sorted(
        table.items(),
        key=lambda kv: (-kv[1][2], -kv[1][2] / kv[1][1], -kv[1][1], kv[1][3] / kv[1][1], kv[0]),
    )
    return [(name, played, wins) for _, (name, played, wins, _) in ordered]


def ranked_names(text: str) -> list[str]:
    """The names of a leaderboard, in its order ("1. Ana: ...")."""
    places = [re.match(r"(\d+)\. (.+?): ", line) for line in text.splitlines()]
    found = [(int(m.group(1)), m.group(2)) for m in places if m is not None]
    assert [p for p, _ in found] == list(range(1, len(found) + 1)), text
    return [name for _, name in found]


def stats_head(name: str, games: int, wins: int) -> str:
    played = say(Text("stats.games", {"count": games}))
    won = say(Text("stats.wins", {"count": wins}))
    return f"{name} here: {played}, {won} ("


# ----------------------------------------------------------------------
# a game, its rematch, and what they leave behind


async def test_a_game_its_rematch_and_what_they_leave_behind(h: Harness, fake: FakeDiscord) -> None:
    await h.start()

    # -- the first game, played to its end -------------------------------
    # italian, two pieces home to win: a shorter game
    first_id, lobby = await h.lobby(ANA, BEN, CID, rules="italian", pieces_to_win=2)
    await h.press(ANA, lobby, "Start", settle=first_id)
    first = await finish(h, first_id, 1)
    # its results count in this server
    assert first.chat == f"dc-guild:{fake.guild_id}"
    standings = standings_of(h, first)
    told = expected_told([first], lambda u: f"discord:{u.id}")
    assert f"New ratings: {told}." in (standings.description or ""), standings.description
    # the replay follows the standings, once
    (replay,) = [m for m in fake.public_messages() if is_replay(m)]
    assert fake.public_messages()[-1] is replay
    check_replay(replay, first)

    # -- someone who did not play is refused privately -------------------
    inter, new = await h.press(MOD, standings, "Rematch")
    (refusal,) = new
    assert refusal.ephemeral and refusal.visible_to == MOD.id
    assert refusal.content == say(refusal_text(Refusal("refuse.not_in_last_game")))
    assert standings.labels() == ["Rematch"] and h.svc.game_in(f"dc:{fake.channel_id}") is None

    # -- Rematch by Ben: the same table again, waiting for Ana and Cid ---
    looked = (standings.description, standings.embed_image(), standings.edits)
    inter, new = await h.press(BEN, standings, "Rematch")
    assert inter.callback.type in (6, 7)
    (lobby2,) = [m for m in new if not m.ephemeral]
    assert not [m for m in new if m.ephemeral], "a rematch is no refusal"
    second_id = lobby2.custom_ids()[0].split(":")[1]
    assert second_id != first_id and h.table(second_id) is lobby2
    # a new message at the bottom; the standings stay as they were, without button
    assert lobby2.interaction_id is None and fake.public_messages()[-1] is lobby2
    assert not standings.deleted and standings.buttons() == []
    assert (standings.description, standings.embed_image()) == looked[:2]
    assert standings.edits == looked[2] + 1
    assert lobby2.labels()[0] == "I'm in"
    assert "Ben wants a rematch" in lobby2.description
    assert "Waiting for Ana, Cid to press I'm in" in lobby2.description, lobby2.description
    second = h.game(second_id)
    assert second.status == LOBBY and second.after == first_id
    assert (second.chat, second.rules, second.options) == (first.chat, "italian", first.options)

    # Ana is in (the lobby edited in place), then Cid: it starts by itself
    inter, new = await h.press(ANA, lobby2, "I'm in", settle=second_id)
    assert inter.callback.type == 7 and new == []
    assert "Ana is in" in fake.messages[lobby2.id].description
    assert h.game(second_id).status == LOBBY
    inter, new = await h.press(CID, lobby2, "I'm in", settle=second_id)
    second = h.game(second_id)
    assert second.status == PLAYING
    assert fake.messages[lobby2.id].deleted, "the lobby made way for the board"
    # the same people in the same seats, with the same colours
    seats = [(s.user.id if s.user else None, s.colour) for s in first.seats]
    assert [(s.user.id if s.user else None, s.colour) for s in second.seats] == seats
    # the seat after the one that began the last game begins this one
    assert first.start is not None and second.start is not None
    began = [s.colour for s in first.seats].index(first.start["turn"])
    assert second.start["turn"] == first.seats[(began + 1) % len(first.seats)].colour
    assert second.state is not None and second.state.turn == second.start["turn"]

    second = await finish(h, second_id, 2, checked=False)
    standings2 = standings_of(h, second)
    told = expected_told([first, second], lambda u: f"discord:{u.id}")
    assert f"New ratings: {told}." in (standings2.description or ""), standings2.description
    replays = [m for m in fake.public_messages() if is_replay(m)]
    assert replays[:-1] == [replay] and fake.public_messages()[-1] is replays[-1]
    check_replay(replays[-1], second)
    assert standings2.labels() == ["Rematch"]

    # -- /ludo top: the server's best, from the two games ----------------
    expected = expected_ranking([first, second])
    names = {name: (games, wins) for name, games, wins in expected}
    rated = expected_top([first, second], lambda u: f"discord:{u.id}")
    by_key = {f"discord:{s.user.id}": s.user.name for s in first.seats if s.user is not None}
    inter, _new = await h.command(CID, "top")
    top = public_answer(fake, inter)
    assert top.content.splitlines()[0] == "Best players here, all time, by italian rating:"
    assert ranked_names(top.content) == [by_key[k] for k, _ in rated], top.content
    for line, (key, shown) in zip(top.content.splitlines()[1:], rated, strict=True):
        games, wins = names[by_key[key]]
        won = say(Text("stats.wins", {"count": wins}))
        played = say(Text("stats.games", {"count": games}))
        assert line.split(": ", 1)[1] == f"{shown:,} ({played}, {won})", line
    inter, _new = await h.command(BEN, "top", period="month")
    monthly = public_answer(fake, inter)
    assert monthly.content.splitlines()[0].startswith("Best players here in ")
    assert ranked_names(monthly.content) == ranked_names(top.content)
    inter, _new = await h.command(CID, "top", period="week")
    weekly = public_answer(fake, inter)
    assert weekly.content.splitlines()[0] == "Best players here this week, by italian rating:"
    assert weekly.content.splitlines()[1:] == top.content.splitlines()[1:]
    inter, _new = await h.command(CID, "top", period="seasons")
    fame = public_answer(fake, inter)
    assert fame.content == "No season has ended here yet: the first ends with this month."

    # -- /ludo stats: one's own, and another member's --------------------
    counts = {name: (games, wins) for name, games, wins in expected}
    inter, _new = await h.command(ANA, "stats")
    mine = public_answer(fake, inter)
    assert mine.content.startswith(stats_head("Ana", *counts["Ana"])), mine.content
    ana_rating = dict(rated)[next(k for k, n in by_key.items() if n == "Ana")]
    assert f"italian: rating {ana_rating:,}, " in mine.content, mine.content
    # one server so far: the rating across Discord's chats is this server's
    assert f"Across all Discord chats: italian {ana_rating:,}." in mine.content, mine.content
    assert f"; {say(Text('stats.games', {'count': 2}))}" in mine.content
    inter, _new = await h.command(ANA, "stats", member=BEN)
    bens = public_answer(fake, inter)
    assert bens.content.startswith(stats_head("Ben", *counts["Ben"])), bens.content
    # someone who never played here: told privately
    inter, _new = await h.command(ANA, "stats", member=MOD)
    nothing = private_answer(fake, inter, ANA)
    assert nothing.content == "Mo has not finished a game here yet."

    # -- /ludo replay: the last game again, for everyone -----------------
    inter, _new = await h.command(BEN, "replay")
    assert inter.callback.type == 5 and not inter.callback.data.get("flags", 0) & EPHEMERAL
    again = public_answer(fake, inter)
    check_replay(again, second)

    # -- /ludo record: the last game's record, which verifies ------------
    inter, _new = await h.command(CID, "record")
    told = private_answer(fake, inter, CID)
    assert told.content == say(record_caption(second))
    (file,) = told.attachments
    assert file.filename == f"ludo-{second.id}.json"
    record = json.loads(file.data)
    assert engine.replay(record) == second.state
    rolls, problems = check(record)
    assert problems == [] and rolls > 0

    # -- /ludo forget: Ana's stats go, the others' stay ------------------
    inter, _new = await h.command(ANA, "forget")
    gone = private_answer(fake, inter, ANA)
    assert gone.content == f"Your stats are deleted: {counts['Ana'][0]} games no longer count."
    inter, _new = await h.command(ANA, "stats")
    assert private_answer(fake, inter, ANA).content == "Ana has not finished a game here yet."
    inter, _new = await h.command(ANA, "top")
    ana_key = next(k for k, n in by_key.items() if n == "Ana")
    left = expected_top([first, second], lambda u: f"discord:{u.id}", without=ana_key)
    assert ranked_names(public_answer(fake, inter).content) == [by_key[k] for k, _ in left]
    inter, _new = await h.command(ANA, "forget")
    again_gone = private_answer(fake, inter, ANA)
    assert again_gone.content == "There were no stats of yours to delete."

    h.check_clean()


# ----------------------------------------------------------------------
# /ludo rematch, against computers


async def test_the_rematch_command_in_a_thread_against_computers_starts_at_once(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    thread = fake.thread_id
    first_id, lobby = await h.lobby(ANA, computers=2, channel_id=thread)
    await h.press(ANA, lobby, "Start", settle=first_id)
    first = await finish(h, first_id, 3, channel_id=thread)
    assert is_replay(fake.public_messages(thread)[-1])

    # the thread's game counts in the server, but is no game of the channel
    stats, _new = await h.command(ANA, "stats")
    assert public_answer(fake, stats).content.startswith(stats_head("Ana", 1, first_won(first)))
    inter, _new = await h.command(ANA, "rematch")
    assert private_answer(fake, inter, ANA).content == "No game has finished here yet."

    inter, new = await h.command(ANA, "rematch", channel_id=thread)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    assert told.visible_to == ANA.id
    assert told.content.startswith("Ana starts a rematch: same seats, same rules."), told.content
    second = h.svc.game_in(f"dc:{thread}")
    assert second is not None and second.after == first_id
    # nobody to wait for: it started at once, its board at the bottom of the thread
    assert second.status == PLAYING
    await h.settle(thread, second.id)
    board = h.table(second.id)
    assert fake.public_messages(thread)[-1] is board and board.embed_image() is not None
    assert [(s.user, s.colour) for s in second.seats] == [(s.user, s.colour) for s in first.seats]
    # the channel shows only the stats asked there
    assert [m.interaction_id for m in fake.public_messages()] == [stats.id]
    h.check_clean()


def first_won(game: Game) -> int:
    """1 if Ana (the first seat) won ``game``, else 0."""
    assert game.state is not None
    return int(game.seats[0].colour in (game.state.winner or ()))


# ----------------------------------------------------------------------
# refusals


async def test_before_any_game_every_after_command_is_refused_privately(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    none_yet = "No game has finished here yet."
    for sub in ("rematch", "replay", "record"):
        inter, new = await h.command(BEN, sub)
        told = private_answer(fake, inter, BEN)
        assert told.content == none_yet, (sub, told.content)
        assert not [m for m in new if not m.ephemeral], f"/ludo {sub} posted in the channel"
    inter, _new = await h.command(BEN, "stats")
    assert private_answer(fake, inter, BEN).content == "Ben has not finished a game here yet."
    inter, _new = await h.command(BEN, "top")
    assert public_answer(fake, inter).content == none_yet
    inter, _new = await h.command(BEN, "forget")
    assert private_answer(fake, inter, BEN).content == "There were no stats of yours to delete."
    # a game still running is no finished game either
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    inter, new = await h.command(ANA, "replay")
    assert private_answer(fake, inter, ANA).content == none_yet
    inter, new = await h.command(ANA, "rematch")
    assert private_answer(fake, inter, ANA).content == none_yet
    h.check_clean()


async def test_the_after_commands_are_answered_while_the_store_is_down(
    fake: FakeDiscord, sqlite_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    down = DownStore(sqlite_store)
    h = Harness(fake, down, caplog)
    h.fair_dice = True
    try:
        await h.start()
        down.down = True
        words = say(Text("refuse.store_down"))
        for sub, options in (
            ("rematch", {}),
            ("stats", {}),
            ("stats", {"member": BEN}),
            ("top", {}),
            ("top", {"period": "month"}),
            ("forget", {}),
            ("replay", {}),
            ("record", {}),
        ):
            inter, new = await h.command(ANA, sub, **options)
            told = private_answer(fake, inter, ANA)
            assert told.content == words, (sub, told.content)
            assert not [m for m in new if not m.ephemeral and not m.deleted], sub
        assert down.refused >= 8
        h.check_clean()
    finally:
        await h.stop_all()
