"""``render_standings``: the final ranking of a finished game as a PNG image."""

from __future__ import annotations

import io
from collections.abc import Mapping

from PIL import Image, ImageDraw

from engine import COLOURS, GameState

from .board import DEFAULT_SIZE, PNG_OPTIONS, check_size
from .sprites import token
from .text import clean_name, fit, font
from .theme import theme_for


def render_standings(
    state: GameState,
    *,
    names: Mapping[str, str] | None = None,
    size: int = DEFAULT_SIZE,
    theme: str = "classic",
) -> bytes:
    """The standings of a finished game: places, names, and scores (classic) or
    squares still to go.  A game still running shows the current order."""
    check_size(size)
    t = theme_for(theme)
    names = names or {}
    ranking = state.ranking or _current_order(state)
    places = state.places or {c: k + 1 for k, c in enumerate(ranking)}
    scores = state.scores
    row = round(size * 0.13)
    head = round(size * 0.16)
    img = Image.new("RGB", (size, head + row * len(ranking) + row // 3), t.background)
    d = ImageDraw.Draw(img)
    title = "Final standings" if state.is_over else "Standings so far"
    d.text(
        (size / 2, head / 2),
        f"{title} · {state.rules}",
        font=font(round(head * 0.34)),
        fill=t.text,
        anchor="mm",
    )
    winners = set(state.winner or ())
    big = font(round(row * 0.42))
    small = font(round(row * 0.3))
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
        disc = round(row * 0.55)
        tok = token(c, None, disc, t.name)
        img.paste(tok, (round(size * 0.17), round(y + (row - disc) / 2)), tok)
        if scores is not None:
            detail = f"{scores[colour]} points"
        else:
            left = state.distance(colour)
            detail = "all home" if left == 0 else f"{left} to go"
        right = size * 0.92
        dw = small.getlength(detail)
        d.text((right, y + row / 2), detail, font=small, fill=t.text, anchor="rm")
        x0 = size * 0.17 + disc + row * 0.2
        label = clean_name(names.get(colour), colour.capitalize())
        if colour in winners:
            label = "★ " + label
        d.text(
            (x0, y + row / 2),
            fit(label, big, right - dw - row * 0.3 - x0),
            font=big,
            fill=t.text,
            anchor="lm",
        )
    out = io.BytesIO()
    img.save(out, **PNG_OPTIONS)  # type: ignore[arg-type]
    return out.getvalue()


def _current_order(state: GameState) -> list[str]:
    scores = state.scores
    players = list(state.players)
    if scores is not None:
        return sorted(players, key=lambda c: -scores[c])
    return sorted(players, key=state.distance)
