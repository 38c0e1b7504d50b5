"""Telegram: commands and inline buttons, translated to and from the game service.

An update becomes (channel, user, action); the service answers with a neutral
:class:`~bot.replies.Reply`, which becomes Telegram calls here.  No rule and no
game state lives in this module: the ids of the messages to edit are kept
with the game in the store (``meta``), so a restart loses nothing.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from telegram import (
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    Message,
    Update,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from engine import RULE_SETS

from .messages import say
from .model import User
from .replies import Reply, Text
from .service import GameService

log = logging.getLogger(__name__)

PLATFORM = "telegram"
PREFIX = "tg:"
CAPTION_LIMIT = 1024
TEXT_LIMIT = 4096
#: the buttons of the rule chooser (/ludo without arguments); data "n:<rules>[:teams]"
CHOOSER = [
    ("classic", "Classic"),
    ("tower", "Tower"),
    ("italian", "Italian"),
    ("italian:teams", "Italian teams"),
    ("super", "Super"),
]

COMMANDS = [
    ("ludo", "Start a game: /ludo [classic|tower|italian|super] [teams] [timer=60]"),
    ("join", "Join the game in this chat"),
    ("leave", "Leave the game"),
    ("roll", "Roll the die"),
    ("move", "Move a piece: /move 2"),
    ("board", "Show the board"),
    ("rules", "Show the rules"),
    ("end", "End the game (its creator or an admin)"),
    ("help", "How to play"),
]

HELP = (
    "<b>Ludo</b>: type /ludo to open a game here (or <code>/ludo italian teams timer=60</code>), "
    "press <b>Join</b>, add computer players if you like, and the host presses <b>Start</b>. "
    "On your turn press <b>Roll</b>, then the button of the piece to move. "
    "/board shows the board, /rules the rules, /end ends the game."
)
GREETING = (
    "Hi! I host games of Ludo. Add me to a group and type /ludo there, or play right here "
    "against computer players: /ludo, then <b>Add computer</b> and <b>Start</b>."
)


class AdapterError(Exception):
    """The platform cannot be used (bad token, unreachable): one line for the operator."""


@dataclass(frozen=True)
class WebhookSettings:
    url: str
    listen: str = "0.0.0.0"
    port: int = 8443
    secret: str | None = None
    path: str = "telegram"


def channel_of(message: Message | None, chat_id: int) -> str:
    """One game per chat, or per forum topic."""
    if message is not None and message.is_topic_message and message.message_thread_id:
        return f"{PREFIX}{chat_id}:{message.message_thread_id}"
    return f"{PREFIX}{chat_id}"


def _target(channel: str) -> tuple[int, int | None]:
    parts = channel[len(PREFIX) :].split(":")
    return int(parts[0]), int(parts[1]) if len(parts) > 1 else None


def user_of(tg_user: Any) -> User:
    name = tg_user.full_name or tg_user.username or str(tg_user.id)
    return User(PLATFORM, str(tg_user.id), name)


def mention(user: User) -> str:
    return f'<a href="tg://user?id={html.escape(user.id)}">{html.escape(user.name)}</a>'


def caption_of(reply: Reply, limit: int = CAPTION_LIMIT, *, links: bool = True) -> str:
    """The reply's lines as HTML, the player on turn mentioned, cut to ``limit``."""
    lines = []
    people = {u.name: u for u in reply.mention} if links else {}
    for t in reply.lines:
        if t.key.startswith("turn.") and t.params.get("who") in people:
            who = people[t.params["who"]]
            params = {k: html.escape(v) if isinstance(v, str) else v for k, v in t.params.items()}
            params["who"] = mention(who)
            lines.append(say(Text(t.key, params)))
        else:
            lines.append(say(t, html.escape))
    text = "\n".join(lines)
    while len(text) > limit and len(lines) > 1:
        # a long run of computer moves: keep the latest lines
        lines = lines[1:] if lines[0] != "…" else lines[2:]
        lines.insert(0, "…")
        text = "\n".join(lines)
    if len(text) <= limit:
        return text
    if links:  # one line too long even alone: no link, so a cut cannot break a tag
        return caption_of(reply, limit, links=False)
    cut = text[:limit]
    amp = cut.rfind("&")
    if amp > cut.rfind(";"):  # never leave half an entity like "&am"
        cut = cut[:amp]
    return cut


