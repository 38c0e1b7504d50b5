"""``ludo-bot forget PLATFORM:ID``: an operator purges one person from the configured
store (Redis or the SQLite file), as ``/ludo forget`` does for the person who asks:
their stats in every chat, and their name and id in every channel's last game."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .inputs import CommandError

if TYPE_CHECKING:
    from ..store import Store
    from .config import Settings

T = TypeVar("T")

#: how a platform may be written -> its name in the store's keys (``telegram:101``)
PLATFORMS = {"tg": "telegram", "telegram": "telegram", "dc": "discord", "discord": "discord"}


def person(text: str) -> str:
    """``tg:101`` (or ``telegram:101``, ``dc:123``, ``discord:123``) as the store
    keeps a person: ``telegram:101``."""
    platform, colon, ident = text.partition(":")
    name = PLATFORMS.get(platform.lower())
    if not colon or name is None:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not PLATFORM:ID (tg:101 on Telegram, dc:123 on Discord)"
        )
    if not (ident.isascii() and ident.isdigit()) or len(ident) > 20:
        raise argparse.ArgumentTypeError(f"{ident[:40]!r} is not a user id (its digits)")
    return f"{name}:{int(ident)}"


def with_store(configured: Callable[[], Settings], work: Callable[[Store], T]) -> T:
    """``work`` done on the configured store (Redis or the SQLite file), closed after;
    a store that cannot be opened or used, or an SQLite file that does not exist (it is
    not created), is the command's error, in one line."""
    from ..store import StoreError  # the store's libraries only for the commands that use one
    from .config import open_configured_store

    settings = configured()
    source = settings.database
    if not settings.uses_redis and (source == ":memory:" or not os.path.isfile(source)):
        # a typo in LUDO_DATABASE, or the wrong folder: nothing is created, nothing done
        raise CommandError(f"there is no database at {source!r} (LUDO_DATABASE)")
    try:
        store = open_configured_store(settings)
    except StoreError as e:
        raise CommandError(str(e)) from None
    try:
        return work(store)
    except StoreError as e:
        raise CommandError(str(e)) from None
    finally:
        store.close()


def cmd_forget(args: argparse.Namespace, configured: Callable[[], Settings]) -> int:
    from ..service.faults import Outage
    from ..service.records import Records

    stats, games = with_store(
        configured, lambda store: Records(store, Outage()).forget_person(args.person)
    )
    entries = "entry" if stats == 1 else "entries"
    kept = "game" if games == 1 else "games"
    print(f"forgot {args.person}: {stats} stats {entries} deleted, {games} kept {kept} rewritten")
    return 0


def add_forget(sub: argparse._SubParsersAction[Any], configured: Callable[[], Settings]) -> None:
    p = sub.add_parser(
        "forget", help="delete one person's stats and their name in kept games (tg:ID, dc:ID)"
    )
    p.add_argument("person", type=person, help="PLATFORM:ID, e.g. tg:101 or dc:123")
    p.set_defaults(func=lambda args: cmd_forget(args, configured))
