"""Who and where an update comes from: the person, their language, the game's channel;
and how updates arrive (polled, or pushed to a webhook)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from telegram import Message, Update
from telegram.constants import ChatType
from telegram.error import TelegramError

from ...hosting import User
from ...present import Press, language_of
from ...service.outcome import Outcome
from .screen import PREFIX

PLATFORM = "telegram"
#: a refusal a chat admin is not given: the host's (adding or removing computer players)
HOST_ONLY = ("refuse.only_host_computers", "refuse.only_host_level")


@dataclass(frozen=True)
class WebhookSettings:
    """Updates pushed to a webhook (instead of polled): where Telegram posts them
    (``url``), the secret it sends (None: one derived from the token) and the path
    the bot's web server takes them on (see :mod:`.webhook`)."""

    url: str
    secret: str | None = field(default=None, repr=False)
    path: str = "telegram"


def where_of(update: Update) -> tuple[str, User] | None:
    """The channel and the person of a command (None: not from a person in a chat)."""
    message, tg_user = update.effective_message, update.effective_user
    if message is None or tg_user is None:
        return None
    return channel_of(message, message.chat.id), user_of(tg_user, message)


def channel_of(message: Message | None, chat_id: int) -> str:
    """One game per chat, or per forum topic."""
    if message is not None and message.is_topic_message and message.message_thread_id:
        return f"{PREFIX}{chat_id}:{message.message_thread_id}"
    return f"{PREFIX}{chat_id}"


def language(update: Update) -> str:
    """The language of the person who acted (their Telegram app's)."""
    user = update.effective_user
    return language_of(user.language_code if user is not None else None)


def user_of(tg_user: Any, message: Message | None = None) -> User:
    """The person ``tg_user``; shared by many when ``message`` was sent as a chat (a
    channel, or the group itself for an anonymous admin): Telegram then gives every
    sender one account (@Channel_Bot, @GroupAnonymousBot)."""
    name = tg_user.full_name or tg_user.username or str(tg_user.id)
    shared = message is not None and message.sender_chat is not None
    return User(PLATFORM, str(tg_user.id), name, shared=shared)


async def is_admin(update: Update) -> bool:
    """The person who acted may manage the chat: its creator or an admin (anyone in a
    private chat)."""
    chat, tg_user = update.effective_chat, update.effective_user
    if chat is None or tg_user is None:
        return False
    if chat.type == ChatType.PRIVATE:
        return True
    try:
        member = await chat.get_member(tg_user.id)
    except TelegramError:
        return False
    return member.status in ("creator", "administrator")


async def moderated(
    update: Update, press: Press, call: Callable[..., Awaitable[Outcome]], *where: Any
) -> Outcome:
    """``call(press_game, *where, game_id, version, intent)`` for the button ``press``
    (``press_game`` the service's ``press``, ``where`` its channel and user); refused as
    only the host's to do (a computer player added or removed, the level), done again as a moderator
    if the person is a chat admin (asked only then: most presses need no extra call)."""
    intent = press.intent
    outcome = await call(*where, press.game_id, press.version, intent)
    refusal = outcome.refusal
    if refusal is not None and refusal.key in HOST_ONLY and await is_admin(update):
        outcome = await call(*where, press.game_id, press.version, replace(intent, can_manage=True))
    return outcome


def title(chat: Any) -> str:
    """The name of ``chat`` as its people see it: a group's title (empty for a private
    chat: a table there needs no card)."""
    name = getattr(chat, "title", None)
    return name if isinstance(name, str) else ""
