"""The pictures of a game: its board as the players last saw it, or the final standings,
with their words (the bar under the board, the standings) in the reader's language."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine import Move
from renderer import THEMES, Words, render_board, render_standings

from ..hosting import Game
from .catalog import translations
from .messages import say
from .text import Text


@lru_cache(maxsize=16)
def picture_words(lang: str | None = None) -> Words:
    """The words the pictures draw, in ``lang`` (English if None or unknown)."""

    def said(key: str, **params: Any) -> str:
        return say(Text(key, params), lang=lang)

    tr = translations(lang)

    def colour(c: str) -> str:
        word = tr.pgettext("colour", c)
        return word[:1].upper() + word[1:]

    return Words(
        to_roll=said("pic.to_roll"),
        choose=said("pic.choose"),
        bonus=lambda steps: said("pic.bonus", steps=steps),
        won=lambda winners: said("pic.won", count=winners),
        title=lambda over, rules: said(
            "pic.title", title=Text("pic.final" if over else "pic.so_far"), rules=rules
        ),
        points=lambda count: said("pic.points", count=count),
        all_home=said("pic.all_home"),
        to_go=lambda count: said("pic.to_go", count=count),
        colour=colour,
    )


def picture_names(game: Game, lang: str | None = None) -> dict[str, str]:
    """colour -> the name drawn for it: the player's, or "Computer" in ``lang`` (a
    forgotten person's seat: "Red player")."""
    computer = say(Text("who.a_computer"), lang=lang)

    def player(colour: str) -> str:
        said = say(Text("who.player", {"colour": colour}), lang=lang)
        return said[:1].upper() + said[1:]

    return {
        s.colour: (player(s.colour) if s.user.forgotten else s.user.name) if s.user else computer
        for s in game.seats
        if s.colour
    }


def board_png(game: Game, size: int = 600, lang: str | None = None) -> bytes:
    """The board of a started game, with its last move and roll marked, its words in
    ``lang`` (default: the game's language)."""
    assert game.state is not None
    last = None
    lm = game.last.get("move")
    if lm:
        captures = (lm[4], lm[5]) if len(lm) >= 6 else None
        last = Move(lm[0], lm[1], lm[2], lm[3], 0, lm[2] == 0, captures)
    roll = game.last.get("roll")
    rolled = (roll[0], roll[1]) if roll else None
    lang = lang or game.lang
    return render_board(
        game.state,
        names=picture_names(game, lang),
        last_move=last,
        rolled=rolled,
        size=size,
        theme=theme_of(game),
        words=picture_words(lang),
    )


def theme_of(game: Game) -> str:
    """The theme the game's pictures are drawn in (the classic one if this ludo-bot
    does not know the game's)."""
    return game.theme if game.theme in THEMES else "classic"


def standings_png(game: Game, size: int = 600, lang: str | None = None) -> bytes:
    """The final standings of a finished game, in ``lang`` (default: the game's language)."""
    assert game.state is not None
    lang = lang or game.lang
    return render_standings(
        game.state,
        names=picture_names(game, lang),
        size=size,
        theme=theme_of(game),
        words=picture_words(lang),
    )
