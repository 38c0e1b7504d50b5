"""The rate limits' and quotas' settings: per person and per chat
(``LUDO_PERSON_*``, ``LUDO_CHAT_*``), each person's quotas (``LUDO_OPEN_GAMES``,
``LUDO_STATS_PER_HOUR``), and the live board's per client address
(``LUDO_WEB_ADDRESS_*``) with the reverse proxies believed to name the client
(``LUDO_TRUSTED_PROXIES``).  Each wrong value is a :class:`ConfigError` naming
the setting."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from ..limits.rate import LimitSettings, Network, Rate
from .values import ConfigError
from .values import number as _number

#: the most networks LUDO_TRUSTED_PROXIES takes
MAX_PROXIES = 64


def load_limits(env: Mapping[str, str]) -> LimitSettings:
    """The rate limits and quotas; a burst or quota of 0 turns that one off."""
    d = LimitSettings()
    rates = {}
    for who, default in (("PERSON", d.person), ("CHAT", d.chat), ("WEB_ADDRESS", d.address)):
        burst = _number(env, f"LUDO_{who}_BURST", default.burst, 0, 10_000, whole=True)
        rate = _number(env, f"LUDO_{who}_PER_SECOND", default.per_second, 0.01, 1000)
        rates[who] = Rate(int(burst), rate)
    return LimitSettings(
        person=rates["PERSON"],
        chat=rates["CHAT"],
        open_games=int(_number(env, "LUDO_OPEN_GAMES", d.open_games, 0, 1000, whole=True)),
        stats_per_hour=int(
            _number(env, "LUDO_STATS_PER_HOUR", d.stats_per_hour, 0, 100_000, whole=True)
        ),
        address=rates["WEB_ADDRESS"],
        trusted_proxies=trusted_proxies(env, d.trusted_proxies),
    )


def trusted_proxies(env: Mapping[str, str], default: tuple[Network, ...]) -> tuple[Network, ...]:
    """LUDO_TRUSTED_PROXIES: addresses or CIDR networks separated by commas (``none``:
    no proxy is trusted, every client is its connection's peer)."""
    name = "LUDO_TRUSTED_PROXIES"
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if raw.lower() == "none":
        return ()
    found: list[Network] = []
    for item in raw.split(","):
        item = item.strip()
        try:
            found.append(ipaddress.ip_network(item, strict=True))
        except ValueError as e:
            if "host bits set" in str(e):
                raise ConfigError(
                    f"{name}: {item!r} has host bits set (the network is "
                    f"{ipaddress.ip_network(item, strict=False)})"
                ) from None
            raise ConfigError(
                f"{name} must be IP addresses or networks (10.0.0.0/8) separated by commas, "
                f"not {item[:60]!r}"
            ) from None
    if len(found) > MAX_PROXIES:
        raise ConfigError(f"{name} takes at most {MAX_PROXIES} networks, not {len(found)}")
    return tuple(found)
