"""What happened, for people: engine events and hosting notes as message keys.

Used by the table view (chat captions) and by the terminal game alike.
Pieces are numbered from 1 for people, as on the board image; the engine and
the record count from 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

from engine import HOME, Event, Move

from ..hosting import Fact, Game, Note
from ..hosting.dice import commitment
from .text import Text
from .timer import time_left


@overload
def where(p: int, *, short: Literal[False] = False) -> Text: ...


@overload
def where(p: int, *, short: bool) -> int | Text: ...


def where(p: int, *, short: bool = False) -> int | Text:
    """Where a piece stands, in words: "square 14", "column 2", "base", "home"
    (``short``: a bare number on the track, as :func:`square` says it)."""
    if short or not 0 < p <= 51:
        return square(p)
    return Text("sq.track", {"n": p})


def square(p: int) -> int | Text:
    """Where a piece stands, as a button says it: a number on the track, else in words."""
    if p == 0:
        return Text("sq.base")
    if p == HOME:
        return Text("sq.home")
    if p > 51:
        return Text("sq.column", {"n": p - 51})
    return p


def mark(number: int) -> str:
    """The landing mark of piece ``number`` (from 1) as the board draws it, a number in
    a ring: ``②`` (renderer/marks.py)."""
    return chr(0x2460 + number - 1) if 1 <= number <= 20 else f"({number})"


def square_from(p: int) -> Text:
    """ "from 14", "from square 2 of the home column"."""
    if 51 < p < HOME:
        return Text("sq.from_column", {"n": p - 51})
    return Text("sq.from", {"n": square(p)})


def square_to(p: int) -> Text:
    """ "to 18", "to square 3 of the home column"."""
    if 51 < p < HOME:
        return Text("sq.to_column", {"n": p - 51})
    return Text("sq.to", {"n": square(p)})


def one_of(values: Sequence[object]) -> str | Text:
    """ "6", "5 or 6", "1, 2 or 3": one of ``values``, in words."""
    words = [str(v) for v in values]
    if len(words) <= 1:
        return "".join(words)
    return Text("words.or", {"some": tuple(words[:-1]), "last": words[-1]})


def together(names: Sequence[str | Text]) -> str | Text:
    """The winners: "Ana", or "Ana and Bia" (a team)."""
    if len(names) == 2:
        return Text("who.pair", {"who": names[0], "other": names[1]})
    return tuple(names) if len(names) > 2 else names[0] if names else ""  # type: ignore[return-value]


def describe_move(m: Move) -> tuple[Text, ...]:
    """A move offered to a person, in words to say one after the other (with commas):
    ``2: square 14 → square 18, captures green 1``, then what else it does
    ("forms a tower", "bounces off home")."""
    p: dict[str, Any] = {"piece": m.piece + 1, "frm": where(m.frm), "to": where(m.to)}
    if m.captures:
        p |= {"victim_colour": m.captures[0], "target": m.captures[1] + 1}
    out = [Text("term.move.captures" if m.captures else "term.move", p)]
    if m.forms in ("tower", "barrier"):
        out.append(Text(f"term.forms.{m.forms}"))
    if m.bounce:
        out.append(Text("term.bounces"))
    return tuple(out)


def event_texts(events: Sequence[Event], who_is: Callable[[str], str | Text]) -> list[Text]:
    """What the engine's events say, as message keys (see :mod:`bot.messages`).

    ``who_is`` names the player of a colour.  A roll that only passes is told
    once, by the pass ("rolled 3: no piece can move").
    """
    out: list[Text] = []
    for k, e in enumerate(events):
        who = who_is(e.colour)
        p: dict[str, Any] = {"who": who, "colour": e.colour}
        if e.kind == "roll":
            # a roll that passes is said once, by the pass ("rolled 3: no piece can move")
            if not (k + 1 < len(events) and events[k + 1].kind == "pass"):
                out.append(Text("ev.roll", p | {"die": e.die}))
        elif e.kind == "move":
            assert e.piece is not None and e.frm is not None and e.to is not None
            key = "ev.enter" if e.reason == "enter" else ("ev.home" if e.to == HOME else "ev.move")
            out.append(
                Text(
                    key,
                    p
                    | {
                        "piece": e.piece + 1,
                        "frm": square_from(e.frm),
                        "to": square_to(e.to),
                        "bounce": e.reason == "bounce",
                    },
                )
            )
        elif e.kind == "capture" and e.target:
            out.append(
                Text(
                    "ev.capture",
                    p
                    | {
                        "victim": who_is(e.target[0]),
                        "victim_colour": e.target[0],
                        "piece": e.target[1] + 1,
                    },
                )
            )
        elif e.kind == "stack":
            out.append(Text("ev.tower" if e.reason == "tower" else "ev.barrier", p))
        elif e.kind == "extra_turn":
            out.append(Text("ev.extra", p | {"why": e.reason}))
        elif e.kind == "bonus":
            out.append(Text("ev.bonus", p | {"steps": e.die, "why": e.reason}))
        elif e.kind == "bonus_lost":
            out.append(Text("ev.bonus_lost", p | {"steps": e.die}))
        elif e.kind == "penalty":
            out.append(Text("ev.penalty", p | {"piece": (e.piece or 0) + 1}))
        elif e.kind == "pass":
            out.append(
                Text(
                    "ev.pass_three_sixes" if e.reason == "three_sixes" else "ev.pass",
                    p | {"die": e.die},
                )
            )
        elif e.kind == "finish":
            out.append(Text("ev.finish", p))
        elif e.kind == "game_over":
            winners = (e.reason or "").split(",")
            out.append(
                Text(
                    "ev.game_over",
                    {"winners": together([who_is(w) for w in winners if w])},
                )
            )
    return out


def name_of(game: Game, colour: str) -> str | Text:
    """The name of the player of ``colour`` as the chat shows it ("Computer (red)")."""
    seat = game.seat_for(colour)
    if seat is None or seat.user is None:
        return Text("who.computer", {"colour": colour})
    if seat.user.forgotten:
        return Text("who.player", {"colour": colour})
    return seat.user.name


def seating(game: Game) -> tuple[Text, ...]:
    """``Ana (red), Computer (yellow)``: who plays which colour (a list)."""
    return tuple(
        Text("who.seat", {"who": s.user.name, "colour": s.colour})
        if s.user and not s.user.forgotten
        else Text("who.player" if s.user else "who.computer", {"colour": s.colour})
        for s in game.seats
        if s.colour
    )


def narrate(game: Game, facts: Sequence[Fact]) -> list[Text]:
    """What happened, as lines: the engine's events and hosting's notes, in order."""
    out: list[Text] = []
    events: list[Event] = []

    def flush() -> None:
        out.extend(event_texts(events, lambda c: name_of(game, c)))
        events.clear()

    for fact in facts:
        if isinstance(fact, Note):
            flush()
            out.append(_note_text(game, fact))
            if fact.key == "game.started" and game.seed is not None:
                # the dice are promised before the first roll
                out.append(Text("game.dice", {"commitment": commitment(game.seed)}))
        else:
            events.append(fact)
    flush()
    if game.seed is not None and game.state is not None and any(t.key in ENDS for t in out):
        out.append(Text("game.dice_seed", {"seed": game.seed}))  # and revealed at the end
    return _one_line_per_roll(out)


#: the lines that end a started game
ENDS = ("ev.game_over", "game.ended_by", "game.ended_empty")


def _note_text(game: Game, note: Note) -> Text:
    params = dict(note.params)
    if note.key == "lobby.opened":
        params = {"host": game.creator.name, "rules": game.rules}
    elif note.key == "game.started":
        params = {"rules": game.rules, "players": seating(game)}
    elif isinstance(params.get("level"), str):
        params["level"] = Text(f"level.{params['level']}")  # "expert", in words
    if note.key == "remind.turn":
        params["left"] = time_left(params.get("left", 0))  # "3 hours", in words
    if note.key == "game.start_rolls":
        params["rolls"] = tuple(
            Text("who.rolled", {"who": name_of(game, c), "die": d}) for c, d in params["rolls"]
        )
    return Text(note.key, params)


def _one_line_per_roll(lines: list[Text]) -> list[Text]:
    """ "rolled 4" then "moved piece 2 from 10 to 14": one line, not two."""
    out: list[Text] = []
    for line in lines:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.key == "ev.roll"
            and line.key in ("ev.move", "ev.enter", "ev.home")
            and prev.params.get("colour") == line.params.get("colour")
        ):
            out[-1] = Text(line.key, line.params | {"die": prev.params["die"]})
        else:
            out.append(line)
    return out
