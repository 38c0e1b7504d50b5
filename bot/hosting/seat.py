"""A person, and a place at a game's table (a person's or a computer's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import reading

#: the platform of a person forgotten in a kept game: no id, no name, only a colour
FORGOTTEN = "forgotten"
#: the computer level a table has, and a computer seat, unless chosen otherwise
NORMAL = "normal"

#: the longest name kept (in characters): a whole Telegram name (64 + 1 + 64) fits;
#: a longer one is cut, ending in "…"
NAME_LIMIT = 129


@dataclass(frozen=True)
class User:
    """A person on a platform: ``platform`` ("telegram", "discord", "local"...),
    the platform's user id, and the display name to show.  ``shared``: an account
    that speaks for many people (on Telegram, a message sent as a channel or by an
    anonymous admin): it cannot take part (see :func:`bot.hosting.checks.in_person`)."""

    platform: str
    id: str
    name: str
    shared: bool = False

    def __post_init__(self) -> None:
        # a name is what a person typed: bounded, and always savable (no lone surrogate)
        object.__setattr__(self, "name", bounded_name(self.name))

    def same(self, other: User | None) -> bool:
        return other is not None and (self.platform, self.id) == (other.platform, other.id)

    @property
    def forgotten(self) -> bool:
        """A kept game's seat whose person asked to be forgotten (see :mod:`.privacy`)."""
        return self.platform == FORGOTTEN


def bounded_name(name: str) -> str:
    """``name`` as a game keeps it: at most :data:`NAME_LIMIT` characters (cut, ending
    in "…"), a lone surrogate (no character at all) replaced by U+FFFD."""
    if not name.isascii():
        name = name.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if len(name) > NAME_LIMIT:
        name = name[: NAME_LIMIT - 1].rstrip() + "…"
    return name


@dataclass
class Seat:
    """A place at the table: a person, or a computer player (``user`` None)."""

    user: User | None
    colour: str | None = None
    #: turns in a row this person let the timer run out
    timeouts: int = 0
    #: the seat was a person's, now played by the computer (left or timed out)
    took_over: bool = False
    #: a rematch's seat kept for its person, who has not said yes yet
    waiting: bool = False
    #: a computer's level (:data:`bot.players.LEVELS`); one taken over: the table's
    level: str = NORMAL
    #: the person whose seat the computer took over (their game counts as played)
    was: User | None = None

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
        if self.waiting:
            d["w"] = 1
        if self.level != NORMAL:
            d["l"] = self.level
        if self.was is not None:
            d["x"] = [self.was.platform, self.was.id, self.was.name]
        return d

    @classmethod
    def from_dict(cls, d: Any, colours: tuple[str, ...]) -> Seat:
        """A stored seat, checked (``colours``: the game's, empty before its start)."""
        if not isinstance(d, dict) or set(d) - {"u", "c", "t", "o", "w", "l", "x"}:
            raise ValueError("a seat must be an object of u, c, t, o, w, l, x")
        u = d.get("u")
        user = User(*reading.person(u, "a seat's user")) if u is not None else None
        c = d.get("c")
        if colours:
            c = reading.colour(c, colours, "a seat's colour")
        elif c is not None:
            raise ValueError("a seat with a colour in a game not started")
        timeouts = reading.whole(d.get("t", 0), 0, 99, "a seat's timeouts")
        waiting = reading.flag(d.get("w", 0), "a seat's waiting")
        if waiting and (user is None or colours):
            raise ValueError("only a person's seat in a lobby can be waiting")
        took_over = reading.flag(d.get("o", 0), "a seat's took_over")
        level = reading.level(d.get("l", NORMAL), "a seat's level")
        x = d.get("x")
        was = User(*reading.person(x, "a seat's former person")) if x is not None else None
        if was is not None and (user is not None or not took_over):
            raise ValueError("only a seat taken over can name its former person")
        return cls(user, c, timeouts, took_over, waiting, level, was)
