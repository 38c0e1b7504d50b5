"""The Discord Activity's sign-in: the code the Embedded App SDK's ``authorize``
gives, exchanged for an access token with the application's client secret
(``POST /oauth2/token``, form-encoded, as Discord documents); who the fresh token
belongs to (``GET /users/@me`` with ``Authorization: Bearer``), asked once, then kept
with a digest of the token until it expires (:mod:`bot.store.signin`), so that a
session is signed in with no call to Discord and a token the bot never issued is
never sent there; and whether that person is in the Activity instance the page names,
in the channel it names (``GET /applications/{id}/activity-instances/{instance}`` with
the bot's token; answers kept briefly, see :meth:`DiscordOAuth.in_activity`).

Every request to Discord here is under the budget every worker shares
(:mod:`.discord_calls`): while it is spent, :class:`~.discord_calls.DiscordBusy`.
Nothing here is logged with a secret, a code or a token in it."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ..hosting import User
from ..limits.budget import CallBudget
from ..present.catalog import language_of
from ..store.limits import MemoryBuckets
from ..store.signin import Issued, MemoryHolds, MemoryIssued, digest
from .discord_calls import Calls, DiscordBusy, NoAnswer

log = logging.getLogger(__name__)

__all__ = [
    "INSTANCE",
    "SNOWFLAKE",
    "DiscordBusy",
    "DiscordLogin",
    "DiscordOAuth",
    "DiscordRefused",
    "DiscordUnavailable",
]

#: Discord's API when DISCORD_API_BASE is not set
API_BASE = "https://discord.com/api/v10"
#: how long a token is kept when Discord does not say (its access tokens last 7 days)
TOKEN_SECONDS = 7 * 24 * 3600.0
#: what a code or an access token may look like (Discord's are shorter)
TOKEN = re.compile(r"[A-Za-z0-9._~+/=-]{1,256}")
#: what an Activity instance id may look like (the SDK's ``instanceId``, e.g.
#: ``i-1234…-gc-5678…-9012…``)
INSTANCE = re.compile(r"[A-Za-z0-9_-]{1,100}")
#: a Discord id (a channel's, a user's)
SNOWFLAKE = re.compile(r"[0-9]{1,20}")
#: seconds an instance's answer is kept
INSTANCE_SECONDS = 20.0
#: seconds before an instance is asked again for someone not among its users (who
#: may just have joined it)
RECHECK_SECONDS = 2.0
#: instances kept at most (the oldest go first)
INSTANCES_KEPT = 1000


@dataclass(frozen=True)
class DiscordLogin:
    user: User
    language: str

    def dumps(self) -> str:
        """As kept with its token's digest."""
        u = self.user
        return json.dumps({"id": u.id, "name": u.name, "language": self.language})

    @classmethod
    def loads(cls, kept: str) -> DiscordLogin | None:
        """What :meth:`dumps` wrote (None: not that)."""
        try:
            found = json.loads(kept)
        except ValueError:
            return None
        if not isinstance(found, dict):
            return None
        uid, name, lang = found.get("id"), found.get("name"), found.get("language")
        if not (isinstance(uid, str) and SNOWFLAKE.fullmatch(uid)) or not isinstance(name, str):
            return None
        return cls(User("discord", uid, name), language_of(lang if isinstance(lang, str) else None))


class DiscordRefused(Exception):
    """Discord refused the code or the token (or could not be asked)."""


class DiscordUnavailable(Exception):
    """Discord could not be asked about an Activity instance (unreachable, too slow,
    or refusing the bot)."""


@dataclass(frozen=True)
class Instance:
    """An Activity instance as Discord described it at ``asked`` (the clock's time):
    the channel it runs in and its users' ids (no channel: Discord knows no such
    instance)."""

    channel_id: str | None
    users: frozenset[str]
    asked: float

    def admits(self, channel_id: str, user_id: str) -> bool:
        return self.channel_id == channel_id and user_id in self.users


