"""The command line's arguments that several commands share, checked before anything
is done: ``--options`` (the rule options, JSON), ``--size`` and ``--images`` (the board
images), ``--lang`` (the language spoken).  A bad one is a :class:`CommandError`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from renderer.board import MAX_SIZE, MIN_SIZE

from ..present import find_language, language_name, languages
from .inputs import CommandError
from .records import make_folder


def rule_options(text: str | None) -> dict[str, Any] | None:
    """``--options``: the rule options as JSON (None if not given)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError as e:
        raise CommandError(f"--options is not valid JSON: {e}") from None
    except RecursionError:
        raise CommandError("--options is nested too deeply") from None
    if not isinstance(value, dict):
        raise CommandError("--options must be a JSON object, e.g. '{\"teams\": true}'")
    return value


def image_size(size: int) -> int:
    """``--size``, checked before anything is drawn."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise CommandError(f"--size must be from {MIN_SIZE} to {MAX_SIZE} pixels, not {size}")
    return size


def image_folder(path: str) -> Path:
    """``--images``: the folder for the board images, made if need be (only the last
    folder: its parent must be there)."""
    return make_folder("--images", path)


def language_arg(code: str | None) -> str | None:
    """The language ``--lang`` names (English if not given), or None after saying why not."""
    if code is None:
        return "en"
    lang = find_language(code)
    if lang is None:
        known = ", ".join(f"{k} ({language_name(k)})" for k in languages())
        print(f"ludo-bot: --lang {code!r} is not a language I speak: {known}", file=sys.stderr)
    return lang
