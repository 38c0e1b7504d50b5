"""A first test run passes anywhere: without a Chromium the browser tests are skipped
with one line saying how to get one; with ``CI`` set, they fail instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.machine import in_ci

ROOT = Path(__file__).resolve().parent.parent
#: the browser tests, run in one process of their own
BROWSER = ["tests/test_browser.py"]


def browser_tests(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    """tests/test_browser.py run by a pytest of its own, with no Chromium to be found."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["LUDO_CHROMIUM"] = str(tmp_path / "no-chromium-here")
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", *BROWSER],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_without_chromium_the_browser_tests_are_skipped_in_one_line(tmp_path: Path) -> None:
    run = browser_tests(tmp_path, None)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    skipped = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, run.stdout[-3000:]
    (line,) = skipped
    assert "no Chromium at" in line and "apt-get install chromium" in line, line
    assert "LUDO_CHROMIUM" in line, line
    assert " passed" not in run.stdout.splitlines()[-1]  # every one skipped, none failed


@pytest.mark.parametrize("ci", ["true"])
def test_in_ci_a_missing_chromium_is_a_failure(tmp_path: Path, ci: str) -> None:
    run = browser_tests(tmp_path, ci)
    assert run.returncode == 1, run.stdout[-3000:]
    assert "CI is set, so this is a failure" in run.stdout
    assert "SKIPPED" not in run.stdout


@pytest.mark.parametrize(
    ("value", "ci"), [("", False), ("0", False), ("false", False), ("true", True), ("yes", True)]
)
def test_what_counts_as_ci(monkeypatch: pytest.MonkeyPatch, value: str, ci: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert in_ci() is ci
