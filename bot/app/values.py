"""Reading one setting: a number in a range, one of a few words, a port, a host;
each wrong value a :class:`ConfigError` naming the setting; the SQLite file checked."""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping


class ConfigError(Exception):
    """A setting with a value that cannot work; the message names it."""


def number(
    env: Mapping[str, str], name: str, default: float, low: float, high: float, whole: bool = False
) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"{name} must be {kind}, not {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be from {low:g} to {high:g}, not {raw}")
    return value


def choice(
    env: Mapping[str, str],
    name: str,
    choices: tuple[str, ...],
    default: str,
    fold: Callable[[str], str],
) -> str:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if fold(raw) not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {raw!r}")
    return fold(raw)


def port(env: Mapping[str, str], name: str) -> int | None:
    if not env.get(name, "").strip():
        return None
    return int(number(env, name, 0, 1, 65535, whole=True))


#: a host name: letters, digits and hyphens in dot-separated labels
HOSTNAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


def is_host(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return len(text) <= 253 and HOSTNAME.fullmatch(text) is not None
    return True


def host(env: Mapping[str, str], name: str, default: str) -> str:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not is_host(raw):
        raise ConfigError(f"{name} must be an IP address or a host name, not {raw!r}")
    return raw


def check_database(path: str) -> None:
    """Refuse an SQLite file that cannot work, before anything is created: its
    folder must exist and be writable (SQLite writes its journal there), and the
    file, if it is there, must be a readable and writable regular file."""
    if path == ":memory:":
        return
    name = "LUDO_DATABASE"
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ConfigError(f"{name}: the folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{name}: the folder {folder!r} is not writable")
    if os.path.isdir(path):
        raise ConfigError(f"{name}: {path!r} is a folder, not a file")
    if os.path.exists(path):
        if not os.path.isfile(path):
            raise ConfigError(f"{name}: {path!r} is not a regular file")
        if not os.access(path, os.R_OK | os.W_OK):
            raise ConfigError(f"{name}: {path!r} is read-only (the bot must write to it)")
