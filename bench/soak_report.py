"""What ``bench/soak.py`` prints: a row every ~5% of the run, then the warm-up, the
trends (see ``bench/soak_figures.py`` for the rule), the presses and games, the CPU
used, what the workers logged, and where the plot went."""

from __future__ import annotations

import math
import os
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bench.soak_figures import NOISE, SERIES, Sample, plot, trends, write_csv
from tests.helpers.chat_scenarios import pct

if TYPE_CHECKING:
    from bench.soak import Soak


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def print_header(soak: Soak) -> None:
    print(
        f"{os.cpu_count()} CPUs (load average {load()}); "
        f"{soak.args.games} games at once, {len(soak.workers)} workers on one Redis, "
        f"{how_long(soak.duration)} (warm-up {soak.warmup:g} s, marked w), a sample every "
        f"{soak.step:g} s, a row every {soak.step * soak.per_row:g} s; CPU: % of one core "
        f"(here: this process, the fake Telegram and the people)\n"
        f"{'min':>6} {'presses':>7} {'/min':>5} {'p50ms':>5} {'p99ms':>5} {'play':>4} "
        f"{'done':>4} | {'RSS MB w1':>9} {'w2':>5} | {'tasks':>5} {'w2':>4} | {'fds':>4} "
        f"{'w2':>4} | {'Redis MB':>8} | {'CPU% w1':>7} {'w2':>3} {'redis':>5} {'here':>4}",
        flush=True,
    )


