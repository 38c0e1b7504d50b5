"""What the Redis store needs besides its scripts: reading a game record
strictly, turning redis-py's exceptions into :class:`StoreError`, checking the
server's settings for production, and moving games from the key names of
earlier versions (see :mod:`bot.store.redis.store`)."""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import redis
import redis.exceptions
from redis.backoff import NoBackoff
from redis.retry import Retry

from bot.ops.metrics import STORE_ERRORS
from bot.store.base import Shown, Stored, StoreError, damaged, failed, unavailable

#: the Redis store's logger (its warnings about damaged deadlines come from here)
log = logging.getLogger("bot.store.redis")

#: seconds to wait for a connection to Redis, and for an answer
CONNECT_TIMEOUT = 1.0
SOCKET_TIMEOUT = 1.0


#: the query options of a Redis URL whose values are shown; any other value
#: (``password=``, ``username=``, ...) is replaced by ``***``
SHOWN_OPTIONS = frozenset({"db", "protocol", "socket_timeout", "socket_connect_timeout"})
#: a plain user name, shown before ``:***@``
_USER = re.compile(r"[A-Za-z0-9._~+-]+")
#: a URL with credentials in the middle of a text: ``scheme://...@``
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+")


def redact(url: str) -> str:
    """``url`` without its credentials, fit for a log line or an error: the
    password of ``user:pass@`` (and a lone ``secret@``), every query value but
    the harmless ones (``?password=``), and the fragment.  Works on any text,
    a mistyped scheme or a password holding ``@``, ``/`` or ``?`` included."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    rest = rest.split("#", 1)[0]
    at = rest.rfind("@")  # a password may hold "@", "/", "?": all before the last "@" goes
    if at >= 0:
        userinfo, rest = rest[:at], rest[at + 1 :]
        user, colon, _ = userinfo.partition(":")
        shown = user if colon and _USER.fullmatch(user) else ""
        rest = f"{shown}:***@{rest}" if colon else f"***@{rest}"
    base, question, query = rest.partition("?")
    if question:
        options = []
        for option in re.split(r"[&;]", query):
            name, equals, value = option.partition("=")
            keep = name.lower() in SHOWN_OPTIONS and value.isalnum()
            options.append(option if keep or not equals else f"{name}=***")
        base = f"{base}?{'&'.join(options)}"
    return f"{scheme}{sep}{base}"


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted (see :func:`redact`)."""

    def one(match: re.Match[str]) -> str:
        url = match.group(0)
        tail = len(url) - len(url.rstrip(":,.;)"))  # the sentence's, not the URL's
        return redact(url[: len(url) - tail]) + url[len(url) - tail :]

    return _URL_IN_TEXT.sub(one, text)


def client_options() -> dict[str, Any]:
    """redis-py options for every connection of the store: short timeouts, and
    one immediate retry after a broken connection (a server that restarted
    answers the retry), none after a timeout."""
    return {
        "decode_responses": False,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "socket_timeout": SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), 1, supported_errors=(redis.exceptions.ConnectionError,)),
    }


#: a number as the store writes one (``repr`` of a float) and as the Lua
#: scripts' ``num`` reads one: digits, an optional fraction and exponent
_NUMBER = re.compile(rb"-?[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?")

#: error replies of a server that is there but cannot serve the call now (redis-py
#: turns most into their own classes; MISCONF: it cannot write its snapshot)
_BUSY = (
    redis.exceptions.ReadOnlyError,
    redis.exceptions.OutOfMemoryError,
    redis.exceptions.TryAgainError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.MasterDownError,
)


def number(raw: bytes | None) -> float | None:
    """``raw`` as a finite number if it is written as one, else None."""
    if raw is None or _NUMBER.fullmatch(raw) is None:
        return None
    value = float(raw)
    return value if math.isfinite(value) else None


def read_game(
    game_id: str, fields: list[Any], now: float, channel: str | None = None
) -> Stored | None:
    """A game from its hash fields ``[rev, data, exp, channel, shown, srev]``:
    None if there is none or it expired (or, when ``channel`` is given, it is
    bound to another channel); :class:`DamagedRecord` if it cannot be read.
    The same rules as the scripts' ``state``."""
    rev, data, exp, bound, shown, srev = fields
    if rev is None and data is None and exp is None:
        return None
    if channel is not None and bound is not None and bytes(bound) != channel.encode():
        return None  # a binding left over from an earlier game with this id
    when = number(exp)
    if when is None:
        raise damaged(game_id, f"its expiry {exp!r} is not a number")
    if when <= now:
        return None
    if rev is None or not bytes(rev).isdigit() or int(rev) < 1:
        raise damaged(game_id, f"its revision {rev!r} is not a number")
    if data is None:
        raise damaged(game_id, "it has no data")
    if bound is None:
        raise damaged(game_id, "it has no channel")
    if srev is not None and not bytes(srev).isdigit():
        raise damaged(game_id, f"the revision of its notes {srev!r} is not a number")
    notes = None
    if srev is not None and int(srev) > 0:
        notes = Shown(data=bytes(shown or b""), rev=int(srev))
    return Stored(data=bytes(data), rev=int(rev), shown=notes)


