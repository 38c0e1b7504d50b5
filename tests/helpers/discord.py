"""Driving the Discord adapter end to end: the real discord.py client against the fake
Discord (:mod:`tests.fakes.discord`), restartable over one store (:class:`Harness`),
and people acting only as they can on Discord (slash commands, autocomplete, pressing
the buttons a message carries); checks of what the channel then shows (one table with
buttons, boards that ping only the person on turn) and a whole game played with the
buttons (:func:`play_with_buttons`).  Waiting is always for a condition
(``FakeDiscord.wait_for``), never a blind sleep."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.adapters.discord import DiscordAdapter, DiscordSettings
from bot.adapters.reconcile import Notes
from bot.hosting import ENDED, OVER, PLAYING, Game
from bot.present import Text, language_of, say
from bot.service.game import GameService
from bot.store import Store
from tests.fakes.discord import (
    EPHEMERAL,
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    FakeDiscord,
    Interaction,
    Member,
    Message,
    RestCall,
    png_size,
)
from tests.helpers.service import Dice

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
    "notify",
    "games",
}
#: the button under a lobby and a table that turns on the presser's cards in their DMs
TELL = "Tell me my turns"
#: the width of the boards (small, quick to draw; still real PNGs from the renderer)
IMAGE_WIDTH = 600


def game_ids(message: Message) -> list[str]:
    """The custom ids of the game's own buttons on ``message`` (not "Tell me my turns",
    nor "Open the board")."""
    return [c for c in message.custom_ids() if c.startswith("g:")]


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
        #: the services roll the service's own dice (each game's secret seed, so that a
        #: game's record can be verified), not a test's seeded die
        self.fair_dice = False
        self.svc: GameService
        self.adapter: DiscordAdapter

    def settings(self, **kw: Any) -> DiscordSettings:
        kw.setdefault("token", self.fake.token)
        kw.setdefault("api_base", self.fake.api_base)
        kw.setdefault("gateway_url", self.fake.gateway_url)
        return DiscordSettings(**kw)

    def make(
        self,
        store: Store | None = None,
        *,
        seed: int = 1,
        clock: Any = None,
        draw: Callable[[int], int] | None = None,
        **settings: Any,
    ) -> DiscordAdapter:
        """An adapter over ``store`` (the harness's); ``draw``: who starts a game (a
        draw of 0..n-1; random if None)."""
        dice = None if self.fair_dice else Dice(seed)
        drawn = {"draw": draw} if draw is not None else {}
        svc = GameService(store or self.store, dice=dice, clock=clock or time.time, **drawn)
        adapter = DiscordAdapter(svc, self.settings(**settings), image_size=IMAGE_WIDTH)
        # discord.py waits this long for more GUILD_CREATEs before "ready" (2 s by default);
        # the fake sends its one guild at once
        adapter.client._connection.guild_ready_timeout = 0.1
        self.svc, self.adapter = svc, adapter
        self.adapters.append(adapter)
        return adapter

    async def start(
        self,
        store: Store | None = None,
        *,
        seed: int = 1,
        clock: Any = None,
        draw: Callable[[int], int] | None = None,
        **settings: Any,
    ) -> DiscordAdapter:
        adapter = self.make(store, seed=seed, clock=clock, draw=draw, **settings)
        await adapter.start(ready_timeout=15)
        return adapter

    async def stop_all(self) -> None:
        for adapter in reversed(self.adapters):
            await adapter.stop()

    async def __aenter__(self) -> Harness:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop_all()

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

    async def started(
        self, host: Member, *others: Member
    ) -> tuple[str, Member | None, Message | None]:
        """``host`` opens a game, ``others`` join and ``host`` starts it: its id, the
        person on turn and the channel's newest message with buttons (the table)."""
        game_id, lobby = await self.lobby(host, *others)
        await self.press(host, lobby, "Start", settle=game_id)
        return game_id, self.on_turn(game_id), self.fake.latest_with_buttons()

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
        button = rng.choice([b for b in msg.buttons() if b["custom_id"].startswith("g:")])
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


#: people whose Discord speaks another language
RUI = Member(1_300_000_000_000_000_011, "rui", global_name="Rui", locale="pt-BR")
GIA = Member(1_300_000_000_000_000_012, "gia", global_name="Gia", locale="it")
EVA = Member(1_300_000_000_000_000_013, "eva", global_name="Eva", locale="es-419")
