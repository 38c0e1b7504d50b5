"""The fake Discord's REST API for the bot: the bot user and application, command sync
(names, descriptions, choices and localizations checked as Discord checks them), and
channel messages (posted, fetched, edited, deleted; limits, components, allowed
mentions and attachments checked), threads and attachments' bytes."""

from __future__ import annotations

import re
import time
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import (
    ARCHIVE_DURATIONS,
    ATTACHMENT_DESCRIPTION_LIMIT,
    ATTACHMENT_LIMIT,
    COMMAND_NAME,
    CREATE_FLAGS,
    EMBEDDED,
    EPHEMERAL,
    LOADING,
    LOCALES,
    Attachment,
    DiscordError,
    Interaction,
    Message,
    content_type,
    form_error,
    json_response,
    png_size,
)


class Rest:
    """The bot's REST requests: its user and application, commands, messages."""

    async def _get_application(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        return json_response(
            {
                "id": str(self.app_id),
                "name": "Ludo",
                "icon": None,
                "description": "Ludo in your channels",
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": {
                    "id": str(self.owner_id),
                    "username": "owner",
                    "discriminator": "0",
                    "avatar": None,
                },
                "team": None,
                "verify_key": "0" * 64,
                "flags": EMBEDDED if self.activities else 0,
                "summary": "",
                "bot": self.bot_user,
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
            }
        )

    # ------------------------------------------------------------------
    # REST: commands

    @staticmethod
    def _check_name(name: Any, where: str, problems: dict[str, str]) -> None:
        if not isinstance(name, str) or not COMMAND_NAME.match(name) or name != name.lower():
            problems[where] = f"invalid name {name!r}"

    @staticmethod
    def _localizations(obj: dict[str, Any], key: str, where: str, problems: dict[str, str]) -> None:
        """``name_localizations`` / ``description_localizations``: Discord's locales only."""
        given = obj.get(key)
        if given is None:
            return
        if not isinstance(given, dict):
            problems[f"{where}.{key}"] = "not an object"
            return
        for locale in given:
            if locale not in LOCALES:
                problems[f"{where}.{key}.{locale}"] = f"invalid locale {locale!r}"

    def _check_command(self, cmd: Any, where: str, problems: dict[str, str], top: bool) -> None:
        if not isinstance(cmd, dict):
            problems[where] = "not an object"
            return
        self._check_name(cmd.get("name"), where + ".name", problems)
        self._localizations(cmd, "name_localizations", where, problems)
        for locale, name in (cmd.get("name_localizations") or {}).items():
            self._check_name(name, f"{where}.name_localizations.{locale}", problems)
        desc = cmd.get("description")
        if not isinstance(desc, str) or not 1 <= len(desc) <= 100:
            problems[where + ".description"] = f"description must be 1-100 characters: {desc!r}"
        self._localizations(cmd, "description_localizations", where, problems)
        for locale, text in (cmd.get("description_localizations") or {}).items():
            if not isinstance(text, str) or not 1 <= len(text) <= 100:
                problems[f"{where}.description_localizations.{locale}"] = "1-100 characters"
        if top:
            # where the command may be installed (0 a server, 1 a user) and used (0 a server,
            # 1 the bot's DM, 2 other DMs and group DMs)
            for key, allowed in (("integration_types", {0, 1}), ("contexts", {0, 1, 2})):
                value = cmd.get(key)
                if value is not None and (
                    not isinstance(value, list) or not value or not set(value) <= allowed
                ):
                    problems[f"{where}.{key}"] = f"a list of values in {sorted(allowed)}"
        opts = cmd.get("options") or []
        if len(opts) > 25:
            problems[where + ".options"] = "more than 25 options"
        seen_optional = False
        names = set()
        for k, o in enumerate(opts):
            w = f"{where}.options.{k}"
            if not isinstance(o, dict):
                problems[w] = "not an object"
                continue
            if o.get("name") in names:
                problems[w + ".name"] = "duplicate option name"
            names.add(o.get("name"))
            t = o.get("type")
            if t in (1, 2):
                self._check_command(o, w, problems, top=False)
                continue
            self._check_command({**o, "options": []}, w, problems, top=False)
            if o.get("required"):
                if seen_optional:
                    problems[w + ".required"] = "required options must come before optional ones"
            else:
                seen_optional = True
            choices = o.get("choices") or []
            if len(choices) > 25:
                problems[w + ".choices"] = "more than 25 choices"
            if choices and o.get("autocomplete"):
                problems[w + ".autocomplete"] = "autocomplete cannot have choices"
            for j, c in enumerate(choices):
                cw = f"{w}.choices.{j}"
                self._localizations(c, "name_localizations", cw, problems)
                given = [c.get("name"), *(c.get("name_localizations") or {}).values()]
                if not all(isinstance(n, str) and 1 <= len(n) <= 100 for n in given):
                    problems[cw + ".name"] = "1-100 characters"
        # an option's name, in any locale, is one of its own among its siblings
        for locale in LOCALES:
            said = [(o.get("name_localizations") or {}).get(locale, o.get("name")) for o in opts]
            if len(set(said)) < len(said):
                problems[f"{where}.options.name_localizations.{locale}"] = "duplicate name"

    async def _put_commands(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        if int(request.match_info["app"]) != self.app_id:
            raise DiscordError(403, 50001, "Missing Access")
        guild = request.match_info.get("guild")
        scope = int(guild) if guild is not None else None
        if scope is not None and scope != self.guild_id:
            raise DiscordError(403, 50001, "Missing Access")
        body = self._call(request).body
        if not isinstance(body, list) or len(body) > 100:
            raise form_error({"_": "a list of at most 100 commands"})
        problems: dict[str, str] = {}
        for k, cmd in enumerate(body):
            self._check_command(cmd, str(k), problems, top=True)
        if problems:
            raise form_error(problems)
        old = {c["name"]: c for c in self.commands.get(scope, [])}
        out = []
        for cmd in body:
            prev = old.get(cmd["name"])
            stored = dict(cmd)
            stored.setdefault("type", 1)
            stored["id"] = prev["id"] if prev else str(self.snowflake())
            stored["application_id"] = str(self.app_id)
            stored["version"] = str(self.snowflake())
            stored["default_member_permissions"] = cmd.get("default_member_permissions")
            if scope is not None:
                stored["guild_id"] = str(scope)
            out.append(stored)
        self.commands[scope] = out
        self.command_syncs.append((scope, out))
        return json_response(out)

    async def _get_commands(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        guild = request.match_info.get("guild")
        return json_response(self.commands.get(int(guild) if guild else None, []))

    # ------------------------------------------------------------------
    # REST: messages

    def _resolve_files(
        self, channel_id: int, files: list[tuple[str, str, bytes]]
    ) -> dict[int, Attachment]:
        """files[n] -> new attachments (by n)."""
        out = {}
        for name, filename, data in files:
            m = re.fullmatch(r"files\[(\d+)\]", name)
            if m is None:
                raise form_error({name: "unknown form field"})
            if len(data) > ATTACHMENT_LIMIT:
                raise DiscordError(413, 40005, "Request entity too large")
            aid = self.snowflake()
            ctype = content_type(data, filename)
            url = f"{self.base}/attachments/{channel_id}/{aid}/{filename}"
            out[int(m.group(1))] = Attachment(aid, filename, data, ctype, url)
        return out

    def _check_message(self, body: dict[str, Any], creating: bool, files: int) -> None:
        problems: dict[str, str] = {}
        content = body.get("content")
        if content is not None and (not isinstance(content, str) or len(content) > 2000):
            problems["content"] = "must be 2000 or fewer in length"
        embeds = body.get("embeds")
        if embeds is not None:
            if not isinstance(embeds, list) or len(embeds) > 10:
                problems["embeds"] = "at most 10 embeds"
            else:
                total = 0
                for k, e in enumerate(embeds):
                    desc = str(e.get("description") or "")
                    title = str(e.get("title") or "")
                    if len(desc) > 4096:
                        problems[f"embeds.{k}.description"] = "must be 4096 or fewer in length"
                    if len(title) > 256:
                        problems[f"embeds.{k}.title"] = "must be 256 or fewer in length"
                    colour = e.get("color")
                    if colour is not None and not 0 <= int(colour) <= 0xFFFFFF:
                        problems[f"embeds.{k}.color"] = "invalid colour"
                    total += len(desc) + len(title)
                if total > 6000:
                    problems["embeds"] = "embed size exceeds maximum size of 6000"
        comps = body.get("components")
        if comps is not None:
            if not isinstance(comps, list) or len(comps) > 5:
                problems["components"] = "at most 5 action rows"
            else:
                seen: set[str] = set()
                for r, row in enumerate(comps):
                    inner = row.get("components") or []
                    if row.get("type") != 1 or not 1 <= len(inner) <= 5:
                        problems[f"components.{r}"] = "an action row holds 1 to 5 buttons"
                        continue
                    for c, b in enumerate(inner):
                        w = f"components.{r}.components.{c}"
                        if b.get("type") != 2:
                            problems[w + ".type"] = "only buttons here"
                            continue
                        label = b.get("label")
                        if label is not None and len(str(label)) > 80:
                            problems[w + ".label"] = "must be 80 or fewer in length"
                        if b.get("style") in (1, 2, 3, 4):
                            cid = b.get("custom_id")
                            if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
                                problems[w + ".custom_id"] = "1 to 100 characters"
                            elif cid in seen:
                                problems[w + ".custom_id"] = "COMPONENT_CUSTOM_ID_DUPLICATED"
                            else:
                                seen.add(cid)
                        elif b.get("style") != 5:
                            problems[w + ".style"] = "invalid style"
        attachments = body.get("attachments")
        if attachments is not None:
            if not isinstance(attachments, list) or len(attachments) > 10:
                problems["attachments"] = "at most 10 attachments"
            else:
                for k, a in enumerate(attachments):
                    alt = a.get("description") if isinstance(a, dict) else None
                    if alt is not None and (
                        not isinstance(alt, str) or len(alt) > ATTACHMENT_DESCRIPTION_LIMIT
                    ):
                        problems[f"attachments.{k}.description"] = (
                            f"must be {ATTACHMENT_DESCRIPTION_LIMIT} or fewer in length"
                        )
        am = body.get("allowed_mentions")
        if am is not None:
            parse = am.get("parse", [])
            if any(p not in ("users", "roles", "everyone") for p in parse):
                problems["allowed_mentions.parse"] = "invalid"
            if "users" in parse and am.get("users"):
                problems["allowed_mentions"] = "parse:users and users are mutually exclusive"
            if "roles" in parse and am.get("roles"):
                problems["allowed_mentions"] = "parse:roles and roles are mutually exclusive"
            if len(am.get("users", [])) > 100:
                problems["allowed_mentions.users"] = "at most 100"
        flags = body.get("flags")
        if flags is not None and creating and int(flags) & ~CREATE_FLAGS:
            problems["flags"] = "only SUPPRESS_EMBEDS, EPHEMERAL, SUPPRESS_NOTIFICATIONS"
        if problems:
            raise form_error(problems)
        if creating and not (content or embeds or comps or files or body.get("poll")):
            raise DiscordError(400, 50006, "Cannot send an empty message")

    def _pings(self, msg: Message) -> None:
        """Who the message's content notifies, under its allowed mentions (Discord's rules)."""
        am = msg.allowed_mentions
        msg.ping_allowed_mentions = am
        parse = {"users", "roles", "everyone"} if am is None else set(am.get("parse", []))
        users = None if "users" in parse else {int(u) for u in (am or {}).get("users", [])}
        roles = None if "roles" in parse else {int(r) for r in (am or {}).get("roles", [])}
        text = msg.content or ""
        unescaped = r"(?<!\\)"
        msg.pinged_users = {
            int(u)
            for u in re.findall(unescaped + r"<@!?(\d+)>", text)
            if users is None or int(u) in users
        }
        msg.pinged_roles = {
            int(r)
            for r in re.findall(unescaped + r"<@&(\d+)>", text)
            if roles is None or int(r) in roles
        }
        msg.pinged_everyone = "everyone" in parse and bool(
            re.search(unescaped + r"@(everyone|here)\b", text)
        )

    def _apply(
        self,
        msg: Message,
        body: dict[str, Any],
        new_files: dict[int, Attachment],
        *,
        creating: bool,
    ) -> None:
        """Apply a create or edit body to ``msg`` (Discord's edit semantics: absent keeps)."""
        if "content" in body:
            msg.content = body["content"] or ""
        if "components" in body:
            msg.components = body["components"] or []
        if "allowed_mentions" in body:
            msg.allowed_mentions = body["allowed_mentions"]
        if "attachments" in body and body["attachments"] is not None:
            keep = []
            for a in body["attachments"]:
                aid = int(a["id"])
                if aid in new_files:
                    new = new_files.pop(aid)
                    new.description = a.get("description")
                    keep.append(new)
                else:
                    old = next((x for x in msg.attachments if x.id == aid), None)
                    if old is None:
                        raise form_error({"attachments": f"unknown attachment {aid}"})
                    keep.append(old)
            msg.attachments = keep + list(new_files.values())
        elif new_files:
            msg.attachments = msg.attachments + list(new_files.values())
        if "embeds" in body:
            # attachment:// references resolve once the attachments are known
            msg.embeds = [self._resolve_embed(msg, e) for e in body["embeds"] or []]
        if "flags" in body and body["flags"] is not None and not creating:
            # the ephemeral and loading states cannot change by an edit
            keep_bits = msg.flags & (EPHEMERAL | LOADING)
            msg.flags = (int(body["flags"]) & ~(EPHEMERAL | LOADING)) | keep_bits
        if not creating:
            msg.edits += 1
        msg.history.append(body)

    def _resolve_embed(self, msg: Message, embed: dict[str, Any]) -> dict[str, Any]:
        e = dict(embed)
        e.setdefault("type", "rich")
        for key in ("image", "thumbnail"):
            part = e.get(key)
            if isinstance(part, dict) and str(part.get("url", "")).startswith("attachment://"):
                name = part["url"][len("attachment://") :]
                att = next((a for a in msg.attachments if a.filename == name), None)
                if att is not None:
                    e[key] = {"url": att.url, "proxy_url": att.url}
                    size = png_size(att.data)
                    if size:
                        e[key]["width"], e[key]["height"] = size
        return e

    def _new_message(
        self,
        channel_id: int,
        body: dict[str, Any],
        files: list[tuple[str, str, bytes]],
        *,
        interaction: Interaction | None = None,
        loading: bool = False,
        type_: int = 0,
    ) -> Message:
        self._check_message(body, creating=not loading, files=len(files))
        flags = int(body.get("flags") or 0)
        msg = Message(
            id=self.snowflake(),
            channel_id=channel_id,
            author=self.bot_user,
            flags=(flags & CREATE_FLAGS) | (LOADING if loading else 0),
            interaction_id=interaction.id if interaction else None,
            webhook_id=self.app_id if interaction else None,
            type=type_,
        )
        if msg.ephemeral:
            assert interaction is not None
            msg.visible_to = interaction.member.id
        new_files = self._resolve_files(channel_id, files)
        self._apply(msg, body, new_files, creating=True)
        if not loading:
            self._pings(msg)
        self.messages[msg.id] = msg
        return msg

    def _edit_message(
        self, msg: Message, body: dict[str, Any], files: list[tuple[str, str, bytes]]
    ) -> None:
        self._check_message(body, creating=False, files=len(files))
        new_files = self._resolve_files(msg.channel_id, files)
        was_loading = msg.loading
        self._apply(msg, body, new_files, creating=False)
        if was_loading:
            # the deferred response is resolved: it appears now, and may ping like a new message
            msg.flags &= ~LOADING
            if not (msg.content or msg.embeds or msg.components or msg.attachments):
                raise DiscordError(400, 50006, "Cannot send an empty message")
            self._pings(msg)

    async def _post_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        cid = int(request.match_info["cid"])
        if cid not in self.channels:
            raise DiscordError(404, 10003, "Unknown Channel")
        call = self._call(request)
        body = call.body or {}
        if body.get("flags") and int(body["flags"]) & EPHEMERAL:
            raise form_error({"flags": "ephemeral messages only answer interactions"})
        prior = self.nonced(cid, body)
        if prior is not None:  # posted with this nonce lately: that message, nothing new
            return json_response(prior.json(self.guild_of(prior.channel_id)))
        self.check_dm_create(cid)  # a DM closed to the bot: 50007
        msg = self._new_message(cid, body, call.files)
        if body.get("nonce") is not None:
            self.nonces[(cid, str(body["nonce"]))] = msg
        return json_response(msg.json(self.guild_of(msg.channel_id)))

    async def _post_thread(self, request: web.Request) -> web.Response:
        """Start Thread without Message: a public thread of a text channel (the bot needs
        Create Public Threads; a thread cannot have threads)."""
        self._bot_auth(request)
        cid = int(request.match_info["cid"])
        parent = self.channels.get(cid)
        if parent is None:
            raise DiscordError(404, 10003, "Unknown Channel")
        if parent["type"] not in (0, 5):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if not self.threads_allowed:
            raise DiscordError(403, 50013, "Missing Permissions")
        body = self._call(request).body or {}
        problems = {}
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems["name"] = "Must be between 1 and 100 in length."
        if body.get("auto_archive_duration", 4320) not in ARCHIVE_DURATIONS:
            problems["auto_archive_duration"] = "Value must be one of (60, 1440, 4320, 10080)."
        if body.get("type", 12) not in (11, 12):
            problems["type"] = "Value must be one of (11, 12)."
        if problems:
            raise form_error(problems)
        tid = self.snowflake()
        thread = dict(self.channels[self.thread_id], id=str(tid), name=name, parent_id=str(cid))
        thread["type"] = body.get("type", 12)
        thread["thread_metadata"] = dict(
            thread["thread_metadata"], auto_archive_duration=body.get("auto_archive_duration", 4320)
        )
        self.channels[tid] = thread
        self.made_threads.append(tid)
        return json_response(thread, status=201)

    def _message_in(self, cid: int, mid: int) -> Message:
        msg = self.messages.get(mid)
        if msg is None or msg.deleted or msg.channel_id != cid or msg.ephemeral:
            raise DiscordError(404, 10008, "Unknown Message")
        return msg

    async def _get_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        msg = self._message_in(int(request.match_info["cid"]), int(request.match_info["mid"]))
        return json_response(msg.json(self.guild_of(msg.channel_id)))

    async def _patch_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        msg = self._message_in(int(request.match_info["cid"]), int(request.match_info["mid"]))
        if msg.author["id"] != str(self.bot_id):
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        call = self._call(request)
        self._edit_message(msg, call.body or {}, call.files)
        return json_response(msg.json(self.guild_of(msg.channel_id)))

    async def _delete_channel_message(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        msg = self._message_in(int(request.match_info["cid"]), int(request.match_info["mid"]))
        if msg.author["id"] != str(self.bot_id):
            raise DiscordError(403, 50013, "Missing Permissions")
        msg.deleted, msg.deleted_at = True, time.monotonic()
        return web.Response(status=204)

    async def _get_channel(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        channel = self.channels.get(int(request.match_info["cid"]))
        if channel is None:
            raise DiscordError(404, 10003, "Unknown Channel")
        return json_response(channel)

    async def _get_attachment(self, request: web.Request) -> web.Response:
        aid = int(request.match_info["aid"])
        for m in self.messages.values():
            for a in m.attachments:
                if a.id == aid:
                    return web.Response(body=a.data, content_type=a.content_type)
        raise web.HTTPNotFound()