def how_long(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds % 60 == 0 else f"{seconds:g} s"


def print_row(soak: Soak) -> None:
    """The row of the last ``per_row`` samples: presses and CPU over them, the rest as
    the last one saw it."""
    rows = soak.samples[-soak.per_row :]
    s = rows[-1]
    presses = sum(r.presses for r in rows)
    span = soak.step * len(rows)
    delays, soak.row_delays = soak.row_delays, []

    def mean(column: str) -> float:
        return statistics.fmean(float(getattr(r, column)) for r in rows)

    mark = "w" if s.t <= soak.warmup else " "
    print(
        f"{s.t / 60:5.1f}{mark} {presses:7d} {presses / span * 60:5.0f} "
        f"{pct(delays, 0.5) * 1000:5.0f} {pct(delays, 0.99) * 1000:5.0f} {s.playing:4d} "
        f"{s.games_done:4d} | {s.rss1:9.1f} {s.rss2:5.1f} | {s.tasks1:5.0f} {s.tasks2:4.0f} | "
        f"{s.fds1:4.0f} {s.fds2:4.0f} | {s.redis_mb:8.2f} | {mean('cpu1'):7.0f} "
        f"{mean('cpu2'):3.0f} {mean('cpu_redis'):5.0f} {mean('cpu_here'):4.0f}",
        flush=True,
    )


def warmup_line(samples: Sequence[Sample], warmup: float) -> str:
    during = [s for s in samples if s.t <= warmup]
    if not during:
        return "warm-up: none"
    a, b = during[0], during[-1]
    parts = [
        f"RSS {a.rss1:.1f} -> {b.rss1:.1f} MB and {a.rss2:.1f} -> {b.rss2:.1f} MB",
        f"tasks {a.tasks1:.0f} -> {b.tasks1:.0f} and {a.tasks2:.0f} -> {b.tasks2:.0f}",
        f"fds {a.fds1:.0f} -> {b.fds1:.0f} and {a.fds2:.0f} -> {b.fds2:.0f}",
        f"Redis {a.redis_mb:.2f} -> {b.redis_mb:.2f} MB",
    ]
    return (
        f"warm-up, the first {warmup:g} s (left out of the trends; from the first sample at "
        f"{a.t:.0f} s): " + ", ".join(parts)
    )


def print_trends(soak: Soak) -> None:
    after = [s for s in soak.samples if s.t > soak.warmup]
    if len(after) < 3:
        print(f"trends: {len(after)} samples after the warm-up, too few for a trend")
        return
    found = trends(soak.samples, soak.warmup)
    span = (after[-1].t - after[0].t) / 60 if len(after) > 1 else 0.0
    print(
        f"trends over the {span:.1f} min after the warm-up ({len(after)} samples), by least "
        f"squares; a slope is within noise when the change it makes over those {span:.1f} "
        f"min is at most {NOISE:g} residual standard deviations of the samples about the line"
    )
    print(f"  {'series':24}{'slope/h':>10}{'change':>10}{f'{NOISE:g} sd':>9}   verdict")
    for column, name, unit in SERIES:
        t = found[column]
        named = f"{name} ({unit})" if unit else name
        print(f"  {named:24}{t.slope_h:+10.2f}{t.change:+10.2f}{NOISE * t.sd:9.2f}   {t.verdict}")
    games = [s.games_done for s in after]
    grown = after[-1].redis_mb - after[0].redis_mb if len(after) > 1 else 0.0
    if len(games) > 1 and games[-1] - games[0] >= 5 and not found["redis_mb"].flat:
        done = games[-1] - games[0]
        print(
            f"  Redis: {grown * 1024:+.0f} KB over those minutes, {done} games finished or "
            f"ended meanwhile: {grown * 1024 / done:+.1f} KB a game (each finished game's "
            "stats are kept for good, the game for LUDO_GAME_TTL_DAYS)"
        )


def print_totals(soak: Soak) -> None:
    people, hooks = soak.people, soak.hooks
    if people is None or hooks is None or not soak.samples:
        return
    after = [s for s in soak.samples if s.t > soak.warmup]
    when = "after the warm-up" if after else "during the warm-up (nothing after it)"
    after = after or soak.samples
    minutes = soak.step * len(after) / 60
    tally = people.tally
    handled = [sum(s.handled1 for s in soak.samples), sum(s.handled2 for s in soak.samples)]
    print(
        f"presses answered: {tally.answered:,} ({sum(s.presses for s in after) / minutes:,.0f} "
        f"a minute {when}); commands and presses handled by worker 1: "
        f"{handled[0]:,.0f}, worker 2: {handled[1]:,.0f}"
    )
    print(
        f"games: {tally.opened} opened ({tally.rematches} by a rematch besides), "
        f"{tally.finished} played out, {tally.ended} ended by their host; {tally.away} turns "
        f"played by the turn timer for a person who stepped away; {soak.samples[-1].playing} "
        "being played at the end"
    )
    cores = os.cpu_count() or 1
    cpu = {c: statistics.fmean(float(getattr(s, c)) for s in after)
           for c in ("cpu1", "cpu2", "cpu_redis", "cpu_here")}  # fmt: skip
    total = sum(v for v in cpu.values() if not math.isnan(v))
    print(
        f"CPU {when}, % of one core: worker 1 {cpu['cpu1']:.0f}%, worker 2 "
        f"{cpu['cpu2']:.0f}%, redis-server {cpu['cpu_redis']:.0f}%, this process (the fake "
        f"Telegram, the people) {cpu['cpu_here']:.0f}%: {total:.0f}% in all, "
        f"{total / cores:.0f}% of the machine's {cores} cores (load average now {load()})"
    )
    again = ", ".join(f"{n} after {why}" for why, n in hooks.retried.most_common()) or "none"
    print(f"webhook posts: {hooks.posted:,}; tried again: {again}; lost: {hooks.lost}")
    for n, lines in enumerate(soak.logged, 1):
        levels = Counter(str(line.get("level")) for line in lines)
        said = ", ".join(f"{k} {v}" for k, v in sorted(levels.items())) or "nothing"
        print(f"worker {n} logged once running (LOG_LEVEL=WARNING): {said}")
        for text in sorted({str(line.get("message"))[:160] for line in lines})[:3]:
            print(f"    {text}")


def report(soak: Soak) -> int:
    """Everything after the rows; the exit code."""
    if soak.samples:
        print(warmup_line(soak.samples, soak.warmup))
        print_trends(soak)
        print_totals(soak)
        title = (
            f"bench/soak.py: {soak.args.games} games, {len(soak.workers)} workers on Redis, "
            f"{soak.samples[-1].t / 60:.1f} min (the dashed lines: the trends after the warm-up)"
        )
        plot(soak.samples, soak.warmup, title, soak.args.plot)
        print(f"plot: {soak.args.plot}")
        if soak.args.csv:
            write_csv(soak.samples, soak.args.csv)
            print(f"samples: {soak.args.csv}")
    if soak.failure is not None:
        print(f"soak FAILED: {soak.failure}", file=sys.stderr)
        return 1
    if soak.interrupted is not None:
        print(f"soak interrupted ({soak.interrupted}); everything it started is stopped",
              file=sys.stderr)  # fmt: skip
        return 130
    return 0
