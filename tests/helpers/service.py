"""Driving the game service the way players do: by pressing the buttons it sends."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.hosting import Game, Intent, Refusal, User
from bot.present import Button, TableView, Text, refusal_text, rules_lines, status_lines, table_view
from bot.present.buttons import parse_press
from bot.present.narrate import where
from bot.service.game import GameService
from bot.service.outcome import Outcome
from bot.store import Store
from bot.store.base import StoreUnavailable

ANA = User("test", "1", "Ana")
BEN = User("test", "2", "Ben")
CID = User("test", "3", "Cid")
DEE = User("test", "4", "Dee")
USERS = {u.id: u for u in (ANA, BEN, CID, DEE)}


class Dice:
    """A seeded die (the service's own die is cryptographic, hence not repeatable)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rolled = 0

    def __call__(self) -> int:
        self.rolled += 1
        return self.rng.randint(1, 6)


class Flaky:
    """A store that fails every call while ``down``, as an unreachable one does
    (every other call goes to the real store underneath)."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.down = False
        #: calls made, and calls made while down
        self.calls = 0
        self.failed = 0
        #: (time.monotonic(), name) of every call
        self.log: list[tuple[float, str]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kw: Any) -> Any:
            self.calls += 1
            self.log.append((time.monotonic(), name))
            if self.down:
                self.failed += 1
                raise StoreUnavailable("cannot reach the store (a test)", kind="unreachable")
            return attr(*args, **kw)

        return call


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Reply:
    """What one request produced, as a player reads it: the asker's private word
    (a refusal) or the table view (its lines, buttons and picture)."""

    lines: list[Text]
    channel: str | None = None
    game_id: str | None = None
    private: bool = False
    refused: bool = False
    #: the person the table addresses (the player on turn)
    mention: list[User] = field(default_factory=list)
    image: bytes | None = None
    image_kind: str | None = None
    buttons: list[list[Button]] = field(default_factory=list)
    version: int | None = None
    finished: bool = False
    view: TableView | None = None
    #: what the chat is told in a message of its own (a damaged game let go)
    chat: list[Text] = field(default_factory=list)


def reply_of(outcome: Outcome, *, render: bool = False) -> Reply:
    """The outcome as the chat would show it (through the real presenter)."""
    game = outcome.game
    chat = [Text("game.damaged")] if outcome.freed is not None else []
    if outcome.refusal is not None:
        r = Reply(
            [refusal_text(outcome.refusal, game)],
            private=True,
            refused=True,
            channel=outcome.freed,
            chat=chat,
        )
        if game is not None:
            r.game_id, r.version, r.channel = game.id, game.version, game.channel
            if render and outcome.refusal.key == "refuse.outdated" and game.state is not None:
                # an outdated press brings the current board back
                r.image, r.image_kind = table_view(game).image, "board"
        return r
    if game is None:  # a timer met a damaged game: only the chat is told
        assert outcome.freed is not None, outcome
        return Reply(chat, channel=outcome.freed, finished=True, chat=chat)
    # the whole story (a caption tells only the latest lines of it)
    view = table_view(game, outcome.happened, max_story=None)
    return Reply(
        list(view.lines),
        channel=game.channel,
        game_id=game.id,
        mention=[view.turn] if view.turn is not None else [],
        image=view.image if render else None,
        image_kind=view.picture if render else None,
        buttons=[list(row) for row in view.buttons],
        version=game.version,
        finished=view.finished,
        view=view,
    )


class Table:
    """The game service driven as the adapters drive it, answering as the presenter does."""

    def __init__(self, svc: GameService, *, render: bool = False) -> None:
        self.svc = svc
        self.render = render
        self.store = svc.store

    def _reply(self, outcome: Outcome) -> Reply:
        return reply_of(outcome, render=self.render)

    def new_game(
        self,
        channel: str,
        user: User,
        rules: str = "classic",
        options: dict[str, Any] | None = None,
        **kw: Any,
    ) -> Reply:
        return self._reply(self.svc.open(channel, user, rules, options, **kw))

    def act(self, channel: str, user: User, kind: str, piece: int = 0, **kw: Any) -> Reply:
        return self._reply(self.svc.act(channel, user, Intent(kind, piece, **kw)))

    def join(self, channel: str, user: User) -> Reply:
        return self.act(channel, user, "join")

    def leave(self, channel: str, user: User) -> Reply:
        return self.act(channel, user, "leave")

    def start(self, channel: str, user: User) -> Reply:
        return self.act(channel, user, "start")

    def add_computer(self, channel: str, user: User) -> Reply:
        return self.act(channel, user, "add_computer")

    def roll(self, channel: str, user: User) -> Reply:
        return self.act(channel, user, "roll")

    def move(self, channel: str, user: User, piece: int) -> Reply:
        return self.act(channel, user, "move", piece)

    def end(self, channel: str, user: User, *, can_manage: bool = False) -> Reply:
        return self.act(channel, user, "end", can_manage=can_manage)

    def press(self, channel: str, user: User, data: str) -> Reply:
        press = parse_press(data)
        if press is None:
            return self._reply(Outcome(None, refusal=Refusal("refuse.bad_button")))
        outcome = self.svc.press(channel, user, press.game_id, press.version, press.intent)
        return self._reply(outcome)

    def board(self, channel: str) -> Reply:
        return self._reply(self.svc.look(channel))

    def status(self, channel: str) -> Reply:
        outcome = self.svc.look(channel)
        if outcome.game is None:
            return self._reply(outcome)
        return Reply(status_lines(outcome.game), channel=channel, game_id=outcome.game.id)

    def rules(self, channel: str | None = None, rules: str | None = None) -> Reply:
        game = self.svc.game_in(channel) if channel else None
        lines = rules_lines(rules, game)
        return Reply(
            lines, channel=channel, refused=lines[0].key.startswith(("refuse.", "rules_error."))
        )

    def movable(self, channel: str, user: User | None = None) -> list[tuple[int, str]]:
        return [(m.piece + 1, where(m.to, short=True)) for m in self.svc.movable(channel, user)]

    def fire_due(self, now: float | None = None) -> list[Reply]:
        return [self._reply(o) for o in self.svc.fire_due(now)]

    def game_in(self, channel: str) -> Game | None:
        return self.svc.game_in(channel)

    def get(self, game_id: str) -> Game | None:
        return self.svc.get(game_id)


def service(
    store: Store,
    *,
    seed: int = 1,
    clock: Callable[[], float] | None = None,
    render: bool = False,
    **kw: Any,
) -> Table:
    dice = Dice(seed)
    draw = random.Random(seed).randrange
    svc = GameService(store, dice=dice, draw=draw, clock=clock or Clock(), **kw)
    return Table(svc, render=render)


def stored_bytes(store: Store, game_id: str) -> bytes:
    got = store.load(game_id)
    assert got is not None
    return got.data


def current(svc: Table, channel: str) -> Game:
    game = svc.game_in(channel)
    assert game is not None
    return game


def person_on_turn(game: Game) -> User | None:
    seat = game.on_turn()
    return seat.user if seat is not None else None


def press_first(
    svc: Table,
    channel: str,
    reply: Reply,
    user: User,
    pick: Callable[[int], int] | None = None,
) -> Reply:
    """Press a button of ``reply`` (the first, or the one ``pick`` chooses)."""
    buttons = [b for row in reply.buttons for b in row]
    assert buttons, f"no buttons to press in {reply}"
    k = pick(len(buttons)) if pick else 0
    return svc.press(channel, user, buttons[k].data)


def step(svc: Table, channel: str, reply: Reply) -> Reply:
    """The person on turn presses the first button of the latest reply."""
    user = person_on_turn(current(svc, channel))
    assert user is not None, "nobody to press: the game waits for no one"
    return svc.press(channel, user, next(b for row in reply.buttons for b in row).data)


def play_out(svc: Table, channel: str, reply: Reply, limit: int = 5000) -> Reply:
    """Press first buttons until the game is over; the last reply."""
    for _ in range(limit):
        if reply.finished:
            return reply
        reply = step(svc, channel, reply)
    raise AssertionError(f"no end after {limit} presses")


def buttons(reply: Reply) -> dict[str, str]:
    """label key -> data, for the buttons of a reply (first of each kind)."""
    out: dict[str, str] = {}
    for row in reply.buttons:
        for b in row:
            out.setdefault(b.label.key, b.data)
    return out


def lobby(
    store: Store,
    rules: str = "classic",
    options: dict[str, Any] | None = None,
    *,
    seats: int = 2,
    computers: int = 0,
    seed: int = 1,
    timer: int = 0,
    channel: str = "chan",
    auto_move: bool = True,
    **kw: Any,
) -> tuple[Any, Reply]:
    svc = service(store, seed=seed, **kw)
    reply = svc.new_game(channel, ANA, rules, options, timer=timer, auto_move=auto_move)
    assert not reply.refused, reply.lines
    for user in (BEN, CID, DEE)[: seats - 1]:
        reply = svc.press(channel, user, buttons(reply)["btn.join"])
        assert not reply.refused, reply.lines
    for _ in range(computers):
        reply = svc.press(channel, ANA, buttons(reply)["btn.add_computer"])
        assert not reply.refused, reply.lines
    return svc, reply


def started(
    store: Store, rules: str = "classic", options: dict[str, Any] | None = None, **kw: Any
) -> tuple[Any, Reply]:
    svc, reply = lobby(store, rules, options, **kw)
    reply = svc.press(kw.get("channel", "chan"), ANA, buttons(reply)["btn.start"])
    assert not reply.refused, reply.lines
    return svc, reply


def playing(service: GameService, channel: str, *people: User) -> Game:
    """A game in ``channel`` started by ``people`` (the first opens it)."""
    from bot.hosting import Intent

    first, *others = people
    assert not service.open(channel, first).refused
    for person in others:
        assert not service.act(channel, person, Intent("join")).refused
    outcome = service.act(channel, first, Intent("start"))
    assert outcome.game is not None and not outcome.refused, outcome.refusal
    return outcome.game
