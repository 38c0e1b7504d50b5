"""An independent count of a tournament from the kept results of its chat, for the
tests: each kept game is a table; its people's places give Swiss points (a table of n:
3·(n − place)/(n − 1), places counted among the table's people) or, in a knockout,
who went on.  Nothing of the bot's tournament code is used."""

from __future__ import annotations

import json
import re
from collections import defaultdict

from bot.store import Store


def tables(store: Store, chat: str) -> list[dict[str, int]]:
    """The chat's kept games, oldest first, each as person key -> place among people."""
    games: dict[str, dict[str, int]] = defaultdict(dict)
    order: list[str] = []
    for who, data in store.entries(chat):
        d = json.loads(data)
        if who.startswith("computer:"):
            continue  # a computer filling a seat the rules needed is nobody's
        if d["g"] not in games:
            order.append(d["g"])
        games[d["g"]][who] = int(d["p"])
    out = []
    for g in order:
        raw = games[g]
        out.append({k: 1 + sum(p < mine for p in raw.values()) for k, mine in raw.items()})
    return out


def swiss_points(played: list[dict[str, int]]) -> dict[str, float]:
    points: dict[str, float] = defaultdict(float)
    for table in played:
        n = len(table)
        for who, place in table.items():
            points[who] += 3 * (n - place) / (n - 1)
    return dict(points)


def swiss_results(played: list[dict[str, int]]) -> dict[str, tuple[float, float, int]]:
    """Each one's result, smaller is better: points, then the opponents' points (each
    opponent once), then tables won (negated)."""
    points = swiss_points(played)
    met: dict[str, set[str]] = defaultdict(set)
    for table in played:
        for who in table:
            met[who] |= set(table) - {who}
    buchholz = {k: sum(points[o] for o in met[k]) for k in points}
    wins = {k: sum(1 for table in played if table.get(k) == 1) for k in points}
    return {k: (-round(points[k], 6), -round(buchholz[k], 6), -wins[k]) for k in points}


def swiss_order(played: list[dict[str, int]], names: dict[str, str]) -> list[str]:
    """Everybody best first, by result, then name (everyone here came unrated)."""
    result = swiss_results(played)
    return sorted(result, key=lambda k: (*result[k], names[k]))


def swiss_places(played: list[dict[str, int]], names: dict[str, str]) -> dict[str, int]:
    """Each one's place: 1 + how many have a better result."""
    result = swiss_results(played)
    return {k: 1 + sum(other < mine for other in result.values()) for k, mine in result.items()}


def knockout_podium(played: list[dict[str, int]]) -> list[str]:
    """The final table's first three (the last game kept)."""
    final = played[-1]
    return sorted(final, key=lambda k: final[k])[:3]


def knockout_through(played: list[dict[str, int]]) -> bool:
    """Nobody sits at a table after finishing third or worse at their last one."""
    last: dict[str, int] = {}
    for table in played:
        if any(last.get(k, 1) > 2 for k in table):
            return False
        last.update(table)
    return True


def team_points(store: Store, chat: str) -> dict[str, float]:
    """Italian teams: 3 points to each partner of a winning team, from the kept entries."""
    points: dict[str, float] = defaultdict(float)
    for who, data in store.entries(chat):
        d = json.loads(data)
        if not who.startswith("computer:"):
            points[who] += 3.0 if d["w"] else 0.0
    return dict(points)


#: the podium's medals, by place
MEDALS = ("🥇", "🥈", "🥉")


def final_rows(text: str) -> list[tuple[int, str, str]]:
    """The standings rows of the winner's message: (place, name, the rest)."""
    return [
        (int(m.group(1)), m.group(2), m.group(3))
        for m in re.finditer(r"^(\d+)\. (P\d+): (.*)$", text, re.M)
    ]


def check_swiss_told(text: str, played: list[dict[str, int]], names: dict[str, str]) -> None:
    """The winner's message of a Swiss tournament says what the independent count of
    ``played`` says: every row's place, name and points, the podium and the winner."""
    rows = final_rows(text)
    order = swiss_order(played, names)
    places = swiss_places(played, names)
    points = swiss_points(played)
    assert [name for _, name, _ in rows] == [names[k] for k in order], text
    assert [place for place, _, _ in rows] == [places[k] for k in order], text
    for (_, _, rest), k in zip(rows, order, strict=True):
        assert rest.startswith(f"{round(points[k], 1):g} "), (rest, points[k])
    podium = ", ".join(f"{MEDALS[min(places[k], 3) - 1]} {names[k]}" for k in order[:3])
    assert f"Podium: {podium}" in text, text
    first = [names[k] for k in order if places[k] == 1]
    if len(first) == 1:
        assert text.startswith(f"🏆 {first[0]} wins the tournament!"), text
    else:
        assert text.startswith(f"🏆 {', '.join(first)} share first place"), text


def check_knockout_told(text: str, played: list[dict[str, int]], names: dict[str, str]) -> None:
    """A knockout of twelve: 3 tables, then 2 of three, then the final; nobody goes on
    from third place; the podium is the final table's, as kept."""
    assert [len(t) for t in played] == [4, 4, 4, 3, 3, 4]
    assert knockout_through(played)
    podium = [names[k] for k in knockout_podium(played)]
    told = re.search(r"Podium: 🥇 (P\d+), 🥈 (P\d+), 🥉 (P\d+)", text)
    assert told is not None and list(told.groups()) == podium, text
    assert [name for _, name, _ in final_rows(text)[:3]] == podium
