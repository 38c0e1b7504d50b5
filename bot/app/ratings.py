"""``ludo-bot ratings CHAT``: an operator recomputes one chat's ratings from its kept
results and prints them as JSON, every rule set, people and computer levels.

The ratings are never stored (they are recomputed from the results whenever they
are asked for), so this is also how an operator sees what a change of the model
does to a chat's history.  CHAT is the chat's key as the store keeps it:
``tg:-1001234`` for a Telegram group (``tg:-1001234:7`` for a forum topic),
``dc-guild:123`` for a Discord server; a key's beginning, ending in ``:`` (``tg:``,
``dc-guild:``), rates every chat that starts so together (a platform's rating across
its chats, as ``/ludo stats`` tells it).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .purge import with_store

if TYPE_CHECKING:
    from ..store import Store
    from .config import Settings

#: the longest chat key taken
CHAT_LIMIT = 200


def chat(text: str) -> str:
    if not text or len(text) > CHAT_LIMIT or not text.isprintable() or ":" not in text:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is not a chat key (tg:-1001234, dc-guild:123)"
        )
    return text


def cmd_ratings(args: argparse.Namespace, configured: Callable[[], Settings]) -> int:
    from ..hosting.rating import games, rate_games
    from ..hosting.results import COMPUTER

    def read(store: Store) -> list[tuple[str, bytes]]:
        if not args.chat.endswith(":"):
            return store.entries(args.chat)
        chats = [c for c in store.chats() if c.startswith(args.chat)]
        return [e for c in chats for e in store.entries(c)]

    played = games(with_store(configured, read))
    rated = rate_games(played)
    names: dict[str, str] = {}
    for game in played:  # the name shown latest
        for who, entry in game.seats.items():
            names[who] = entry.name or names.get(who, "")
    out: dict[str, Any] = {"chat": args.chat, "games": len(played), "rules": {}}
    for rules, table in sorted(rated.by_rules.items()):
        if args.rules and rules != args.rules:
            continue
        rows = sorted(table.items(), key=lambda kv: (-kv[1].shown, kv[0]))
        out["rules"][rules] = [
            {
                "who": who,
                "name": names.get(who, ""),
                "computer": who.startswith(f"{COMPUTER}:"),
                "rating": r.shown,
                "mu": round(r.mu, 3),
                "sigma": round(r.sigma, 3),
                "games": r.games,
            }
            for who, r in rows
        ]
    print(json.dumps(out, ensure_ascii=False, indent=2))
    return 0


def rule_set(text: str) -> str:
    """``--rules``: one of the rule sets."""
    import engine

    if text not in engine.RULE_SETS:
        raise argparse.ArgumentTypeError(
            f"{text[:40]!r} is no rule set: choose {', '.join(engine.RULE_SETS)}"
        )
    return text


def add_ratings(sub: argparse._SubParsersAction[Any], configured: Callable[[], Settings]) -> None:
    p = sub.add_parser(
        "ratings", help="recompute one chat's ratings from its kept results and print them"
    )
    p.add_argument(
        "chat",
        type=chat,
        help="the chat's key, e.g. tg:-1001234 or dc-guild:123; tg: rates all Telegram chats",
    )
    p.add_argument("--rules", type=rule_set, help="only this rule set (default: every one)")
    p.set_defaults(func=lambda args: cmd_ratings(args, configured))
