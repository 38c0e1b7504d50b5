"""A hosted game as the store keeps it: lobby, seats, engine state and record."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import engine
from engine import GameState

from . import dice, reading, slow
from .seat import FORGOTTEN, NAME_LIMIT, NORMAL, Seat, User, bounded_name

__all__ = ["FORGOTTEN", "NAME_LIMIT", "NORMAL", "Seat", "User", "bounded_name"]

#: version of the stored game format; older ones are migrated in ``_migrate``.  2: a turn
#: timer over a day (a game without one is saved as 1, which older ludo-bots read too)
SCHEMA = 2

LOBBY, PLAYING, OVER, ENDED = "lobby", "playing", "over", "ended"
STATUSES = (LOBBY, PLAYING, OVER, ENDED)


class DamagedGame(Exception):
    """A stored game that cannot be read (corrupt, or from an unknown schema).

    ``game_id`` and ``channel`` are what could still be read of them (None if
    nothing could).  ``newer``: the game was saved by a newer ludo-bot; it is
    not damaged, only unreadable here (a worker of the newer version reads
    it), so it must never be thrown away.
    """

    def __init__(
        self,
        why: str,
        *,
        game_id: str | None = None,
        channel: str | None = None,
        newer: bool = False,
    ) -> None:
        super().__init__(why)
        self.game_id = game_id
        self.channel = channel
        self.newer = newer


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
    #: the table's computer level: of the computers added or filling seats from now
    #: on, and of every seat taken over
    level: str = NORMAL
    status: str = LOBBY
    #: bumps whenever what the buttons act on changes (start, roll, move, end);
    #: a button carrying another version is outdated
    version: int = 1
    seats: list[Seat] = field(default_factory=list)
    state: GameState | None = None
    #: where the record starts: the engine's start position and first player
    start: dict[str, Any] | None = None
    actions: str = ""
    #: Unix time the turn timer runs out (playing), or the lobby closes unstarted
    deadline: float | None = None
    #: the person on turn was reminded that their slow turn runs out (:mod:`.slow`)
    reminded: bool = False
    #: what the last board image shows: the last move and roll
    last: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0
    #: the secret the rolls come from (None: rolls from a die given to the service);
    #: its commitment is shown at the start, the seed itself at the end
    seed: str | None = None
    #: where the game's results count (a group, a forum topic, a Discord server);
    #: the channel itself unless the platform says otherwise
    chat: str = ""
    #: a rematch: the id of the game it replays
    after: str | None = None
    #: how its pictures are drawn: a theme of the renderer (``colourblind``...)
    theme: str = "classic"
    #: the name of the place its table is in, as the platform gave it when the table
    #: opened (a group's title), for its players' cards; empty: not known
    place: str = ""
    #: a rematch: the seat (index) that plays first, the one after the last game's first
    first: int | None = None
    #: a finished game: colour -> (its person's new rating, its change), as the
    #: standings tell them (:mod:`.rating`)
    rated: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the first game finished in a chat in a month: the season just ended there,
    #: ``(month "YYYY-MM", rule set, ((person key, name, rating), ...) best first)``
    season: tuple[str, str, tuple[tuple[str, str, int], ...]] | None = None
    #: a tournament's table: ``(tournament id, round, table number)``
    tour: tuple[str, int, int] | None = None
    #: the store revision this was loaded at (not saved)
    rev: int = 0
    #: what saving it set off, to show after it (a tournament's next table...; not saved)
    news: list[Any] = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.chat = self.chat or self.channel

    @property
    def due(self) -> float | None:
        """When the store is to wake this game: its deadline, or before it the reminder
        of a slow turn (:mod:`.slow`); None: never (a finished game)."""
        if self.status == PLAYING:
            remind = slow.reminder_at(self.timer, self.deadline, self.reminded)
            return self.deadline if remind is None else remind
        return self.deadline if self.status == LOBBY else None

    def learn_chat(self, told: str) -> bool:
        """A table whose chat was known only in part learns the rest: ``chat`` is then
        ``"<known>?<stand-in>"`` (a message posted through Telegram's inline mode, whose
        chat only a press on it tells), and ``told`` replaces the stand-in.  True if the
        chat changed."""
        known, part, _ = self.chat.partition("?")
        if not part or not told or "?" in told or len(told) > 200:
            return False
        self.chat = known + told
        return True

    # -- seats --------------------------------------------------------------

    def seat_of(self, user: User) -> Seat | None:
        return next((s for s in self.seats if s.user is not None and user.same(s.user)), None)

    def seat_for(self, colour: str) -> Seat | None:
        return next((s for s in self.seats if s.colour == colour), None)

    @property
    def waiting(self) -> list[Seat]:
        """The seats of a rematch whose people have not said yes yet."""
        return [s for s in self.seats if s.waiting]

    @property
    def key(self) -> str:
        """This game among every game ever hosted (ids are used again over time)."""
        return f"{self.id}.{round(self.created * 1000)}"

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

    @property
    def rolls(self) -> int:
        """How many rolls the record holds (the number of the next one, from 0)."""
        return sum(ch.isdigit() for ch in self.actions)

    def record(self) -> dict[str, Any]:
        """The game record of RULES.md section 7 (replayable with ``ludo-bot replay``),
        with its dice: the commitment, and the seed once the game is finished."""
        start = self.start or {}
        record: dict[str, Any] = {
            "rules": self.rules,
            "options": dict(self.options),
            "players": start.get("players", []),
            "position": start.get("position"),
            "turn": start.get("turn"),
            "actions": decode_actions(self.actions),
        }
        if self.seed is not None:
            done = self.status in (OVER, ENDED)
            record["dice"] = {
                "commitment": dice.commitment(self.seed),
                "seed": self.seed if done else None,
            }
        return record

    # -- bytes --------------------------------------------------------------

    def to_bytes(self) -> bytes:
        d: dict[str, Any] = {
            "schema": SCHEMA if self.timer > slow.OLD_LONGEST else 1,
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
        if self.reminded:
            d["rmd"] = 1
        if self.last:
            d["last"] = self.last
        if self.lang != "en":
            d["lang"] = self.lang
        if self.seed is not None:
            d["seed"] = self.seed
        if self.chat != self.channel:
            d["chat"] = self.chat
        if self.after is not None:
            d["after"] = self.after
        if self.theme != "classic":
            d["theme"] = self.theme
        if self.place:
            d["place"] = self.place
        if self.first is not None:
            d["first"] = self.first
        if self.level != NORMAL:
            d["lvl"] = self.level
        if self.rated:
            d["rt"] = {c: list(v) for c, v in self.rated.items()}
        if self.season is not None:
            month, rules, podium = self.season
            d["ss"] = [month, rules, [list(p) for p in podium]]
        if self.tour is not None:
            d["tr"] = list(self.tour)
        return json.dumps(d, separators=(",", ":"), ensure_ascii=False).encode()

    @classmethod
    def from_bytes(cls, data: bytes, rev: int = 0) -> Game:
        """Read a stored game; anything unreadable, however it is malformed, raises
        :class:`DamagedGame` (and nothing else)."""
        d: Any = None
        try:
            d = reading.loads(data)
            return cls._from_dict(_migrate(d), rev)
        except DamagedGame as e:
            e.game_id, e.channel = _what_is_left(d, data)
            raise
        except Exception as e:  # any malformed data at all, however deep
            game_id, channel = _what_is_left(d, data)
            raise DamagedGame(reading.brief(e), game_id=game_id, channel=channel) from None

    @classmethod
    def _from_dict(cls, d: dict[str, Any], rev: int) -> Game:
        """The game in a stored object, every field checked (ValueError if one is wrong)."""
        rules = reading.text(d.get("rules"), "rules")
        chosen = engine.rules_for(rules, d.get("opts") or {})
        status = d.get("st")
        if status not in STATUSES:
            raise ValueError(f"impossible status {status!r}")
        state = GameState.from_dict(d["state"]) if d.get("state") is not None else None
        if state is None and status in (PLAYING, OVER):
            raise ValueError(f"a game {status} without a board")
        if state is not None and status == LOBBY:
            raise ValueError("a lobby with a board")
        if state is not None and state.is_over != (status == OVER) and status != ENDED:
            raise ValueError(f"a game {status} on a board {'' if state.is_over else 'not '}over")
        colours = state.players if state is not None else ()
        seats = d.get("seats", [])
        if not isinstance(seats, list) or len(seats) > chosen.max_players:
            raise ValueError("seats must be a list of at most max_players")
        game = cls(
            id=reading.text(d.get("id"), "id", limit=200),
            channel=reading.text(d.get("chan"), "chan", limit=1000),
            rules=rules,
            options=chosen.overrides(),
            creator=User(*reading.person(d.get("by"), "by")),
            timer=reading.whole(d.get("timer", 0), 0, slow.TIMER_RANGE[1], "timer"),
            auto_move=reading.flag(d.get("auto", True), "auto"),
            lang=reading.language(d.get("lang", "en")),
            level=reading.level(d.get("lvl", NORMAL), "lvl"),
            status=status,
            version=reading.whole(d.get("ver"), 1, 10**12, "ver"),
            seats=[Seat.from_dict(s, colours) for s in seats],
            state=state,
            start=reading.start(d.get("start"), colours),
            actions=reading.actions(d.get("acts", "")),
            deadline=reading.number(d["due"], "due") if d.get("due") is not None else None,
            reminded=reading.flag(d.get("rmd", False), "rmd"),
            last=reading.last(d.get("last"), colours),
            created=reading.number(d.get("t0", 0.0), "t0"),
            seed=_seed(d.get("seed")),
            chat=reading.text(d.get("chat", d.get("chan")), "chat", limit=1000),
            after=reading.text(d["after"], "after", limit=200) if d.get("after") else None,
            first=reading.whole(d["first"], 0, 3, "first") if d.get("first") is not None else None,
            theme=reading.word(d.get("theme", "classic"), "theme"),
            place=reading.text(d.get("place", ""), "place", empty=True, limit=NAME_LIMIT * 2),
            rated=reading.rated(d.get("rt", {}), colours),
            season=reading.season(d["ss"]) if d.get("ss") is not None else None,
            tour=reading.tour(d["tr"]) if d.get("tr") is not None else None,
            rev=rev,
        )
        if state is not None and sorted(s.colour or "" for s in game.seats) != sorted(colours):
            raise ValueError("the seats are not the board's colours")
        return game


def _seed(value: Any) -> str | None:
    if value is None:
        return None
    if not dice.is_seed(value):
        raise ValueError("seed must be 64 hex digits")
    return str(value)


def _what_is_left(d: Any, data: bytes) -> tuple[str | None, str | None]:
    """The id and channel of a damaged game, if they can still be read (from the
    JSON object, else from the bytes: a torn or garbled write)."""
    if isinstance(d, dict):
        found = [d.get("id"), d.get("chan")]
    else:
        found = [reading.salvage(data, "id"), reading.salvage(data, "chan")]
    game_id, channel = (v if isinstance(v, str) and v else None for v in found)
    return game_id, channel


def _migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring an older stored game up to :data:`SCHEMA`, or refuse it."""
    schema = d.get("schema")
    if schema in (1, SCHEMA) and not isinstance(schema, bool):
        return d  # 1: the same, without a timer over a day
    if isinstance(schema, int) and not isinstance(schema, bool) and schema > SCHEMA:
        raise DamagedGame(
            f"saved by a newer ludo-bot (format {schema}; this one reads {SCHEMA})", newer=True
        )
    raise DamagedGame(f"unknown save format {str(schema)[:40]!r}")
