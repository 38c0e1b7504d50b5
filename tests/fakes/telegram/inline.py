"""The fake Bot API's inline mode, as Telegram documents it.

* A person types ``@bot <query>`` in any chat: with inline mode on (BotFather's
  ``/setinline``: :attr:`inline_mode`) the bot gets an ``inline_query`` (its ``chat_type``
  says where: "sender" is the person's chat with the bot), answered once with
  ``answerInlineQuery`` (at most 50 results, ids of 1 to 64 bytes and unique, articles
  with a title and a message to send).
* The person chooses a result (:meth:`Inline.choose`): its message is posted in that
  chat "via @bot", whether or not the bot is a member, and gets an ``inline_message_id``
  when it has an inline keyboard.  With feedback on (``/setinlinefeedback``:
  :attr:`inline_feedback`) the bot gets a ``chosen_inline_result``.
* A press on such a message (:meth:`Inline.press_inline`) is a callback query with
  ``inline_message_id`` and ``chat_instance`` and no ``message``.
* The bot edits it through ``inline_message_id`` only; Telegram answers ``true``, not the
  message, and takes no upload: a photo goes by ``file_id`` or by an http(s) URL, which
  Telegram fetches itself (:meth:`Inline.fetched` lists them).
"""

from __future__ import annotations

import base64
import time
from typing import Any

import aiohttp

from tests.fakes.telegram.objects import (
    TEXT_LIMIT,
    Call,
    FakeMessage,
    bad,
    parse_html,
    png_size,
)

#: the most results one answer may carry
RESULTS_LIMIT = 50
#: the longest result id, in bytes
RESULT_ID_LIMIT = 64
#: the largest photo Telegram fetches by URL, in bytes
URL_PHOTO_LIMIT = 5 * 1024 * 1024
#: the result types of answerInlineQuery (Bot API: InlineQueryResult)
RESULT_TYPES = {
    "article",
    "photo",
    "gif",
    "mpeg4_gif",
    "video",
    "audio",
    "voice",
    "document",
    "location",
    "venue",
    "contact",
    "game",
    "sticker",
}
#: where an inline query was typed (Bot API: InlineQuery.chat_type)
CHAT_TYPES = ("sender", "private", "group", "supergroup", "channel")


