"""Skill ratings, recomputed from the kept results of a chat: pure.

Every game played to its end left one entry per seat (:mod:`.results`); the
entries of one game are rated together, game after game in the order they
finished, with openskill's Plackett-Luce model (free-for-all tables of 2 to 4
seats ranked by place, equal places tied; in italian team games the two teams,
the winners first).  Each rule set has its own ratings.  Computer seats are
rated too, one identity per level (``computer:expert``), so that beating an
expert is worth more than beating a beginner; they are never ranked among
people (:data:`~.results.COMPUTER` keys are left out by the callers).

The rating shown is a conservative estimate, μ − 3σ, scaled to familiar
numbers (:func:`shown`): 1 000 for a newcomer; as the rating settles it
rises towards about 1 500 for a player as good as the others (dice decide
much of a Ludo game, so it takes dozens of games: "still settling in" for about
the first ten, "taking shape" until about forty, then "settled").  Recomputing from the entries each
time means a change of the model never loses history.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from .results import COMPUTER, Entry, read_entry

#: the model (openskill's defaults: μ 25, σ 25/3 for a newcomer)
MODEL = PlackettLuce()
#: the shown rating: BASE + SCALE × (μ − 3σ)
BASE = 1000
SCALE = 25
#: the uncertainty in words: σ above SETTLING "still settling in", above FAIR "taking shape"
SETTLING = 6.0
FAIR = 4.0


def shown(mu: float, sigma: float) -> int:
    """The rating people see: the conservative estimate μ − 3σ, scaled."""
    return round(BASE + SCALE * (mu - 3 * sigma))


@dataclass
class Rating:
    """One person's (or one computer level's) skill in one rule set."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    #: the shown rating before the latest game rated (None: that was the first)
    before: int | None = None
    #: the key of the latest game rated
    last: str = ""

    @property
    def shown(self) -> int:
        return shown(self.mu, self.sigma)

    @property
    def change(self) -> int:
        """The shown rating's change in the latest game (0 before any)."""
        return self.shown - (
            self.before if self.before is not None else shown(MODEL.mu, MODEL.sigma)
        )

    @property
    def certainty(self) -> str:
        """How sure the rating is, as a word's key: settling, fair, settled."""
        if self.sigma > SETTLING:
            return "settling"
        return "fair" if self.sigma > FAIR else "settled"


@dataclass
class Played:
    """One game's kept entries, as rated."""

    key: str
    rules: str
    finished: float
    #: who -> their entry
    seats: dict[str, Entry] = field(default_factory=dict)


def identity(who: str, entry: Entry) -> str:
    """Whose rating a seat moves: the person, or the computer level."""
    if entry.computer or who.startswith(f"{COMPUTER}:"):
        return f"{COMPUTER}:{entry.level}"
    return who


def games(kept: Iterable[tuple[str, bytes]]) -> list[Played]:
    """The kept (who, entry) pairs as games, in the order they finished.

    Entries kept before games were named in them are grouped by their finishing
    time and rule set (one game's entries share them); unreadable ones are left out.
    """
    found: dict[tuple[str, str, float], Played] = {}
    for who, data in kept:
        entry = read_entry(data)
        if entry is None:
            continue
        key = (entry.game, entry.rules, entry.finished if not entry.game else 0.0)
        played = found.setdefault(key, Played(entry.game, entry.rules, entry.finished))
        played.finished = max(played.finished, entry.finished)
        played.seats[who] = entry
    return sorted(found.values(), key=lambda p: (p.finished, _created(p.key), p.key))


def _created(key: str) -> int:
    """When a kept game was created (its key is ``<id>.<created ms>``): the order of
    two games finished in the same millisecond."""
    ms = key.rpartition(".")[2]
    return int(ms) if ms.isdigit() and len(ms) < 16 else 0


