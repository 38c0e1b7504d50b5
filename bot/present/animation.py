"""The animation of a hosted game: its whole record as a GIF, with the players' names
and words in the reader's language, computer players' moves shown faster."""

from __future__ import annotations

from renderer import animate

from ..hosting import Game
from .pictures import picture_names, picture_words, theme_of

#: the width of a game's animation in pixels
ANIMATION_SIZE = 480


def computer_colours(game: Game) -> set[str]:
    """The colours a computer played: computer seats, and people's seats it took over."""
    return {s.colour for s in game.seats if s.colour and (s.computer or s.took_over)}


def game_animation(game: Game, lang: str | None = None, size: int = ANIMATION_SIZE) -> bytes:
    """The GIF of a started game from its start to now, its words in ``lang`` (default:
    the game's language).  A game not started raises :class:`ValueError`."""
    if game.start is None:
        raise ValueError("a game not started has nothing to animate")
    lang = lang or game.lang
    return animate(
        game.record(),
        names=picture_names(game, lang),
        computers=computer_colours(game),
        words=picture_words(lang),
        size=size,
        theme=theme_of(game),
    )
