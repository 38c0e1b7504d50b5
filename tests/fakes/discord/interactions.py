"""Interactions on the fake Discord: a person's slash command, autocompletion and
button press sent to the bot over the gateway, and the bot's answers to them
(callbacks within three seconds, once; followups; edits of the original message)."""

from __future__ import annotations

import secrets
import time
from typing import Any

from aiohttp import web

from tests.fakes.discord.model import (
    ATTACHMENT_LIMIT,
    BOT_PERMISSIONS,
    EPHEMERAL,
    FIRST_RESPONSE,
    TOKEN_LIFETIME,
    Callback,
    DiscordError,
    Interaction,
    Member,
    Message,
    form_error,
    json_response,
)
from tests.fakes.discord.places import FOLLOWUPS


class Interactions:
    """Interactions sent to the bot, and its REST answers to them."""

    # ------------------------------------------------------------------
    # injecting interactions

    def _guild_command(self, name: str) -> tuple[dict[str, Any], int | None]:
        for scope in (self.guild_id, None):
            for cmd in self.commands.get(scope, []):
                if cmd["name"] == name:
                    return cmd, scope
        raise AssertionError(f"no command /{name} was synced: Discord would not offer it")

    def _interaction_base(
        self, type_: int, member: Member, channel_id: int | None
    ) -> dict[str, Any]:
        cid = self.channel_id if channel_id is None else channel_id
        if cid not in self.user_only and self.recipient(cid) is not None:
            return self._dm_base(type_, member, cid)  # the bot's DM with the person
        payload = self._guild_base(type_, member, cid)
        if payload.pop("_user_only", False):
            self._user_only_base(payload, member, cid)
        return payload

    def _guild_base(self, type_: int, member: Member, cid: int) -> dict[str, Any]:
        channel = self.channels.get(cid)
        assert channel is not None, f"no channel {cid}"
        return {
            "id": str(self.snowflake()),
            "application_id": str(self.app_id),
            "type": type_,
            "token": "itok-" + secrets.token_urlsafe(24),
            "version": 1,
            "guild_id": str(self.guild_id),
            "guild": {"id": str(self.guild_id), "locale": "en-US", "features": []},
            "channel_id": str(cid),
            "channel": dict(channel, permissions=str(member.permissions)),
            "member": member.member_json(),
            "app_permissions": str(BOT_PERMISSIONS),
            "locale": member.locale,
            "guild_locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(self.guild_id)},
            "context": 0,
            "attachment_size_limit": ATTACHMENT_LIMIT,
        } | ({} if cid not in self.user_only else {"_user_only": True})

    def _command_options(
        self, cmd: dict[str, Any], sub: str, values: dict[str, Any], focused: str | None
    ) -> list[dict[str, Any]]:
        """The options of ``/cmd sub`` as the Discord client sends them (checked as it checks)."""
        subs = {o["name"]: o for o in cmd.get("options", []) if o["type"] == 1}
        assert sub in subs, f"/{cmd['name']} has no subcommand {sub!r} (has {sorted(subs)})"
        spec = {o["name"]: o for o in subs[sub].get("options", [])}
        out = []
        for name, value in values.items():
            assert name in spec, f"/{cmd['name']} {sub} has no option {name!r}"
            o = spec[name]
            if name == focused:
                assert o.get("autocomplete"), f"option {name} has no autocomplete"
                out.append({"name": name, "type": o["type"], "value": str(value), "focused": True})
                continue
            if o["type"] == 4:
                assert isinstance(value, int) and not isinstance(value, bool), (name, value)
                assert o.get("min_value") is None or value >= o["min_value"], (name, value)
                assert o.get("max_value") is None or value <= o["max_value"], (name, value)
            elif o["type"] == 5:
                assert isinstance(value, bool), (name, value)
            elif o["type"] == 3:
                assert isinstance(value, str), (name, value)
            elif o["type"] == 6:
                # a person picked from the member list: their id (resolved beside)
                assert isinstance(value, Member), (name, value)
                value = str(value.id)
            if o.get("choices"):
                assert value in [c["value"] for c in o["choices"]], (name, value)
            out.append({"name": name, "type": o["type"], "value": value})
        if focused is None:
            missing = [n for n, o in spec.items() if o.get("required") and n not in values]
            assert not missing, f"required options missing: {missing}"
        return out

    async def slash(
        self,
        member: Member,
        sub: str,
        /,
        *,
        channel_id: int | None = None,
        command: str = "ludo",
        **options: Any,
    ) -> Interaction:
        """``/command sub option:value ...`` typed by ``member``."""
        cmd, scope = self._guild_command(command)
        payload = self._interaction_base(2, member, channel_id)
        if payload["context"] == 1:
            # the bot's DM: only global commands allowed in that context are offered
            assert scope is None, "a server's commands are not offered outside it"
            assert 1 in cmd.get("contexts", [0, 1, 2]), "not for the bot's DM"
        elif "1" in payload["authorizing_integration_owners"]:
            # Discord offers a command there only if it is registered for user installs
            # and for that context
            assert scope is None, "a server's commands are not offered outside it"
            assert 1 in cmd.get("integration_types", [0]), "not registered for user installs"
            assert payload["context"] in cmd.get("contexts", [0, 1, 2]), "not for this context"
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 1,
            "options": [
                {"name": sub, "type": 1, "options": self._command_options(cmd, sub, options, None)}
            ],
        }
        people = [v for v in options.values() if isinstance(v, Member)]
        if people:
            # Discord sends the users and members that options name
            members = {}
            for p in people:
                m = p.member_json()
                del m["user"]
                members[str(p.id)] = m
            data["resolved"] = {
                "users": {str(p.id): p.user_json() for p in people},
                "members": members,
            }
        if scope is not None:
            data["guild_id"] = str(scope)
        payload["data"] = data
        return await self._send_interaction(payload, member)

    async def autocomplete(
        self,
        member: Member,
        sub: str,
        focused: str,
        typed: str = "",
        *,
        channel_id: int | None = None,
        command: str = "ludo",
        **options: Any,
    ) -> Interaction:
        """``member`` typing ``typed`` into option ``focused`` of ``/command sub``."""
        cmd, scope = self._guild_command(command)
        payload = self._interaction_base(4, member, channel_id)
        values = dict(options)
        values[focused] = typed
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 1,
            "options": [
                {
                    "name": sub,
                    "type": 1,
                    "options": self._command_options(cmd, sub, values, focused),
                }
            ],
        }
        if scope is not None:
            data["guild_id"] = str(scope)
        payload["data"] = data
        return await self._send_interaction(payload, member)

    async def click(
        self,
        member: Member,
        message: Message,
        label: str | None = None,
        custom_id: str | None = None,
        *,
        age: float = 0.0,
        everywhere: bool = False,
    ) -> Interaction:
        """``member`` presses a button of ``message`` (by label or custom_id).

        Like Discord, only a button that is on the message can be pressed, and only on
        a message the bot's application sent.  ``age``: the interaction reaches the bot
        that many seconds late (over 3: every response is refused, 10062 Unknown
        interaction).  ``everywhere``: delivered to every gateway session of the guild's
        shard (two workers receiving the same press)."""
        assert label is not None or custom_id is not None
        current = self.messages.get(message.id)
        assert current is not None and not current.deleted, f"message {message.id} is gone"
        assert current.author["id"] == str(self.bot_id), "not a message of the bot"
        if current.visible_to is not None:
            assert current.visible_to == member.id, "that ephemeral message is not theirs"
        button = current.button(label, custom_id)
        assert not button.get("disabled"), "a disabled button cannot be pressed"
        payload = self._interaction_base(3, member, current.channel_id)
        source = next((i for i in self.interactions if i.id == current.interaction_id), None)
        if source is not None:
            # a component carries the owners that authorized the message's interaction
            # (in a group DM: whoever used their installed app, not the presser)
            owners = source.payload["authorizing_integration_owners"]
            payload["authorizing_integration_owners"] = dict(owners)
        payload["data"] = {"custom_id": button["custom_id"], "component_type": 2}
        payload["message"] = current.json(self.guild_of(current.channel_id))
        return await self._send_interaction(
            payload, member, message_id=current.id, age=age, everywhere=everywhere
        )

    async def _send_interaction(
        self,
        payload: dict[str, Any],
        member: Member,
        message_id: int | None = None,
        *,
        age: float = 0.0,
        everywhere: bool = False,
    ) -> Interaction:
        # a DM's or group DM's interactions come to the first shard (as for guild 0)
        conns = self._connections_for(int(payload.get("guild_id") or 0))
        self.users[member.id] = member
        inter = Interaction(
            id=int(payload["id"]),
            token=payload["token"],
            type=payload["type"],
            member=member,
            channel_id=int(payload["channel_id"]),
            payload=payload,
            created=self.now() - age,
            message_id=message_id,
        )
        self.interactions.append(inter)
        self._by_token[inter.token] = inter
        for conn in conns if everywhere else conns[:1]:
            await self._dispatch(conn, "INTERACTION_CREATE", payload)
        return inter

    async def answered(self, inter: Interaction, timeout: float = FIRST_RESPONSE + 1) -> Callback:
        """Wait for the interaction's first response (Discord allows three seconds); after a
        deferred message (type 5, "thinking…"), also for the bot's next request about it."""
        await self.wait_for(
            lambda: inter.answered, timeout, f"a response to interaction {inter.id}"
        )
        if inter.callback.type == 5:
            await self.wait_for(
                lambda: inter.webhook_calls, 15, f"the deferred answer to interaction {inter.id}"
            )
        return inter.callback

    # ------------------------------------------------------------------
    # REST: interactions

    def _interaction(self, token: str, *, app: str | None = None) -> Interaction:
        inter = self._by_token.get(token)
        if inter is None or (app is not None and int(app) != self.app_id):
            raise DiscordError(404, 10015, "Unknown Webhook")
        inter.webhook_calls += 1
        if self.now() - inter.created > TOKEN_LIFETIME:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        return inter

    async def _post_callback(self, request: web.Request) -> web.Response:
        call = self._call(request)
        inter = self._by_token.get(request.match_info["token"])
        body = call.body or {}
        type_ = int(body.get("type", 0))
        data = body.get("data") or {}
        delay = 0.0
        try:
            if inter is None or inter.id != int(request.match_info["iid"]):
                raise DiscordError(404, 10062, "Unknown interaction")
            delay = self.now() - inter.created
            if inter.answered:
                raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
            if delay > FIRST_RESPONSE:
                raise DiscordError(404, 10062, "Unknown interaction")
            resource = self._answer(inter, type_, data, call.files)
        except DiscordError as e:
            if inter is not None:
                inter.callbacks.append(Callback(type_, data, delay, e.status))
            raise
        inter.callbacks.append(Callback(type_, data, delay, 200))
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        original = self.messages.get(inter.original_id) if inter.original_id else None
        out: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "response_message_id": str(original.id) if original else None,
                "response_message_loading": bool(original and original.loading),
                "response_message_ephemeral": bool(original and original.ephemeral),
            }
        }
        if resource is not None:
            out["resource"] = resource
        return json_response(out)

    def _answer(
        self,
        inter: Interaction,
        type_: int,
        data: dict[str, Any],
        files: list[tuple[str, str, bytes]],
    ) -> dict[str, Any] | None:
        component = inter.type == 3
        if type_ == 8:
            if inter.type != 4:
                raise form_error({"type": "autocomplete results answer autocomplete only"})
            self._check_choices(inter, data.get("choices"))
            return None
        if inter.type == 4:
            raise form_error({"type": "an autocomplete interaction needs choices (type 8)"})
        if type_ in (4, 5) and self.forced_ephemeral(inter.channel_id):
            data = dict(data, flags=int(data.get("flags") or 0) | EPHEMERAL)
        if type_ == 4:
            kind = 20 if inter.type == 2 else 0
            msg = self._new_message(inter.channel_id, data, files, interaction=inter, type_=kind)
            inter.original_id = msg.id
            return {"type": 4, "message": msg.json(self.guild_of(msg.channel_id))}
        if type_ == 5:
            flags = int(data.get("flags") or 0)
            if flags & ~EPHEMERAL:
                raise form_error({"data.flags": "a deferred message may only be ephemeral"})
            kind = 20 if inter.type == 2 else 0
            msg = self._new_message(
                inter.channel_id,
                {"flags": flags},
                [],
                interaction=inter,
                loading=True,
                type_=kind,
            )
            inter.original_id = msg.id
            inter.deferred_loading = True
            return {"type": 5}
        if type_ in (6, 7):
            if not component:
                raise form_error({"type": "only component interactions can update a message"})
            assert inter.message_id is not None
            msg = self.messages[inter.message_id]
            inter.original_id = msg.id
            if type_ == 6:
                return None
            if msg.deleted:
                raise DiscordError(404, 10008, "Unknown Message")
            self._edit_message(msg, data, files)
            return {"type": 7, "message": msg.json(self.guild_of(msg.channel_id))}
        if type_ == 12:  # LAUNCH_ACTIVITY: no data; a command's or a component's answer
            if not self.activities:
                raise form_error({"type": "the application has no Activity to launch"})
            if data or inter.type not in (2, 3):
                raise form_error({"type": "LAUNCH_ACTIVITY answers a command or a component"})
            # the channel's running Activity takes the presser in; else one starts
            running = [i for i in self.instances.values() if i.channel_id == inter.channel_id]
            if running:
                iid = running[0].id
                self.join_instance(iid, inter.member.id)
            else:
                iid = f"i-{inter.id}"
                self.add_instance(inter.channel_id, [inter.member.id], instance_id=iid)
            return {"type": 12, "activity_instance": {"id": iid}}
        raise form_error({"type": f"invalid interaction callback type {type_}"})

    def _check_choices(self, inter: Interaction, choices: Any) -> None:
        if not isinstance(choices, list) or len(choices) > 25:
            raise form_error({"data.choices": "a list of at most 25 choices"})
        sub = inter.payload["data"]["options"][0]
        focused = next(o for o in sub["options"] if o.get("focused"))
        for k, c in enumerate(choices):
            name, value = c.get("name"), c.get("value")
            if not isinstance(name, str) or not 1 <= len(name) <= 100:
                raise form_error({f"data.choices.{k}.name": "1 to 100 characters"})
            if focused["type"] == 4 and (not isinstance(value, int) or isinstance(value, bool)):
                raise form_error({f"data.choices.{k}.value": "must be an integer"})
            if focused["type"] == 3 and not isinstance(value, str):
                raise form_error({f"data.choices.{k}.value": "must be a string"})

    async def _post_followup(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        if not inter.answered:
            raise DiscordError(404, 10015, "Unknown Webhook")
        call = self._call(request)
        body = call.body or {}
        if inter.deferred_loading:
            # Discord: the first followup after DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE edits the
            # loading message; its ephemeral flag is ignored, the defer's is kept
            inter.deferred_loading = False
            msg = self.messages[inter.original_id]  # type: ignore[index]
            self._edit_message(msg, {k: v for k, v in body.items() if k != "flags"}, call.files)
            return json_response(msg.json(self.guild_of(msg.channel_id)))
        if len(inter.followup_ids) >= FOLLOWUPS:
            raise DiscordError(
                400, 40094, "This interaction has hit the maximum number of follow up messages"
            )
        if self.forced_ephemeral(inter.channel_id):
            body = dict(body, flags=int(body.get("flags") or 0) | EPHEMERAL)
        msg = self._new_message(inter.channel_id, body, call.files, interaction=inter)
        inter.followup_ids.append(msg.id)
        return json_response(msg.json(self.guild_of(msg.channel_id)))

    def _webhook_message(self, inter: Interaction, mid: str) -> Message:
        if mid == "@original":
            if inter.original_id is None:
                raise DiscordError(404, 10008, "Unknown Message")
            return self.messages[inter.original_id]
        msg = self.messages.get(int(mid))
        if (
            msg is None
            or msg.deleted
            or (msg.id not in inter.followup_ids and msg.id != inter.original_id)
        ):
            raise DiscordError(404, 10008, "Unknown Message")
        return msg

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        msg = self._webhook_message(inter, request.match_info["mid"])
        return json_response(msg.json(self.guild_of(msg.channel_id)))

    async def _patch_webhook_message(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        msg = self._webhook_message(inter, request.match_info["mid"])
        call = self._call(request)
        if msg.loading:
            inter.deferred_loading = False
        self._edit_message(msg, call.body or {}, call.files)
        return json_response(msg.json(self.guild_of(msg.channel_id)))

    async def _delete_webhook_message(self, request: web.Request) -> web.Response:
        inter = self._interaction(request.match_info["token"], app=request.match_info["app"])
        msg = self._webhook_message(inter, request.match_info["mid"])
        msg.deleted, msg.deleted_at = True, time.monotonic()
        if msg.id == inter.original_id:
            inter.deferred_loading = False
        return web.Response(status=204)
