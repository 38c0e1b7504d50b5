"""What play is made of: a legal :class:`Move` (which piece, from and to, what it
does) and an :class:`Event` (something that happened inside :func:`engine.apply`),
with the JSON form of an event.  Both are plain values, shared by every module."""

from __future__ import annotations

from typing import Any, NamedTuple

from .board import HOME


class Move(NamedTuple):
    """One legal move: which piece, from and to (progress), and what it does."""

    colour: str
    piece: int
    frm: int
    to: int
    #: squares walked (the die, or the bonus length)
    steps: int
    #: the piece comes out of the base
    enter: bool = False
    #: the piece this move sends back to its base, as (colour, piece)
    captures: tuple[str, int] | None = None
    #: "tower" or "barrier" when the move stacks on an own piece
    forms: str | None = None
    #: the piece walks into home and back (tower rule 7)
    bounce: bool = False

    @property
    def home(self) -> bool:
        """The move takes the piece home."""
        return self.to == HOME


class Event(NamedTuple):
    """Something that happened inside :func:`engine.apply`.

    ``kind`` is one of: ``roll``, ``move``, ``capture``, ``stack``, ``home``,
    ``extra_turn``, ``bonus``, ``bonus_lost``, ``penalty``, ``pass``,
    ``finish``, ``turn``, ``game_over``.  ``reason`` explains extra turns,
    bonuses and passes (``six``, ``capture``, ``home``, ``no_move``,
    ``three_sixes``...).
    """

    kind: str
    colour: str
    piece: int | None = None
    frm: int | None = None
    to: int | None = None
    die: int | None = None
    target: tuple[str, int] | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            k: (list(v) if isinstance(v, tuple) else v)
            for k, v in self._asdict().items()
            if v is not None
        }
