"""Stats of a chat: the kept entries of its finished games, added up per person.

Pure: :func:`tally` takes the (who, entry) pairs the store keeps and gives one
:class:`Tally` per person, every computer seat added up together under
:data:`COMPUTERS`; :func:`ranking` orders the people for the leaderboard.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from .rating import Rating, Rival, all_rivals, games, rate_games
from .results import COMPUTER

#: the one tally of every computer seat of the chat
COMPUTERS = COMPUTER


@dataclass
class Tally:
    """One person's (or the computers') games in one chat."""

    name: str = ""
    games: int = 0
    wins: int = 0
    #: the places added up (for the average)
    places: int = 0
    captures: int = 0
    captured: int = 0
    sixes: int = 0
    home: int = 0
    #: rule set -> [games, wins]
    rules: dict[str, list[int]] = field(default_factory=dict)
    #: when the latest game counted finished (its name is the one shown)
    latest: float = 0.0
    #: rule set -> the skill rating from these games (:mod:`.rating`)
    ratings: dict[str, Rating] = field(default_factory=dict)
    #: the person they finish ahead of most often, and the one most often ahead of them
    best: Rival | None = None
    worst: Rival | None = None

    @property
    def win_rate(self) -> float:
        """Wins per game, 0 to 1."""
        return self.wins / self.games if self.games else 0.0

    @property
    def average_place(self) -> float:
        return self.places / self.games if self.games else 0.0


def tally(kept: Iterable[tuple[str, bytes]]) -> dict[str, Tally]:
    """Who played -> their tally, their ratings and rivals from these same games;
    every computer seat under :data:`COMPUTERS`.  Entries that cannot be read
    are left out."""
    played = games(kept)
    out: dict[str, Tally] = {}
    for who, entry in ((w, e) for game in played for w, e in game.seats.items()):
        key = COMPUTERS if entry.computer or who.startswith(f"{COMPUTER}:") else who
        t = out.setdefault(key, Tally())
        t.games += 1
        t.wins += entry.won
        t.places += entry.place
        t.captures += entry.captures
        t.captured += entry.captured
        t.sixes += entry.sixes
        t.home += entry.home
        games_wins = t.rules.setdefault(entry.rules, [0, 0])
        games_wins[0] += 1
        games_wins[1] += entry.won
        if entry.finished >= t.latest:
            t.latest = entry.finished
            t.name = entry.name or t.name
    rated = rate_games(played)
    for rules, table in rated.by_rules.items():
        for who, rating in table.items():
            if who in out and who != COMPUTERS:
                out[who].ratings[rules] = rating
    for who, (best, worst) in all_rivals(played).items():
        if who in out:
            out[who].best, out[who].worst = best, worst
    return out


def main_rules(tallies: dict[str, Tally]) -> str | None:
    """The rule set people played most here (by seats), ties to the first by name."""
    counts: dict[str, int] = {}
    for who, t in tallies.items():
        if who != COMPUTERS:
            for rules, (played, _) in t.rules.items():
                counts[rules] = counts.get(rules, 0) + played
    return min(counts, key=lambda r: (-counts[r], r)) if counts else None


def rated_ranking(tallies: dict[str, Tally], rules: str) -> list[tuple[str, Tally]]:
    """The people rated in ``rules``, best first: the shown rating, then more games
    in it, then by name."""
    people = [(k, t) for k, t in tallies.items() if k != COMPUTERS and rules in t.ratings]
    return sorted(
        people, key=lambda kt: (-kt[1].ratings[rules].shown, -kt[1].rules[rules][0], kt[0])
    )


def _folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold().strip().lstrip("@"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def find_person(tallies: dict[str, Tally], name: str) -> str | None:
    """The person of the chat called ``name`` (case and accents aside), or the only one
    whose name starts so; None if nobody, or several, are."""
    wanted = _folded(name)
    if not wanted:
        return None
    people = [(k, _folded(t.name)) for k, t in tallies.items() if k != COMPUTERS]
    exact = [k for k, n in people if n == wanted]
    if len(exact) == 1:
        return exact[0]
    starts = [k for k, n in people if n.startswith(wanted)]
    return starts[0] if len(starts) == 1 and not exact else None
