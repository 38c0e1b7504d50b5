"""Direct messages between a person and the bot, on the fake Discord, as Discord
documents them:

* ``POST /users/@me/channels`` with ``recipient_id`` opens the DM (Create DM): it answers
  the DM channel object (``type`` 1, ``recipients``), the same channel every time for
  the same person; a person Discord does not know is refused (400, 50033 Invalid
  Recipient(s));
* the bot posts, edits and deletes its messages there like in any channel it can see;
* a person whose DMs are closed to the bot (:meth:`Dms.close_dms`: no server shared,
  or direct messages turned off) gets nothing: every message created in their DM is
  refused with 403, 50007 "Cannot send messages to this user" (opening the DM still
  works);
* an interaction from the DM (a command, a press on a message there) has no
  ``guild_id``, a ``channel`` of type 1 and ``user`` instead of ``member``, context 1
  (the bot's DM), and as its authorizing integration owners the server install's
  ``"0": "0"`` (and ``"1"``, the person, if they installed the app to their account:
  :meth:`Dms.install`); only the DM's recipient can act there.
"""

from __future__ import annotations

import secrets
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import ATTACHMENT_LIMIT, DiscordError, Member, json_response

#: the permissions an app has in a DM (what Discord's ``app_permissions`` says there)
DM_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16)
#: Discord's refusal of a message to a person who does not take the bot's DMs
CLOSED = (403, 50007, "Cannot send messages to this user")


class Dms:
    """The bot's DMs with people, and the interactions that come from them."""

    def dm_of(self, member: Member) -> int | None:
        """The id of ``member``'s DM with the bot, once it was opened."""
        return self.dms.get(member.id)

    def dm(self, member: Member) -> int:
        """``member``'s DM with the bot, opened if it was not (they wrote to the bot)."""
        self.users[member.id] = member
        cid = self.dms.get(member.id)
        if cid is None:
            cid = self.snowflake()
            self.dms[member.id] = cid
            self.channels[cid] = {
                "id": str(cid),
                "type": 1,
                "last_message_id": None,
                "flags": 0,
                "recipients": [member.user_json()],
            }
        return cid

    def close_dms(self, member: Member) -> None:
        """``member`` takes no DM from the bot any more."""
        self.closed_dms.add(member.id)

    def open_dms(self, member: Member) -> None:
        self.closed_dms.discard(member.id)

    def install(self, member: Member) -> None:
        """``member`` installs the app to their own account."""
        self.installed.add(member.id)

    def dm_messages(self, member: Member) -> list[Any]:
        """The messages of ``member``'s DM with the bot that are there now (theirs to see)."""
        cid = self.dms.get(member.id)
        return [] if cid is None else self.channel_messages(cid, member.id)

    def recipient(self, channel_id: int) -> int | None:
        """The person of DM ``channel_id`` (None: not a DM)."""
        channel = self.channels.get(channel_id)
        if channel is None or channel.get("type") != 1:
            return None
        return int(channel["recipients"][0]["id"])

    def check_dm_create(self, channel_id: int) -> None:
        """A message created in a DM whose person does not take the bot's DMs: refused."""
        who = self.recipient(channel_id)
        if who is not None and who in self.closed_dms:
            raise DiscordError(*CLOSED)

    async def _post_dm_channel(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        body = self._call(request).body
        recipient = body.get("recipient_id") if isinstance(body, dict) else None
        member = self.users.get(int(recipient)) if str(recipient or "").isdigit() else None
        if member is None:
            raise DiscordError(400, 50033, "Invalid Recipient(s)")
        return json_response(self.channels[self.dm(member)])

    def _dm_base(self, type_: int, member: Member, cid: int) -> dict[str, Any]:
        """An interaction from a DM with the bot, as Discord sends it."""
        assert self.recipient(cid) == member.id, "only the DM's person acts in it"
        owners = {"0": "0"} | ({"1": str(member.id)} if member.id in self.installed else {})
        return {
            "id": str(self.snowflake()),
            "application_id": str(self.app_id),
            "type": type_,
            "token": "itok-" + secrets.token_urlsafe(24),
            "version": 1,
            "channel_id": str(cid),
            "channel": dict(self.channels[cid]),
            "user": member.user_json(),
            "app_permissions": str(DM_PERMISSIONS),
            "locale": member.locale,
            "entitlements": [],
            "authorizing_integration_owners": owners,
            "context": 1,
            "attachment_size_limit": ATTACHMENT_LIMIT,
        }
