"""A hosted game as the store keeps it: lobby, seats, engine state and record."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine import GameState, LudoError

#: version of the stored game format; older ones are migrated in ``_migrate``
SCHEMA = 1

LOBBY, PLAYING, OVER, ENDED = "lobby", "playing", "over", "ended"
STATUSES = (LOBBY, PLAYING, OVER, ENDED)


class DamagedGame(Exception):
    """A stored game that cannot be read (corrupt, or from an unknown schema)."""


@dataclass(frozen=True)
class User:
    """A person on a platform: ``platform`` ("telegram", "discord", "local"...),
    the platform's user id, and the display name to show."""

    platform: str
    id: str
    name: str

    def same(self, other: User | None) -> bool:
        return other is not None and (self.platform, self.id) == (other.platform, other.id)


@dataclass
class Seat:
    """A place at the table: a person, or a computer player (``user`` None)."""

    user: User | None
    colour: str | None = None
    #: turns in a row this person let the timer run out
    timeouts: int = 0
    #: the seat was a person's, now played by the computer (left or timed out)
    took_over: bool = False

    @property
    def computer(self) -> bool:
        return self.user is None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.user is not None:
            d["u"] = [self.user.platform, self.user.id, self.user.name]
        if self.colour:
            d["c"] = self.colour
        if self.timeouts:
            d["t"] = self.timeouts
        if self.took_over:
            d["o"] = 1
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Seat:
        u = d.get("u")
        user = User(str(u[0]), str(u[1]), str(u[2])) if u else None
        return cls(user, d.get("c"), int(d.get("t", 0)), bool(d.get("o", 0)))


# actions are kept as one character each: "1".."6" a roll, "a".."f" a move of piece 0..5
def encode_action(action: dict[str, int]) -> str:
    if "roll" in action:
        return str(action["roll"])
    return chr(ord("a") + action["move"])


def decode_actions(text: str) -> list[dict[str, int]]:
    return [{"roll": int(ch)} if ch.isdigit() else {"move": ord(ch) - ord("a")} for ch in text]


@dataclass
class Game:
    """Everything about one game in one channel; saved whole on every change."""

    id: str
    channel: str
    rules: str
    options: dict[str, Any]
    creator: User
    #: turn timer in seconds (0: off)
    timer: int
    #: make the only legal move by itself
    auto_move: bool = True
    #: the language of the game's table in its chat (``en``, ``pt_BR``...)
    lang: str = "en"
    status: str = LOBBY
    #: bumps whenever what the buttons act on changes (start, roll, move, end);
    #: a button carrying another version is outdated
    version: int = 1
    seats: list[Seat] = field(default_factory=list)
    state: GameState | None = None
    #: where the record starts: the engine's start position and first player
    start: dict[str, Any] | None = None
    actions: str = ""
    deadline: float | None = None
    #: what the last board image shows: the last move and roll
    last: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0
    #: the store revision this was loaded at (not saved)
    rev: int = 0

    # -- seats --------------------------------------------------------------

    def seat_of(self, user: User) -> Seat | None:
        return next((s for s in self.seats if s.user is not None and user.same(s.user)), None)

    def seat_for(self, colour: str) -> Seat | None:
        return next((s for s in self.seats if s.colour == colour), None)

    @property
    def humans(self) -> list[Seat]:
        return [s for s in self.seats if not s.computer]

    def on_turn(self) -> Seat | None:
        if self.state is None or self.status != PLAYING:
            return None
        return self.seat_for(self.state.turn)

    def names(self) -> dict[str, str]:
        """colour -> the name to draw on the board."""
        out = {}
        for s in self.seats:
            if s.colour:
                out[s.colour] = s.user.name if s.user else "Computer"
        return out

    def record(self) -> dict[str, Any]:
        """The game record of RULES.md section 7 (replayable with ``ludo-bot replay``)."""
        start = self.start or {}
        return {
            "rules": self.rules,
            "options": dict(self.options),
            "players": start.get("players", []),
            "position": start.get("position"),
            "turn": start.get("turn"),
            "actions": decode_actions(self.actions),
        }

    # -- bytes --------------------------------------------------------------

    def to_bytes(self) -> bytes:
        d: dict[str, Any] = {
            "schema": SCHEMA,
            "id": self.id,
            "chan": self.channel,
            "rules": self.rules,
            "opts": self.options,
            "by": [self.creator.platform, self.creator.id, self.creator.name],
            "timer": self.timer,
            "auto": self.auto_move,
            "st": self.status,
            "ver": self.version,
            "seats": [s.to_dict() for s in self.seats],
            "acts": self.actions,
            "t0": round(self.created, 3),
        }
        if self.state is not None:
            d["state"] = self.state.to_dict()
        if self.start is not None:
            d["start"] = self.start
        if self.deadline is not None:
            d["due"] = round(self.deadline, 3)
        if self.last:
            d["last"] = self.last
        if self.lang != "en":
            d["lang"] = self.lang
        return json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode()

    @classmethod
    def from_bytes(cls, data: bytes, rev: int = 0) -> Game:
        """Read a stored game; anything unreadable raises :class:`DamagedGame`."""
        try:
            d = json.loads(data)
            if not isinstance(d, dict):
                raise DamagedGame("not a JSON object")
            d = _migrate(d)
            by = d["by"]
            game = cls(
                id=str(d["id"]),
                channel=str(d["chan"]),
                rules=str(d["rules"]),
                options=dict(d.get("opts") or {}),
                creator=User(str(by[0]), str(by[1]), str(by[2])),
                timer=int(d.get("timer", 0)),
                auto_move=bool(d.get("auto", True)),
                lang=str(d.get("lang") or "en")[:16],
                status=str(d["st"]),
                version=int(d["ver"]),
                seats=[Seat.from_dict(s) for s in d.get("seats", [])],
                state=GameState.from_dict(d["state"]) if "state" in d else None,
                start=d.get("start"),
                actions=str(d.get("acts", "")),
                deadline=float(d["due"]) if d.get("due") is not None else None,
                last=dict(d.get("last") or {}),
                created=float(d.get("t0", 0.0)),
                rev=rev,
            )
        except DamagedGame:
            raise
        except (ValueError, KeyError, TypeError, IndexError, LudoError) as e:
            raise DamagedGame(f"{type(e).__name__}: {e}") from None
        if game.status not in STATUSES or (game.status in (PLAYING, OVER) and game.state is None):
            raise DamagedGame(f"impossible status {game.status!r}")
        if set(game.actions) - set("123456abcdef"):
            raise DamagedGame("unreadable actions")
        return game


def _migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring an older stored game up to :data:`SCHEMA`, or refuse it."""
    schema = d.get("schema")
    if schema == SCHEMA:
        return d
    if isinstance(schema, int) and schema > SCHEMA:
        raise DamagedGame(f"saved by a newer ludo-bot (format {schema}; this one reads {SCHEMA})")
    raise DamagedGame(f"unknown save format {schema!r}")
