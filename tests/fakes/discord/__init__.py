"""A local fake of Discord for the adapter's end-to-end tests: REST API and gateway.

The real discord.py client talks to it as it would to Discord (``DiscordSettings``
``api_base`` and ``gateway_url``), so the tests exercise the library's own
requests and parsing, not mocks of it.

REST (under ``/api/v10``)
    the bot user (401 for another token), application info, ``/gateway`` and
    ``/gateway/bot``, command sync (global and guild; names, descriptions, choices
    and their localizations checked as Discord checks them), interaction callbacks
    (JSON or multipart, types 4 to 8, and 12, LAUNCH_ACTIVITY, for an application
    with an Activity: :attr:`FakeDiscord.activities`; it starts an Activity instance in
    the interaction's channel with its user, or adds them to the one running there),
    the Activity instances (the bot's token, the application's id;
    :meth:`FakeDiscord.add_instance`, :meth:`FakeDiscord.join_instance`), followups
    and edits of interaction
    messages (``@original`` and followups), channel messages (post, get, edit,
    delete), channels, and the attachments' bytes.  Requests are checked as
    Discord checks them (message limits, attachment descriptions of at most 1024
    characters, components, allowed mentions, the three seconds for the first
    response, one response per interaction, a followup right after a deferred
    message edits the loading message and keeps its visibility); refusals are
    Discord's error bodies and are kept in :attr:`FakeDiscord.errors`.

Gateway (a websocket at ``/gateway``, zlib-stream compressed when asked)
    HELLO, IDENTIFY (token checked, 4004 otherwise; privileged intents not
    enabled for the bot, 4014; a bad shard, 4010), READY, GUILD_CREATE for
    the shard that owns the guild (its text channels, more with
    :meth:`FakeDiscord.add_channel`, a thread, the @everyone role, the bot's
    member), heartbeats answered.
    :attr:`FakeDiscord.refuse_identify` closes every IDENTIFY with a given code
    (Discord refusing a session whose token REST still takes), and
    :meth:`FakeDiscord.drop_sessions` closes the live sessions with a given code.

State
    channels with their messages (content, embeds, components, attachments
    with their bytes and descriptions, flags, allowed mentions, who was pinged;
    ephemeral messages are visible only to their user), every REST call, the synced
    commands, every interaction with its responses.

Tests inject interactions (:meth:`FakeDiscord.slash`, :meth:`FakeDiscord.click`,
:meth:`FakeDiscord.autocomplete`) from :class:`Member` s and wait for
conditions with :meth:`FakeDiscord.wait_for` (woken by every change, no sleeps).
A click can arrive late (every response refused with 10062, as Discord does
after three seconds) or reach every gateway session (two workers);
:meth:`FakeDiscord.fail` makes chosen requests fail the way Discord fails, and
:meth:`FakeDiscord.rate_limit` answers them 429 (discord.py waits and tries again).
:meth:`FakeDiscord.storm` answers every request (or a route's) 429 (global or the
route's, with ``retry_after``), 500 or 502 for a while, a 5xx maybe after doing it, and
keeps the requests that did not wait as a 429 asked; a post's enforced nonce makes it
safe to repeat (:mod:`~tests.fakes.discord.storms`).

Places reached through interactions only (:mod:`~tests.fakes.discord.places`): a group
DM (:meth:`FakeDiscord.group_dm`) or a server the bot is not in
(:meth:`FakeDiscord.foreign_channel`), where a user-installed ``/ludo`` is used: every
channel endpoint answers 403 Missing Access there, tokens last 15 minutes on the
fake's clock (:meth:`FakeDiscord.advance`), at most 5 followups.

The bot's DMs with people (:mod:`~tests.fakes.discord.dms`): ``POST /users/@me/channels``
opens a person's DM (the same channel each time), the bot's messages there, commands
and presses from it (no guild, ``user`` instead of ``member``, context 1), people whose
DMs are closed to the bot (:meth:`FakeDiscord.close_dms`: every message created there is
refused, 403 50007) and people who installed the app (:meth:`FakeDiscord.install`).

The fake is one class, :class:`FakeDiscord`, put together from a module per concept:
:mod:`~tests.fakes.discord.model` (what Discord knows and keeps),
:mod:`~tests.fakes.discord.server` (state, routes, waiting, looking, REST plumbing),
:mod:`~tests.fakes.discord.gateway`, :mod:`~tests.fakes.discord.rest` (the bot's
requests: commands, messages), :mod:`~tests.fakes.discord.interactions` and
:mod:`~tests.fakes.discord.activity` (its instances and OAuth2 sign-in).  Tests import
everything from this package.
"""

from __future__ import annotations

from tests.fakes.discord.activity import Activity
from tests.fakes.discord.dms import Dms
from tests.fakes.discord.gateway import Gateway
from tests.fakes.discord.interactions import Interactions
from tests.fakes.discord.model import (
    ARCHIVE_DURATIONS,
    ATTACH_FILES,
    ATTACHMENT_DESCRIPTION_LIMIT,
    ATTACHMENT_LIMIT,
    BOT_PERMISSIONS,
    CLOSE_REASONS,
    CREATE_FLAGS,
    CREATE_PUBLIC_THREADS,
    DISCORD_EPOCH,
    EMBED_LINKS,
    EMBEDDED,
    EPHEMERAL,
    FIRST_RESPONSE,
    LOADING,
    LOCALES,
    MANAGE_MESSAGES,
    MEMBER_PERMISSIONS,
    PRIVILEGED_INTENTS,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    TOKEN_LIFETIME,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    ActivityInstance,
    Attachment,
    Callback,
    Failure,
    Interaction,
    Member,
    Message,
    RestCall,
    content_type,
    png_size,
)
from tests.fakes.discord.places import Places
from tests.fakes.discord.rest import Rest
from tests.fakes.discord.server import Server
from tests.fakes.discord.storms import GRACE, NONCE_SECONDS, Storm, Storms


class FakeDiscord(Storms, Interactions, Dms, Places, Rest, Activity, Gateway, Server):
    """Discord on 127.0.0.1: start it, point the adapter at it, inject interactions."""


__all__ = [
    "ARCHIVE_DURATIONS",
    "ATTACHMENT_DESCRIPTION_LIMIT",
    "ATTACHMENT_LIMIT",
    "ATTACH_FILES",
    "BOT_PERMISSIONS",
    "CLOSE_REASONS",
    "CREATE_FLAGS",
    "CREATE_PUBLIC_THREADS",
    "DISCORD_EPOCH",
    "EMBEDDED",
    "EMBED_LINKS",
    "EPHEMERAL",
    "FIRST_RESPONSE",
    "GRACE",
    "LOADING",
    "LOCALES",
    "MANAGE_MESSAGES",
    "MEMBER_PERMISSIONS",
    "NONCE_SECONDS",
    "PRIVILEGED_INTENTS",
    "READ_MESSAGE_HISTORY",
    "SEND_MESSAGES",
    "SEND_MESSAGES_IN_THREADS",
    "TOKEN_LIFETIME",
    "USE_APPLICATION_COMMANDS",
    "VIEW_CHANNEL",
    "ActivityInstance",
    "Attachment",
    "Callback",
    "Failure",
    "FakeDiscord",
    "Interaction",
    "Member",
    "Message",
    "RestCall",
    "Storm",
    "content_type",
    "png_size",
]
