"""The English wording of the words drawn in the pictures: the bar under the board and
the standings."""

from __future__ import annotations

PICTURES: dict[str, str | tuple[str, str]] = {
    "pic.to_roll": "to roll",
    "pic.choose": "choose a piece",
    "pic.bonus": "bonus move of {steps}",
    "pic.won": ("wins!", "win!"),
    "pic.final": "Final standings",
    "pic.so_far": "Standings so far",
    "pic.title": "{title} · {rules}",
    "pic.points": ("{count} point", "{count} points"),
    "pic.all_home": "all home",
    "pic.to_go": ("{count} square to go", "{count} squares to go"),
}
