"""What the game service answers: neutral data an adapter turns into platform calls.

Text is a message key with parameters (see :mod:`bot.messages` for the English
wording), so an adapter or a later translation can phrase it; buttons carry a
label and the data to send back (at most 64 bytes, the same on every platform).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import User

#: a callback's data may be at most this long (Telegram's limit; Discord allows 100)
MAX_BUTTON_DATA = 64


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


@dataclass
class Reply:
    """One answer to one request (or one timer firing)."""

    lines: list[Text]
    #: the channel the answer belongs in
    channel: str | None = None
    game_id: str | None = None
    #: only for the person who asked (a refusal): a toast or an ephemeral message
    private: bool = False
    #: the request was refused and changed nothing
    refused: bool = False
    #: people to notify (the player on turn)
    mention: list[User] = field(default_factory=list)
    #: PNG bytes, and what they show: "board" or "standings"
    image: bytes | None = None
    image_kind: str | None = None
    #: rows of buttons
    buttons: list[list[Button]] = field(default_factory=list)
    #: the game's button version after this answer
    version: int | None = None
    #: the game is over or ended with this answer
    finished: bool = False
