"""The soak bench (``bench/soak.py``): its rule for a trend within noise, its plot and
samples, what its fake Telegram forgets on a long run, and its workers' task gauge."""

from __future__ import annotations

import asyncio
import csv
import math
import random
from pathlib import Path

from PIL import Image

from bench.soak_figures import HEIGHT, NOISE, WIDTH, Sample, plot, trend, write_csv
from bench.soak_people import KEEP, SoakTelegram
from bench.soak_worker import tasks
from tests.fakes.telegram import FakeMessage, make_user


def test_a_trend_is_within_noise_unless_its_change_outgrows_the_scatter() -> None:
    rng = random.Random(5)
    ts = [10.0 * k for k in range(60)]  # ten minutes
    # a sawtooth about a level: flat, however large the teeth
    teeth = [100 + (k % 6) * 3 + rng.gauss(0, 1) for k in range(60)]
    assert trend(ts, teeth).flat
    # 12 MB an hour (2 over the ten minutes), scatter of a tenth of that: it grows
    leak = [100 + t / 300 + rng.gauss(0, 0.1) for t in ts]
    found = trend(ts, leak)
    assert not found.flat and found.verdict == "GROWS"
    assert math.isclose(found.slope_h, 12, rel_tol=0.05)
    assert math.isclose(found.change, found.slope_h * 590 / 3600)
    # the same leak in a scatter ten times as wide is within noise (3 sds)
    assert NOISE == 3
    assert trend(ts, [100 + t / 300 + rng.gauss(0, 3) for t in ts]).flat
    # a constant, and too few samples
    assert trend(ts, [7.0] * 60).verdict == "flat (within noise)"
    assert trend(ts[:2], [1.0, 2.0]).verdict == "too few samples"


def sample(t: float, k: int) -> Sample:
    return Sample(t, 40, 8.0, 60.0, 50, k // 10, 150 + k * 0.01, 151.0, 25.0 + k % 3, 26.0,
                  17.0, 18.0, 1.3 + k * 0.001, 18.0, 17.0, 2.0, 9.0, 20.0, 20.0)  # fmt: skip


def test_the_plot_and_the_samples_are_written(tmp_path: Path) -> None:
    samples = [sample(5.0 * k, k) for k in range(1, 40)]
    samples[3].tasks2 = math.nan  # a worker that did not answer once
    plot(samples, 30.0, "a soak", str(tmp_path / "soak.png"))
    with Image.open(tmp_path / "soak.png") as image:
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
        # four panels drawn: the lines' colours are there
        colours = {c for _, c in image.convert("RGB").getcolors(1 << 16) or []}
        assert {(0x1F, 0x6F, 0xB4), (0xD2, 0x45, 0x2F), (0x2B, 0x9A, 0x3C)} <= colours
    write_csv(samples, str(tmp_path / "soak.csv"))
    rows = list(csv.DictReader((tmp_path / "soak.csv").open()))
    assert len(rows) == len(samples) and float(rows[-1]["t"]) == samples[-1].t


def test_the_fake_forgets_what_only_a_tests_asserts_need() -> None:
    fake = SoakTelegram()
    group = fake.group("Soak")
    chat = group["id"]
    fake.send_text(group, make_user(1, "Ana"), "/ludo")  # message 1: a person's counts too
    for n in range(2, KEEP + 12):
        m = FakeMessage(chat, n, 0, fake.bot_user, photo=b"png", photo_id=f"p{n}")
        m.history.extend([m.snapshot(), m.snapshot()])
        m.deleted = n % 2 == 0
        fake.messages[(chat, n)] = m
        fake.files[f"p{n}"] = b"png"
        fake.bot_messages.setdefault(chat, []).append(n)
    fake.prune()
    kept = sorted(n for c, n in fake.messages if c == chat)
    assert kept == list(range(12, KEEP + 12)) and fake.bot_messages[chat] == kept
    assert all(len(m.history) <= 1 for m in fake.messages.values())
    live = {m.photo_id for m in fake.messages.values() if m.photo is not None}
    assert set(fake.files) == live and all(int(str(f)[1:]) % 2 for f in live)
    assert not fake.calls and fake.outgoing.qsize() == 1  # the update goes to the webhooks


async def test_the_workers_count_their_tasks_in_their_loop() -> None:
    assert tasks() >= 1
    assert math.isnan(await asyncio.to_thread(tasks))  # no loop runs in that thread
