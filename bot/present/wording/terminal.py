"""The English wording of the terminal game (``ludo-bot play``)."""

from __future__ import annotations

TERMINAL: dict[str, str | tuple[str, str]] = {
    "term.begins": "{rules} Ludo: {players}; {who} starts.",
    "term.images": "Board images: {path}/ (one per move)",
    "term.your_turn": "{colour}, you rolled {die}. Your pieces: {pieces}",
    "term.piece": "{piece}: {where}",
    "term.move": "{piece}: {frm} → {to}",
    "term.move.captures": "{piece}: {frm} → {to}, captures {victim_colour} {target}",
    "term.forms.tower": "forms a tower",
    "term.forms.barrier": "forms a barrier",
    "term.bounces": "bounces off home",
    "term.you": (
        "You play {players}: press Enter to roll the die, then type the number of the "
        "piece to move. Ctrl-D leaves the game."
    ),
    "term.roll": "{colour}, your turn: press Enter to roll. ",
    "term.round": "Round {n}:",
    "term.ask": "Piece number? ",
    "term.choose": "Choose {choices}.",
    "term.bye": "Bye!",
    "term.ranking": "Final ranking:",
    "term.place": "{place}. {colour}",
    "term.place_points": (
        "{place}. {colour} ({count} point)",
        "{place}. {colour} ({count} points)",
    ),
    "term.images_done": (
        "{count} board image and standings.png in {path}/",
        "{count} board images and standings.png in {path}/",
    ),
}
