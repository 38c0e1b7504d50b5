"""``animate``: a whole game record as an animated GIF, one frame per move.

The first frame is the start position, then each move is shown on the board
after it, with the move marked and the die it was made with; the last move's
board and then the standings hold longer.  The animation lasts about
``seconds``: computer players' moves go three times faster than people's, and
when the frames would come faster than :data:`MIN_DELAY`, computer moves are
left out first (never a capture nor a piece reaching home), then any.  The GIF
is at most ``limit`` bytes: a smaller picture, or fewer frames, when it must.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from engine import GameState, IllegalAction, Move, apply, load_record, move_for, start_of

from . import geometry as geo
from .board import MIN_SIZE, board_image, check_size
from .standings import standings_image
from .theme import theme_for
from .words import ENGLISH, Words

#: the default width of the animation in pixels
ANIMATION_SIZE = 480
#: the default largest GIF, in bytes (what a chat accepts as an upload)
ANIMATION_LIMIT = 8 * 1024 * 1024
#: the shortest time a frame is shown, in seconds
MIN_DELAY = 0.06
#: the longest time a person's move is shown (a short game is a short animation)
MAX_DELAY = 1.0
#: computer players' moves are shown this many times shorter than people's...
COMPUTER_SPEED = 3.0
#: ...and at least this many times shorter, once they are down to MIN_DELAY
MIN_SPEED = 2.0
#: how long the start, the final board and the standings are shown in a 30-second
#: animation (a shorter one holds them proportionally shorter)
START_HOLD, BOARD_HOLD, END_HOLD = 1.0, 1.0, 3.0
#: the width an animation too big for its limit shrinks to before it drops frames
SHRINK_FLOOR = 160
#: the smallest width ever drawn
TINY = 48
#: events that make a move worth keeping whatever the time
KEY_EVENTS = frozenset({"capture", "home", "penalty", "finish", "game_over"})

__all__ = ["ANIMATION_LIMIT", "ANIMATION_SIZE", "MIN_DELAY", "Frame", "animate", "game_frames"]


@dataclass(frozen=True)
class Frame:
    """One picture of the animation: a board, its last move and die marked."""

    state: GameState
    last_move: Move | None = None
    rolled: tuple[str, int] | None = None
    #: played by a computer player (shown shorter, left out first)
    computer: bool = False
    #: a capture, a piece reaching home, a penalty: never left out for time
    key: bool = False


def animate(
    record: Any,
    *,
    names: Mapping[str, str] | None = None,
    computers: Collection[str] = (),
    words: Words = ENGLISH,
    size: int = ANIMATION_SIZE,
    seconds: float = 30.0,
    limit: int = ANIMATION_LIMIT,
    theme: str = "classic",
) -> bytes:
    """The game of ``record`` (a game record, or its JSON text) as an animated GIF.

    ``names`` maps colours to player names; the moves of the colours in
    ``computers`` are shown faster.  ``size`` is the width in pixels (300 to
    2400); ``seconds`` the length of the whole animation, about; ``limit`` the
    most bytes the GIF may take: it is drawn smaller (down to 48 pixels), with
    fewer frames if need be, to fit.  A bad record raises
    :class:`engine.RecordError` or :class:`engine.IllegalAction` (``action K:
    ...``); a bad size, theme, length or limit, or a limit too small for any
    animation, :class:`ValueError`.
    """
    check_size(size)
    theme_for(theme)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
        raise ValueError(f"seconds must be a positive number, not {seconds!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise ValueError(f"limit must be a positive whole number of bytes, not {limit!r}")
    start, moves, final = game_frames(load_record(record), set(computers))
    scale = min(1.0, seconds / 30.0)
    holds = (START_HOLD * scale, BOARD_HOLD * scale, END_HOLD * scale)
    budget = max(0.0, seconds - sum(holds))
    # the last move's board is shown anyway, held: the others share the budget
    middle, last = (moves[:-1], moves[-1:]) if moves else ([], [])
    chosen = select(middle, budget)
    draw = _Drawing(names or {}, words, theme, final)
    width = size
    while True:
        shown = [start, *chosen, *last]
        delays = [holds[0], *frame_delays(chosen, budget), *([holds[1]] if last else [])]
        if not last:
            delays[0] += holds[1]
        data = draw.gif(shown, _milliseconds([*delays, holds[2]]), width)
        if len(data) <= limit:
            return data
        # the bytes shrink more slowly than the width, and about as fast as the frames
        ratio = limit / len(data)
        if width > SHRINK_FLOOR or (not chosen and width > TINY):
            floor = SHRINK_FLOOR if width > SHRINK_FLOOR else TINY
            width = max(floor, int(width * ratio * 0.9))
        elif chosen:
            chosen = thin(chosen, lambda f: True, int(len(chosen) * ratio * 0.85))
        else:
            raise ValueError(f"no animation of this game fits in {limit} bytes")


def game_frames(
    record: Mapping[str, Any], computers: Collection[str] = ()
) -> tuple[Frame, list[Frame], GameState]:
    """Replay a (loaded) record: its start frame, a frame per move (and per roll that
    changed the board), and its final state.  An illegal action raises
    :class:`engine.IllegalAction` saying ``action K: ...``."""
    state = start_of(record)
    start = Frame(state)
    frames: list[Frame] = []
    for k, action in enumerate(record.get("actions", [])):
        before = state
        try:
            state, events = apply(state, action)
        except IllegalAction as e:
            raise IllegalAction(f"action {k}: {e}", e.reason, e.piece) from None
        colour = before.turn
        key = any(e.kind in KEY_EVENTS for e in events)
        computer = colour in computers
        if "move" in action:
            move = move_for(before, action["move"])
            rolled = (colour, before.die) if before.phase == "move" else None
            frames.append(Frame(state, move, rolled, computer, key))
        elif any(e.kind == "penalty" for e in events):  # three sixes sent a piece back
            frames.append(Frame(state, None, (colour, action["roll"]), computer, True))
    return start, frames, state


@dataclass(frozen=True)
class Timing:
    """How long a person's and a computer's move are shown, in seconds."""

    person: float
    computer: float


def timing(people: int, computers: int, budget: float) -> Timing | None:
    """Delays for ``people`` and ``computers`` frames that fill ``budget`` seconds
    (less for a short game); None if that would show frames faster than MIN_DELAY."""
    if computers == 0:
        person = min(MAX_DELAY, budget / people) if people else MAX_DELAY
        return Timing(person, person / COMPUTER_SPEED) if person >= MIN_DELAY else None
    if people == 0:
        computer = min(MAX_DELAY / COMPUTER_SPEED, budget / computers)
        return Timing(computer * COMPUTER_SPEED, computer) if computer >= MIN_DELAY else None
    person = min(MAX_DELAY, budget / (people + computers / COMPUTER_SPEED))
    if person / COMPUTER_SPEED >= MIN_DELAY:
        return Timing(person, person / COMPUTER_SPEED)
    # the computers' moves as fast as they go; people's share what is left
    person = (budget - computers * MIN_DELAY) / people
    return Timing(person, MIN_DELAY) if person >= MIN_SPEED * MIN_DELAY else None


def _counts(frames: Sequence[Frame]) -> tuple[int, int]:
    computers = sum(f.computer for f in frames)
    return len(frames) - computers, computers


def frame_delays(frames: Sequence[Frame], budget: float) -> list[float]:
    """The time each of ``frames`` is shown (they fit: see :func:`select`)."""
    t = timing(*_counts(frames), budget) or Timing(MIN_SPEED * MIN_DELAY, MIN_DELAY)
    return [t.computer if f.computer else t.person for f in frames]


def select(frames: Sequence[Frame], budget: float) -> list[Frame]:
    """The frames to show in ``budget`` seconds, none shorter than MIN_DELAY: all if
    they fit, else computer moves are left out first, then people's, spread evenly;
    captures and pieces reaching home stay (unless they alone are too many)."""
    chosen = list(frames)
    if timing(*_counts(chosen), budget) is not None:
        return chosen
    people, _ = _counts(chosen)
    key_computers = sum(f.computer and f.key for f in chosen)
    room = (budget - MIN_SPEED * MIN_DELAY * people) / MIN_DELAY if people else budget / MIN_DELAY
    chosen = thin(chosen, lambda f: f.computer and not f.key, math.floor(room) - key_computers)
    if timing(*_counts(chosen), budget) is not None:
        return chosen
    key_people = sum(f.key and not f.computer for f in chosen)
    if key_computers:
        room = (budget - key_computers * MIN_DELAY) / (MIN_SPEED * MIN_DELAY)
    else:
        room = budget / MIN_DELAY
    chosen = thin(chosen, lambda f: not f.computer and not f.key, math.floor(room) - key_people)
    while chosen and timing(*_counts(chosen), budget) is None:
        chosen = thin(chosen, lambda f: True, len(chosen) * 9 // 10)
    return chosen


def thin(frames: Sequence[Frame], droppable: Callable[[Frame], bool], keep: int) -> list[Frame]:
    """``frames`` with only ``keep`` of the droppable ones, spread evenly, in order."""
    candidates = [k for k, f in enumerate(frames) if droppable(f)]
    keep = max(0, min(keep, len(candidates)))
    n = len(candidates)
    kept = {candidates[math.floor((i + 0.5) * n / keep)] for i in range(keep)}
    return [f for k, f in enumerate(frames) if k in kept or not droppable(f)]


def _milliseconds(delays: Sequence[float]) -> list[int]:
    """``delays`` (seconds) as GIF delays: whole hundredths, in milliseconds, rounded
    so that the total stays right (the rounding errors do not add up)."""
    out: list[int] = []
    done = 0
    total = 0.0
    for d in delays:
        total += d
        end = round(total * 100) * 10
        out.append(max(10, end - done))
        done += out[-1]
    return out


class _Drawing:
    """The frames of one animation drawn at a given width, and their GIF."""

    def __init__(self, names: Mapping[str, str], words: Words, theme: str, final: GameState):
        self.names = names
        self.words = words
        self.theme = theme
        self.final = final

    def gif(self, frames: Sequence[Frame], durations: Sequence[int], width: int) -> bytes:
        """The GIF of ``frames`` then the standings, ``durations`` in milliseconds."""
        drawn = max(MIN_SIZE, width)
        sample = sorted({round(k * (len(frames) - 1) / 7) for k in range(8)})
        images = [self.board(frames[k], drawn, width) for k in sample]
        standings = _shrink(self.standings(drawn), width)
        palette = _palette([*images, standings])

        def pictures() -> Iterator[Image.Image]:
            for f in frames[1:]:
                yield self.board(f, drawn, width).quantize(palette=palette, dither=_NO_DITHER)
            yield standings.quantize(palette=palette, dither=_NO_DITHER)

        first = self.board(frames[0], drawn, width).quantize(palette=palette, dither=_NO_DITHER)
        out = io.BytesIO()
        first.save(
            out,
            format="GIF",
            save_all=True,
            append_images=pictures(),
            duration=list(durations),
            loop=0,
            disposal=1,
            optimize=True,
            palette=palette.getpalette(),
        )
        return out.getvalue()

    def board(self, f: Frame, drawn: int, width: int) -> Image.Image:
        img = board_image(
            f.state,
            names=self.names,
            last_move=f.last_move,
            rolled=f.rolled,
            size=drawn,
            theme=self.theme,
            words=self.words,
            marks=False,
        )
        return _shrink(img, width)

    def standings(self, size: int) -> Image.Image:
        """The standings, centred on a picture the size of the board's."""
        table = standings_image(
            self.final, names=self.names, size=size, theme=self.theme, words=self.words
        )
        height = geo.Layout(size).height
        canvas = Image.new("RGB", (size, height), theme_for(self.theme).background)
        canvas.paste(table, (0, max(0, (height - table.height) // 2)))
        return canvas


_NO_DITHER = Image.Dither.NONE


def _shrink(img: Image.Image, width: int) -> Image.Image:
    if img.width <= width:
        return img
    height = max(1, round(img.height * width / img.width))
    return img.resize((width, height), Image.Resampling.LANCZOS)


def _palette(images: Sequence[Image.Image]) -> Image.Image:
    """One palette for every frame (255 colours: one is left for the transparency of
    the parts that do not change), from a few of them stacked."""
    w = images[0].width
    sheet = Image.new("RGB", (w, sum(i.height for i in images)))
    y = 0
    for img in images:
        sheet.paste(img, (0, y))
        y += img.height
    return sheet.quantize(255, method=Image.Quantize.FASTOCTREE, dither=_NO_DITHER)
