"""What the storm tests of each platform share (``test_platform_storms_telegram``,
``test_platform_storms_discord``): a game rewritten to its last moves, and the lines
an operator reads."""

from __future__ import annotations

import asyncio
import logging
import time

import engine
from bot.app.logs import NOISY
from bot.hosting import PLAYING, Game
from bot.store import Store


def near_the_end(store: Store, game_id: str) -> None:
    """The game, just started, rewritten to its last moves: each colour with three
    pieces home and the last in its home column or just before (its record starting
    there, so that its replay is right)."""
    got = store.load(game_id)
    assert got is not None
    game = Game.from_bytes(got.data, got.rev)
    assert game.state is not None and game.status == PLAYING
    players = list(game.state.players)
    position = {c: [57, 57, 57, 46 + k] for k, c in enumerate(players)}
    state = engine.new_game(
        game.rules, players, options=game.options, position=position, turn=game.state.turn
    )
    game.state, game.actions, game.last = state, "", {}
    game.start = {"players": players, "position": position, "turn": state.turn}
    game.version += 1
    assert store.save(game_id, game.to_bytes(), got.rev)


def operator_lines(records: list[logging.LogRecord]) -> list[str]:
    """The lines of ``records`` an operator reads with the bot's settings (LOG_LEVEL
    INFO; the libraries' loggers at WARNING, see :func:`bot.app.logs.setup_logging`)."""
    return [
        f"{r.levelname} {r.name}: {r.getMessage()}"
        for r in records
        if r.levelno >= (logging.WARNING if r.name.split(".")[0] in NOISY else logging.INFO)
    ]


async def until_logged(records: list[logging.LogRecord], words: str, timeout: float = 10.0) -> None:
    """Wait until an operator's line with ``words`` is in ``records``."""
    deadline = time.monotonic() + timeout
    while not any(words in line for line in operator_lines(records)):
        assert time.monotonic() < deadline, f"never logged {words!r}: {operator_lines(records)}"
        await asyncio.sleep(0.05)
