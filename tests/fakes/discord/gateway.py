"""The fake Discord's gateway: ``/gateway`` and ``/gateway/bot``, the websocket session
(HELLO, IDENTIFY checked, READY, GUILD_CREATE for the shard owning the guild,
heartbeats, zlib-stream), sessions closed with Discord's codes."""

from __future__ import annotations

import contextlib
import json
import secrets
import zlib
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.discord.model import (
    CLOSE_REASONS,
    MEMBER_PERMISSIONS,
    PRIVILEGED_INTENTS,
    Connection,
    json_response,
)


class Gateway:
    """The gateway: sessions, their shards, and the events sent on them."""

    async def drop_sessions(self, code: int = 4000) -> None:
        """Close every live gateway session with ``code`` (4000: the client may resume or
        identify again; 4004 or 4014: it may not)."""
        for conn in self.connections:
            if not conn.closed and not conn.ws.closed:
                with contextlib.suppress(Exception):
                    await self._close(conn, code)

    def guild_json(self) -> dict[str, Any]:
        g = str(self.guild_id)
        return {
            "id": g,
            "name": "Ludo Club",
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [
                {
                    "id": g,
                    "name": "@everyone",
                    "permissions": str(MEMBER_PERMISSIONS),
                    "position": 0,
                    "color": 0,
                    "colors": {"primary_color": 0},
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "preferred_locale": "en-US",
            "premium_tier": 0,
            "nsfw_level": 0,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "member_count": 4,
            "voice_states": [],
            "members": [
                {
                    "user": self.bot_user,
                    "nick": None,
                    "roles": [],
                    "joined_at": "2024-01-01T00:00:00+00:00",
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                }
            ],
            "channels": [c for c in self.channels.values() if c["type"] == 0],
            "threads": [self.channels[self.thread_id]],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def shard_of(self, guild_id: int, shards: int) -> int:
        return (guild_id >> 22) % shards

    def _connections_for(self, guild_id: int) -> list[Connection]:
        found = [
            conn
            for conn in self.connections
            if conn.ready
            and not conn.closed
            and self.shard_of(guild_id, conn.shard[1]) == conn.shard[0]
        ]
        if not found:
            raise AssertionError("the bot has no gateway session for the guild's shard")
        return found

    # ------------------------------------------------------------------
    # gateway

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = Connection(path=request.path, query=dict(request.query), ws=ws)
        if conn.query.get("compress") == "zlib-stream":
            conn.compress = zlib.compressobj()
        self.connections.append(conn)
        await self.changed()
        try:
            await self._send(
                conn, {"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None}
            )
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                try:
                    data = json.loads(msg.data)
                except ValueError:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                await self._gateway_op(conn, data)
        finally:
            conn.closed = True
            if conn.close_code is None:
                conn.close_code = ws.close_code
            await self.changed()
        return ws

    async def _gateway_op(self, conn: Connection, data: dict[str, Any]) -> None:
        op = data.get("op")
        d = data.get("d")
        if op == 1:
            conn.heartbeats += 1
            await self._send(conn, {"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            if conn.identify is not None:
                await conn.ws.close(code=4005, message=b"Already authenticated.")
                return
            if not isinstance(d, dict) or d.get("token") != self.token:
                await self._close(conn, 4004)
                return
            if self.refuse_identify is not None:
                await self._close(conn, self.refuse_identify)
                return
            intents = d.get("intents")
            if not isinstance(intents, int) or intents < 0:
                await self._close(conn, 4013)
                return
            if intents & PRIVILEGED_INTENTS & ~self.privileged_intents:
                await self._close(conn, 4014)
                return
            shard = d.get("shard") or [0, 1]
            if not (isinstance(shard, list) and len(shard) == 2 and 0 <= shard[0] < shard[1]):
                await self._close(conn, 4010)
                return
            conn.identify = d
            conn.shard = (int(shard[0]), int(shard[1]))
            conn.session_id = secrets.token_hex(16)
            owns_guild = self.shard_of(self.guild_id, conn.shard[1]) == conn.shard[0]
            await self._dispatch(
                conn,
                "READY",
                {
                    "v": 10,
                    "user": self.bot_user,
                    "application": {"id": str(self.app_id), "flags": 0},
                    "guilds": [{"id": str(self.guild_id), "unavailable": True}]
                    if owns_guild
                    else [],
                    "session_id": conn.session_id,
                    "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
                    "shard": list(conn.shard),
                    "private_channels": [],
                    "user_settings": {},
                    "relationships": [],
                    "presences": [],
                    "guild_join_requests": [],
                    "geo_ordered_rtc_regions": [],
                },
            )
            if owns_guild:
                await self._dispatch(conn, "GUILD_CREATE", self.guild_json())
            conn.ready = True
            await self.changed()
        elif op == 6:
            # sessions are not kept: the client must identify again
            await self._send(conn, {"op": 9, "d": False, "s": None, "t": None})
        elif op in (3, 4, 8):
            pass  # presence, voice state, member requests: nothing to say
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode.")

    async def _close(self, conn: Connection, code: int) -> None:
        """Close a session with ``code`` (and Discord's reason for it)."""
        conn.close_code = code
        await conn.ws.close(code=code, message=CLOSE_REASONS.get(code, "Closed.").encode())

    async def _dispatch(self, conn: Connection, event: str, data: dict[str, Any]) -> None:
        conn.seq += 1
        await self._send(conn, {"op": 0, "d": data, "s": conn.seq, "t": event})

    async def _send(self, conn: Connection, payload: dict[str, Any]) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        if conn.compress is not None:
            blob = conn.compress.compress(text.encode()) + conn.compress.flush(zlib.Z_SYNC_FLUSH)
            await conn.ws.send_bytes(blob)
        else:
            await conn.ws.send_str(text)

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        self._bot_auth(request)
        return json_response(
            {
                "url": f"ws://127.0.0.1:{self.port}{self.bot_gateway_path}",
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 14400000,
                    "max_concurrency": 1,
                },
            }
        )
