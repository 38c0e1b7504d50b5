"""Telegram's inline mode: a table in any chat, the bot a member or not.

A person types ``@bot`` in a chat, and perhaps what ``/ludo`` takes after it (``@bot
italian teams timer=60 level=hard``).  :meth:`InlineTables.on_query` lists the tables
that would open, in the person's language: each rule set (or the one typed), and one
against the computer.  Each is the lobby it would open, its buttons those of the game
without id or version (``i:<action>``: :func:`bot.present.buttons.unborn_button`).
The one chosen is posted in that chat "via @bot" (with its buttons, so that it has an
``inline_message_id``), and Telegram tells the bot which one it was
(``chosen_inline_result``: BotFather's ``/setinlinefeedback``).
:meth:`InlineTables.on_chosen` opens that very game there, without touching the
message: its channel is that one message (``tgi:<inline_message_id>``), and the whole
game is played in it, from its first press on.

Where the results count, and the pace its edits keep, is the chat the message is in.
Telegram names it only in the presses on the message (``chat_instance``), so a new
table's chat is ``tgc:<g|p>:?<inline_message_id>`` until the first press tells it
(:meth:`bot.hosting.Game.learn_chat`); ``g`` or ``p`` is what the inline query said of
the chat (a private chat's pace, or a group's).  As the posted message is the lobby
already, every edit of a table is made once its chat is known (but for a lobby nobody
pressed, closed by its timer), so each keeps the pace of its chat.

Guest mode (Bot API 10): someone mentions the bot in a chat it is not in, and the bot
answers that guest query with the same table (:meth:`InlineTables.on_guest`).
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

import engine

from ...hosting import Happened, Intent, Note, Refusal, User, add_computer, open_game
from ...hosting.checks import chosen_rules
from ...present import TableView, Text, refusal_text, say, table_view
from ...present.buttons import unborn_button as unborn
from ...service.game import GameService
from ...service.outcome import Outcome
from ...store.pace import PaceKey
from .commands import LudoArgs, parse_ludo_args, rules_label
from .guard import MAX_WORDS
from .inline_screen import INLINE
from .screen import TEXT_LIMIT, caption
from .updates import language, user_of

log = logging.getLogger(__name__)

#: where an inline table's results count and its edits are paced: ``tgc:<g|p>:<chat>``
PLACE = "tgc:"
#: the game id a lobby is drawn with before its game exists (never shown)
UNBORN = "00000000"
#: a result's id: a table (t) or one against the computer (c), its rules, its chat's kind
RESULT = re.compile(r"(?P<what>[tc]):(?P<rules>[a-z]{1,16}):(?P<kind>[gp])")
#: seconds Telegram keeps a person's results for the same query
CACHE_SECONDS = 300
#: the longest text of the button above the results
BUTTON_TEXT = 64


def kind_of(chat_type: str | None) -> str:
    """``p``: a private chat's pace (the inline query came from one); ``g``: a group's."""
    return "p" if chat_type in ("sender", "private") else "g"


def place_chat(kind: str, inline_id: str) -> str:
    """The chat of a new inline table, known in part (until a press tells the rest)."""
    return f"{PLACE}{kind}:?{inline_id}"


def pace_key(chat: str) -> PaceKey:
    """The pace of an inline table whose results count in ``chat``: its chat's, as a
    group or a private chat; the message's own until a press named the chat."""
    kind, _, name = chat[len(PLACE) :].partition(":")
    return f"{'p' if kind == 'p' else 'g'}:{name.lstrip('?')}"


def typed(query: str) -> list[str]:
    """The words of an inline query or a mention, as ``/ludo`` takes them."""
    return query.split()[:MAX_WORDS]


def checked(words: Sequence[str]) -> tuple[LudoArgs, Text | None]:
    """What the words ask for, and why it cannot be played so (None: it can)."""
    asked = parse_ludo_args(words)
    if asked.error is not None:
        return asked, asked.error
    try:
        chosen_rules(asked.rules, asked.options)
    except Refusal as r:
        return asked, refusal_text(r)
    return asked, None