def keyboard(reply: Reply) -> InlineKeyboardMarkup | None:
    if not reply.buttons:
        return None
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(say(b.label), callback_data=b.data) for b in row]
            for row in reply.buttons
        ]
    )


def parse_new_game(args: Sequence[str]) -> tuple[str, dict[str, Any], int | None, str | None]:
    """``/ludo italian teams pieces=5 timer=60`` -> (rules, options, timer, error)."""
    rules = "classic"
    options: dict[str, Any] = {}
    timer: int | None = None
    for k, raw in enumerate(args):
        word = raw.strip().lower()
        if k == 0 and word in RULE_SETS:
            rules = word
            continue
        key, eq, value = word.partition("=")
        if not eq:
            options[key] = True  # "teams" means teams=true
            continue
        if key == "timer":
            if value in ("off", "0", "none"):
                timer = 0
            elif value.isdigit():
                timer = int(value)
            else:
                return (
                    rules,
                    options,
                    None,
                    f"timer must be a number of seconds or off, not {value!r}",
                )
            continue
        if value in ("true", "yes", "on"):
            options[key] = True
        elif value in ("false", "no", "off"):
            options[key] = False
        elif value.lstrip("-").isdigit():
            options[key] = int(value)
        else:
            options[key] = value
    return rules, options, timer, None


