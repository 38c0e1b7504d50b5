"""Telling an English text that slipped into a table in another language; parameters
that every message of the catalog can be said with (:data:`SAMPLE`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from bot.present import Text, say
from bot.present.wording import MESSAGES

#: words of the bot's English texts; a text in another language has none of them,
#: unless that language uses the word itself ("Computer" in Italian)
ENGLISH = re.compile(
    r"\b(rolled|moved|piece|brought|captured|Roll|Join|Leave|Start|Computer|square|column|"
    r"turn|Game over|won|wins?|choose|and|rolls again|out|home|begins|Waiting|seated)\b"
)


@cache
def own_words(lang: str) -> frozenset[str]:
    """Every word of every message of ``lang``."""
    return frozenset(w for m in MESSAGES for w in re.findall(r"\w+", say(Text(m), lang=lang)))


def english_in(texts: Iterable[str], lang: str) -> list[str]:
    """The texts of ``texts`` with an English word ``lang`` does not use."""
    own = own_words(lang)
    return sorted({t for t in texts if any(w not in own for w in ENGLISH.findall(t))})


SAMPLE = {
    "who": "Ana",
    "colour": "red",
    "die": 6,
    "piece": 2,
    "frm": "12",
    "to": "18",
    "victim": "Ben",
    "victim_colour": "green",
    "steps": 6,
    "why": "six",
    "winners": "Ana",
    "rules": "classic",
    "host": "Ana",
    "players": "Ana, Ben",
    "platform": "Telegram",
    "tournament": "tournament",
    "count": 2,
    "max": 4,
    "timer": 120,
    "low": 10,
    "high": 86400,
    "left": "3 hours",
    "status": "waiting",
    "need": 2,
    "options": "teams=True",
    "about": "A table here",
    "rolls": "Ana 5, Ben 3",
    "captures": True,
    "bounce": False,
    "reason": "overshoot",
    "n": 3,
    "other": "Bia",
    "some": "1, 2",
    "last": "3",
    "name": "chess",
    "option": "pieces",
    "choices": "4, 5 or 6",
    "value": "7",
    "languages": "English, italiano",
    "level": "expert",
    "levels": "easy, normal, hard or expert",
    "follow": 1,
    "language": "it",
    "title": "Final standings",
    "path": "/tmp/ludo",
    "pieces": "1: base, 2: 14",
    "mark": "②",
    "marks": "② on square 23",
    "where": "base",
    "games": "12 games",
    "wins": "5 wins",
    "rate": "42%",
    "average": "1.8",
    "rating": "1,512",
    "certainty": "settled",
    "ahead": 7,
    "together": 12,
    "change": "+23",
    "podium": "Ana (1,512), Ben (1,400)",
    "ratings": "Ana 1,512 (+23), Ben 987 (−12)",
    "made": 14,
    "suffered": 9,
    "sixes": 40,
    "home": 36,
    "month": "November 2026",
    "squares": "14, 22",
    "target": 2,
    "place": 1,
    "example": "pt",
    "commitment": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "seed": "74657374" * 8,
    "new": "new",
    "roll": "roll",
    "move": "move",
    "board": "board",
    "end": "end",
    "rematch": "rematch",
    "stats": "stats",
    "top": "top",
    "forget": "forget",
    "replay": "replay",
    "record": "record",
    "notify": "notify",
    "size": 16,
    "rounds": 4,
    "round": 2,
    "table": 3,
    "points": "4.5",
    "tiebreak": "12",
    "medal": "🥇",
    "places": "🥇 Ana, 🥈 Ben, 🥉 Bia",
}

#: the labels of a new lobby's buttons, in English (its level: normal)
LOBBY_LABELS = ["Join", "Leave", "Add computer", "Remove computer", "Start", "Level: normal"]


def lobby_labels(lang: str) -> list[str]:
    """The labels of a new lobby's buttons, in ``lang`` (its level: normal)."""
    keys = ("btn.join", "btn.leave", "btn.add_computer", "btn.remove_computer", "btn.start")
    level = Text("btn.level", {"level": Text("level.normal")})
    return [*(say(Text(k), lang=lang) for k in keys), say(level, lang=lang)]
