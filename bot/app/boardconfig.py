"""The live board's settings: where the bot's web pages are reached from outside
(``LUDO_PUBLIC_URL``), the Telegram Mini App's short name (``LUDO_MINIAPP``),
and the Discord application's OAuth2 client (``DISCORD_CLIENT_ID``,
``DISCORD_CLIENT_SECRET``) for the Discord Activity; and where the pictures of tables
posted through Telegram's inline mode go (``TELEGRAM_MEDIA_CHAT``, or the bot's web
server under ``LUDO_PUBLIC_URL``).

Without ``LUDO_PUBLIC_URL`` the web board is off and nothing else changes; the
other three need it.  Each wrong value is a :class:`ConfigError` naming the
setting, raised before anything is created.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .values import ConfigError

#: hosts a plain http:// public address may name (development and tests only)
LOOPBACK = ("localhost", "127.0.0.1", "::1")
#: a Mini App's short name, as BotFather takes it (/newapp)
MINIAPP = re.compile(r"[A-Za-z0-9_]{3,30}")
#: a Discord client secret: what the Developer Portal shows (letters, digits, _ and -)
SECRET = re.compile(r"[A-Za-z0-9_-]{8,128}")


@dataclass(frozen=True)
class BoardSettings:
    """The web board's settings, checked.  Its repr leaves the client secret out."""

    #: the bot's web server as the world reaches it: ``https://host[:port][/path]``,
    #: no trailing slash
    public_url: str
    #: the Telegram Mini App's short name (None: no Mini App; the board opens as a page)
    miniapp: str | None = None
    #: the Discord application's id and OAuth2 client secret (None: no Activity)
    discord_client_id: int | None = None
    discord_client_secret: str | None = field(default=None, repr=False)

    @property
    def board_url(self) -> str:
        """The board page (``/board/``) under the public address."""
        return f"{self.public_url}/board/"

    @property
    def activity(self) -> bool:
        """Whether the Discord Activity can authorize (client id and secret set)."""
        return self.discord_client_id is not None and self.discord_client_secret is not None


def load_board(
    env: Mapping[str, str], *, telegram: bool, discord: bool, web: bool
) -> BoardSettings | None:
    """The board's settings from ``env`` (None: the web board is off).  ``telegram``
    and ``discord`` say whether that platform's token is set, ``web`` whether the
    web server runs (LUDO_WEB_PORT or webhook mode)."""
    public = env.get("LUDO_PUBLIC_URL", "").strip()
    miniapp = env.get("LUDO_MINIAPP", "").strip() or None
    client_id = env.get("DISCORD_CLIENT_ID", "").strip() or None
    secret = env.get("DISCORD_CLIENT_SECRET", "").strip() or None
    if not public:
        for name, value in (
            ("LUDO_MINIAPP", miniapp),
            ("DISCORD_CLIENT_ID", client_id),
            ("DISCORD_CLIENT_SECRET", secret),
        ):
            if value is not None:
                raise ConfigError(f"{name} needs LUDO_PUBLIC_URL (the board's https:// address)")
        return None
    url = public_url(public)
    if not web:
        raise ConfigError(
            "LUDO_PUBLIC_URL needs LUDO_WEB_PORT: the board is served by the bot's web server"
        )
    if miniapp is not None:
        if not MINIAPP.fullmatch(miniapp):
            raise ConfigError(
                "LUDO_MINIAPP must be the Mini App's short name (3 to 30 letters, digits "
                f"and _), not {miniapp[:40]!r}"
            )
        if not telegram:
            raise ConfigError("LUDO_MINIAPP needs TELEGRAM_TOKEN")
    if (client_id is None) != (secret is None):
        raise ConfigError("DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET go together: set both")
    if client_id is not None:
        if not client_id.isdigit() or not 1 <= len(client_id) <= 20:
            raise ConfigError(
                f"DISCORD_CLIENT_ID must be the application's id (digits), not {client_id[:40]!r}"
            )
        if secret is not None and not SECRET.fullmatch(secret):
            raise ConfigError(
                "DISCORD_CLIENT_SECRET must be the application's client secret "
                "(8 to 128 letters, digits, _ and -)"
            )
        if not discord:
            raise ConfigError("DISCORD_CLIENT_ID needs DISCORD_TOKEN")
    return BoardSettings(
        public_url=url,
        miniapp=miniapp,
        discord_client_id=int(client_id) if client_id else None,
        discord_client_secret=secret,
    )


#: TELEGRAM_MEDIA_CHAT: a chat's id, or a public channel's @username
MEDIA_CHAT = re.compile(r"-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31}")


def load_media_chat(env: Mapping[str, str], *, telegram: bool) -> int | str | None:
    """``TELEGRAM_MEDIA_CHAT``: where the pictures of tables posted through inline mode
    are uploaded (their file ids then edit the tables), or None."""
    raw = env.get("TELEGRAM_MEDIA_CHAT", "").strip()
    if not raw:
        return None
    if not MEDIA_CHAT.fullmatch(raw):
        raise ConfigError(
            "TELEGRAM_MEDIA_CHAT must be a chat's id (like -1001234567890) or a channel's "
            f"@username, not {raw[:40]!r}"
        )
    if not telegram:
        raise ConfigError("TELEGRAM_MEDIA_CHAT needs TELEGRAM_TOKEN")
    return raw if raw.startswith("@") else int(raw)


def public_url(raw: str) -> str:
    """LUDO_PUBLIC_URL checked: https:// (http:// only on this machine), a host,
    no query or fragment; returned without a trailing slash."""
    try:
        parts = urlsplit(raw)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError on a port out of range
    except ValueError:
        raise ConfigError(f"LUDO_PUBLIC_URL is not a web address: {raw[:80]!r}") from None
    local = host in LOOPBACK
    if parts.scheme != "https" and not (parts.scheme == "http" and local):
        raise ConfigError(
            "LUDO_PUBLIC_URL must be an https:// address (Telegram and Discord open "
            f"only those), not {raw[:80]!r}"
        )
    if not host or parts.query or parts.fragment or parts.username or parts.password:
        raise ConfigError(
            f"LUDO_PUBLIC_URL must be https://host[:port][/path], nothing more, not {raw[:80]!r}"
        )
    return raw.rstrip("/")
