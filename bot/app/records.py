"""The game records ``ludo-bot play --record FILE`` and ``ludo-bot simulate --record
DIR`` write: the JSON of docs/RULES.md section 7, with dice anyone can verify (the
commitment and the revealed seed), as a chat game's ``/ludo record`` sends it, so
``ludo-bot replay``, ``render`` and ``verify`` take them."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine import GameState, make_record

from ..hosting import dice
from .inputs import CommandError


def dice_seed(rng: random.Random | None) -> str:
    """The seed of a game's dice: drawn from ``rng`` (a game repeated with ``--seed``),
    else from the operating system's secret source."""
    return dice.new_seed() if rng is None else f"{rng.getrandbits(256):064x}"


class Recorder:
    """One game's actions as played, its rolls drawn from a seed anyone can check."""

    def __init__(self, start: GameState, seed: str) -> None:
        self.start = start.copy()
        self.seed = seed
        self.actions: list[dict[str, int]] = []
        self.rolls = 0

    def roll(self) -> int:
        """The die of the next roll: the seed's roll of that number."""
        return dice.roll(self.seed, self.rolls)

    def add(self, action: Mapping[str, int]) -> None:
        self.actions.append(dict(action))
        if "roll" in action:
            self.rolls += 1

    def record(self) -> dict[str, Any]:
        """The record, its seed revealed: the game is over, or its player left."""
        record = make_record(self.start, self.actions)
        record["dice"] = {"commitment": dice.commitment(self.seed), "seed": self.seed}
        return record


def record_file(path: str) -> Path:
    """``play --record FILE``: a file that can be written, checked before the game."""
    target = Path(path)
    if target.is_dir():
        raise CommandError(f"--record {path}: it is a folder")
    if not target.parent.is_dir():
        raise CommandError(f"--record {path}: the folder {str(target.parent)!r} does not exist")
    return target


def make_folder(option: str, path: str) -> Path:
    """The folder ``option`` names, made if need be: only the last folder, in one
    that is there (a mistyped path is refused rather than made)."""
    folder = Path(path)
    try:
        folder.mkdir(exist_ok=True)
    except FileExistsError:
        raise CommandError(f"{option} {path}: there is a file of that name") from None
    except OSError as e:
        if not folder.parent.is_dir():
            parent = str(folder.parent)
            raise CommandError(
                f"{option} {path}: the folder {parent!r} does not exist "
                "(only the last folder is made)"
            ) from None
        raise CommandError(f"{option} {path}: cannot make the folder: {e.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"{option} {path}: the folder is not writable")
    return folder


def record_folder(path: str) -> Path:
    """``simulate --record DIR``."""
    return make_folder("--record", path)


def write_record(path: Path, record: Mapping[str, Any]) -> None:
    try:
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    except OSError as e:
        raise CommandError(f"cannot write the record {path}: {e.strerror}") from None


def write_records(folder: Path, games: int) -> Callable[[Mapping[str, Any]], None]:
    """What keeps each simulated game's record: ``game-0001.json``, ... in ``folder``."""
    width = max(4, len(str(games)))
    count = [0]

    def keep(record: Mapping[str, Any]) -> None:
        count[0] += 1
        write_record(folder / f"game-{count[0]:0{width}d}.json", record)

    return keep
