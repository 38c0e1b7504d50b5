"""The four rule sets as data: one frozen :class:`Options` per preset.

Code in :mod:`engine.game` branches on these named fields only, so a house
rule is an override (``rules_for("italian", teams=True)``), not a new class.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .board import COLOURS
from .errors import RulesError

THREE_SIXES = ("none", "end_turn", "send_back")
STACKING = ("free", "tower", "barrier")
OVERSHOOT = ("stay", "bounce")
RANKING = ("score", "distance")
FIRST_PLAYER = ("random", "highest_roll")

PieceCount = int | tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Options:
    """Every rule that differs between rule sets, by name.

    ``name`` is the preset the options started from; the other fields may be
    overridden by name (see :func:`rules_for`).
    """

    name: str
    #: how many players may sit (RULES.md: 2..4, ``super`` exactly 4)
    min_players: int = 2
    max_players: int = 4
    #: pieces per player: a number, or per colour (italian handicap)
    pieces: PieceCount = 4
    #: pieces a player needs home to win (None: all of them)
    pieces_to_win: int | None = None
    #: die values that bring a piece out of the base
    exit_rolls: tuple[int, ...] = (6,)
    #: an exit roll must bring a piece out when one can come out (super 3)
    exit_forced: bool = False
    #: after coming out the player rolls again and moves that piece (tower 4)
    exit_follow_up: bool = False
    #: a rolled 6 gives one more roll after the move
    six_extra_turn: bool = True
    #: the third consecutive 6: nothing, end the turn, or also send back the last piece moved
    three_sixes: str = "end_turn"
    #: a capture gives one more roll
    capture_extra_turn: bool = True
    #: a capture gives a bonus move of this many squares (0: none)
    capture_bonus: int = 0
    #: reaching home gives one more roll
    home_extra_turn: bool = True
    #: reaching home gives a bonus move of this many squares (0: none)
    home_bonus: int = 0
    #: start squares protect from capture (and are shelters under ``barrier``)
    safe_starts: bool = True
    #: star squares protect from capture (and are shelters under ``barrier``)
    safe_stars: bool = True
    #: what two pieces on a square mean: nothing, a tower (tower), a barrier (super)
    stacking: str = "free"
    #: a die too large for home: the piece cannot move, or it bounces back (tower 7)
    overshoot: str = "stay"
    #: a rolled 6 must open one of the player's barriers when it can (super 7)
    open_barriers: bool = False
    #: how the losers are ranked: classic score, or remaining distance
    ranking: str = "score"
    #: how the service picks the first player (the engine takes it as input)
    first_player: str = "random"
    #: 2 against 2, partners opposite (italian option)
    teams: bool = False
    #: pieces each player starts with on the start square (super 2)
    start_out: int = 0

    def pieces_for(self, colour: str) -> int:
        """How many pieces ``colour`` plays with."""
        if isinstance(self.pieces, int):
            return self.pieces
        return dict(self.pieces).get(colour, 4)

    def needed_home(self, colour: str) -> int:
        """How many pieces ``colour`` needs home to have finished."""
        n = self.pieces_for(colour)
        return n if self.pieces_to_win is None else min(n, self.pieces_to_win)

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from the preset, as JSON-ready values."""
        base = PRESETS[self.name]
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(base, f.name):
                out[f.name] = _to_json(value)
        return out


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return dict(value)
        return list(value)
    return value


PRESETS: dict[str, Options] = {
    # RULES.md section 3
    "classic": Options(name="classic"),
    # RULES.md section 4
    "tower": Options(
        name="tower",
        exit_rolls=(5,),
        exit_follow_up=True,
        six_extra_turn=False,
        three_sixes="none",
        capture_extra_turn=False,
        home_extra_turn=False,
        safe_starts=False,
        safe_stars=False,
        stacking="tower",
        overshoot="bounce",
        ranking="distance",
    ),
    # RULES.md section 5
    "italian": Options(
        name="italian",
        three_sixes="none",
        capture_extra_turn=False,
        home_extra_turn=False,
        ranking="distance",
        first_player="highest_roll",
    ),
    # RULES.md section 6
    "super": Options(
        name="super",
        min_players=4,
        exit_rolls=(5,),
        exit_forced=True,
        three_sixes="send_back",
        capture_extra_turn=False,
        capture_bonus=6,
        home_extra_turn=False,
        home_bonus=6,
        stacking="barrier",
        open_barriers=True,
        ranking="distance",
        start_out=1,
    ),
}

RULE_SETS: tuple[str, ...] = tuple(PRESETS)

_FIELD_TYPES = {f.name: f for f in fields(Options)}


