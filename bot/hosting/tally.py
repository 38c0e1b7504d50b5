"""Stats of a chat: the kept entries of its finished games, added up per person.

Pure: :func:`tally` takes the (who, entry) pairs the store keeps and gives one
:class:`Tally` per person, every computer seat added up together under
:data:`COMPUTERS`; :func:`ranking` orders the people for the leaderboard.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from .results import COMPUTER, read_entry

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

    @property
    def win_rate(self) -> float:
        """Wins per game, 0 to 1."""
        return self.wins / self.games if self.games else 0.0

    @property
    def average_place(self) -> float:
        return self.places / self.games if self.games else 0.0


def tally(kept: Iterable[tuple[str, bytes]]) -> dict[str, Tally]:
    """Who played -> their tally; every computer seat under :data:`COMPUTERS`.
    Entries that cannot be read are left out."""
    out: dict[str, Tally] = {}
    for who, data in kept:
        entry = read_entry(data)
        if entry is None:
            continue
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
    return out


def ranking(tallies: dict[str, Tally]) -> list[tuple[str, Tally]]:
    """The people (not the computers), best first: most wins, then the better win
    rate, then more games, then the better average place, then by name."""
    people = [(k, t) for k, t in tallies.items() if k != COMPUTERS]
    return sorted(
        people,
        key=lambda kt: (-kt[1].wins, -kt[1].win_rate, -kt[1].games, kt[1].average_place, kt[0]),
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
