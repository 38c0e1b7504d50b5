"""What a person's own press or command did, said to them alone: "You rolled 5".

The table tells everyone what happened; this short answer (a Telegram toast,
a private Discord reply) tells the person who acted, at once, even while the
table waits for the chat's rate limit.
"""

from __future__ import annotations

from ..hosting import PLAYING, Game, Happened
from .narrate import narrate
from .text import Text

#: hosting notes about the person who acted, as said to them
_YOURS = {
    "lobby.joined": "you.joined",
    "lobby.left": "you.left",
    "lobby.closed_empty": "you.closed_empty",
    "game.left": "you.left_game",
    "game.ended_by": "you.ended",
}

#: engine events of the person who acted, as said to them
_EVENTS = {
    "ev.roll": "you.roll",
    "ev.enter": "you.enter",
    "ev.move": "you.move",
    "ev.home": "you.home",
    "ev.capture": "you.capture",
    "ev.tower": "you.tower",
    "ev.barrier": "you.barrier",
    "ev.extra": "you.extra",
    "ev.bonus": "you.bonus",
    "ev.bonus_lost": "you.bonus_lost",
    "ev.penalty": "you.penalty",
    "ev.pass": "you.pass",
    "ev.pass_three_sixes": "you.pass_three_sixes",
    "ev.finish": "you.finish",
}


def toast_lines(game: Game, happened: Happened | None) -> tuple[Text, ...]:
    """What the person who caused ``happened`` did, in the second person (empty for a
    timer); then what they must do next if it is still their turn."""
    if happened is None or happened.by is None:
        return ()
    by = happened.by
    mine = {s.colour for s in game.seats if s.colour and s.user is not None and s.user.same(by)}
    out: list[Text] = []
    for line in narrate(game, happened.facts):
        key = line.key
        if key == "lobby.opened" and game.creator.same(by):
            out.append(Text("you.opened", line.params))
        elif key in _YOURS and line.params.get("who") == by.name:
            out.append(Text(_YOURS[key], line.params))
        elif key in _EVENTS and line.params.get("colour") in mine:
            out.append(Text(_EVENTS[key], line.params))
        elif key == "ev.game_over":
            won = game.state is not None and mine & set(game.state.winner or ())
            out.append(Text("you.won") if won else line)
            break
        elif not out and not key.startswith(("ev.", "timer.")):
            out.append(line)  # what a lobby button did: "A computer player (normal) sat down."
        else:
            break  # someone else's turn: the table tells it
    seat = game.on_turn()
    state = game.state
    if (
        out
        and game.status == PLAYING
        and state is not None
        and seat is not None
        and seat.user is not None
        and seat.user.same(by)
    ):
        if state.phase == "move":
            out.append(Text("you.choose"))
        elif state.phase == "bonus":
            out.append(Text("you.choose_bonus", {"steps": state.bonus[0]}))
    return tuple(out)
