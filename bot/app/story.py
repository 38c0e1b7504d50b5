"""The story of a terminal game (``ludo-bot play``): what is told of each move.

A person's moves are told in full; a computer's, in the short story (a pipe, a file),
only when they change the game (a piece out, a capture, a piece home, a tower...),
each as one line: the move first, the roll said with it."""

from __future__ import annotations

from ..present import Text

#: the texts that make a computer's move worth telling in the short story
NOTABLE = {"ev.enter", "ev.home", "ev.capture", "ev.tower", "ev.barrier", "ev.penalty"}
NOTABLE |= {"ev.finish", "ev.game_over"}
#: the texts of a move made
MOVED = {"ev.move", "ev.enter", "ev.home"}
#: what the short story tells of such a move: those, and the move itself
TOLD = NOTABLE | MOVED


def together(texts: list[Text]) -> list[Text]:
    """The move first, and the roll said with it: "rolled 4 and moved piece 2 from
    10 to 14", then what else it did (a capture, a roll again)."""
    out = list(texts)
    k = next((i for i, t in enumerate(out) if t.key in MOVED), None)
    if k is None:
        return out
    move = out.pop(k)
    roll = out[0] if out else None
    if (
        roll is not None
        and roll.key == "ev.roll"
        and roll.params["colour"] == move.params["colour"]
    ):
        move = Text(move.key, move.params | {"die": roll.params["die"]})
        out.pop(0)
    return [move, *out]