def report_claim(due_key: str, bad: list[Any], moved: bool) -> None:
    """Count and log, one line each, what a CLAIM script found damaged: the
    ids in ``bad`` (their deadlines were skipped and removed) and, if
    ``moved``, the deadlines key itself (moved aside)."""
    if moved:
        STORE_ERRORS.labels(kind="damaged").inc()
        log.warning(
            "the deadlines key %s held no sorted set: moved it to %s:damaged "
            "(the turn timers in it are lost)",
            due_key,
            due_key,
        )
    for game_id in bad:
        STORE_ERRORS.labels(kind="damaged").inc()
        log.warning(
            "skipped and removed the turn deadline of damaged game %r",
            bytes(game_id).decode(errors="replace"),
        )


#: redis-py's picture of a client inside a message (Sentinel's "No master found for
#: 'ludo' : <redis.client.Redis(<redis.connection.ConnectionPool(...)>)> - ...")
_CLIENT_REPR = re.compile(r"\s*:?\s*<redis\.[\w.]+\(.*\)>(\s*-\s*)?")


def told(exc: BaseException) -> str:
    """What ``exc`` says, for an operator: without redis-py's pictures of clients."""
    return _CLIENT_REPR.sub(": ", str(exc)).rstrip(": ")


def translate(exc: redis.exceptions.RedisError, where: str, timeout: float) -> StoreError:
    """The StoreError to raise for ``exc`` from the Redis at ``where``, counted."""
    said = told(exc)
    if isinstance(exc, redis.exceptions.AuthenticationError):
        return failed(f"Redis at {where} refused to log in: {said}")
    if isinstance(exc, redis.exceptions.TimeoutError):
        return unavailable(
            f"Redis at {where} did not answer within {timeout:g} s: {said}", kind="timeout"
        )
    if isinstance(exc, redis.exceptions.BusyLoadingError):
        return unavailable(f"Redis at {where} is loading its data: {said}")
    if isinstance(exc, redis.exceptions.ConnectionError):
        return unavailable(f"cannot reach Redis at {where}: {said}")
    if isinstance(exc, _BUSY) or said.startswith("MISCONF"):
        return unavailable(f"Redis at {where} cannot serve the game store now: {said}")
    return failed(f"Redis at {where} failed: {said}")


# -- settings for production -------------------------------------------------------


def production_warnings(client: redis.Redis, where: str) -> list[str]:
    """One plain line for each setting of the Redis at ``where`` that can
    lose games: no persistence, snapshots only, eviction.  If the server
    does not let us read its settings (CONFIG disabled on managed Redis),
    a line that says what could not be checked.  Connection errors propagate."""
    try:
        conf = _config(client)
    except redis.exceptions.ResponseError as exc:  # CONFIG renamed away or not allowed
        return _warnings_from_info(client, where, str(exc))
    lines = []
    aof = conf.get("appendonly", "no") == "yes"
    save = conf.get("save", "").strip()
    if not aof and not save:
        lines.append(
            f"Redis at {where} has no persistence (appendonly no, no save points): "
            "every game is lost when Redis restarts; set appendonly yes"
        )
    elif not aof:
        lines.append(
            f"Redis at {where} keeps only snapshots (save {save!r}, appendonly no): "
            "a crash of Redis loses every move since the last snapshot; set appendonly yes"
        )
    eviction = _eviction(where, int(conf.get("maxmemory", "0") or 0), conf.get("maxmemory-policy"))
    return lines + eviction


def _config(client: redis.Redis) -> dict[str, str]:
    conf: dict[str, str] = {}
    for name in ("appendonly", "save", "maxmemory", "maxmemory-policy"):
        got: dict[Any, Any] = client.config_get(name)
        for key, value in got.items():
            conf[_text(key)] = _text(value)
    return conf


def _warnings_from_info(client: redis.Redis, where: str, why: str) -> list[str]:
    """What INFO tells when CONFIG is not there (it has no save points)."""
    try:
        persistence: dict[str, Any] = client.info("persistence")
        memory: dict[str, Any] = client.info("memory")
    except redis.exceptions.ResponseError:
        return [
            f"cannot check the persistence and eviction settings of Redis at {where} "
            f"(CONFIG and INFO are not allowed: {why}); make sure it runs with "
            "appendonly yes and maxmemory-policy noeviction"
        ]
    lines = []
    if str(persistence.get("aof_enabled", "0")) != "1":
        lines.append(
            f"cannot check the snapshot settings of Redis at {where} (CONFIG is not "
            f"allowed: {why}) and appendonly is off: unless it snapshots often, a "
            "restart of Redis loses games; set appendonly yes"
        )
    maxmemory = int(memory.get("maxmemory", 0) or 0)
    return lines + _eviction(where, maxmemory, memory.get("maxmemory_policy"))


def _eviction(where: str, maxmemory: int, policy: Any) -> list[str]:
    policy = _text(policy) if policy is not None else "noeviction"
    if maxmemory <= 0 or policy == "noeviction":
        return []
    why = ""
    if policy.startswith("volatile-"):
        why = " (every game key has an expiry, so a volatile-* policy evicts games too)"
    return [
        f"Redis at {where} may evict keys: maxmemory is {maxmemory} bytes with "
        f"maxmemory-policy {policy}{why}, so games can vanish when memory fills up; "
        "set maxmemory-policy noeviction"
    ]


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


# -- key names of earlier versions ---------------------------------------------------


def glob_escape(text: str) -> str:
    """``text`` as a literal in a SCAN MATCH pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)