class TelegramAdapter:
    """The game service on Telegram (python-telegram-bot's ``Application``)."""

    def __init__(
        self,
        service: GameService,
        token: str,
        *,
        api_url: str | None = None,
        webhook: WebhookSettings | None = None,
        group_rate: float = 20,
        overall_rate: float = 30,
        max_retries: int = 5,
    ) -> None:
        self.service = service
        self.webhook = webhook
        builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
            Application.builder().token(token).concurrent_updates(8)
        )
        if api_url:
            root = api_url.rstrip("/")
            builder = builder.base_url(f"{root}/bot").base_file_url(f"{root}/file/bot")
        builder = builder.rate_limiter(
            AIORateLimiter(
                overall_max_rate=overall_rate, group_max_rate=group_rate, max_retries=max_retries
            )
        )
        self.app = builder.build()
        #: one publisher per chat at a time (not game state: only ordering of our own calls)
        self._locks: dict[str, asyncio.Lock] = {}
        self.app.add_handler(CommandHandler("start", self.cmd_start))
        self.app.add_handler(CommandHandler("help", self.cmd_help))
        self.app.add_handler(CommandHandler("ludo", self.cmd_ludo))
        self.app.add_handler(CommandHandler("join", self.cmd_join))
        self.app.add_handler(CommandHandler("leave", self.cmd_leave))
        self.app.add_handler(CommandHandler("roll", self.cmd_roll))
        self.app.add_handler(CommandHandler("move", self.cmd_move))
        self.app.add_handler(CommandHandler("board", self.cmd_board))
        self.app.add_handler(CommandHandler("rules", self.cmd_rules))
        self.app.add_handler(CommandHandler("end", self.cmd_end))
        self.app.add_handler(CallbackQueryHandler(self.on_button))
        self.app.add_error_handler(self.on_error)

    # -- running ----------------------------------------------------------

    async def start(self) -> None:
        """Connect (checking the token), register the commands, start receiving updates."""
        try:
            await self.app.initialize()
        except InvalidToken:
            # never echo the token itself: logs get shared
            raise AdapterError(
                "Telegram refused TELEGRAM_TOKEN: check the token @BotFather gave you "
                "(and TELEGRAM_API_URL, if set)"
            ) from None
        except NetworkError as e:
            raise AdapterError(f"cannot reach the Telegram Bot API: {e.message}") from None
        await self.app.bot.set_my_commands([BotCommand(c, d) for c, d in COMMANDS])
        await self.app.start()
        assert self.app.updater is not None
        if self.webhook is None:
            await self.app.updater.start_polling(allowed_updates=["message", "callback_query"])
        else:
            await self.app.updater.start_webhook(
                listen=self.webhook.listen,
                port=self.webhook.port,
                url_path=self.webhook.path,
                webhook_url=self.webhook.url,
                secret_token=self.webhook.secret,
                allowed_updates=["message", "callback_query"],
            )

    async def stop(self) -> None:
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()

    def owns(self, channel: str | None) -> bool:
        return bool(channel) and str(channel).startswith(PREFIX)

    async def deliver(self, reply: Reply) -> None:
        """Post a reply that no update asked for (a turn timer ran out)."""
        await self._publish(reply)

    # -- commands ---------------------------------------------------------

    async def cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Greet in a private chat; in a group, say how to play."""
        chat = update.effective_chat
        text = GREETING if chat is not None and chat.type == ChatType.PRIVATE else HELP
        await self._say(update, text)

    async def cmd_help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """How to play."""
        await self._say(update, HELP)

    async def cmd_ludo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Open a game: with arguments at once, without them by choosing the rules."""
        where = self._where(update)
        if where is None:
            return
        channel, user = where
        args = context.args or []
        if not args:
            rows = [
                [InlineKeyboardButton(label, callback_data=f"n:{data}")] for data, label in CHOOSER
            ]
            await self._send_text(channel, "Which rules?", InlineKeyboardMarkup(rows))
            return
        rules, options, timer, error = parse_new_game(args)
        if error:
            await self._say(update, html.escape(f"That game cannot be set up: {error}."))
            return
        reply = await self._call(self.service.new_game, channel, user, rules, options, timer=timer)
        await self._answer(update, reply)

    async def cmd_join(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Join the game here."""
        await self._simple(update, self.service.join)

    async def cmd_leave(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Leave the game here."""
        await self._simple(update, self.service.leave)

    async def cmd_roll(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Roll the die."""
        await self._simple(update, self.service.roll)

    async def cmd_move(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Move piece N."""
        where = self._where(update)
        if where is None:
            return
        args = context.args or []
        if len(args) != 1 or not args[0].isdigit():
            await self._say(update, "Say which piece: <code>/move 2</code>")
            return
        reply = await self._call(self.service.move, *where, int(args[0]))
        await self._answer(update, reply)

    async def cmd_board(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Show the board (as a new message, with the buttons of the turn)."""
        where = self._where(update)
        if where is None:
            return
        reply = await self._call(self.service.board, *where)
        await self._answer(update, reply, fresh=True)

    async def cmd_rules(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The rules of the game here, or of the rule set named."""
        where = self._where(update)
        if where is None:
            return
        args = context.args or []
        name = args[0].lower() if args else None
        reply = await self._call(self.service.rules, where[0], name)
        await self._answer(update, reply)

    async def cmd_end(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """End the game: its creator, or a chat admin."""
        where = self._where(update)
        if where is None:
            return
        channel, user = where
        admin = await self._is_admin(update)
        reply = await self._call(self.service.end, channel, user, can_manage=admin)
        await self._answer(update, reply)

    async def _simple(self, update: Update, op: Any) -> None:
        where = self._where(update)
        if where is None:
            return
        reply = await self._call(op, *where)
        await self._answer(update, reply)

    async def _is_admin(self, update: Update) -> bool:
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

    # -- buttons ----------------------------------------------------------

    async def on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A button press: always answered, with a toast when it is refused."""
        query = update.callback_query
        if query is None:
            return
        message = query.message if isinstance(query.message, Message) else None
        data = query.data or ""
        if message is None or query.from_user is None:
            await query.answer("This button no longer works.")
            return
        channel = channel_of(message, message.chat.id)
        user = user_of(query.from_user)
        if data.startswith("n:"):
            rules, _, variant = data[2:].partition(":")
            options = {"teams": True} if variant == "teams" else {}
            reply = await self._call(self.service.new_game, channel, user, rules, options)
            if reply.refused:
                await query.answer(_toast(reply), show_alert=False)
                return
            await query.answer()
            if reply.game_id:
                # the chooser becomes the lobby message
                await self._edit_text(message, reply)
                await self._call(self.service.set_meta, reply.game_id, tg_lobby=message.message_id)
            return
        reply = await self._call(self.service.press, channel, user, data)
        if reply.refused:
            await query.answer(_toast(reply))
            if reply.lines[0].key == "refuse.outdated" and reply.game_id:
                # tidy a stale message (not the current board, whose buttons work)
                game = await self._call(self.service.get, reply.game_id)
                current = game.meta.get("tg_board") if game is not None else None
                if current != message.message_id:
                    await self._quietly(message.edit_reply_markup(reply_markup=None))
            return
        await query.answer()
        await self._publish(reply, pressed=message)

    # -- talking ----------------------------------------------------------

    async def _answer(self, update: Update, reply: Reply, fresh: bool = False) -> None:
        if reply.private or reply.refused:
            await self._say(update, caption_of(reply, TEXT_LIMIT))
            return
        await self._publish(reply, fresh=fresh)

    async def _publish(
        self, reply: Reply, pressed: Message | None = None, fresh: bool = False
    ) -> None:
        """Show a public reply: the board edited in place or sent anew, or the lobby text.

        One chat at a time (replies computed concurrently land in order), and a
        reply older than what the chat already shows is not shown over it.
        """
        if not reply.channel or not self.owns(reply.channel):
            return
        lock = self._locks.setdefault(reply.channel, asyncio.Lock())
        async with lock:
            await self._publish_locked(reply, fresh)

    async def _publish_locked(self, reply: Reply, fresh: bool) -> None:
        assert reply.channel is not None
        game = await self._call(self.service.get, reply.game_id) if reply.game_id else None
        meta = dict(game.meta) if game is not None else {}
        if (
            reply.version is not None
            and reply.image is not None
            and not fresh
            and int(meta.get("tg_ver", 0)) > reply.version
        ):
            return  # a newer board is up already
        if reply.finished:
            # the game is over: no button of it works any more
            for key in ("tg_board", "tg_lobby"):
                if meta.get(key):
                    await self._strip_buttons(reply.channel, int(meta[key]))
            meta.pop("tg_board", None)
            meta.pop("tg_lobby", None)
        if reply.image is None:
            if reply.game_id and not reply.finished and reply.buttons and "tg_board" not in meta:
                # the lobby: one message, edited as people join; always the seats as they are now
                status = await self._call(self.service.status, reply.channel)
                if (
                    status.lines
                    and status.lines[0].key == "lobby.status"
                    and reply.lines
                    and reply.lines[-1].key == "lobby.status"
                ):
                    reply.lines[-1] = status.lines[0]
                lobby = meta.get("tg_lobby")
                if lobby and await self._edit_lobby(reply, lobby):
                    return
                sent = await self._send_text(
                    reply.channel, caption_of(reply, TEXT_LIMIT), keyboard(reply)
                )
                if sent is not None:
                    await self._call(self.service.set_meta, reply.game_id, tg_lobby=sent.message_id)
                return
            await self._send_text(reply.channel, caption_of(reply, TEXT_LIMIT), keyboard(reply))
            return
        turn = reply.mention[0].id if reply.mention else None
        board = meta.get("tg_board")
        same_player = (
            not fresh
            and board
            and reply.image_kind == "board"
            and turn is not None
            and meta.get("tg_turn") == turn
        )
        # the same player goes on: edit the board in place (no new notification needed)
        if same_player and board and await self._edit_board(reply, int(board)):
            if reply.game_id:
                await self._call(self.service.set_meta, reply.game_id, tg_ver=reply.version or 0)
            return
        # the buttons of the message before this one are outdated now
        if not reply.finished and (board or meta.get("tg_lobby")):
            await self._strip_buttons(reply.channel, int(board or meta["tg_lobby"]))
        sent = await self._send_photo(reply)
        if sent is not None and reply.game_id and not reply.finished:
            await self._call(
                self.service.set_meta,
                reply.game_id,
                tg_board=sent.message_id,
                tg_turn=turn,
                tg_ver=reply.version or 0,
            )

    async def _send_photo(self, reply: Reply) -> Message | None:
        assert reply.channel is not None and reply.image is not None
        chat_id, thread = _target(reply.channel)
        try:
            return await self.app.bot.send_photo(
                chat_id,
                reply.image,
                caption=caption_of(reply),
                parse_mode=ParseMode.HTML,
                reply_markup=keyboard(reply),
                message_thread_id=thread,
            )
        except (Forbidden, BadRequest) as e:
            log.warning("cannot post in %s: %s", reply.channel, e)
            return None

    async def _edit_board(self, reply: Reply, message_id: int) -> bool:
        assert reply.channel is not None and reply.image is not None
        chat_id, _ = _target(reply.channel)
        try:
            await self.app.bot.edit_message_media(
                InputMediaPhoto(reply.image, caption=caption_of(reply), parse_mode=ParseMode.HTML),
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=keyboard(reply),
            )
        except BadRequest as e:
            log.info("board message %s not edited (%s): sending a new one", message_id, e)
            return False
        return True

    async def _edit_lobby(self, reply: Reply, message_id: int) -> bool:
        assert reply.channel is not None
        chat_id, _ = _target(reply.channel)
        try:
            await self.app.bot.edit_message_text(
                caption_of(reply, TEXT_LIMIT),
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=keyboard(reply),
            )
        except BadRequest as e:
            return "not modified" in str(e).lower()
        return True

    async def _edit_text(self, message: Message, reply: Reply) -> None:
        await self._quietly(
            message.edit_text(
                caption_of(reply, TEXT_LIMIT),
                parse_mode=ParseMode.HTML,
                reply_markup=keyboard(reply),
            )
        )

    async def _strip_buttons(self, channel: str, message_id: int) -> None:
        chat_id, _ = _target(channel)
        await self._quietly(
            self.app.bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=None
            )
        )

    async def _send_text(
        self, channel: str, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> Message | None:
        chat_id, thread = _target(channel)
        try:
            return await self.app.bot.send_message(
                chat_id,
                text[:TEXT_LIMIT],
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                message_thread_id=thread,
            )
        except (Forbidden, BadRequest) as e:
            log.warning("cannot post in %s: %s", channel, e)
            return None

    async def _say(self, update: Update, text: str) -> None:
        message = update.effective_message
        if message is not None:
            await self._quietly(message.reply_text(text[:TEXT_LIMIT], parse_mode=ParseMode.HTML))

    async def _quietly(self, call: Any) -> None:
        """A call whose failure (message gone, not modified) changes nothing for anyone."""
        try:
            await call
        except (BadRequest, Forbidden) as e:
            log.debug("ignored: %s", e)

    def _where(self, update: Update) -> tuple[str, User] | None:
        message, tg_user = update.effective_message, update.effective_user
        if message is None or tg_user is None:
            return None
        return channel_of(message, message.chat.id), user_of(tg_user)

    async def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        # the service does blocking store I/O and draws images: keep the loop free
        return await asyncio.to_thread(fn, *args, **kwargs)

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("error while handling an update: %s", context.error, exc_info=context.error)


def _toast(reply: Reply) -> str:
    return say(reply.lines[0])[:200] if reply.lines else "Refused."
