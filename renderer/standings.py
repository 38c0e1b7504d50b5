"""``render_standings``: the final ranking of a finished game as a PNG image."""

from __future__ import annotations

from collections.abc import Mapping

from PIL import Image, ImageDraw

from engine import COLOURS, GameState

from .board import DEFAULT_SIZE, check_size
from .indexed import to_png
from .sprites import token
from .text import Font, clean_name, fit, font
from .theme import theme_for
from .words import ENGLISH, Words


def render_standings(
    state: GameState,
    *,
    names: Mapping[str, str] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
    words: Words = ENGLISH,
) -> bytes:
    """The standings of a finished game: places, names, and scores (classic) or
    squares still to go.  A game still running shows the current order.
    ``words`` are the words drawn, in the reader's language (default: English).
    A palette PNG, in the theme's colours."""
    img = standings_image(state, names=names, size=size, theme=theme, words=words)
    return to_png(img, theme)


def standings_image(
    state: GameState,
    *,
    names: Mapping[str, str] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
    words: Words = ENGLISH,
) -> Image.Image:
    """:func:`render_standings` as drawn, before it is mapped to the theme's palette
    and encoded: an RGB Pillow image."""
    check_size(size)
    t = theme_for(theme)
    names = names or {}
    ranking = state.ranking or _current_order(state)
    places = state.places or {c: k + 1 for k, c in enumerate(ranking)}
    row = round(size * 0.13)
    head = round(size * 0.16)
    img = Image.new("RGB", (size, head + row * len(ranking) + row // 3), t.background)
    d = ImageDraw.Draw(img)
    d.text(
        (size / 2, head / 2),
        fit(words.title(state.is_over, state.rules), font(round(head * 0.34)), size * 0.96),
        font=font(round(head * 0.34)),
        fill=t.text,
        anchor="mm",
    )
    winners = set(state.winner or ())
    big = font(round(row * 0.42))
    disc = round(row * 0.55)
    right = size * 0.92
    x0 = size * 0.17 + disc + row * 0.2
    details = {c: _detail(state, c, words) for c in ranking}
    small = _detail_font(row, list(details.values()), (right - x0) * 0.5)
    for k, colour in enumerate(ranking):
        y = head + k * row
        c = COLOURS.index(colour)
        pal = t.colours[c]
        fill = pal.light if colour in winners else t.square
        d.rounded_rectangle(
            (size * 0.04, y + 4, size * 0.96, y + row - 4),
            radius=row // 5,
            fill=fill,
            outline=pal.main,
            width=max(2, row // 25),
        )
        d.text((size * 0.1, y + row / 2), f"{places[colour]}.", font=big, fill=t.text, anchor="mm")
        tok = token(c, None, disc, t.name)
        img.paste(tok, (round(size * 0.17), round(y + (row - disc) / 2)), tok)
        detail = fit(details[colour], small, (right - x0) * 0.6)
        dw = small.getlength(detail)
        d.text((right, y + row / 2), detail, font=small, fill=t.text, anchor="rm")
        label = clean_name(names.get(colour), words.colour(colour))
        if colour in winners:
            label = "★ " + label
        d.text(
            (x0, y + row / 2),
            fit(label, big, right - dw - row * 0.3 - x0),
            font=big,
            fill=t.text,
            anchor="lm",
        )
    return img


def _detail(state: GameState, colour: str, words: Words) -> str:
    """The score ("250 points") or what is left ("12 squares to go") of a player."""
    if state.scores is not None:
        return words.points(state.scores[colour])
    left = state.distance(colour)
    return words.all_home if left == 0 else words.to_go(left)


def _detail_font(row: int, details: list[str], width: float) -> Font:
    """The font of the details: smaller if the widest would take more than ``width``
    (a long wording, "mancano 103 caselle"), so the names keep their room."""
    small = font(round(row * 0.3))
    widest = max((small.getlength(text) for text in details), default=0.0)
    if widest <= width:
        return small
    return font(max(round(row * 0.22), int(small.size * width / widest)))


def _current_order(state: GameState) -> list[str]:
    scores = state.scores
    players = list(state.players)
    if scores is not None:
        return sorted(players, key=lambda c: -scores[c])
    return sorted(players, key=state.distance)
