"""What a few tests need from the machine beyond Python: a Chromium for the web
board's browser tests, and systemd's ``systemd-analyze`` for the unit's checks.

On a developer's machine without them those tests are skipped, with one line (for
all of them together) saying how to get the program. When ``CI`` is set (``.ci/run``
sets it), a missing program fails the tests instead: CI runs every test.
"""

from __future__ import annotations

import os
import shutil

import pytest

#: where Debian's chromium is (``LUDO_CHROMIUM`` names another)
CHROMIUM = "/usr/bin/chromium"
NO_CHROMIUM = (
    "no Chromium at {path}: the browser tests are skipped "
    "(install Debian's chromium, `sudo apt-get install chromium`, "
    "or set LUDO_CHROMIUM to a Chromium or Chrome binary)"
)
NO_SYSTEMD = (
    "no systemd-analyze: the systemd unit's checks are skipped "
    "(install Debian's systemd package, `sudo apt-get install systemd`)"
)


def in_ci() -> bool:
    """Whether this run is CI's (``CI`` set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(reason: str) -> None:
    """Skip the test with ``reason``; in CI, fail it: nothing may be skipped there."""
    if in_ci():
        pytest.fail(f"{reason}; CI is set, so this is a failure", pytrace=False)
    pytest.skip(reason)


def chromium() -> str:
    """The Chromium the browser tests drive (skipped or failed if there is none)."""
    path = os.environ.get("LUDO_CHROMIUM", "").strip() or CHROMIUM
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        missing(NO_CHROMIUM.format(path=path))
    return path


def systemd_analyze() -> str:
    """``systemd-analyze`` (skipped or failed if there is none)."""
    found = shutil.which("systemd-analyze")
    if found is None:
        missing(NO_SYSTEMD)
    assert found is not None
    return found
