"""Telegram's words and commands: the command menus, help, the rule chooser, the
language asked for, and ``/ludo``'s arguments.

Every text comes from the catalog (``tg.*`` in :mod:`bot.present.wording.telegram`),
said in the language of the person who typed or pressed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest

import engine

from ...hosting import Refusal
from ...present import (
    Text,
    find_language,
    find_level,
    language_name,
    languages,
    new_game_button,
    refusal_text,
    say,
)
from ...present.catalog import translations
from ...present.narrate import one_of
from ...present.timer import typed_timer
from .units import cut

log = logging.getLogger(__name__)

#: the commands of the menu, in its order; each one's description is ``tg.cmd.<name>``
COMMANDS = ("ludo", "join", "leave", "roll", "move", "board", "rules", "end", "language", "help")
#: Telegram's longest command description
DESCRIPTION_LIMIT = 256

#: the buttons of the rule chooser (/ludo without arguments): (rule set, teams)
CHOOSER = (
    ("classic", False),
    ("tower", False),
    ("italian", False),
    ("italian", True),
    ("super", False),
)

#: the options of the rules (``/ludo teams``); a first bare word that is neither one of
#: them nor a rule set names rules the bot does not know, and is refused so
OPTION_NAMES = frozenset(f.name for f in fields(engine.Options)) - {"name"}
#: the ``/ludo`` argument choosing the table's language: ``lang=it``
LANGUAGE_KEYS = ("lang", "language")
#: the language ``tg.say_language`` gives as an example
EXAMPLE_LANGUAGE = "pt"
#: the most digits of a number typed
MAX_DIGITS = 6


# -- the command menus ------------------------------------------------------


def command_list(lang: str) -> list[tuple[str, str]]:
    """The menu's (command, description) in ``lang``."""
    return [
        (name, cut(say(Text(f"tg.cmd.{name}"), lang=lang), DESCRIPTION_LIMIT)) for name in COMMANDS
    ]


def menu_code(lang: str) -> str | None:
    """Telegram's ``language_code`` of the menu in ``lang`` (a two-letter ISO 639-1
    code: ``pt_BR`` -> ``pt``), or None if Telegram names no menu so."""
    code = lang.split("_")[0].lower()
    return code if len(code) == 2 and code.isascii() and code.isalpha() else None


def command_menus() -> list[tuple[str | None, list[tuple[str, str]]]]:
    """Every menu to register: the default one (no language code: English), then one
    per other language the bot speaks, with its language code."""
    source, *others = languages()
    menus: list[tuple[str | None, list[tuple[str, str]]]] = [(None, command_list(source))]
    codes = {menu_code(source)}
    for lang in others:
        code = menu_code(lang)
        if code is not None and code not in codes:
            codes.add(code)
            menus.append((code, command_list(lang)))
    return menus


async def set_commands(bot: Bot) -> None:
    """The command menus: the default one (English), and one per language the bot
    speaks, which Telegram shows to people whose app speaks it."""
    for code, commands in command_menus():
        try:
            await bot.set_my_commands([BotCommand(c, d) for c, d in commands], language_code=code)
        except BadRequest as e:
            log.warning("the command menu in %s was refused: %s", code or "English", e)


# -- texts --------------------------------------------------------------------


def help_text(lang: str, *, greeting: bool = False) -> str:
    """How to play (HTML), with each person's corner and tournaments, or the greeting of
    a private chat."""
    if greeting:
        return say(Text("tg.greeting"), lang=lang)
    parts = ("tg.help", "tg.help.corner", "tg.help.tournament")
    return "\n\n".join(say(Text(key), lang=lang) for key in parts)


def rules_label(rules: str, teams: bool, lang: str) -> str:
    """A chooser button: the rule set's name in ``lang``, capitalised."""
    if teams:
        label = say(Text("tg.chooser.teams", {"rules": rules}), lang=lang)
    else:
        label = translations(lang).pgettext("rules", rules)
    return label[:1].upper() + label[1:]