def rules_for(name: str, options: Mapping[str, Any] | None = None, **overrides: Any) -> Options:
    """The preset called ``name`` with ``options`` (and keyword) overrides.

    >>> rules_for("italian", teams=True).teams
    True

    Raises :class:`RulesError` for an unknown rule set, an unknown option or a
    bad value.
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise RulesError(
            f"unknown rule set {name!r}: choose one of {', '.join(RULE_SETS)}",
            "unknown_rules",
            name=str(name),
            choices=RULE_SETS,
        )
    merged: dict[str, Any] = {}
    if options is not None:
        if not isinstance(options, Mapping):
            raise RulesError("options must be a mapping of option names to values", "not_mapping")
        merged.update(options)
    merged.update(overrides)
    if not merged:
        return PRESETS[name]
    values: dict[str, Any] = {}
    for key, value in merged.items():
        if key == "name" or key not in _FIELD_TYPES:
            known = ", ".join(f for f in _FIELD_TYPES if f != "name")
            raise RulesError(
                f"unknown option {key!r}: known options are {known}",
                "unknown_option",
                option=str(key),
                choices=tuple(f for f in _FIELD_TYPES if f != "name"),
            )
        values[key] = _check_value(key, value)
    opts = dataclasses.replace(PRESETS[name], **values)
    _check_consistent(opts)
    return opts


def _check_value(key: str, value: Any) -> Any:
    def need_bool() -> bool:
        if not isinstance(value, bool):
            raise RulesError(
                f"option {key!r} must be true or false, not {value!r}",
                "not_bool",
                option=key,
                value=str(value),
            )
        return value

    def need_int(lo: int, hi: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise RulesError(
                f"option {key!r} must be a whole number from {lo} to {hi}, not {value!r}",
                "not_in_range",
                option=key,
                low=lo,
                high=hi,
                value=str(value),
            )
        return value

    def need_choice(choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise RulesError(
                f"option {key!r} must be one of {', '.join(choices)}, not {value!r}",
                "not_choice",
                option=key,
                choices=choices,
                value=str(value),
            )
        return str(value)

    if key in ("min_players", "max_players"):
        return need_int(2, 4)
    if key == "pieces":
        return _check_pieces(value)
    if key == "pieces_to_win":
        # italian 6: "2 or 3" pieces home win; None means all of them
        return None if value is None else need_int(2, 3)
    if key == "exit_rolls":
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        if (
            not isinstance(value, list | tuple)
            or not value
            or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6 for v in value)
        ):
            raise RulesError(
                f"option 'exit_rolls' must be a list of die values 1..6, not {value!r}",
                "bad_exit_rolls",
                option="exit_rolls",
                value=str(value),
            )
        return tuple(sorted(set(value)))
    if key in ("capture_bonus", "home_bonus"):
        return need_int(0, 6)
    if key == "start_out":
        return need_int(0, 1)
    if key == "three_sixes":
        return need_choice(THREE_SIXES)
    if key == "stacking":
        return need_choice(STACKING)
    if key == "overshoot":
        return need_choice(OVERSHOOT)
    if key == "ranking":
        return need_choice(RANKING)
    if key == "first_player":
        return need_choice(FIRST_PLAYER)
    return need_bool()


def _check_pieces(value: Any) -> PieceCount:
    def one(v: Any) -> int:
        # italian 6: 4, 5 or 6 pieces per player
        if isinstance(v, bool) or not isinstance(v, int) or not 4 <= v <= 6:
            raise RulesError(
                f"option 'pieces' takes 4, 5 or 6 pieces per player, not {v!r}",
                "bad_pieces",
                option="pieces",
                value=str(v),
            )
        return v

    if isinstance(value, Mapping):
        per: dict[str, int] = {}
        for colour, n in value.items():
            if colour not in COLOURS:
                raise RulesError(
                    f"option 'pieces': unknown colour {colour!r}"
                    f" (colours are {', '.join(COLOURS)})",
                    "bad_colour",
                    option="pieces",
                    value=str(colour),
                    choices=COLOURS,
                )
            per[colour] = one(n)
        return tuple((c, per[c]) for c in COLOURS if c in per)
    return one(value)


def _check_consistent(o: Options) -> None:
    if o.min_players > o.max_players:
        raise RulesError("min_players cannot be more than max_players", "min_over_max")
    if o.teams and o.stacking != "free":
        raise RulesError(
            "teams are only available with free stacking (classic or italian rules)", "teams_free"
        )
    if o.teams and o.max_players < 4:
        raise RulesError("teams need 4 players", "teams_four")
    if o.stacking != "free" and not (
        o.pieces == 4 if isinstance(o.pieces, int) else all(n == 4 for _, n in o.pieces)
    ):
        raise RulesError(f"the {o.stacking} rules are played with 4 pieces each", "four_pieces")
    if o.stacking == "tower" and (o.safe_starts or o.safe_stars):
        raise RulesError("tower rules have no safe squares", "tower_safe")
    if o.open_barriers and o.stacking != "barrier":
        raise RulesError("open_barriers needs barrier stacking", "open_barriers")
    if o.overshoot == "bounce" and o.stacking == "barrier":
        raise RulesError(
            "bouncing in the home column is not available with barriers", "bounce_barriers"
        )
    if o.exit_follow_up and o.exit_forced:
        raise RulesError("exit_follow_up and exit_forced cannot both be on", "exit_both")
