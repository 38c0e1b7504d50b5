"""The catalogs' template, made from the English wording, and the ``.po`` files kept
in step with it: ``python -m bot.present.po`` after changing a message, and
``python -m bot.present.po new fr`` to start the catalog of a new language.

New messages appear untranslated in every ``.po`` file (a translator fills them
in), and so do messages whose English changed (the old translation no longer
says the same); removed ones are dropped.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from .catalog import LOCALE_DIR
from .messages import GAME_WORDS
from .wording import MESSAGES

TEMPLATE = LOCALE_DIR / "ludo.pot"


def template() -> Catalog:
    """Every message players can read, with its id as context."""
    catalog = Catalog(project="ludo-bot", charset="utf-8", fuzzy=False)
    for context, word in GAME_WORDS:
        catalog.add(word, context=context)
    for msgid, english in MESSAGES.items():
        catalog.add(english, context=msgid, flags=["python-brace-format"])
    return catalog


def write(catalog: Catalog, path: Path) -> None:
    with path.open("wb") as f:
        write_po(f, catalog, width=100, omit_header=False, sort_output=False, ignore_obsolete=True)


def update() -> list[Path]:
    """Write the template and bring every catalog in step with it; the files written."""
    tmpl = template()
    write(tmpl, TEMPLATE)
    written = [TEMPLATE]
    for path in sorted(LOCALE_DIR.glob("*.po")):
        with path.open("rb") as f:
            catalog = read_po(f, locale=path.stem)
        catalog.update(tmpl, no_fuzzy_matching=True)
        write(catalog, path)
        written.append(path)
    return written


def init(lang: str) -> Path:
    """Start the catalog of a new language (``pt_BR``, ``fr``): every message, untranslated."""
    path = LOCALE_DIR / f"{lang}.po"
    if path.exists():
        raise SystemExit(f"{path} exists already")
    catalog = Catalog(locale=lang, project="ludo-bot", charset="utf-8", fuzzy=False)
    catalog.update(template(), no_fuzzy_matching=True)
    write(catalog, path)
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["new"] and len(args) == 2:
        print(init(args[1]))
        return 0
    if args:
        print("usage: python -m bot.present.po [new LANGUAGE]", file=sys.stderr)
        return 2
    for path in update():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
