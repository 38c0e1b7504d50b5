"""The translations of the words players read: one gettext catalog per language.

The English wording lives in the code (:mod:`bot.present.messages`); every
other language is one file ``bot/locale/<language>.po``, in the format
translators' tools read (Poedit, Weblate, Lokalize).  Each message's context is
its id (``ev.move.rolled``), so a translation never depends on the English
text matching another one by chance.  Adding a language is adding its file.
"""

from __future__ import annotations

import gettext
import io
import unicodedata
from functools import cache
from pathlib import Path

from babel import Locale, UnknownLocaleError

#: where the catalogs are
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: the language of the wording in the code
SOURCE = "en"


def languages() -> list[str]:
    """The languages the bot speaks: English and each catalog's (``pt_BR``, ``es``...)."""
    return [SOURCE, *sorted(p.stem for p in LOCALE_DIR.glob("*.po"))]


def language_of(code: str | None) -> str:
    """The language to speak to someone whose platform says ``code`` (``pt-br``,
    ``es-419``, ``it``): the same language, else one of its country variants, else
    English."""
    return find_language(code) or SOURCE


def find_language(code: str | None) -> str | None:
    """The language the bot speaks that ``code`` names (``pt-br``, ``es-419``, ``it``, or
    a name: ``Italian``, ``português``), or None."""
    if not code:
        return None
    wanted = _folded(code.strip().replace("-", "_"))
    known = languages()
    for lang in known:
        if lang.lower() == wanted:
            return lang
    base = wanted.split("_")[0]
    for lang in known:
        if lang.lower().split("_")[0] == base:
            return lang
    for lang in known:
        # its name in any language the bot speaks: "italiano", "Italian", "português"
        names = {_name(name, reader) for name in (lang, lang.split("_")[0]) for reader in known}
        if wanted in {_folded(n) for n in names}:
            return lang
    return None


def _folded(text: str) -> str:
    """``Español`` -> ``espanol``: lower case, without accents."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def language_name(lang: str, reader: str | None = None) -> str:
    """The name of ``lang`` as ``reader`` says it (as its own speakers do if None):
    ``português (Brasil)``, ``Portuguese (Brazil)``."""
    return _name(lang, reader or lang)


@cache
def _name(lang: str, reader: str) -> str:
    try:
        return Locale.parse(lang).get_display_name(Locale.parse(reader)) or lang
    except (ValueError, UnknownLocaleError):
        return lang


@cache
def translations(lang: str | None) -> gettext.NullTranslations:
    """The translations into ``lang`` (none, i.e. the English wording, for English or
    a language without a catalog)."""
    path = LOCALE_DIR / f"{lang}.po"
    if not lang or lang == SOURCE or not path.is_file():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)
