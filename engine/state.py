"""The game state and its JSON form (the moves and the events: :mod:`engine.actions`).

A :class:`GameState` is treated as immutable by every public function:
:func:`engine.apply` returns a new one.  Inside the engine a copy is changed in
place, which keeps random play fast (see :mod:`engine.play`).
"""

from __future__ import annotations

import json
from typing import Any

from .actions import Move
from .board import COLOUR_INDEX, COLOURS, HOME
from .errors import RecordError, RulesError
from .rules import Options, rules_for
from .setup import build_occupancy, check_position, seats_for

SCHEMA_VERSION = 1
PHASES = ("roll", "move", "bonus", "over")


class GameState:
    """A position plus whose turn it is and what they must do.

    Public read-only views: :attr:`rules`, :attr:`options`, :attr:`players`,
    :attr:`pieces`, :attr:`turn`, :attr:`phase`, :attr:`die`, :attr:`winner`,
    :attr:`ranking`, :attr:`scores`.  The short attributes (``seats``, ``pos``,
    ``cur``...) are the engine's own working fields.
    """

    __slots__ = (
        "_moves",
        "bonus",
        "cur",
        "die",
        "extra",
        "follow",
        "last",
        "occ",
        "options",
        "phase",
        "pos",
        "seats",
        "sixes",
        "won",
    )

    options: Options
    #: colour indices in the game, in seating order from red
    seats: tuple[int, ...]
    #: piece progress per colour index (empty list for a colour not playing)
    pos: list[list[int]]
    #: square key -> pieces standing there, each as colour * 8 + piece
    occ: dict[int, list[int]]
    #: colour index of the player to act
    cur: int
    phase: str
    #: the die rolled (0: none yet)
    die: int
    #: consecutive sixes in this player's run
    sixes: int
    #: extra rolls still owed to the current player
    extra: int
    #: bonus moves still owed (their lengths), played before any extra roll
    bonus: tuple[int, ...]
    #: the piece the current player moved last this turn (-1: none)
    last: int
    #: the piece that just came out and must move with this roll (-1: none)
    follow: int
    #: colour indices of the winner(s), empty while the game goes on
    won: tuple[int, ...]
    _moves: list[Move] | None

    def copy(self) -> GameState:
        new = GameState.__new__(GameState)
        new.options = self.options
        new.seats = self.seats
        new.pos = [p[:] for p in self.pos]
        new.occ = {k: v[:] for k, v in self.occ.items()}
        new.cur = self.cur
        new.phase = self.phase
        new.die = self.die
        new.sixes = self.sixes
        new.extra = self.extra
        new.bonus = self.bonus
        new.last = self.last
        new.follow = self.follow
        new.won = self.won
        new._moves = self._moves
        return new

    # -- public views -------------------------------------------------------

    @property
    def rules(self) -> str:
        """The rule set's name."""
        return self.options.name

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(COLOURS[c] for c in self.seats)

    @property
    def pieces(self) -> dict[str, tuple[int, ...]]:
        """Each colour's piece progress values, index = piece number."""
        return {COLOURS[c]: tuple(self.pos[c]) for c in self.seats}

    @property
    def turn(self) -> str:
        """The colour to act (after the game, the one who moved last)."""
        return COLOURS[self.cur]

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def winner(self) -> list[str] | None:
        """The winning colour, or the two partners of a team; None while playing."""
        return [COLOURS[c] for c in self.won] if self.won else None

    def distance(self, colour: str) -> int:
        """Squares still to walk to home for the pieces ``colour`` still needs.

        With all pieces needed (the default) this is the sum of ``57 - p``
        over every piece (RULES.md tower 8).  With ``pieces_to_win`` or a
        handicap only the pieces still needed count, closest to home first,
        so a player is not ranked down for carrying more pieces.
        """
        ps = self.pos[COLOUR_INDEX[colour]]
        need = self.options.needed_home(colour) - ps.count(HOME)
        if need <= 0:
            return 0
        return sum(sorted(HOME - p for p in ps if p != HOME)[:need])

    @property
    def scores(self) -> dict[str, int] | None:
        """Classic scores (RULES.md classic 13), None for distance-ranked rule sets."""
        if self.options.ranking != "score":
            return None
        out = {}
        for c in self.seats:
            if c in self.won:
                out[COLOURS[c]] = 1000
            else:
                out[COLOURS[c]] = sum(250 if p == HOME else p for p in self.pos[c])
        return out

    @property
    def ranking(self) -> list[str] | None:
        """Colours best first once the game is over (ties keep seating order)."""
        if self.phase != "over":
            return None
        winners = [COLOURS[c] for c in self.won]
        others = [COLOURS[c] for c in self.seats if c not in self.won]
        scores = self.scores
        if scores is not None:
            others.sort(key=lambda c: -scores[c])
        else:
            others.sort(key=self.distance)
        return winners + others

    @property
    def places(self) -> dict[str, int] | None:
        """Each colour's place once the game is over (1 = best); equal results share one."""
        ranking = self.ranking
        if ranking is None:
            return None
        scores = self.scores
        winners = set(self.winner or ())

        def result(colour: str) -> tuple[int, int]:
            if colour in winners:
                return (0, 0)
            return (1, -scores[colour] if scores is not None else self.distance(colour))

        out: dict[str, int] = {}
        for k, colour in enumerate(ranking):
            prev = ranking[k - 1] if k else None
            same = prev is not None and result(prev) == result(colour)
            out[colour] = out[prev] if same and prev is not None else k + 1
        return out

    def summary(self) -> dict[str, Any]:
        """The replay output of RULES.md section 7."""
        return {
            "rules": self.rules,
            "options": self.options.overrides(),
            "players": list(self.players),
            "pieces": {k: list(v) for k, v in self.pieces.items()},
            "turn": self.turn,
            "phase": self.phase,
            "die": self.die or None,
            "winner": self.winner,
            "ranking": self.ranking,
            "scores": self.scores,
            "places": self.places,
        }

    # -- serialisation ------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A compact JSON-ready form; :meth:`from_dict` reads it back."""
        d: dict[str, Any] = {
            "v": SCHEMA_VERSION,
            "rules": self.rules,
            "players": list(self.players),
            "pieces": {COLOURS[c]: self.pos[c][:] for c in self.seats},
            "turn": self.turn,
            "phase": self.phase,
        }
        opts = self.options.overrides()
        if opts:
            d["options"] = opts
        for key, value, default in (
            ("die", self.die, 0),
            ("sixes", self.sixes, 0),
            ("extra", self.extra, 0),
            ("last", self.last, -1),
            ("follow", self.follow, -1),
        ):
            if value != default:
                d[key] = value
        if self.bonus:
            d["bonus"] = list(self.bonus)
        if self.won:
            d["winner"] = [COLOURS[c] for c in self.won]
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> GameState:
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as e:
            raise RecordError(f"state is not valid JSON: {e}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> GameState:
        """Load a state saved by :meth:`to_dict`; a bad one raises :class:`RecordError`."""
        if not isinstance(data, dict):
            raise RecordError("state must be a JSON object")
        version = data.get("v")
        if version != SCHEMA_VERSION:
            raise RecordError(
                f"state has schema version {version!r}; this engine reads version {SCHEMA_VERSION}"
            )
        try:
            options = rules_for(str(data.get("rules")), data.get("options") or {})
        except RulesError as e:
            raise RecordError(f"state: {e}") from None
        seats = seats_for(options, data.get("players"))
        pos = check_position(options, seats, data.get("pieces"), check_over=False)
        s = cls.__new__(cls)
        s.options = options
        s.seats = seats
        s.pos = pos
        s.occ = build_occupancy(pos)
        try:
            s.cur = _colour_in(data.get("turn"), seats, "turn")
            s.phase = data["phase"]
            if s.phase not in PHASES:
                raise RecordError(f"state: unknown phase {s.phase!r}")
            s.die = _int(data.get("die", 0), 0, 6, "die")
            s.sixes = _int(data.get("sixes", 0), 0, 999, "sixes")
            s.extra = _int(data.get("extra", 0), 0, 99, "extra")
            s.last = _int(data.get("last", -1), -1, 5, "last")
            s.follow = _int(data.get("follow", -1), -1, 5, "follow")
            bonus = data.get("bonus", [])
            if not isinstance(bonus, list):
                raise RecordError("state: bonus must be a list")
            s.bonus = tuple(_int(b, 1, 6, "bonus") for b in bonus)
            winner = data.get("winner") or []
            if not isinstance(winner, list):
                raise RecordError("state: winner must be a list")
            s.won = tuple(_colour_in(w, seats, "winner") for w in winner)
        except KeyError as e:
            raise RecordError(f"state: missing field {e.args[0]!r}") from None
        n = len(pos[s.cur])
        if s.last >= n or s.follow >= n:
            raise RecordError(f"state: {COLOURS[s.cur]} has no piece {max(s.last, s.follow)}")
        if (s.phase == "move" and s.die == 0) or (s.phase == "bonus" and not s.bonus):
            raise RecordError(f"state: phase {s.phase!r} without a die or bonus to move with")
        if (s.phase == "over") != bool(s.won):
            raise RecordError("state: a finished game needs a winner, and only a finished one")
        s._moves = None
        return s

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<GameState {self.to_json()}>"


def _int(value: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise RecordError(f"state: {what} must be a whole number from {lo} to {hi}, not {value!r}")
    return value


def _colour_in(value: Any, seats: tuple[int, ...], what: str) -> int:
    c = COLOUR_INDEX.get(value) if isinstance(value, str) else None
    if c is None or c not in seats:
        names = ", ".join(COLOURS[s] for s in seats)
        raise RecordError(f"{what} must be one of the colours in the game ({names}), not {value!r}")
    return c
