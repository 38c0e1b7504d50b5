"""The Bot API methods of the fake Telegram (``getUpdates``, ``sendPhoto``,
``editMessageMedia``, ``answerCallbackQuery``...): each checks its parameters as
Telegram does and changes the chats accordingly."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.telegram.objects import (
    ANIMATION_LIMIT,
    BOT_ID,
    BUTTON_KINDS,
    CALLBACK_DATA_LIMIT,
    CAPTION_LIMIT,
    TEXT_LIMIT,
    TOAST_LIMIT,
    TOPIC_COLOURS,
    ApiError,
    Call,
    FakeMessage,
    bad,
    parse_html,
    png_size,
    utf16_len,
)


class BotApi:
    """The Bot API methods the bot calls: ``api_<method>`` answers ``/bot<token>/<method>``."""

    async def api_getme(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return self.bot_user | {"supports_inline_queries": self.inline_mode}

    async def api_logout(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return True

    async def api_close(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return True

    async def api_setmycommands(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        commands = p.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad("commands must be an array of at most 100 BotCommand")
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(c.get("command", ""))):
                raise bad("BOT_COMMAND_INVALID")
            if not 1 <= utf16_len(str(c.get("description", ""))) <= 256:
                raise bad("command description must be 1-256 characters")
        code = self._language_code(p)
        self.command_menus[code] = commands
        if not code:
            self.commands = commands
        return True

    async def api_getmycommands(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return self.command_menus.get(self._language_code(p), [])

    @staticmethod
    def _language_code(p: dict[str, Any]) -> str:
        """A command menu's language: "" (everyone without a menu of their own) or a
        two-letter ISO 639-1 code, as Telegram takes it."""
        code = str(p.get("language_code") or "")
        if code and not re.fullmatch(r"[a-z]{2}", code):
            raise bad("language_code must be a two-letter ISO 639-1 language code")
        return code

    async def api_deletewebhook(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        self.webhook = None
        if p.get("drop_pending_updates"):
            self.updates.clear()
        return True

    async def api_setwebhook(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        url = str(p.get("url", ""))
        if not url:
            self.webhook = None
            return True
        if not url.startswith("https://"):
            raise bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = p.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad("secret token contains unallowed characters")
        self.webhook = dict(p)
        self._notify()  # a waiting long poll ends: updates go to the webhook now
        return True

    async def api_getwebhookinfo(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        info: dict[str, Any] = {
            "url": self.webhook["url"] if self.webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.updates),
        }
        if self.webhook and self.webhook.get("allowed_updates"):
            info["allowed_updates"] = self.webhook["allowed_updates"]
        return info

    async def api_getupdates(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        if isinstance(p.get("allowed_updates"), list):  # kept until asked otherwise
            self.allowed_updates = [str(k) for k in p["allowed_updates"]] or None
        self.updates = [u for u in self.updates if self._wanted(u)]  # never sent: lost
        offset = p.get("offset")
        if isinstance(offset, int) and offset > 0:
            self.confirmed = max(self.confirmed, offset)
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
            self._notify()
        limit = p.get("limit") or 100
        timeout = p.get("timeout") or 0
        self._poll_generation += 1
        generation = self._poll_generation
        loop = asyncio.get_running_loop()
        deadline = loop.time() + float(timeout)
        while True:
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            if call.token != self.token:
                raise ApiError(401, "Unauthorized")
            fault = self._take_fault("getUpdates")
            if fault is not None:
                raise fault
            if self.updates or self._closing or self.webhook is not None:
                return self.updates[:limit]
            left = deadline - loop.time()
            if left <= 0:
                return []
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._activity.wait(), left)

    def _wanted(self, update: dict[str, Any]) -> bool:
        """Whether the bot asked for this kind of update (Telegram's default: every kind
        but chat_member and the reactions)."""
        kind = next(k for k in update if k != "update_id")
        if self.allowed_updates is None:
            return kind not in ("chat_member", "message_reaction", "message_reaction_count")
        return kind in self.allowed_updates

    # sending

    def _text(
        self, p: dict[str, Any], key: str, limit: int, required: bool
    ) -> tuple[str, str | None]:
        """(plain text, HTML as sent or None) of ``p[key]``; Telegram's checks."""
        raw = p.get(key)
        if raw is None or raw == "":
            if required:
                raise bad("message text is empty")
            return "", None
        raw = str(raw)
        mode = str(p.get("parse_mode") or "")
        if mode.lower() == "html":
            try:
                plain, _ = parse_html(raw)
            except ValueError as e:
                raise bad(f"can't parse entities: {e}") from None
            markup: str | None = raw
        elif mode:
            raise bad(f"unsupported parse_mode {mode!r} in this fake")
        else:
            plain, markup = raw, None
        plain = plain.strip()
        if required and not plain:
            raise bad("message text is empty")
        if utf16_len(plain) > limit:
            raise bad("message caption is too long" if key == "caption" else "message is too long")
        return plain, markup

    def _keyboard(self, p: dict[str, Any]) -> list[list[dict[str, Any]]]:
        markup = p.get("reply_markup")
        if markup is None:
            return []
        rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
        if not isinstance(rows, list):
            raise bad("only inline keyboards are supported by this fake")
        for row in rows:
            for b in row:
                if not str(b.get("text", "")).strip():
                    raise bad("BUTTON_TEXT_EMPTY")
                self._button_kind(p, b)
                data = b.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= CALLBACK_DATA_LIMIT:
                    raise bad("BUTTON_DATA_INVALID")
        return [[dict(b) for b in row] for row in rows if row]

    def _button_kind(self, p: dict[str, Any], b: dict[str, Any]) -> None:
        """An inline button has exactly one kind; a ``url`` one opens http(s):// or tg://
        only, a ``web_app`` one an https:// page, in a private chat only (elsewhere
        Telegram answers BUTTON_TYPE_INVALID)."""
        kinds = [k for k in BUTTON_KINDS if b.get(k) is not None]
        if not kinds:
            raise bad(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if len(kinds) > 1:
            raise bad(
                "can't parse inline keyboard button: "
                "exactly one of the optional fields must be used"
            )
        if kinds == ["url"]:
            url = b["url"]
            if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https", "tg"):
                raise bad("BUTTON_URL_INVALID")
        if kinds == ["web_app"]:
            page = b["web_app"].get("url") if isinstance(b["web_app"], dict) else None
            if not isinstance(page, str) or urlsplit(page).scheme != "https":
                raise bad(
                    f"inline keyboard button Web App URL '{page}' is invalid: "
                    "Only HTTPS links are allowed"
                )
            inline = p.get("_inline") or "inline_message_id" in p
            if inline or self._chat(p.get("chat_id")).get("type") != "private":
                raise bad("BUTTON_TYPE_INVALID")

    def _thread(self, chat: dict[str, Any], p: dict[str, Any]) -> int | None:
        thread = p.get("message_thread_id")
        if thread is None:
            return None
        if not chat.get("is_forum"):
            # outside forums Telegram ignores it (reply threads of comments aside)
            return None
        if thread not in self.topics.get(chat["id"], {}):
            raise bad("message thread not found")
        return int(thread)

    def _reply_to(self, chat: dict[str, Any], p: dict[str, Any]) -> None:
        reply = p.get("reply_parameters")
        if isinstance(reply, dict) and "message_id" in reply:
            target = self.messages.get((chat["id"], reply["message_id"]))
            if (target is None or target.deleted) and not reply.get("allow_sending_without_reply"):
                raise bad("message to be replied not found")

    def _photo(self, p: dict[str, Any], f: dict[str, bytes], key: str, value: Any) -> bytes:
        if isinstance(value, str) and value.startswith("attach://"):
            name = value[len("attach://") :]
            if name not in f:
                raise bad(f"file {name} not found in the request")
            data = f[name]
        elif value is None and key in f:
            data = f[key]
        elif isinstance(value, str) and value in self.files:
            data = self.files[value]
        else:
            raise bad("there is no photo in the request")
        if png_size(data) is None and data[:3] != b"\xff\xd8\xff":
            raise bad("IMAGE_PROCESS_FAILED")
        return data

    def _store_photo(self, data: bytes) -> str:
        file_id = f"AgACAgQAAxk-photo-{next(self._ids)}"
        self.files[file_id] = data
        return file_id

    def _new_message(self, chat: dict[str, Any], p: dict[str, Any]) -> FakeMessage:
        thread = self._thread(chat, p)
        self._reply_to(chat, p)
        return FakeMessage(
            chat["id"], self._message_id(chat["id"]), int(time.time()), self.bot_user, thread
        )

    async def api_sendmessage(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        plain, markup = self._text(p, "text", TEXT_LIMIT, required=True)
        keyboard = self._keyboard(p)
        msg = self._new_message(chat, p)
        msg.text, msg.html, msg.keyboard = plain, markup, keyboard
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        return self.message_json(msg)

    async def api_sendphoto(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        photo = self._photo(p, f, "photo", p.get("photo"))
        plain, markup = self._text(p, "caption", CAPTION_LIMIT, required=False)
        keyboard = self._keyboard(p)
        msg = self._new_message(chat, p)
        msg.photo, msg.photo_id = photo, self._store_photo(photo)
        msg.caption, msg.caption_html, msg.keyboard = plain, markup, keyboard
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        return self.message_json(msg)

    async def api_sendanimation(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        """An animation upload: a GIF (or MP4) of at most :data:`ANIMATION_LIMIT` bytes."""
        return self._send_file(p, f, "animation", lambda d: d[:6] in (b"GIF87a", b"GIF89a"))

    async def api_senddocument(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        return self._send_file(p, f, "document", lambda d: True)

    def _send_file(
        self, p: dict[str, Any], f: dict[str, bytes], kind: str, valid: Callable[[bytes], bool]
    ) -> Any:
        chat = self._chat(p.get("chat_id"))
        data = f.get(kind)
        if data is None and isinstance(p.get(kind), str):
            # a file sent before, by its file_id (it must be one of this kind)
            data = self.files.get(p[kind]) if f"-{kind}-" in p[kind] else None
            if data is None:
                raise bad("wrong file identifier/HTTP URL specified")
        if data is None:
            raise bad(f"there is no {kind} in the request")
        if len(data) > ANIMATION_LIMIT:
            raise ApiError(413, "Request Entity Too Large")
        if not valid(data):
            raise bad("wrong file type of the " + kind)
        plain, markup = self._text(p, "caption", CAPTION_LIMIT, required=False)
        msg = self._new_message(chat, p)
        setattr(msg, kind, data)
        msg.file_name = p.get("_file_names", {}).get(kind)
        msg.caption, msg.caption_html = plain, markup
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        self.files[f"BQACAgQAAxk-{kind}-{msg.message_id}"] = data
        return self.message_json(msg)

    def _target(self, p: dict[str, Any]) -> FakeMessage:
        if "inline_message_id" in p:
            return self._inline_target(p)
        chat = self._chat(p.get("chat_id"))
        msg = self.messages.get((chat["id"], p.get("message_id")))  # type: ignore[arg-type]
        if msg is None or msg.deleted:
            raise bad("message to edit not found")
        if not msg.from_bot:
            raise bad("message can't be edited")
        return msg

    def _edited(self, msg: FakeMessage) -> Any:
        """The edited message, as the answer carries it (``true`` for an inline message)."""
        msg.edit_date = int(time.time())
        msg.history.append(msg.snapshot())
        return True if msg.inline_id is not None else self.message_json(msg)

    @staticmethod
    def _not_modified() -> ApiError:
        return bad(
            "message is not modified: specified new message content and reply markup are "
            "exactly the same as a current content and reply markup of the message"
        )

    async def api_editmessagetext(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        msg = self._target(p)
        if msg.text is None:
            raise bad("there is no text in the message to edit")
        plain, markup = self._text(p, "text", TEXT_LIMIT, required=True)
        keyboard = self._keyboard(p)
        if (plain, markup, keyboard) == (msg.text, msg.html, msg.keyboard):
            raise self._not_modified()
        msg.text, msg.html, msg.keyboard = plain, markup, keyboard
        return self._edited(msg)

    async def api_editmessagecaption(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        msg = self._target(p)
        if msg.photo is None:
            raise bad("there is no caption in the message to edit")
        plain, markup = self._text(p, "caption", CAPTION_LIMIT, required=False)
        keyboard = self._keyboard(p)
        if (plain, markup, keyboard) == (msg.caption, msg.caption_html, msg.keyboard):
            raise self._not_modified()
        msg.caption, msg.caption_html, msg.keyboard = plain, markup, keyboard
        return self._edited(msg)

    async def api_editmessagemedia(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        """A photo instead of a photo, or added to a text message (it becomes a photo with
        that caption); an inline message's by ``file_id`` or URL only."""
        msg = self._target(p)
        media = p.get("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise bad("this fake edits photos only")
        if msg.inline_id is not None:
            self._no_upload(p, f)
        ref = media.get("media")
        if isinstance(ref, str) and ref.startswith(("http://", "https://")):
            photo = await self._fetched_photo(ref)
        else:
            photo = self._photo(p, f, "media", ref)
        plain, markup = self._text(media, "caption", CAPTION_LIMIT, required=False)
        keyboard = self._keyboard(p)
        msg.photo, msg.photo_id = photo, self._store_photo(photo)
        msg.text = msg.html = None
        msg.caption, msg.caption_html, msg.keyboard = plain, markup, keyboard
        return self._edited(msg)

    async def api_editmessagereplymarkup(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        msg = self._target(p)
        keyboard = self._keyboard(p)
        if keyboard == msg.keyboard:
            raise self._not_modified()
        msg.keyboard = keyboard
        return self._edited(msg)

    async def api_deletemessage(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        msg = self.messages.get((chat["id"], p.get("message_id")))  # type: ignore[arg-type]
        if msg is None or msg.deleted:
            raise bad("message to delete not found")
        msg.deleted = True
        return True

    async def api_answercallbackquery(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        query_id = str(p.get("callback_query_id", ""))
        if query_id not in self.queries or query_id in self.answered:
            raise bad("query is too old and response timeout expired or query ID is invalid")
        text = p.get("text")
        if text is not None and utf16_len(str(text)) > TOAST_LIMIT:
            raise bad("MESSAGE_TOO_LONG")
        self.answered[query_id] = call
        return True

    async def api_createforumtopic(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        """A new topic of a forum supergroup, as Telegram makes it: the bot must be an
        administrator who may manage topics; the name 1 to 128 characters; a colour, if
        given, one of the six Telegram offers."""
        chat = self._chat(p.get("chat_id"))
        if not chat.get("is_forum"):
            raise bad("the chat is not a forum")
        if self.members.get(chat["id"], {}).get(BOT_ID) not in ("administrator", "creator"):
            raise bad("not enough rights to create a topic")
        name = p.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 128:
            raise bad("TOPIC_NAME_INVALID")
        colour = p.get("icon_color", TOPIC_COLOURS[0])
        if colour not in TOPIC_COLOURS:
            raise bad("TOPIC_ICON_COLOR_INVALID")
        thread_id = self.topic(chat, name)
        return {"message_thread_id": thread_id, "name": name, "icon_color": colour}

    async def api_getchatmember(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        chat = self._chat(p.get("chat_id"))
        user_id = p.get("user_id")
        status = self.members.get(chat["id"], {}).get(user_id, "member")  # type: ignore[arg-type]
        user = next(
            (q["from"] for q in self.queries.values() if q["from"]["id"] == user_id),
            None,
        ) or next(
            (m.sender for m in self.messages.values() if m.sender.get("id") == user_id),
            {"id": user_id, "is_bot": False, "first_name": f"user {user_id}"},
        )
        member: dict[str, Any] = {"status": status, "user": user}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member |= {
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
            }
        return member
