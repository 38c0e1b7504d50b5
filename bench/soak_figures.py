"""The figures of ``bench/soak.py``: what a process uses (read from ``/proc``), the
samples over time, their trends, and the plot.

A trend is the least-squares line through the samples after the warm-up (value
against time): its slope, given per hour, and whether that slope is within noise.
The rule: a slope is within noise when the change it makes over the measured span
(slope x span) is at most :data:`NOISE` times the residual standard deviation (the
scatter of the samples about the line, n - 2 degrees of freedom).  A leak shows as a
change well over the scatter; a flat series with a sawtooth (the garbage collector,
caches filling and emptying) stays within it.
"""

from __future__ import annotations

import csv
import math
import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

#: a slope is within noise if its change over the run is at most this many residual sds
NOISE = 3.0
TICKS = os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid``, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return math.nan


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds process ``pid`` has used."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    after = stat[stat.rindex(")") + 2 :].split()  # the name may hold spaces
    return (int(after[11]) + int(after[12])) / TICKS


@dataclass
class Sample:
    """One look at everything, ``t`` seconds after the tables started."""

    t: float
    #: presses answered since the previous sample, and the answers' p50 / p99 (ms)
    presses: int
    p50_ms: float
    p99_ms: float
    playing: int
    games_done: int
    rss1: float
    rss2: float
    tasks1: float
    tasks2: float
    fds1: float
    fds2: float
    redis_mb: float
    #: CPU used since the previous sample, % of one core
    cpu1: float
    cpu2: float
    cpu_redis: float
    cpu_here: float
    #: presses handled by each worker since the previous sample (its /metrics)
    handled1: float
    handled2: float


#: what is trended: (column, name, unit)
SERIES = (
    ("rss1", "RSS worker 1", "MB"),
    ("rss2", "RSS worker 2", "MB"),
    ("tasks1", "tasks worker 1", ""),
    ("tasks2", "tasks worker 2", ""),
    ("fds1", "fds worker 1", ""),
    ("fds2", "fds worker 2", ""),
    ("redis_mb", "Redis used_memory", "MB"),
)


@dataclass
class Trend:
    """The least-squares line of a series: slope per hour, its change over the span, the
    residual sd, and whether the slope is within noise."""

    slope_h: float
    change: float
    sd: float
    n: int

    @property
    def flat(self) -> bool:
        return abs(self.change) <= NOISE * self.sd

    @property
    def verdict(self) -> str:
        if self.n < 3:
            return "too few samples"
        if self.flat:
            return "flat (within noise)"
        return "GROWS" if self.change > 0 else "shrinks"


def trend(ts: Sequence[float], ys: Sequence[float]) -> Trend:
    """The trend of ``ys`` (sampled at ``ts`` seconds), by least squares."""
    pairs = [(t, y) for t, y in zip(ts, ys, strict=True) if not math.isnan(y)]
    n = len(pairs)
    if n < 3:
        return Trend(0.0, 0.0, 0.0, n)
    mt = sum(t for t, _ in pairs) / n
    my = sum(y for _, y in pairs) / n
    stt = sum((t - mt) ** 2 for t, _ in pairs)
    slope = sum((t - mt) * (y - my) for t, y in pairs) / stt if stt else 0.0
    resid = [y - (my + slope * (t - mt)) for t, y in pairs]
    sd = math.sqrt(sum(r * r for r in resid) / (n - 2))
    span = pairs[-1][0] - pairs[0][0]
    return Trend(slope * 3600, slope * span, sd, n)


def trends(samples: Sequence[Sample], warmup: float) -> dict[str, Trend]:
    after = [s for s in samples if s.t > warmup]
    ts = [s.t for s in after]
    return {col: trend(ts, [float(getattr(s, col)) for s in after]) for col, _, _ in SERIES}


def write_csv(samples: Sequence[Sample], path: str) -> None:
    names = [f.name for f in fields(Sample)]
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(names)
        for s in samples:
            out.writerow([round(getattr(s, n), 3) for n in names])


# -- the plot ------------------------------------------------------------------

WIDTH, HEIGHT = 1000, 660
COLOURS = ("#1f6fb4", "#d2452f", "#2b9a3c")
#: each panel: its title, and its series (column, label)
PANELS = (
    ("RSS per worker (MB)", (("rss1", "worker 1"), ("rss2", "worker 2"))),
    ("asyncio tasks per worker", (("tasks1", "worker 1"), ("tasks2", "worker 2"))),
    ("open files (fds) per worker", (("fds1", "worker 1"), ("fds2", "worker 2"))),
    ("Redis used_memory (MB)", (("redis_mb", "Redis"),)),
)


def nice_step(span: float, count: int = 4) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``count`` ticks."""
    raw = max(span, 1e-9) / count
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def label(value: float, step: float) -> str:
    """A tick's value, with the decimals its step needs."""
    return f"{value:.{max(0, -math.floor(math.log10(step) + 1e-9))}f}"


def per_hour(value: float) -> str:
    """A slope per hour, short."""
    return f"{value:+,.0f}/h" if abs(value) >= 100 else f"{value:+.2g}/h"


