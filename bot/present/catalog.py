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
from functools import cache
from pathlib import Path

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
    if not code:
        return SOURCE
    wanted = code.strip().replace("-", "_").lower()
    known = languages()
    for lang in known:
        if lang.lower() == wanted:
            return lang
    base = wanted.split("_")[0]
    for lang in known:
        if lang.lower().split("_")[0] == base:
            return lang
    return SOURCE


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
