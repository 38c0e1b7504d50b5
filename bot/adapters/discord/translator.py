"""The ``/ludo`` commands in the language of each person's Discord client.

Every name, description and choice of the command tree is a
:class:`~discord.app_commands.locale_str` that carries our message id
(``dc.name.new``, ``dc.desc.new.rules``) or the rule set it names; when the
tree is synced, :class:`LudoTranslator` says it in the language the bot speaks
for each of Discord's locales (``pt-BR``, ``es-ES``, ``es-419``, ``it``...), so
Discord shows ``/ludo nuova`` to an Italian and ``/ludo new`` to everyone else.
What a translation cannot be (a name against Discord's rules, a name taken by
another option of the same command) is left in English: a translation never
stops the commands from being synced.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from engine import RULE_SETS
from renderer import THEMES

from ...players import LEVELS
from ...present import Text, language_name, language_of, languages, say
from ...present.catalog import SOURCE, translations
from ...present.wording import MESSAGES

log = logging.getLogger(__name__)

#: Discord's rule for the name of a command or an option (lower case, too)
NAME = re.compile(r"[-_\w]{1,32}")
#: the longest description (and choice name) Discord takes
DESCRIPTION_LIMIT = 100


def asker_language(interaction: discord.Interaction[Any]) -> str:
    """The language of the person who acted (their Discord client's)."""
    return language_of(str(interaction.locale))


def named(english: str) -> app_commands.locale_str:
    """The name of a command or an option: its English name, translated as ``dc.name.<it>``."""
    return app_commands.locale_str(english, id=f"dc.name.{english}")


def described(msgid: str) -> app_commands.locale_str:
    """A description: the English wording of ``msgid``, translated from the catalogs."""
    return app_commands.locale_str(say(Text(msgid)), id=msgid)


Decorated = TypeVar("Decorated")


def options(command: str, **names: str) -> Callable[[Decorated], Decorated]:
    """Name a command's options in the asker's language and describe them: the parameter
    ``fmt="format"`` becomes the option ``format``, described by ``dc.desc.<command>.format``."""
    renamed = {param: named(name) for param, name in names.items()}
    descriptions = {param: described(f"dc.desc.{command}.{name}") for param, name in names.items()}

    def decorate(func: Decorated) -> Decorated:
        described_func = app_commands.describe(**descriptions)(func)
        return app_commands.rename(**renamed)(described_func)

    return decorate


def capitalised(word: str) -> str:
    return word[:1].upper() + word[1:]


def rule_choices() -> list[app_commands.Choice[str]]:
    """The rule sets, each shown by its name in the reader's language."""
    return [
        app_commands.Choice(name=app_commands.locale_str(name.capitalize(), rules=name), value=name)
        for name in RULE_SETS
    ]


def language_choices() -> list[app_commands.Choice[str]]:
    """The languages the bot speaks, each named in its own language (for every reader)."""
    return [
        app_commands.Choice(name=capitalised(language_name(lang)), value=lang)
        for lang in languages()
    ]


def theme_choices() -> list[app_commands.Choice[str]]:
    """The themes the boards can be drawn in, each shown by its name ``dc.theme.<theme>``
    in the reader's language (a theme without one: its own name)."""
    return [
        app_commands.Choice(
            name=described(f"dc.theme.{name}")
            if f"dc.theme.{name}" in MESSAGES
            else capitalised(name),
            value=name,
        )
        for name in THEMES
    ]


def level_choices() -> list[app_commands.Choice[str]]:
    """The computer levels, each shown by its name ``level.<level>`` in the reader's
    language."""
    return [app_commands.Choice(name=described(f"level.{name}"), value=name) for name in LEVELS]


def name_in(english: str, lang: str) -> str:
    """The name ``dc.name.<english>`` in ``lang`` as Discord takes it (lower case, ``_`` for
    a space), or ``english`` if the translation cannot be a name."""
    text = say(Text(f"dc.name.{english}"), lang=lang).strip().lower().replace(" ", "_")
    if NAME.fullmatch(text):
        return text
    log.warning("the %s name of /ludo's %r is no Discord name: %r", lang, english, text)
    return english


def unique_name(english: str, siblings: Sequence[str], lang: str) -> str:
    """The name of ``english`` in ``lang`` among ``siblings`` (the English names of the
    commands of the group, or of the options of the command, itself included): its
    translation, unless another sibling is called so in English or in ``lang``."""
    mine = name_in(english, lang)
    others = [s for s in siblings if s != english]
    taken = set(others) | {name_in(s, lang) for s in others}
    if mine in taken:
        log.warning("the %s name of /ludo's %r is taken: %r", lang, english, mine)
        return english
    return mine


def short(text: str) -> str | None:
    """A description or a choice's name as Discord takes it (1 to 100 characters)."""
    text = text.strip()
    if len(text) > DESCRIPTION_LIMIT:
        text = text[: DESCRIPTION_LIMIT - 1].rstrip() + "…"
    return text or None


def siblings(context: app_commands.TranslationContextTypes) -> list[str]:
    """The English names among which the named thing must be unique."""
    data: Any = context.data
    if context.location == Where.parameter_name:
        return [p.display_name for p in data.command.parameters]
    if context.location == Where.command_name and data.parent is not None:
        return [c.name for c in data.parent.commands]
    return []


class LudoTranslator(app_commands.Translator):
    """Names, descriptions and choices of ``/ludo`` from our catalogs; None (Discord shows
    the English) for English, for a language the bot does not speak, and where the
    translation is the English."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = language_of(locale.value)
        if lang == SOURCE:
            return None
        rules = string.extras.get("rules")
        msgid = string.extras.get("id")
        if isinstance(rules, str):
            said = short(capitalised(translations(lang).pgettext("rules", rules)))
        elif not isinstance(msgid, str):
            return None
        elif msgid.startswith("dc.name."):
            said = unique_name(string.message, siblings(context), lang)
        else:
            said = short(say(Text(msgid), lang=lang))
        return None if said == string.message else said
