"""The game record of RULES.md section 7: replaying it, and writing one."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import IllegalAction, RecordError, RulesError
from .game import new_game
from .play import act_in_place
from .state import GameState

#: "dice" (a hosted game's commitment and seed, see ``ludo-bot verify``) is not part
#: of the rules: replaying ignores it
_FIELDS = {"rules", "options", "players", "position", "turn", "actions", "dice"}


def load_record(record: Any) -> dict[str, Any]:
    """Parse (if text) and check the shape of a record; raise :class:`RecordError`."""
    if isinstance(record, str | bytes | bytearray):
        try:
            record = json.loads(record)
        except (ValueError, UnicodeDecodeError) as e:
            raise RecordError(f"the record is not valid JSON: {e}") from None
    if not isinstance(record, Mapping):
        raise RecordError("a game record is a JSON object with rules, players, turn and actions")
    unknown = set(record) - _FIELDS
    if unknown:
        raise RecordError(f"unknown record field(s): {', '.join(sorted(map(str, unknown)))}")
    for key in ("rules", "players"):
        if key not in record:
            raise RecordError(f"the record has no {key!r}")
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("actions must be a list")
    return dict(record)


def start_of(record: Mapping[str, Any]) -> GameState:
    """The starting state a record describes."""
    options = record.get("options")
    if options is not None and not isinstance(options, Mapping):
        raise RecordError("options must be a JSON object")
    try:
        return new_game(
            record["rules"],
            record["players"],
            options=options,
            position=record.get("position"),
            turn=record.get("turn"),
        )
    except RulesError as e:
        raise RecordError(str(e)) from None


def replay(record: Any) -> GameState:
    """Replay a game record (a dict, or its JSON text) and return the final state.

    A malformed record raises :class:`RecordError`; an action that is not
    legal where it stands raises :class:`IllegalAction` whose message starts
    with ``action K:`` (K counts from 0) and whose ``index`` is K.
    """
    rec = load_record(record)
    state = start_of(rec)
    for k, action in enumerate(rec.get("actions", [])):
        try:
            act_in_place(state, action, None)
        except IllegalAction as e:
            err = IllegalAction(f"action {k}: {e}", e.reason, e.piece)
            err.index = k  # type: ignore[attr-defined]
            raise err from None
    return state


def make_record(start: GameState, actions: Iterable[Mapping[str, int]]) -> dict[str, Any]:
    """The record of a game that began at ``start`` and took ``actions``."""
    return {
        "rules": start.rules,
        "options": start.options.overrides(),
        "players": list(start.players),
        "position": {k: list(v) for k, v in start.pieces.items()},
        "turn": start.turn,
        "actions": [dict(a) for a in actions],
    }
