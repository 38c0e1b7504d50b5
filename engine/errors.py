"""The one exception family of the engine.

Every error the engine raises is a :class:`LudoError` (itself a ``ValueError``),
with a message written for a player, not a programmer.
"""

from __future__ import annotations


class LudoError(ValueError):
    """Base class of every error the engine raises."""


class RulesError(LudoError):
    """An unknown rule set, an unknown option, or a bad option value.

    ``reason`` is a short machine-readable code (``"unknown_option"``,
    ``"not_in_range"``, ...) and ``params`` the values the message names
    (``option``, ``value``, ``low``, ``high``...), so a caller can phrase the
    refusal in its own words and language.
    """

    def __init__(self, message: str, reason: str = "bad_rules", **params: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


class IllegalAction(LudoError):
    """An action that is not allowed in the current state.

    ``reason`` is a short machine-readable code (``"not_your_move"``,
    ``"overshoot"``, ...) so a caller can phrase the refusal itself; the
    message is already readable as it is.
    """

    def __init__(self, message: str, reason: str = "illegal", piece: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.piece = piece


class RecordError(LudoError):
    """A malformed game record, state or position (bad JSON, bad field...)."""