class Inline:
    """Inline queries, their answers, chosen results and the inline messages."""

    # -- people ------------------------------------------------------------

    def between(self, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        """A private chat between two people (not with the bot: it is no member there)."""
        chat = {"id": 10**12 + next(self._ids), "type": "private", "first_name": b["first_name"]}
        self.chats[chat["id"]] = chat
        self.outsiders.add(chat["id"])
        return chat

    def inline_query(
        self, user: dict[str, Any], query: str = "", chat_type: str = "sender"
    ) -> str | None:
        """``user`` types ``@bot query`` in a chat of ``chat_type``; the query's id, or
        None: inline mode is off, and Telegram sends nothing."""
        assert chat_type in CHAT_TYPES
        if not self.inline_mode:
            return None
        query_id = str(next(self._ids) * 1000 + 3)
        data = {"id": query_id, "from": user, "query": query[:256], "offset": ""}
        data["chat_type"] = chat_type
        self.inline_queries[query_id] = data
        self._enqueue({"inline_query": data})
        return query_id

    def results(self, query_id: str) -> list[dict[str, Any]]:
        """The results the bot answered ``query_id`` with."""
        call = self.inline_answers.get(query_id)
        assert call is not None, f"inline query {query_id} not answered"
        return list(call.params["results"])

    def choose(
        self,
        query_id: str,
        chat: dict[str, Any],
        *,
        result_id: str | None = None,
        title: str | None = None,
    ) -> str | None:
        """The person who typed ``query_id`` chooses a result (by id, or whose title starts
        so; else the first) in ``chat``: posted there; its ``inline_message_id`` (None:
        it has no inline keyboard)."""
        query = self.inline_queries[query_id]
        found = [
            r
            for r in self.results(query_id)
            if (result_id is None or r["id"] == result_id)
            and (title is None or str(r.get("title", "")).startswith(title))
        ]
        assert found, f"no result {result_id or title!r} in {self.results(query_id)}"
        result = found[0]
        inline_id = self._post_result(chat, query["from"], result)
        if self.inline_feedback:
            chosen: dict[str, Any] = {
                "result_id": result["id"],
                "from": query["from"],
                "query": query["query"],
            }
            if inline_id is not None:
                chosen["inline_message_id"] = inline_id
            self._enqueue({"chosen_inline_result": chosen})
        return inline_id

    def _post_result(
        self, chat: dict[str, Any], sender: dict[str, Any], result: dict[str, Any]
    ) -> str | None:
        """A result's message posted in ``chat`` "via @bot"; its inline_message_id (None:
        it has no inline keyboard)."""
        content = result["input_message_content"]
        msg = FakeMessage(chat["id"], self._message_id(chat["id"]), int(time.time()), sender)
        msg.text = str(content["message_text"])
        msg.html = msg.text if content.get("parse_mode") else None
        if msg.html is not None:
            msg.text = parse_html(msg.html)[0].strip()
        rows = result.get("reply_markup", {}).get("inline_keyboard", [])
        msg.keyboard = [[dict(b) for b in row] for row in rows]
        msg.via_bot = True
        msg.history.append(msg.snapshot())
        self.messages[(chat["id"], msg.message_id)] = msg
        if not msg.keyboard:
            return None
        raw = f"{chat['id']}:{msg.message_id}:{next(self._ids)}".encode()
        inline_id = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        msg.inline_id = inline_id
        self.inline_messages[inline_id] = msg
        return inline_id

    def guest_mention(self, chat: dict[str, Any], user: dict[str, Any], text: str) -> str:
        """``user`` mentions the bot in ``chat``, which it is no member of (guest mode,
        Bot API 10): a ``guest_message`` with a ``guest_query_id``; returns that id."""
        query_id = str(next(self._ids) * 1000 + 5)
        msg = FakeMessage(chat["id"], self._message_id(chat["id"]), int(time.time()), user)
        msg.text = text
        self.messages[(chat["id"], msg.message_id)] = msg
        data = self.message_json(msg) | {"guest_query_id": query_id}
        self.guest_queries[query_id] = data
        self._enqueue({"guest_message": data})
        return query_id

    async def api_answerguestquery(self, p: dict[str, Any], f: dict[str, bytes], call: Call) -> Any:
        """The bot answers a guest query once, with one result, posted in that chat."""
        query_id = str(p.get("guest_query_id", ""))
        query = self.guest_queries.get(query_id)
        if query is None or query_id in self.guest_answers:
            raise bad("query is too old and response timeout expired or query ID is invalid")
        result = p.get("result")
        self._result(result, set())
        assert isinstance(result, dict)
        chat = self.chats[query["chat"]["id"]]
        inline_id = self._post_result(chat, self.bot_user, result)
        self.guest_answers[query_id] = call
        return {"inline_message_id": inline_id} if inline_id else {}

    def press_inline(
        self,
        inline_id: str,
        user: dict[str, Any],
        data: str | None = None,
        *,
        label: str | None = None,
    ) -> str:
        """``user`` presses a button of the inline message ``inline_id``: a callback query
        with no message, its ``chat_instance`` the chat's; returns the query's id."""
        message = self.inline_messages[inline_id]
        if data is None:
            data = message.button(label)["callback_data"]
        query_id = str(next(self._ids) * 1000 + 9)
        query = {
            "id": query_id,
            "from": user,
            "inline_message_id": inline_id,
            "chat_instance": self.chat_instance(message.chat_id),
            "data": data,
        }
        self.queries[query_id] = query
        self._enqueue({"callback_query": query})
        return query_id

    @staticmethod
    def chat_instance(chat_id: int) -> str:
        """The chat's global identifier as callback queries carry it."""
        return str(-chat_id * 7 + 1)

    def inline_message(self, inline_id: str) -> FakeMessage:
        return self.inline_messages[inline_id]

    # -- the Bot API ---------------------------------------------------------

    async def api_answerinlinequery(
        self, p: dict[str, Any], f: dict[str, bytes], call: Call
    ) -> Any:
        query_id = str(p.get("inline_query_id", ""))
        if query_id not in self.inline_queries or query_id in self.inline_answers:
            raise bad("query is too old and response timeout expired or query ID is invalid")
        results = p.get("results")
        if not isinstance(results, list):
            raise bad("can't parse inline query results JSON object")
        if len(results) > RESULTS_LIMIT:
            raise bad("RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for r in results:
            self._result(r, seen)
        cache = p.get("cache_time", 300)
        if not isinstance(cache, int) or cache < 0:
            raise bad("cache_time must be a non-negative integer")
        self.inline_answers[query_id] = call
        return True

    def _result(self, r: Any, seen: set[str]) -> None:
        if not isinstance(r, dict) or r.get("type") not in RESULT_TYPES:
            raise bad("RESULT_TYPE_INVALID")
        rid = r.get("id")
        if not isinstance(rid, str) or not 1 <= len(rid.encode()) <= RESULT_ID_LIMIT:
            raise bad("RESULT_ID_INVALID")
        if rid in seen:
            raise bad("RESULT_ID_DUPLICATE")
        seen.add(rid)
        if r["type"] != "article":
            raise bad("this fake answers articles only")
        if not str(r.get("title", "")).strip():
            raise bad('can\'t parse InlineQueryResultArticle: Field "title" must be non-empty')
        content = r.get("input_message_content")
        if not isinstance(content, dict) or "message_text" not in content:
            raise bad("MESSAGE_EMPTY")
        self._text(content, "message_text", TEXT_LIMIT, required=True)
        if "reply_markup" in r:
            self._keyboard({"reply_markup": r["reply_markup"], "_inline": True})

    def _inline_target(self, p: dict[str, Any]) -> FakeMessage:
        """The inline message an edit names, as Telegram checks it."""
        if "chat_id" in p or "message_id" in p:
            raise bad("inline_message_id and chat_id/message_id go apart")
        msg = self.inline_messages.get(str(p["inline_message_id"]))
        if msg is None or msg.deleted:
            raise bad("MESSAGE_ID_INVALID")
        return msg

    async def _fetched_photo(self, url: str) -> bytes:
        """The photo at ``url``, fetched as Telegram does (http or https only, at most
        :data:`URL_PHOTO_LIMIT` bytes, a PNG or JPEG)."""
        if not url.startswith(("http://", "https://")):
            raise bad("wrong file identifier/HTTP URL specified")
        try:
            async with (
                aiohttp.ClientSession() as session,
                session.get(url, timeout=aiohttp.ClientTimeout(total=10)) as answer,
            ):
                self.fetched.append((url, answer.status))
                if answer.status != 200:
                    raise bad("failed to get HTTP URL content")
                data = await answer.content.read(URL_PHOTO_LIMIT + 1)
        except aiohttp.ClientError:
            self.fetched.append((url, 0))
            raise bad("failed to get HTTP URL content") from None
        if len(data) > URL_PHOTO_LIMIT:
            raise bad("failed to get HTTP URL content")
        if png_size(data) is None and data[:3] != b"\xff\xd8\xff":
            raise bad("wrong type of the web page content")
        return data

    def _no_upload(self, p: dict[str, Any], f: dict[str, bytes]) -> None:
        media = p.get("media")
        ref = media.get("media") if isinstance(media, dict) else None
        if f or (isinstance(ref, str) and ref.startswith("attach://")):
            raise bad("a new file can't be uploaded when an inline message is edited")