class Ratings:
    """The ratings of a chat: rule set -> who -> :class:`Rating`."""

    def __init__(self) -> None:
        self.by_rules: dict[str, dict[str, Rating]] = {}

    def of(self, rules: str, who: str) -> Rating | None:
        return self.by_rules.get(rules, {}).get(who)

    def add(self, game: Played) -> None:
        """Rate one game (fewer than two sides rate nothing)."""
        table = self.by_rules.setdefault(game.rules, {})
        seats = [(identity(who, e), e) for who, e in game.seats.items()]
        teams_game = all(e.team in (0, 1) for _, e in seats) and len(seats) > 1
        if teams_game:
            sides = [[s for s in seats if s[1].team == t] for t in (0, 1)]
            sides = [side for side in sides if side]
            ranks = [1.0 if any(e.won for _, e in side) else 2.0 for side in sides]
        else:
            sides = [[s] for s in seats]
            ranks = [float(e.place) for _, e in seats]
        if len(sides) < 2:
            return
        priors = {who: table.get(who) or Rating() for side in sides for who, _ in side}
        teams = [
            [MODEL.rating(priors[who].mu, priors[who].sigma) for who, _ in side] for side in sides
        ]
        rated = MODEL.rate(teams, ranks=ranks)
        # a computer level seated twice gets the evidence of both seats, one after the other
        moved: dict[str, list[tuple[float, float]]] = {}
        for side, new in zip(sides, rated, strict=True):
            for (who, _), r in zip(side, new, strict=True):
                moved.setdefault(who, []).append(
                    (r.mu - priors[who].mu, r.sigma / priors[who].sigma)
                )
        for who, steps in moved.items():
            old = priors[who]
            mu = old.mu + sum(d for d, _ in steps)
            sigma = old.sigma * math.prod(f for _, f in steps)
            before = old.shown if old.games else None
            table[who] = Rating(mu, sigma, old.games + 1, before, game.key)


def ratings(kept: Iterable[tuple[str, bytes]]) -> Ratings:
    """Every rating of a chat, from its kept entries."""
    return rate_games(games(kept))


def rate_games(played: Iterable[Played]) -> Ratings:
    """Every rating from games already read (:func:`games`), in their order."""
    out = Ratings()
    for game in played:
        out.add(game)
    return out


@dataclass(frozen=True)
class Rival:
    who: str
    name: str
    #: games together, and how many of them ``who`` finished ahead
    games: int
    ahead: int


def rivals(
    played: Iterable[Played], person: str, least: int = 3
) -> tuple[Rival | None, Rival | None]:
    """``person``'s best rival (the one they finish ahead of most often, more than
    half the time) and worst (the one most often ahead of them, in more than half
    the games), among the people met at least ``least`` times."""
    return all_rivals(played, least).get(person, (None, None))


def all_rivals(
    played: Iterable[Played], least: int = 3
) -> dict[str, tuple[Rival | None, Rival | None]]:
    """:func:`rivals` of every person, in one pass over the games."""
    met: dict[str, dict[str, list[int]]] = {}
    names: dict[str, str] = {}
    for game in played:
        people = [
            (who, e)
            for who, e in game.seats.items()
            if not e.computer and not who.startswith(f"{COMPUTER}:")
        ]
        for who, e in people:
            names[who] = e.name
            for other, o in people:
                if other == who or (e.team >= 0 and e.team == o.team):
                    continue  # a partner is no rival
                count = met.setdefault(who, {}).setdefault(other, [0, 0])
                count[0] += 1
                count[1] += e.place < o.place
    out: dict[str, tuple[Rival | None, Rival | None]] = {}
    for who, others in met.items():
        pool = [Rival(w, names[w], g, a) for w, (g, a) in others.items() if g >= least]
        if not pool:
            continue
        best = max(pool, key=lambda r: (r.ahead / r.games, r.games, r.who))
        worst = min(pool, key=lambda r: (r.ahead / r.games, -r.games, r.who))
        out[who] = (
            best if best.ahead * 2 > best.games else None,
            worst if worst.ahead * 2 < worst.games else None,
        )
    return out
