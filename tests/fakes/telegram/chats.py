"""The fake Bot API's chats: groups, supergroups and their forum topics, channels and
private chats, the updates people cause in them (messages, button presses), and
what each chat shows."""

from __future__ import annotations

import re
import time
from types import EllipsisType
from typing import Any

from tests.fakes.telegram.objects import (
    CHANNEL_BOT,
    GROUP_ANONYMOUS_BOT,
    ApiError,
    FakeMessage,
    bad,
    png_size,
)


class Chats:
    """People, chats and forum topics; the updates people cause; what the chats show."""

    # -- people, chats, topics ---------------------------------------------

    def group(self, title: str = "Ludo night", chat_id: int | None = None) -> dict[str, Any]:
        chat = {"id": chat_id or -next(self._ids), "type": "group", "title": title}
        self.chats[chat["id"]] = chat
        return chat

    def supergroup(self, title: str = "Ludo club", *, forum: bool = False) -> dict[str, Any]:
        chat: dict[str, Any] = {
            "id": -1_000_000_000_000 - next(self._ids),
            "type": "supergroup",
            "title": title,
        }
        if forum:
            chat["is_forum"] = True
        self.chats[chat["id"]] = chat
        self.topics[chat["id"]] = {}
        return chat

    def topic(self, chat: dict[str, Any], name: str) -> int:
        """Open a forum topic; its id (message_thread_id) is the id of its opening message."""
        assert chat.get("is_forum"), "topics exist only in forum supergroups"
        thread_id = self._message_id(chat["id"])
        self.topics[chat["id"]][thread_id] = name
        return thread_id

    def channel(self, title: str = "Ludo news") -> dict[str, Any]:
        """A channel, whose admins may post in groups as the channel."""
        chat = {"id": -1_000_000_000_000 - next(self._ids), "type": "channel", "title": title}
        self.chats[chat["id"]] = chat
        return chat

    def private(self, user: dict[str, Any]) -> dict[str, Any]:
        chat = {"id": user["id"], "type": "private", "first_name": user["first_name"]}
        for key in ("last_name", "username"):
            if key in user:
                chat[key] = user[key]
        self.chats[chat["id"]] = chat
        return chat

    def set_member(self, chat: dict[str, Any], user: dict[str, Any], status: str) -> None:
        self.members.setdefault(chat["id"], {})[user["id"]] = status

    def _chat(self, chat_id: Any) -> dict[str, Any]:
        if not isinstance(chat_id, int) or chat_id not in self.chats:
            raise bad("chat not found")
        if chat_id in self.outsiders:  # reached through inline messages only
            raise ApiError(403, "Forbidden: bot is not a member of this chat")
        if chat_id in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return self.chats[chat_id]

    def _message_id(self, chat_id: int) -> int:
        n = self._next_message.get(chat_id, 1)
        self._next_message[chat_id] = n + 1
        return n

    # -- updates from people ----------------------------------------------

    def _enqueue(self, update: dict[str, Any]) -> int:
        update_id = next(self._update_ids)
        update["update_id"] = update_id
        self.updates.append(update)
        self._notify()
        return update_id

    def message_update(
        self,
        chat: dict[str, Any],
        user: dict[str, Any],
        text: str,
        thread_id: int | None = None,
        sender_chat: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The update (not queued) for ``user`` writing ``text`` in ``chat`` (on behalf
        of ``sender_chat``, if given)."""
        if thread_id is not None:
            assert thread_id in self.topics.get(chat["id"], {}), "no such topic"
        msg = FakeMessage(
            chat["id"],
            self._message_id(chat["id"]),
            int(time.time()),
            user,
            thread_id,
            text=text,
            sender_chat=sender_chat,
        )
        self.messages[(chat["id"], msg.message_id)] = msg
        data = self.message_json(msg)
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            data["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command[0])}]
        return {"message": data}

    def send_text(
        self,
        chat: dict[str, Any],
        user: dict[str, Any],
        text: str,
        thread_id: int | None = None,
    ) -> int:
        """``user`` writes ``text`` (a command like "/ludo classic" too) in ``chat``."""
        return self._enqueue(self.message_update(chat, user, text, thread_id))

    def send_as_chat(
        self, chat: dict[str, Any], text: str, channel: dict[str, Any] | None = None
    ) -> int:
        """``text`` sent in ``chat`` on behalf of a chat, as Telegram delivers it: as
        ``channel`` (from @Channel_Bot), or else by an anonymous admin of ``chat`` (from
        @GroupAnonymousBot, on behalf of the group itself)."""
        sender = CHANNEL_BOT if channel is not None else GROUP_ANONYMOUS_BOT
        update = self.message_update(chat, sender, text, sender_chat=channel or chat)
        return self._enqueue(update)

    def press(
        self,
        message: FakeMessage,
        user: dict[str, Any],
        data: str | None = None,
        *,
        label: str | None = None,
    ) -> str:
        """``user`` presses a button of ``message`` (by ``label``, or any ``data``).

        The callback query carries the message as it is now; returns the query id.
        """
        if data is None:
            data = message.button(label)["callback_data"]
        query_id = str(next(self._ids) * 1000 + 7)
        query = {
            "id": query_id,
            "from": user,
            "message": self.message_json(message),
            "chat_instance": str(-message.chat_id * 7 + 1),
            "data": data,
        }
        self.queries[query_id] = query
        self._enqueue({"callback_query": query})
        return query_id

    def delivered(self) -> bool:
        """Every queued update was fetched and confirmed (an offset past it)."""
        return not self.updates

    # -- looking at chats ---------------------------------------------------

    def chat_messages(
        self,
        chat_id: int,
        thread_id: int | EllipsisType | None = ...,
        *,
        from_bot: bool = True,
    ) -> list[FakeMessage]:
        """The messages of a chat (of one topic if ``thread_id`` is given), oldest first."""
        found = [
            m
            for (c, _), m in sorted(self.messages.items())
            if c == chat_id
            and not m.deleted
            and (thread_id is ... or m.thread_id == thread_id)
            and (m.from_bot or not from_bot)
        ]
        return found

    def latest(
        self,
        chat_id: int,
        thread_id: int | EllipsisType | None = ...,
        *,
        buttons: bool = False,
        photo: bool | None = None,
    ) -> FakeMessage:
        """The bot's latest message in the chat (with buttons / a photo if asked)."""
        for m in reversed(self.chat_messages(chat_id, thread_id)):
            if buttons and not m.keyboard:
                continue
            if photo is not None and (m.photo is not None) != photo:
                continue
            return m
        raise AssertionError(f"no message {'with buttons ' if buttons else ''}in chat {chat_id}")

    def delete(self, message: FakeMessage) -> None:
        """Someone (an admin, the sender) deletes a message in the app."""
        self.messages[(message.chat_id, message.message_id)].deleted = True

    def message(self, chat_id: int, message_id: int) -> FakeMessage:
        return self.messages[(chat_id, message_id)]

    def message_json(self, m: FakeMessage) -> dict[str, Any]:
        data: dict[str, Any] = {
            "message_id": m.message_id,
            "date": m.date,
            "chat": self.chats[m.chat_id],
            "from": m.sender,
        }
        if m.sender_chat is not None:
            data["sender_chat"] = m.sender_chat
        if m.thread_id is not None:
            data["message_thread_id"] = m.thread_id
            data["is_topic_message"] = True
        if m.text is not None:
            data["text"] = m.text
        if m.photo is not None:
            data["photo"] = self._photo_sizes(m)
        for kind, blob, mime in (
            ("animation", m.animation, "image/gif"),
            ("document", m.document, "application/json"),
        ):
            if blob is not None:
                data[kind] = {
                    "file_id": f"BQACAgQAAxk-{kind}-{m.message_id}",
                    "file_unique_id": f"{kind[:4]}{m.message_id}",
                    "file_name": m.file_name,
                    "mime_type": mime,
                    "file_size": len(blob),
                    **(
                        {"width": 480, "height": 480, "duration": 30} if kind == "animation" else {}
                    ),
                }
                if kind == "animation":
                    data["document"] = dict(data["animation"])
        if m.caption and (m.photo is not None or m.animation is not None or m.document is not None):
            data["caption"] = m.caption
        if m.keyboard:
            data["reply_markup"] = {"inline_keyboard": m.keyboard}
        if m.edit_date is not None:
            data["edit_date"] = m.edit_date
        return data

    def _photo_sizes(self, m: FakeMessage) -> list[dict[str, Any]]:
        assert m.photo is not None and m.photo_id is not None
        w, h = png_size(m.photo) or (320, 320)
        small = max(1, round(90 * min(w, h) / max(w, h)))
        thumb_w, thumb_h = (90, small) if w >= h else (small, 90)
        return [
            {
                "file_id": m.photo_id + "-s",
                "file_unique_id": m.photo_id[-8:] + "s",
                "width": thumb_w,
                "height": thumb_h,
                "file_size": max(1, len(m.photo) // 20),
            },
            {
                "file_id": m.photo_id,
                "file_unique_id": m.photo_id[-8:],
                "width": w,
                "height": h,
                "file_size": len(m.photo),
            },
        ]
