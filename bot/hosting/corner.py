"""A person's corner: their private chat with the bot, a second screen of every game
they sit in, and what they asked of it.

Consent follows each platform's custom: on Telegram, starting the bot is asking to hear
from it, so cards are on once a person started it; on Discord nobody starts a bot, so
cards are off until the person asks for them (``/ludo notify on``, the *Tell me my
turns* button), or installed the app to their own account.  A person the platform says
cannot be written to (they blocked the bot, closed their DMs) gets no card until they
write to the bot again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

#: the most games one person may mute (the oldest mute goes first)
MUTED = 32
#: the most chats one person may ask to hear of
HERE = 16


@dataclass(frozen=True)
class Corner:
    """What one person asked of their corner, and what the platform said of it."""

    #: cards on or off as the person said (None: as their platform does by default)
    cards: bool | None = None
    #: the person opened the way to their corner: started the bot on Telegram, or
    #: installed the app to their own account on Discord
    started: bool = False
    #: the platform refused to write to them (blocked the bot, DMs closed)
    blocked: bool = False
    #: the games they muted
    muted: tuple[str, ...] = ()
    #: the language they speak, as their platform last told it
    lang: str = ""
    #: where their corner is on the platform, once known (a Discord DM channel's id)
    dm: str = ""
    #: the chats they asked to hear of (``/ludo notify here``)
    here: tuple[str, ...] = field(default=())

    @property
    def on(self) -> bool:
        """Whether the person gets cards: asked for (or started, by default), and
        reachable."""
        wanted = self.cards if self.cards is not None else self.started
        return wanted and not self.blocked

    def wants(self, game_id: str) -> bool:
        """Whether the person gets the cards of game ``game_id``."""
        return self.on and game_id not in self.muted

    def opened(self, lang: str = "") -> Corner:
        """The person wrote to the bot in private (started it, or a DM): the way is open
        again."""
        return replace(self, started=True, blocked=False, lang=lang or self.lang)

    def refused(self) -> Corner:
        """The platform refused to write to them: no card until they write again."""
        return replace(self, blocked=True)

    def asked(self, on: bool) -> Corner:
        """``/ludo notify on`` or ``off``: every game's cards, mutes forgotten."""
        return replace(self, cards=on, blocked=False if on else self.blocked, muted=())

    def mute(self, game_id: str) -> Corner:
        muted = (*(g for g in self.muted if g != game_id), game_id)[-MUTED:]
        return replace(self, muted=muted)

    def watch(self, channel: str, on: bool) -> Corner:
        here = tuple(c for c in self.here if c != channel)
        return replace(self, here=(*here, channel)[-HERE:] if on else here)

    def to_bytes(self) -> bytes:
        d: dict[str, Any] = {"c": self.cards, "s": self.started, "b": self.blocked}
        if self.muted:
            d["m"] = list(self.muted)
        if self.lang:
            d["l"] = self.lang
        if self.dm:
            d["d"] = self.dm
        if self.here:
            d["h"] = list(self.here)
        return json.dumps(d, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, data: bytes | None) -> Corner:
        """The corner kept; anything unreadable is an untouched corner."""
        if not data:
            return cls()
        try:
            d = json.loads(data)
            cards = d.get("c")
            return cls(
                cards=cards if isinstance(cards, bool) else None,
                started=d.get("s") is True,
                blocked=d.get("b") is True,
                muted=_strings(d.get("m"), MUTED),
                lang=_string(d.get("l")),
                dm=_string(d.get("d")),
                here=_strings(d.get("h"), HERE),
            )
        except (ValueError, TypeError, AttributeError):
            return cls()


def _string(value: object, limit: int = 100) -> str:
    return value if isinstance(value, str) and len(value) <= limit else ""


def _strings(value: object, most: int) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(s for s in (_string(v, 300) for v in value[-most:]) if s)