class InlineTables:
    """Tables posted through inline mode (and guest mode): listed, then opened."""

    def __init__(
        self,
        service: GameService,
        call: Callable[..., Awaitable[Any]],
        say_in: Callable[[str, str], None],
    ) -> None:
        """``say_in(channel, html)``: a table that could not open says why, in its one
        message."""
        self.service = service
        self.call = call
        self.say_in = say_in

    def default_timer(self) -> int:
        """The turn timer of a table that names none."""
        return self.service.lobby.default_timer

    # -- listing -------------------------------------------------------------

    def results(
        self, words: Sequence[str], kind: str, lang: str, user: User
    ) -> list[InlineQueryResultArticle]:
        """The tables the words would open, opened by ``user``: each rule set (only the
        one typed, if one was), and one against the computer."""
        asked, _ = checked(words)
        first = words[0].lower() if words else ""
        named = first in engine.RULE_SETS
        rule_sets = [asked.rules] if named else list(engine.RULE_SETS)
        options = " ".join(words[1:] if named else words)
        teams = bool(asked.options.get("teams"))
        out = []
        for n, rules in enumerate([*rule_sets, rule_sets[0]]):
            what = "c" if n == len(rule_sets) else "t"
            lobby = self.lobby(user, rules, asked, lang, against_computer=what == "c")
            if lobby is not None:
                out.append(self._article(what, rules, kind, teams, options, lobby, asked, lang))
        return out

    def lobby(
        self, user: User, rules: str, asked: LudoArgs, lang: str, *, against_computer: bool
    ) -> TableView | None:
        """The lobby ``user`` would open so (with a computer player seated, against the
        computer), as its table shows it; None: it cannot be opened so."""
        happened = Happened(by=user, facts=[Note("lobby.opened")])
        try:
            game = open_game(
                UNBORN,
                INLINE,
                user,
                rules,
                asked.options,
                timer=self.default_timer() if asked.timer is None else asked.timer,
                auto_move=True,
                now=0.0,
                lang=asked.lang or lang,
                level=asked.level,
            )
            if against_computer:
                add_computer(game, user, happened)
        except Refusal:
            return None
        game.theme = asked.theme
        return table_view(game, happened)

    def _article(
        self,
        what: str,
        rules: str,
        kind: str,
        teams: bool,
        options: str,
        lobby: TableView,
        asked: LudoArgs,
        lang: str,
    ) -> InlineQueryResultArticle:
        name = rules_label(rules, teams, lang)
        if what == "c":
            title = say(Text("tg.inline.computer", {"rules": name}), lang=lang)
            level_name = say(Text(f"level.{asked.level}"), lang=lang)
            about = say(Text("tg.inline.computer.about", {"level": level_name}), lang=lang)
        else:
            title, about = name, say(Text("tg.inline.open"), lang=lang)
        if options:
            about = say(Text("tg.inline.options", {"about": about, "options": options}), lang=lang)
        buttons = [
            [
                InlineKeyboardButton(say(b.label, lang=lobby.lang), callback_data=unborn(b.data))
                for b in row
            ]
            for row in lobby.buttons
        ]
        text = caption(lobby.lines, limit=TEXT_LIMIT, lang=lobby.lang, links=False)
        return InlineQueryResultArticle(
            id=f"{what}:{rules}:{kind}",
            title=title[:1].upper() + title[1:],
            description=about,
            input_message_content=InputTextMessageContent(text, parse_mode=ParseMode.HTML),
            reply_markup=InlineKeyboardMarkup(buttons),
        )

    async def on_query(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """``@bot ...`` typed in a chat: the tables it would open, or why none can."""
        query = update.inline_query
        if query is None:
            return
        lang = language(update)
        words = typed(query.query)
        _, error = checked(words)
        if error is not None:
            text = plain(caption([error], limit=TEXT_LIMIT, lang=lang, links=False))
            text = text if len(text) <= BUTTON_TEXT else text[: BUTTON_TEXT - 1] + "…"
            results: list[InlineQueryResultArticle] = []
        else:
            text = say(Text("tg.inline.help"), lang=lang)
            user = user_of(query.from_user)
            results = self.results(words, kind_of(query.chat_type), lang, user)
        button = InlineQueryResultsButton(text=text, start_parameter="help")
        await query.answer(results, cache_time=CACHE_SECONDS, is_personal=True, button=button)

    # -- opening -------------------------------------------------------------

    async def on_chosen(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A table was chosen and posted: the game opens in that message."""
        chosen = update.chosen_inline_result
        if chosen is None or chosen.inline_message_id is None:
            return
        found = RESULT.fullmatch(chosen.result_id)
        if found is None:
            return
        user = user_of(chosen.from_user)
        await self.open(
            chosen.inline_message_id,
            user,
            typed(chosen.query),
            found["rules"],
            found["kind"],
            against_computer=found["what"] == "c",
            lang=language(update),
        )

    async def on_guest(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot mentioned in a chat it is not in (guest mode): it answers with the
        table the words after the mention ask for, and the game opens in that answer."""
        message = update.guest_message
        if message is None or message.guest_query_id is None or message.from_user is None:
            return
        lang = language(update)
        words = [w for w in typed(message.text or "") if not w.startswith("@")]
        kind = kind_of(message.chat.type)
        asked, error = checked(words)
        if error is not None:
            said = caption([error], limit=TEXT_LIMIT, lang=lang, links=False)
            content = InputTextMessageContent(said, parse_mode=ParseMode.HTML)
            article = InlineQueryResultArticle(
                id="refused", title=plain(said)[:64], input_message_content=content
            )
            await message.get_bot().answer_guest_query(message.guest_query_id, article)
            return
        first = self.results(words, kind, lang, user_of(message.from_user))[0]
        try:
            sent = await message.get_bot().answer_guest_query(message.guest_query_id, first)
        except TelegramError as e:
            log.info("a guest query was not answered: %s", e)
            return
        user = user_of(message.from_user)
        await self.open(sent.inline_message_id, user, words, asked.rules, kind, lang=lang)

    async def open(
        self,
        inline_id: str,
        user: User,
        words: Sequence[str],
        rules: str,
        kind: str,
        *,
        against_computer: bool = False,
        lang: str,
    ) -> None:
        """Open the game in the inline message ``inline_id``; against the computer, with
        one computer player, started at once."""
        asked, error = checked(words)
        channel = INLINE + inline_id
        if error is not None:  # the words changed since they were listed
            self.say_in(channel, caption([error], limit=TEXT_LIMIT, lang=lang, links=False))
            return
        outcome: Outcome = await self.call(
            self.service.open,
            channel,
            user,
            rules,
            asked.options,
            timer=asked.timer,
            lang=asked.lang or lang,
            chat=place_chat(kind, inline_id),
            theme=asked.theme,
            level=asked.level,
        )
        if outcome.refusal is None and against_computer:
            outcome = await self.call(self.service.act, channel, user, Intent("add_computer"))
        if outcome.refusal is not None:  # the message shows a lobby that is not there
            refusal = refusal_text(outcome.refusal)
            self.say_in(channel, caption([refusal], limit=TEXT_LIMIT, lang=lang, links=False))
        # else the message shows this lobby already: the first press brings the next view


def plain(text: str) -> str:
    """``text`` (HTML) without its markup, its entities read (a button's text is plain)."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))