@dataclass
class Frame:
    """A panel's plotting area, and the minutes and values it spans."""

    left: float
    top: float
    right: float
    bottom: float
    tmax: float
    lo: float
    hi: float

    def xy(self, minutes: float, value: float) -> tuple[float, float]:
        x = self.left + (self.right - self.left) * minutes / self.tmax
        return x, self.bottom - (self.bottom - self.top) * (value - self.lo) / (self.hi - self.lo)


def plot(samples: Sequence[Sample], warmup: float, title: str, path: str) -> None:
    """Four panels against minutes (the warm-up shaded, each trend dashed); a PNG."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=13)
    draw.text((12, 8), title, fill="black", font=font)
    pw, ph = WIDTH // 2, (HEIGHT - 30) // 2
    for k, (name, series) in enumerate(PANELS):
        x0, y0 = (k % 2) * pw, 30 + (k // 2) * ph
        draw.text((x0 + 62, y0 + 4), name, fill="black", font=font)
        values = [float(getattr(s, c)) for c, _ in series for s in samples]
        values = [v for v in values if not math.isnan(v)] or [0.0]
        lo, hi = min(values), max(values)
        pad = (hi - lo) * 0.1 or max(abs(hi) * 0.05, 1.0)
        tmax = max(samples[-1].t / 60 if samples else 1.0, 1e-3)
        frame = Frame(x0 + 62, y0 + 40, x0 + pw - 16, y0 + ph - 36, tmax, lo - pad, hi + pad)
        axes(draw, frame, warmup)
        found = trends(samples, warmup)
        lx = frame.left
        for j, (column, named) in enumerate(series):
            colour = COLOURS[j if len(series) > 1 else 2]
            line(draw, frame, samples, column, colour)
            fit = found[column]
            if fit.n >= 3:
                after = [s for s in samples if s.t > warmup]
                mean_t = statistics.fmean(s.t for s in after)
                mean_y = statistics.fmean(float(getattr(s, column)) for s in after)
                a, b = (
                    frame.xy(t / 60, mean_y + fit.slope_h / 3600 * (t - mean_t))
                    for t in (after[0].t, after[-1].t)
                )
                dashes(draw, a, b, colour)
            ly = y0 + 22
            draw.rectangle((lx, ly + 3, lx + 10, ly + 11), fill=colour)
            text = f"{named}: trend {per_hour(fit.slope_h)}" if fit.n >= 3 else named
            draw.text((lx + 14, ly), text, fill="black", font=SMALL)
            lx += 24 + draw.textlength(text, font=SMALL)
    image.save(path, optimize=True)


SMALL = ImageFont.load_default(size=11)


def axes(draw: ImageDraw.ImageDraw, f: Frame, warmup: float) -> None:
    """The panel's frame, the warm-up shaded, and the ticks of both axes."""
    if warmup > 0:
        draw.rectangle((f.left, f.top, f.xy(min(warmup / 60, f.tmax), f.lo)[0], f.bottom),
                       fill="#eeeeee")  # fmt: skip
        draw.text((f.left + 4, f.bottom - 15), "warm-up", fill="#888888", font=SMALL)
    step = nice_step(f.hi - f.lo)
    tick = math.ceil(f.lo / step) * step
    while tick <= f.hi:
        y = f.xy(0, tick)[1]
        draw.line((f.left, y, f.right, y), fill="#e4e4e4")
        draw.text((f.left - 6, y), label(tick, step), fill="black", font=SMALL, anchor="rm")
        tick += step
    step = nice_step(f.tmax, 5)
    m = 0.0
    while m <= f.tmax + 1e-9:
        x = f.xy(m, f.lo)[0]
        draw.line((x, f.bottom, x, f.bottom + 4), fill="black")
        draw.text((x, f.bottom + 6), label(m, step), fill="black", font=SMALL, anchor="ma")
        m += step
    middle = (f.left + f.right) / 2
    draw.text((middle, f.bottom + 20), "minutes", fill="black", font=SMALL, anchor="ma")
    draw.rectangle((f.left, f.top, f.right, f.bottom), outline="black")


def line(
    draw: ImageDraw.ImageDraw, f: Frame, samples: Sequence[Sample], column: str, colour: str
) -> None:
    points = [
        f.xy(s.t / 60, float(getattr(s, column)))
        for s in samples
        if not math.isnan(float(getattr(s, column)))
    ]
    if len(points) > 1:
        draw.line(points, fill=colour, width=2)


def dashes(
    draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], colour: str
) -> None:
    """A dashed line from ``a`` to ``b``."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    steps = max(1, int(length // 8))
    for i in range(0, steps, 2):
        f0, f1 = i / steps, min(1.0, (i + 1) / steps)
        draw.line(
            (a[0] + (b[0] - a[0]) * f0, a[1] + (b[1] - a[1]) * f0,
             a[0] + (b[0] - a[0]) * f1, a[1] + (b[1] - a[1]) * f1),
            fill=colour, width=1,
        )  # fmt: skip
