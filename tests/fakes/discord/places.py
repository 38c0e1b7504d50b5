"""Places the bot reaches through interactions only, on the fake Discord: a person who
installed the app uses ``/ludo`` in a group DM, or in a server the bot is not in.

As Discord documents user-installable apps:

* the command must be registered for user installs (``integration_types`` with 1) and
  for that context (``contexts``: 2 for DMs and group DMs, 0 for servers), else Discord
  does not offer it;
* the interaction carries ``context`` and ``authorizing_integration_owners`` naming only
  the user install (``{"1": <user id>}``); in a group DM ``user`` instead of ``member``;
* the bot has no access to such a channel: every channel endpoint answers 403 Missing
  Access (50001); the app lives on its interactions' responses, followups and edits;
* in a server that lets outside apps answer only the person who used them (the member
  lacks Use External Apps), every response is made ephemeral;
* an interaction's token works for 15 minutes (:data:`TOKEN_LIFETIME`), on the fake's
  clock, which a test moves on (:meth:`Places.advance`); at most 5 followups.
"""

from __future__ import annotations

import time
from typing import Any

#: Use External Apps: a member may use apps installed to them in this server
USE_EXTERNAL_APPS = 1 << 50
#: the most followups one interaction may send
FOLLOWUPS = 5
#: the code and words of Discord's refusal of a channel the bot cannot see
MISSING_ACCESS = (403, 50001, "Missing Access")


class Places:
    """Group DMs and foreign servers' channels, reached by interactions only."""

    def now(self) -> float:
        """The fake's clock (monotonic), which :meth:`advance` moves on."""
        return time.monotonic() + self.clock_offset

    def advance(self, seconds: float) -> None:
        """Time passes for the interactions' tokens (a long pause in a game)."""
        self.clock_offset += seconds

    def group_dm(self, name: str = "friends") -> int:
        """A group DM the app's user is in, the bot not: its channel id."""
        cid = self.snowflake()
        self.channels[cid] = {
            "id": str(cid),
            "type": 3,
            "name": name,
            "owner_id": str(self.owner_id),
            "last_message_id": None,
        }
        self.user_only[cid] = {"context": 2}
        return cid

    def foreign_channel(self, *, external_apps: bool = True) -> int:
        """A text channel of a server the bot is not in; ``external_apps``: its members
        may use apps installed to them there (else every answer is only theirs)."""
        cid, gid = self.snowflake(), self.snowflake()
        self.channels[cid] = {
            "id": str(cid),
            "type": 0,
            "guild_id": str(gid),
            "name": "general",
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
        }
        self.user_only[cid] = {"context": 0, "guild_id": gid, "external_apps": external_apps}
        return cid

    def _user_only_base(self, payload: dict[str, Any], member: Any, cid: int) -> None:
        """An interaction in a place of :attr:`user_only`, as Discord sends it."""
        place = self.user_only[cid]
        payload["context"] = place["context"]
        payload["authorizing_integration_owners"] = {"1": str(member.id)}
        payload["app_permissions"] = "0"
        for key in ("guild_id", "guild", "guild_locale", "member"):
            payload.pop(key, None)
        if place["context"] == 2:
            payload["user"] = member.user_json()
            payload["channel"] = {k: v for k, v in self.channels[cid].items()}
            return
        gid = str(place["guild_id"])
        perms = member.permissions | (USE_EXTERNAL_APPS if place["external_apps"] else 0)
        perms &= ~(0 if place["external_apps"] else USE_EXTERNAL_APPS)
        payload["guild_id"] = gid
        payload["guild"] = {"id": gid, "locale": "en-US", "features": []}
        payload["guild_locale"] = "en-US"
        payload["member"] = member.member_json() | {"permissions": str(perms)}
        payload["channel"] = dict(self.channels[cid], permissions=str(perms))

    def forced_ephemeral(self, cid: int) -> bool:
        """Whether every answer in channel ``cid`` is made the asker's alone."""
        place = self.user_only.get(cid)
        return place is not None and place["context"] == 0 and not place["external_apps"]
