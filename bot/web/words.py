"""The board's own words (errors a page shows), in the bot's four languages.

They are a gettext catalog of their own (``bot/web/locale/<language>.po``,
each message's context its id, as the chat's catalogs in ``bot/locale``): the
chat's wording tables live in :mod:`bot.present.wording`, which the board's
server does not change.  The game's refusals (not your turn, outdated...) come
from the chat's catalogs (:func:`refusal_words`), so both say the same.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from ..hosting import Game, Refusal
from ..present import say
from ..present.catalog import SOURCE
from ..present.view import refusal_text

#: where the board's catalogs are
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

#: id -> English wording
WORDS: dict[str, str] = {
    "web.forged": "This sign-in could not be checked: open the board again from the chat.",
    "web.expired": "This link has expired: open the board again from the chat.",
    "web.only_players": "Only players can move: you are watching this game.",
    "web.not_playing": "You are not playing in this game.",
    "web.no_game": "There is no such game (it may have ended).",
    "web.bad_request": "The board sent something it should not: reload the page.",
    "web.too_big": "That is too much at once: reload the page.",
    "web.slow_down": "Not so fast: wait a moment and try again.",
    "web.busy_network": (
        "Many boards are being opened from your network right now: try again in a few seconds."
    ),
    "web.replayed": "That was sent already.",
    "web.other_game": "That button belongs to another game.",
    "web.no_activity": "The Discord Activity is not set up on this bot.",
    "web.discord_refused": "Discord did not confirm who you are: open the Activity again.",
    "web.not_in_activity": "You are not in this channel's Activity: open it from the channel.",
    "web.discord_unavailable": "Discord did not answer: try again in a moment.",
    "web.discord_busy": (
        "Too many people are signing in through Discord right now: the board will try again"
        " in a few seconds."
    ),
}


@cache
def _translations(lang: str) -> gettext.NullTranslations:
    path = LOCALE_DIR / f"{lang}.po"
    if lang == SOURCE or not path.is_file():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def words(key: str, lang: str | None) -> str:
    """The board's message ``key`` in ``lang`` (English if it has no catalog)."""
    english = WORDS.get(key, WORDS["web.bad_request"])
    return _translations(lang or SOURCE).pgettext(key, english)


def refusal_words(refusal: Refusal, game: Game | None, lang: str | None) -> str:
    """A refusal of the game, as the chat says it, in ``lang``."""
    return say(refusal_text(refusal, game), lang=lang)
