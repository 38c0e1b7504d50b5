"""Words and buttons as neutral data an adapter turns into platform calls.

Text is a message key with parameters (see :mod:`bot.present.messages` for the
English wording), so an adapter or a later translation can phrase it; buttons
carry a label and the data to send back (at most 64 bytes, the same on every
platform; see :mod:`bot.present.buttons`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: a callback's data may be at most this long (Telegram's limit; Discord allows 100)
MAX_BUTTON_DATA = 64
#: the most characters of what a person typed that an answer says back to them
ECHO_LIMIT = 32


def echoed(typed: str) -> str:
    """What a person typed, as an answer quotes it: at most :data:`ECHO_LIMIT`
    characters (cut, ending in "…")."""
    if len(typed) <= ECHO_LIMIT:
        return typed
    return typed[: ECHO_LIMIT - 1].rstrip() + "…"


@dataclass(frozen=True)
class Text:
    key: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Button:
    label: Text
    data: str
    #: "primary" (the main action), "secondary", "danger"
    style: str = "secondary"

    def __post_init__(self) -> None:
        if len(self.data.encode()) > MAX_BUTTON_DATA:
            raise ValueError(f"button data longer than {MAX_BUTTON_DATA} bytes: {self.data!r}")