class DiscordOAuth:
    """The application's OAuth2 client, and its bot asking about Activity instances,
    every request under ``budget`` (``close`` it).  ``issued``: where the tokens it
    issued are kept (every worker's store, or this process)."""

    def __init__(
        self,
        client_id: int,
        secret: str,
        api_base: str | None = None,
        *,
        bot_token: str,
        clock: Callable[[], float] = time.monotonic,
        budget: CallBudget | None = None,
        issued: Issued | None = None,
    ) -> None:
        self.client_id = client_id
        self._secret = secret
        self._bot_token = bot_token
        self.api_base = (api_base or API_BASE).rstrip("/")
        self.clock = clock
        self.calls = Calls(budget or CallBudget(MemoryBuckets(), MemoryHolds()))
        self.issued = issued if issued is not None else MemoryIssued()
        #: instance id -> what Discord last said of it (oldest first)
        self._instances: OrderedDict[str, Instance] = OrderedDict()
        #: instance id -> the look-up running (every request for it waits on that one)
        self._asking: dict[str, asyncio.Task[Instance]] = {}

    def __repr__(self) -> str:
        return f"DiscordOAuth({self.client_id}, {self.api_base!r})"

    async def close(self) -> None:
        for task in list(self._asking.values()):
            task.cancel()
        await self.calls.close()

    async def exchange(self, code: str) -> str:
        """The access token for ``code``, its person kept (:meth:`login` knows it);
        :class:`DiscordRefused`, or :class:`DiscordBusy` (nothing asked)."""
        if not TOKEN.fullmatch(code):
            raise DiscordRefused("malformed code")
        form = {
            "client_id": str(self.client_id),
            "client_secret": self._secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        url = f"{self.api_base}/oauth2/token"
        try:
            answer = await self.calls.request(
                "token", "POST", url, data=form, json_when=(200, 400, 401)
            )
        except NoAnswer as e:
            log.warning("could not exchange a Discord code: %s", e)
            raise DiscordRefused("Discord did not answer") from None
        body = answer.body
        if answer.status != 200 or not isinstance(body, dict):
            error = body.get("error") if isinstance(body, dict) else answer.status
            if error == "invalid_client":  # the operator's settings, not the person's code
                log.warning("Discord refused the Activity's client id or DISCORD_CLIENT_SECRET")
            raise DiscordRefused(f"Discord refused the code: {str(error)[:40]}")
        token = body.get("access_token")
        if not isinstance(token, str) or not TOKEN.fullmatch(token):
            raise DiscordRefused("no access token")
        login = await self._whoami(token)
        lasts = body.get("expires_in")
        seconds = float(lasts) if isinstance(lasts, int | float) and lasts > 0 else TOKEN_SECONDS
        await self.calls.ask(
            self.issued.shared, self.issued.keep, digest(token), login.dumps(), seconds
        )
        return token

    async def login(self, token: str) -> DiscordLogin | None:
        """The person ``token`` was issued to by :meth:`exchange` (None: a token the
        bot never issued, or one that expired): Discord is not asked."""
        if not TOKEN.fullmatch(token):
            return None
        kept = await self.calls.ask(self.issued.shared, self.issued.find, digest(token))
        return DiscordLogin.loads(kept) if isinstance(kept, str) else None

    async def _whoami(self, token: str) -> DiscordLogin:
        """The Discord user a token Discord just gave is of, or :class:`DiscordRefused`."""
        headers = {"Authorization": f"Bearer {token}"}
        try:
            answer = await self.calls.request(
                "me", "GET", f"{self.api_base}/users/@me", headers=headers
            )
        except NoAnswer as e:
            log.warning("could not ask Discord who a token is: %s", e)
            raise DiscordRefused("Discord did not answer") from None
        if answer.status != 200:
            raise DiscordRefused(f"Discord refused the token ({answer.status})")
        me = answer.body
        uid = me.get("id") if isinstance(me, dict) else None
        if not isinstance(uid, str) or not uid.isdigit() or len(uid) > 20:
            raise DiscordRefused("no user id")
        name = me.get("global_name") or me.get("username") or uid
        locale = me.get("locale")
        return DiscordLogin(
            User("discord", uid, str(name)),
            language_of(locale if isinstance(locale, str) else None),
        )

    async def in_activity(self, instance_id: str, channel_id: str, user_id: str) -> bool:
        """Whether Activity instance ``instance_id`` runs in channel ``channel_id`` with
        user ``user_id`` among its users (:class:`DiscordUnavailable` if Discord cannot
        say).  Discord's answer is kept :data:`INSTANCE_SECONDS` and serves every
        request for the instance; someone it does not admit makes it asked again, at
        most every :data:`RECHECK_SECONDS`."""
        if not INSTANCE.fullmatch(instance_id):
            return False
        now = self.clock()
        known = self._instances.get(instance_id)
        if known is not None and now - known.asked >= INSTANCE_SECONDS:
            known = None
        if known is None or (
            not known.admits(channel_id, user_id) and now - known.asked >= RECHECK_SECONDS
        ):
            known = await self._instance(instance_id)
        return known.admits(channel_id, user_id)

    async def _instance(self, instance_id: str) -> Instance:
        """Discord's answer for ``instance_id``: one look-up however many wait for it."""
        task = self._asking.get(instance_id)
        if task is None:
            task = asyncio.ensure_future(self._ask(instance_id))
            self._asking[instance_id] = task
            task.add_done_callback(partial(self._asked, instance_id))
        return await asyncio.shield(task)

    def _asked(self, instance_id: str, task: asyncio.Task[Instance]) -> None:
        if self._asking.get(instance_id) is task:
            del self._asking[instance_id]
        if not task.cancelled():
            task.exception()  # seen, even if every request waiting for it went away

    async def _ask(self, instance_id: str) -> Instance:
        url = f"{self.api_base}/applications/{self.client_id}/activity-instances/{instance_id}"
        headers = {"Authorization": f"Bot {self._bot_token}"}
        try:
            answer = await self.calls.request("instance", "GET", url, headers=headers)
        except NoAnswer as e:
            log.warning("could not ask Discord for an Activity instance: %s", e)
            raise DiscordUnavailable("Discord did not answer") from None
        status, body = answer.status, answer.body
        if status == 404:  # no such instance (or it has ended)
            found = Instance(None, frozenset(), self.clock())
        elif status != 200 or not isinstance(body, dict):
            log.warning("Discord did not describe an Activity instance (HTTP %s)", status)
            raise DiscordUnavailable(f"Discord answered {status}")
        else:
            found = self._described(body)
        self._instances[instance_id] = found
        self._instances.move_to_end(instance_id)
        while len(self._instances) > INSTANCES_KEPT:
            self._instances.popitem(last=False)
        return found

    def _described(self, body: dict[str, object]) -> Instance:
        """The Activity Instance object Discord answered (one of another application
        admits nobody)."""
        location = body.get("location")
        channel = location.get("channel_id") if isinstance(location, dict) else None
        app, users = body.get("application_id"), body.get("users")
        if app not in (None, str(self.client_id)) or not isinstance(channel, str):
            channel = None
        people = [u for u in users if isinstance(u, str)] if isinstance(users, list) else []
        return Instance(channel, frozenset(people), self.clock())
