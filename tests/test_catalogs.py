"""The translations: every catalog has every message, with the same placeholders, and
every message renders in every language with nothing left unfilled."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.present import Text, say
from bot.present.catalog import (
    LOCALE_DIR,
    find_language,
    language_name,
    language_of,
    languages,
    translations,
)
from bot.present.messages import VARIANTS, message_id
from bot.present.po import TEMPLATE, template
from bot.present.wording import MESSAGES
from tests.helpers.languages import SAMPLE

TRANSLATED = [lang for lang in languages() if lang != "en"]
FIELD = re.compile(r"{(\w+)}")


def read(path: Path, lang: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def entries(catalog: Catalog) -> dict[tuple[str | None, Any], Any]:
    return {(m.context, m.id): m for m in catalog if m.id}


def test_the_bot_speaks_english_portuguese_spanish_and_italian() -> None:
    assert set(languages()) >= {"en", "pt_BR", "es", "it"}


def test_the_template_is_in_step_with_the_english_wording() -> None:
    """``python -m bot.present.po`` was run after the last change of a message."""
    assert set(entries(read(TEMPLATE))) == set(entries(template()))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_catalog_has_every_message_translated_with_the_same_placeholders(
    lang: str,
) -> None:
    catalog = read(LOCALE_DIR / f"{lang}.po", lang)
    mine, wanted = entries(catalog), entries(template())
    assert set(mine) == set(wanted), "run python -m bot.present.po"
    problems = []
    for key, m in mine.items():
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        fields = set().union(*(FIELD.findall(i) for i in ids))
        if m.fuzzy:
            problems.append((key, "fuzzy"))
        if isinstance(m.id, tuple) and len(strings) != catalog.num_plurals:
            problems.append((key, f"{len(strings)} plural forms, not {catalog.num_plurals}"))
        for k, s in enumerate(strings):
            if not s:
                problems.append((key, "untranslated"))
                continue
            got = set(FIELD.findall(s))
            # a singular form may leave the number out ("one seat"), nothing else
            may_miss = {"count"} if isinstance(m.id, tuple) and k < len(strings) - 1 else set()
            if got - fields or fields - got - may_miss:
                problems.append((key, s))
    assert not problems


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_renders_in_every_language(lang: str) -> None:
    differ = 0
    for msgid in MESSAGES:
        # an id of its own, or a variant (ev.move.rolled): the parameters that choose it
        base = next((k for k in VARIANTS if msgid.startswith(k + ".") or msgid == k), msgid)
        text = Text(base, dict(SAMPLE))
        if base in VARIANTS:
            rest = msgid[len(base) + 1 :].split(".")
            text.params.update(
                die=6 if "rolled" in rest else None,
                bounce="bounce" in rest,
                captures="captures" in rest,
                why=next((r for r in rest if r in ("six", "capture", "home")), None),
                bonus="bonus" in rest,
                players="" if "alone" in rest else SAMPLE["players"],
            )
        assert message_id(text) == msgid
        for count in (1, 2, 5):
            text.params["count"] = count
            said = say(text, lang=lang)
            assert said and not re.search(r"[{}]", said), (msgid, said)
            assert said != msgid, f"{msgid} has no wording in {lang}"
        differ += said != say(text)
    assert differ >= 0.9 * len(MESSAGES), "most messages read differently from English"


def test_words_of_the_game_are_translated_inside_sentences() -> None:
    for lang in TRANSLATED:
        tr = translations(lang)
        red, classic = tr.pgettext("colour", "red"), tr.pgettext("rules", "classic")
        assert red != "red" or lang == "en"
        line = say(Text("turn.roll", {"who": "Ana", "colour": "red"}), lang=lang)
        assert red in line and "Ana" in line, line
        begins = say(Text("game.started", {"rules": "classic", "players": "Ana"}), lang=lang)
        assert classic.lower() in begins.lower(), begins


@pytest.mark.parametrize(
    ("code", "lang"),
    [
        ("pt-br", "pt_BR"),
        ("pt-BR", "pt_BR"),
        ("pt", "pt_BR"),
        ("pt-PT", "pt_BR"),
        ("es", "es"),
        ("es-ES", "es"),
        ("es-419", "es"),
        ("it", "it"),
        ("it-IT", "it"),
        ("en", "en"),
        ("en-US", "en"),
        ("fr", "en"),
        ("", "en"),
        (None, "en"),
        ("zz-???", "en"),
    ],
)
def test_a_platform_language_code_finds_its_catalog(code: str | None, lang: str) -> None:
    assert language_of(code) == lang


def test_an_unknown_language_speaks_english() -> None:
    line = Text("ev.roll", {"who": "Ana", "die": 4, "colour": "red"})
    assert say(line, lang="fr") == say(line) == "Ana rolled 4."


def test_words_inside_words_are_said_in_the_readers_language() -> None:
    """Squares, computer seats, lists and team winners are texts of their own, said in
    the same language as the sentence around them (nothing English left inside)."""
    from bot.present.narrate import one_of, square_from, square_to, together

    for lang in TRANSLATED:
        tr = translations(lang)
        green = tr.pgettext("colour", "green")
        seats = (
            Text("who.seat", {"who": "Ana", "colour": "red"}),
            Text("who.computer", {"colour": "green"}),
        )
        begins = say(Text("game.started", {"rules": "italian", "players": seats}), lang=lang)
        assert green in begins and "Computer (green)" not in begins, begins
        assert say(Text("who.computer", {"colour": "green"}), lang=lang) in begins
        moved = say(
            Text(
                "ev.move", {"who": "Ana", "piece": 2, "frm": square_from(50), "to": square_to(53)}
            ),
            lang=lang,
        )
        column = say(square_to(53), lang=lang)
        assert column in moved and "2" in column and "column" not in moved, moved
        won = say(Text("ev.game_over", {"winners": together(["Ana", "Bia"])}), lang=lang)
        assert "Ana" in won and "Bia" in won and " and " not in won, won
        need = say(Text("illegal.in_base", {"piece": 3, "need": one_of([5, 6])}), lang=lang)
        assert "5" in need and "6" in need and " or " not in need, need


def test_names_inside_words_are_escaped_once() -> None:
    seats = (Text("who.seat", {"who": "<b>", "colour": "red"}),)
    line = say(Text("game.started", {"rules": "classic", "players": seats}), escape=str.upper)
    assert line == "CLASSIC Ludo begins: <B> (RED)."


def test_the_language_of_a_table_is_named_in_the_readers_language() -> None:
    assert say(Text("game.language", {"language": "it"})) == (
        "This table speaks Italian from now on."
    )
    for lang in TRANSLATED:
        own = say(Text("game.language", {"language": lang}), lang=lang)
        assert language_name(lang).split(" ")[0].lower() in own.lower(), own


@pytest.mark.parametrize(
    ("asked", "lang"),
    [
        ("pt", "pt_BR"),
        ("Português", "pt_BR"),
        ("italiano", "it"),
        ("Spanish", "es"),
        ("espanol", "es"),
        ("EN", "en"),
        ("inglés", "en"),
        ("fr", None),
        ("", None),
        ("klingon", None),
    ],
)
def test_a_language_is_found_by_code_or_by_name(asked: str, lang: str | None) -> None:
    assert find_language(asked) == lang