def chooser(lang: str) -> tuple[str, InlineKeyboardMarkup]:
    """The rule chooser in ``lang``: its question (HTML) and its buttons."""
    rows = [
        [
            InlineKeyboardButton(
                rules_label(rules, teams, lang), callback_data=new_game_button(rules, teams)
            )
        ]
        for rules, teams in CHOOSER
    ]
    return say(Text("tg.chooser"), lang=lang), InlineKeyboardMarkup(rows)


def say_language() -> Text:
    """How to ask for a language, and the languages the bot speaks."""
    names = one_of([language_name(lang) for lang in languages()])
    return Text("tg.say_language", {"example": EXAMPLE_LANGUAGE, "languages": names})


def wanted_language(words: Sequence[str]) -> str:
    """The language ``/language <code or name>`` asks for (``pt``, ``italiano``,
    ``português (Brasil)``); "" if the bot speaks none such (hosting refuses it)."""
    return find_language(" ".join(words)) or ""


# -- /ludo's arguments -----------------------------------------------------------


@dataclass(frozen=True)
class LudoArgs:
    """What ``/ludo italian teams timer=60 lang=it`` asks for."""

    rules: str = "classic"
    options: dict[str, Any] = field(default_factory=dict)
    timer: int | None = None
    #: the table's language (None: the opener's)
    lang: str | None = None
    #: how its pictures are drawn (``theme=colourblind``); the service checks the name
    theme: str = "classic"
    #: the table's computer level (``level=hard``, or its name in a language we speak)
    level: str = "normal"
    #: why the game cannot be set up so, in words (None: it may be tried)
    error: Text | None = None


def parse_ludo_args(args: Sequence[str]) -> LudoArgs:
    """``/ludo italian teams pieces=5 timer=60 lang=it level=hard``: the rule set first (a bare
    word), then options; an unknown rule set or option is left for the rules to refuse."""
    rules = "classic"
    options: dict[str, Any] = {}
    timer: int | None = None
    lang: str | None = None
    theme, level = "classic", "normal"
    for k, raw in enumerate(args):
        word = raw.strip().lower()
        key, eq, value = word.partition("=")
        if k == 0 and not eq and (word in engine.RULE_SETS or word not in OPTION_NAMES):
            rules = word
            continue
        if not eq:
            options[key] = True  # "teams" means teams=true
            continue
        if key in LANGUAGE_KEYS:
            lang = find_language(value)
            if lang is None:
                return LudoArgs(rules, options, error=refusal_text(Refusal("refuse.bad_language")))
            continue
        if key == "theme":
            theme = value
            continue
        if key == "level":
            found = find_level(value)
            if found is None:
                told = refusal_text(Refusal("refuse.bad_level"))
                return LudoArgs(rules, options, error=told)
            level = found
            continue
        if key == "timer":  # "12h", "3d", "90m", "45s", "60" (seconds), "off"
            asked = typed_timer(raw.partition("=")[2])
            if isinstance(asked, Text):
                return LudoArgs(rules, options, error=asked)
            timer = asked  # the lobby checks the range, 10 seconds to 7 days
            continue
        options[key] = option_value(value)
    return LudoArgs(rules, options, timer, lang, theme, level)


def option_value(value: str) -> Any:
    """``on`` -> True, ``5`` -> 5, anything else as typed (the rules check it)."""
    if value in ("true", "yes", "on"):
        return True
    if value in ("false", "no", "off"):
        return False
    number = whole_number(value.removeprefix("-"))
    if number is not None:
        return -number if value.startswith("-") else number
    return value  # not a number, or too long for one: the rules refuse it so


def piece_of(args: Sequence[str]) -> int | None:
    """The piece ``/move N`` names (None: not one number)."""
    return whole_number(args[0]) if len(args) == 1 else None


def whole_number(word: str) -> int | None:
    """``word`` as a whole number: ASCII digits, at most :data:`MAX_DIGITS` (no timer,
    piece or option takes more); None if not."""
    if word.isascii() and word.isdigit() and len(word) <= MAX_DIGITS:
        return int(word)
    return None
