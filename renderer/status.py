"""Who plays and whose turn it is: names in the yards, the frame round the
yard of the player on turn, and the status bar under the board."""

from __future__ import annotations

from PIL import Image, ImageDraw

from engine import COLOUR_INDEX, COLOURS, GameState

from . import geometry as geo
from .sprites import die, paste, token
from .text import Font, Names, clean_name, draw_text, fit, font, length
from .theme import Theme
from .words import Words


def draw_players(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    state: GameState,
    names: Names,
    t: Theme,
    words: Words,
) -> None:
    """Each player's name in their yard, and a frame round the yard of the one to act."""
    if state.phase != "over":
        _frame_yard(d, lay, COLOUR_INDEX[state.turn], t)
    name_font = font(round(lay.cell * 0.52))
    for colour in state.players:
        c = COLOURS.index(colour)
        _draw_name(img, lay, c, clean_name(names.get(colour), words.colour(colour)), name_font, t)


def _frame_yard(d: ImageDraw.ImageDraw, lay: geo.Layout, c: int, t: Theme) -> None:
    """A frame round the yard of the player on turn: dark outside, bright inside,
    so it shows on every colour (gold alone vanishes on yellow)."""
    top, left, bottom, right = geo.yard_box(c)
    w = max(3, lay.cell // 8)
    x0, y0 = lay.point(top, left)
    x1, y1 = lay.point(bottom, right)
    d.rectangle((x0, y0, x1 - 1, y1 - 1), outline=t.last, width=w)
    d.rectangle((x0 + w, y0 + w, x1 - 1 - w, y1 - 1 - w), outline=t.movable, width=w)


def _draw_name(img: Image.Image, lay: geo.Layout, c: int, name: str, f: Font, t: Theme) -> None:
    top, left, _, right = geo.yard_box(c)
    width = (right - left - 0.6) * lay.cell
    x, y = lay.point(top + geo.NAME_LINE, (left + right) / 2)
    draw_text(img, (x, y), fit(name, f, width), f, t.colours[c].ink, "mm")


def draw_status(
    img: Image.Image,
    d: ImageDraw.ImageDraw,
    lay: geo.Layout,
    state: GameState,
    names: Names,
    rolled: tuple[str, int] | None,
    t: Theme,
    words: Words,
) -> None:
    """The bar under the board: who is to act (or won) and the die."""
    top = lay.board
    h = lay.status
    mid = top + h // 2
    who = state.turn
    label = clean_name(names.get(who), words.colour(who))
    if state.phase == "over":
        winners = state.winner or []
        label = " & ".join(clean_name(names.get(w), words.colour(w)) for w in winners)
        text = words.won(len(winners))
        c = COLOURS.index(winners[0]) if winners else COLOUR_INDEX[state.turn]
    else:
        c = COLOUR_INDEX[state.turn]
        if state.phase == "roll":
            text = words.to_roll
        elif state.phase == "move":
            text = words.choose
        else:
            text = words.bonus(state.bonus[0] if state.bonus else 6)
    dot = round(h * 0.55)
    x = lay.margin + dot // 2 + 4
    paste(img, token(c, None, dot, t.name), (x, mid))
    f = font(round(h * 0.42))
    die_size = round(h * 0.72)
    if rolled is None and state.phase == "move" and state.die:
        rolled = (state.turn, state.die)
    show = rolled is not None and rolled[0] in COLOURS and rolled[1] in range(1, 7)
    room = lay.size - (x + dot) - (die_size + 16 if show else 8)
    suffix = f": {text}" if state.phase != "over" else f" {text}"
    # a long wording (another language, a small image) is drawn smaller, so the name
    # keeps a fifth of the room; cut only if even the smaller font is too wide
    wide = length(suffix, f)
    if wide > room * 0.8:
        f = font(max(round(h * 0.3), int(f.size * room * 0.8 / wide)))
        suffix = fit(suffix, f, room * 0.8)
    name = fit(label, f, max(10.0, room - length(suffix, f)))
    draw_text(img, (x + dot // 2 + 10, mid), name + suffix, f, t.text, "lm")
    if rolled is not None and show:
        frame = t.colours[COLOURS.index(rolled[0])].main
        sprite = die(rolled[1], die_size, t.name, frame)
        paste(img, sprite, (lay.size - lay.margin - die_size // 2 - 4, mid))
