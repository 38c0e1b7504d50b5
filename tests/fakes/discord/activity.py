"""The fake Discord's side of an Activity: its running instances (asked for with the
bot's token), and the OAuth2 sign-in of the people who open it (codes exchanged for
access tokens)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterable
from types import EllipsisType
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import (
    CALL,
    ActivityInstance,
    DiscordError,
    json_response,
)
from tests.fakes.discord.routelimits import RouteLimits


class Activity(RouteLimits):
    """Activity instances and the OAuth2 code exchange."""

    #: seconds an access token lasts (Discord's: 7 days)
    token_seconds = 604800
    #: access token -> when it expires (``time.monotonic``)
    token_expiry: dict[str, float]

    def add_instance(
        self,
        channel_id: int,
        users: Iterable[int],
        *,
        guild_id: int | EllipsisType | None = ...,
        instance_id: str | None = None,
    ) -> str:
        """An Activity running in ``channel_id`` with ``users`` in it, as a launch starts
        one (``guild_id``: the channel's guild by default, None for a DM or a group DM);
        its id (``i-<launch id>-gc-...`` unless given)."""
        if isinstance(guild_id, EllipsisType):
            known = self.channels.get(channel_id, {}).get("guild_id")
            guild_id = int(known) if known else None
        launch = self.snowflake()
        kind = f"gc-{guild_id}-{channel_id}" if guild_id else f"pc-{channel_id}"
        iid = instance_id if instance_id is not None else f"i-{launch}-{kind}"
        self.instances[iid] = ActivityInstance(iid, launch, channel_id, guild_id, list(users))
        return iid

    def join_instance(self, instance_id: str, user_id: int) -> None:
        """``user_id`` opens the running Activity (Join Application)."""
        users = self.instances[instance_id].users
        if user_id not in users:
            users.append(user_id)

    # ------------------------------------------------------------------
    # OAuth2 (the Activity's sign-in)

    def mint_code(
        self, user_id: int, name: str = "Player", *, locale: str = "en-US", scope: str = "identify"
    ) -> str:
        """A code the Embedded App SDK's ``authorize`` would give ``user_id`` (one use)."""
        code = secrets.token_urlsafe(22)
        self.oauth_codes[code] = {
            "id": str(user_id),
            "username": name.lower().replace(" ", "_")[:32],
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "locale": locale,
            "_scope": scope,
        }
        return code

    async def _post_oauth_token(self, request: web.Request) -> web.Response:
        """``POST /oauth2/token`` under its rate limit (:mod:`.routelimits`)."""
        limited = self._route(request, "token")
        if isinstance(limited, web.Response):
            return limited
        response = await self._exchange(request)
        response.headers.update(limited)
        return response

    async def _exchange(self, request: web.Request) -> web.Response:
        """The code exchange: form-encoded only; the client by id and secret in the body
        (or HTTP Basic); errors as OAuth2 says (``invalid_client``, ``invalid_grant``...);
        a token lasts :attr:`token_seconds`."""
        ctype = request.headers.get("Content-Type", "")
        call = request[CALL]
        if not ctype.startswith("application/x-www-form-urlencoded") or not isinstance(
            call.body, dict
        ):
            return json_response({"error": "invalid_request"}, status=400)
        form: dict[str, Any] = call.body
        client_id, secret = form.get("client_id"), form.get("client_secret")
        basic = request.headers.get("Authorization", "")
        if basic.startswith("Basic "):
            import base64

            client_id, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
        if client_id != str(self.app_id) or secret != self.client_secret:
            return json_response({"error": "invalid_client"}, status=401)
        if form.get("grant_type") != "authorization_code":
            return json_response({"error": "unsupported_grant_type"}, status=400)
        user = self.oauth_codes.pop(str(form.get("code", "")), None)
        if user is None:
            return json_response(
                {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'},
                status=400,
            )
        scope = user.pop("_scope")
        token = secrets.token_urlsafe(22)
        self.oauth_tokens[token] = user
        self.token_expiry[token] = time.monotonic() + self.token_seconds
        return json_response(
            {
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": self.token_seconds,
                "refresh_token": secrets.token_urlsafe(22),
                "scope": scope,
            }
        )

    async def _get_activity_instance(self, request: web.Request) -> web.Response:
        """``GET /applications/{app}/activity-instances/{instance}`` under its rate limit
        (:mod:`.routelimits`)."""
        self._bot_auth(request)
        limited = self._route(request, "instance")
        if isinstance(limited, web.Response):
            return limited
        try:
            response = self._instance(request)
        except DiscordError as e:
            response = json_response(e.body(), status=e.status)
        response.headers.update(limited)
        return response

    def _instance(self, request: web.Request) -> web.Response:
        """An Activity instance: the bot's own application only; 404 for an instance
        that is not running."""
        app = request.match_info["app"]
        if not app.isdigit():
            raise DiscordError(404, 0, "404: Not Found")
        if int(app) != self.app_id:
            raise DiscordError(403, 50001, "Missing Access")
        found = self.instances.get(request.match_info["instance"])
        if found is None:  # (the code is the fake's: Discord's list does not name one)
            raise DiscordError(404, 10070, "Unknown Activity Instance")
        return json_response(found.json(self.app_id))
