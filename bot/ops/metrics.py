"""What the bot counts for operators, in Prometheus' terms (``prometheus_client``).

Every part of the bot records here; ``/metrics`` (see :mod:`bot.app.health`)
serves the registry.  The metrics live in their own registry, so tests and
several bots in one process never mix their figures with the process
collectors of the default one.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

#: presses and commands handled, by platform and what came of them
#: (``done``, ``refused``, ``store_down``, ``damaged``, ``failed``, and ``limited``: turned
#: away at the entrance, the person or chat going too fast; see :mod:`bot.limits`)
PRESSES = Counter(
    "ludo_presses",
    "Button presses and commands handled",
    ["platform", "result"],
    registry=REGISTRY,
)
#: how long a press took from its arrival to its answer
PRESS_SECONDS = Histogram(
    "ludo_press_seconds",
    "Time from a press or command to its answer, in seconds",
    ["platform"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0),
    registry=REGISTRY,
)
#: games in a lobby or being played, as last counted
GAMES_ACTIVE = Gauge(
    "ludo_games_active",
    "Games open in a lobby or being played",
    registry=REGISTRY,
)
#: store calls that failed, by kind (``unreachable``, ``timeout``, ``damaged``, ``failed``)
STORE_ERRORS = Counter(
    "ludo_store_errors",
    "Store calls that failed",
    ["kind"],
    registry=REGISTRY,
)
#: times a platform told the bot to slow down (HTTP 429)
RATE_LIMITED = Counter(
    "ludo_platform_rate_limited",
    "Times a chat platform answered 429 (too many requests)",
    ["platform"],
    registry=REGISTRY,
)
#: calls held back by the bot itself to keep a platform's send limits (a chat's pace)
PACED = Counter(
    "ludo_outbox_paced",
    "Times a call waited for its chat's send pace",
    ["platform"],
    registry=REGISTRY,
)
#: messages dropped from a chat's outbox under a flood (tables are never dropped)
OUTBOX_DROPPED = Counter(
    "ludo_outbox_dropped",
    "Messages other than tables dropped from a flooded chat's outbox",
    ["platform"],
    registry=REGISTRY,
)
#: whether each platform is connected now (1) or not (0)
PLATFORM_UP = Gauge(
    "ludo_platform_connected",
    "Whether the bot is connected to the platform",
    ["platform"],
    registry=REGISTRY,
)
#: whether the store answered its last health check
STORE_UP = Gauge(
    "ludo_store_reachable",
    "Whether the game store answered its last check",
    registry=REGISTRY,
)
#: the live board's requests turned away by its rate limits, by what was refused:
#: ``session`` (POST /api/session), ``socket`` (a websocket's hello), ``message`` (a
#: socket over its own pace), ``press`` (a press over its person's or chat's limit) and
#: ``discord`` (a sign-in while the budget of requests to Discord is spent)
WEB_LIMITED = Counter(
    "ludo_web_limited",
    "Live board sessions, sockets and messages turned away by the rate limits",
    ["what"],
    registry=REGISTRY,
)
#: calls a chat platform refused for a while (429 Too Many Requests, or a 5xx), by status
#: (the bot waits as the platform asks, or backs off, and tries again)
PLATFORM_REFUSED = Counter(
    "ludo_platform_refused",
    "Calls a chat platform answered with 429 or a 5xx",
    ["platform", "status"],
    registry=REGISTRY,
)
#: whether the bot backs off a platform that refuses its calls now (1) or not (0)
PLATFORM_BACKING_OFF = Gauge(
    "ludo_platform_backing_off",
    "Whether the bot is backing off a chat platform that answers 429 or a 5xx",
    ["platform"],
    registry=REGISTRY,
)
#: requests Discord answered 401, 403 or 429 (its "invalid requests": 10,000 in 10
#: minutes shut the address out of the API), by who made them: ``bot`` (the tables,
#: through discord.py) or ``web`` (the live board's sign-in)
DISCORD_INVALID = Counter(
    "ludo_discord_invalid",
    "Requests Discord answered 401, 403 or 429 (its invalid requests)",
    ["caller"],
    registry=REGISTRY,
)
