"""Dice anyone can verify: every roll of a game comes from one secret seed.

When a game starts the table shows a *commitment*, the SHA-256 of the seed;
each roll is derived from the seed and the roll's number with HMAC-SHA-256; at
the end the seed is revealed, and anyone can check that it matches the
commitment and that every roll of the record came from it
(``ludo-bot verify RECORD``).  Nobody, the bot included, can choose a roll
once the commitment is shown, and nobody can foresee one before the seed is
revealed.

Rolls are uniform: a byte of the HMAC is used only if it is below 252 (42
times 6), so no face is more likely than another (no modulo bias).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

#: a byte below this gives a face (252 = 42 x 6); others are skipped
_FAIR = 252


def new_seed() -> str:
    """A fresh secret seed: 32 random bytes from the operating system, as hex."""
    return secrets.token_hex(32)


def commitment(seed: str) -> str:
    """What the table shows when the game starts: the SHA-256 of the seed (hex)."""
    return hashlib.sha256(seed.encode()).hexdigest()


def roll(seed: str, n: int, kind: str = "roll") -> int:
    """Roll number ``n`` (from 0) of a game with ``seed``: 1..6.  ``kind`` keeps
    other rolls apart ("start": the rolls for who starts)."""
    key = bytes.fromhex(seed)
    for extra in range(1_000_000):
        label = f"{kind} {n}" if extra == 0 else f"{kind} {n} {extra}"
        for byte in hmac.new(key, label.encode(), hashlib.sha256).digest():
            if byte < _FAIR:
                return byte % 6 + 1
    raise AssertionError("unreachable: a digest of 32 bytes above 251, a million times")


def is_seed(value: object) -> bool:
    """Whether ``value`` looks like a seed: 64 hex digits."""
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def check(record: Mapping[str, Any]) -> tuple[int, list[str]]:
    """Check a game record's dice: how many rolls were checked, and what is wrong
    (empty: every roll came from the revealed seed, which matches the commitment)."""
    dice = record.get("dice")
    if not isinstance(dice, Mapping):
        return 0, ["the record has no dice (a game before verifiable dice, or not hosted)"]
    seed, promised = dice.get("seed"), dice.get("commitment")
    if not isinstance(promised, str) or not promised:
        return 0, ["the record has no commitment"]
    if seed is None:
        return 0, ["the seed is not revealed yet: it is shown when the game ends"]
    if not is_seed(seed):
        return 0, [f"the seed {seed!r} is not 64 hex digits"]
    problems = []
    if commitment(seed) != promised:
        problems.append("the seed does not match the commitment shown at the start")
    rolls = [a["roll"] for a in _actions(record.get("actions")) if "roll" in a]
    for n, got in enumerate(rolls):
        want = roll(seed, n)
        if got != want:
            problems.append(f"roll {n + 1} is {got!r}, but the seed gives {want}")
    return len(rolls), problems


def _actions(actions: object) -> Iterable[Mapping[str, Any]]:
    if isinstance(actions, list):
        yield from (a for a in actions if isinstance(a, Mapping))


def secure_die() -> int:
    """A fair die from the operating system's cryptographic random source."""
    return secrets.randbelow(6) + 1
