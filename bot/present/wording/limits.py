"""The English wording of the limits: a person or a chat going too fast, and the quotas."""

from __future__ import annotations

LIMITS: dict[str, str | tuple[str, str]] = {
    "limit.person": (
        "You are going too fast: try again in {count} second.",
        "You are going too fast: try again in {count} seconds.",
    ),
    "limit.chat": (
        "This chat is too busy right now: try again in {count} second.",
        "This chat is too busy right now: try again in {count} seconds.",
    ),
    "refuse.too_many_games": (
        "You already have {count} game open: finish or end it first.",
        "You already have {count} games open: finish or end one first.",
    ),
}
