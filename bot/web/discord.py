"""The Discord Activity's sign-in: the code the Embedded App SDK's ``authorize``
gives, exchanged for an access token with the application's client secret
(``POST /oauth2/token``, form-encoded, as Discord documents), and who a token
belongs to (``GET /users/@me`` with ``Authorization: Bearer``).  Nothing here is
logged with a secret, a code or a token in it."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import aiohttp

from ..hosting import User
from ..present.catalog import language_of

log = logging.getLogger(__name__)

#: Discord's API when DISCORD_API_BASE is not set
API_BASE = "https://discord.com/api/v10"
#: seconds an exchange or a look-up may take
TIMEOUT = 10.0
#: what a code or an access token may look like (Discord's are shorter)
TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]{1,256}")


@dataclass(frozen=True)
class DiscordLogin:
    user: User
    language: str


class DiscordRefused(Exception):
    """Discord refused the code or the token (or could not be asked)."""


class DiscordOAuth:
    """The application's OAuth2 client, on one aiohttp session (``close`` it)."""

    def __init__(self, client_id: int, secret: str, api_base: str | None = None) -> None:
        self.client_id = client_id
        self._secret = secret
        self.api_base = (api_base or API_BASE).rstrip("/")
        self._http: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:
        return f"DiscordOAuth({self.client_id}, {self.api_base!r})"

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT))
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()

    async def exchange(self, code: str) -> str:
        """The access token for ``code``, or :class:`DiscordRefused`."""
        if not TOKEN.fullmatch(code):
            raise DiscordRefused("malformed code")
        form = {
            "client_id": str(self.client_id),
            "client_secret": self._secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        try:
            async with self._session().post(f"{self.api_base}/oauth2/token", data=form) as r:
                body = await r.json(content_type=None) if r.status < 500 else None
                if r.status != 200 or not isinstance(body, dict):
                    error = body.get("error") if isinstance(body, dict) else r.status
                    raise DiscordRefused(f"Discord refused the code: {str(error)[:40]}")
        except (aiohttp.ClientError, TimeoutError, ValueError) as e:
            log.warning("could not exchange a Discord code: %s", type(e).__name__)
            raise DiscordRefused("Discord did not answer") from None
        token = body.get("access_token")
        if not isinstance(token, str) or not TOKEN.fullmatch(token):
            raise DiscordRefused("no access token")
        return token

    async def whoami(self, token: str) -> DiscordLogin:
        """The Discord user ``token`` is of, or :class:`DiscordRefused`."""
        if not TOKEN.fullmatch(token):
            raise DiscordRefused("malformed token")
        headers = {"Authorization": f"Bearer {token}"}
        try:
            async with self._session().get(f"{self.api_base}/users/@me", headers=headers) as r:
                if r.status != 200:
                    raise DiscordRefused(f"Discord refused the token ({r.status})")
                me = await r.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as e:
            log.warning("could not ask Discord who a token is: %s", type(e).__name__)
            raise DiscordRefused("Discord did not answer") from None
        uid = me.get("id") if isinstance(me, dict) else None
        if not isinstance(uid, str) or not uid.isdigit() or len(uid) > 20:
            raise DiscordRefused("no user id")
        name = me.get("global_name") or me.get("username") or uid
        locale = me.get("locale")
        return DiscordLogin(
            User("discord", uid, str(name)),
            language_of(locale if isinstance(locale, str) else None),
        )
