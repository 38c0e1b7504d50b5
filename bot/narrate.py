"""Plain-English lines for engine events (the terminal game; chat text comes later).

Pieces are numbered from 1 for people, as on the board image; the engine and
the record count from 0.
"""

from __future__ import annotations

from engine import HOME, Event, Move


def where(p: int, *, short: bool = False) -> str:
    """A progress value as a person says it (``short``: a bare number on the track)."""
    if p == 0:
        return "base"
    if p == HOME:
        return "home"
    if p > 51:
        return f"column {p - 51}"
    return str(p) if short else f"square {p}"


def describe_move(m: Move) -> str:
    """A move as a button label would say it: ``2: square 14 -> square 18, captures green 1``."""
    text = f"{m.piece + 1}: {where(m.frm)} -> {where(m.to)}"
    if m.captures:
        text += f", captures {m.captures[0]} {m.captures[1] + 1}"
    if m.forms:
        text += f", forms a {m.forms}"
    if m.bounce:
        text += " (bounces)"
    return text


_REASONS = {
    "six": "for the 6",
    "capture": "for the capture",
    "home": "for reaching home",
    "no_move": "no legal move",
    "three_sixes": "third 6 in a row",
}


def describe(e: Event) -> str | None:
    """One line for an event, or None for events not worth a line on their own."""
    who = e.colour
    why = _REASONS.get(e.reason or "", e.reason or "")
    if e.kind == "roll":
        return f"{who} rolls {e.die}"
    if e.kind == "move":
        assert e.piece is not None and e.frm is not None and e.to is not None
        verb = "brings piece {n} out" if e.reason == "enter" else "moves piece {n} {a} -> {b}"
        line = verb.format(n=e.piece + 1, a=where(e.frm), b=where(e.to))
        if e.reason == "bounce":
            line += " (bouncing off home)"
        return f"{who} {line}"
    if e.kind == "capture" and e.target:
        return f"{who} captures {e.target[0]} piece {e.target[1] + 1}: back to base"
    if e.kind == "stack":
        return f"{who} forms a {e.reason}"
    if e.kind == "home":
        return f"{who} piece {(e.piece or 0) + 1} reaches home"
    if e.kind == "extra_turn":
        return f"{who} rolls again {why}"
    if e.kind == "bonus":
        return f"{who} earns a bonus move of {e.die} {why}"
    if e.kind == "bonus_lost":
        return f"{who} loses the bonus move of {e.die}: no piece can move it"
    if e.kind == "penalty":
        return f"{who} piece {(e.piece or 0) + 1} goes back to base (third 6)"
    if e.kind == "pass":
        return f"{who} passes: {why}"
    if e.kind == "finish":
        return f"{who} has all pieces home"
    if e.kind == "game_over":
        return f"game over: {e.reason} wins"
    return None
