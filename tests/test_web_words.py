"""The board's words: every message translated in every language the bot speaks,
and in step with the template."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po

from bot.present.catalog import languages
from bot.web.words import LOCALE_DIR, WORDS, words

TRANSLATED = [lang for lang in languages() if lang != "en"]


def test_the_template_is_the_english_wording() -> None:
    with (LOCALE_DIR / "web.pot").open("rb") as f:
        template = read_po(f)
    assert {(m.context, m.id) for m in template if m.id} == set(WORDS.items())


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_word_is_translated(lang: str) -> None:
    with (LOCALE_DIR / f"{lang}.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    entries = {m.context: m for m in catalog if m.id}
    assert set(entries) == set(WORDS)
    for key, english in WORDS.items():
        m = entries[key]
        assert m.id == english and m.string and not m.fuzzy, key
        assert words(key, lang) == m.string != english


def test_english_and_an_unknown_key() -> None:
    assert words("web.expired", "en") == WORDS["web.expired"]
    assert words("web.nonsense", None) == WORDS["web.bad_request"]
