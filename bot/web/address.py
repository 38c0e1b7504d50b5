"""Who is asking, for the rate limits: the client's address (pure, no I/O).

The client is the peer of the connection (``request.remote``), unless that peer
is one of the trusted reverse proxies (``LUDO_TRUSTED_PROXIES``; by default this
host, where the web server listens behind a proxy).  Then the client is the
rightmost address of ``X-Forwarded-For`` that is not itself trusted: each proxy
appends the address it was reached from, so everything left of that one was
written by the client and proves nothing.  When what the trusted proxies wrote
is not an address (a malformed header), the peer is the client.

An IPv4 client is counted by its address, an IPv6 client by its /64 (one
network's worth of addresses, which one host may hold all of); an IPv4 address
written as IPv6 (``::ffff:192.0.2.1``) is the IPv4 one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

from aiohttp import web

from ..limits.rate import Network

IP = ipaddress.IPv4Address | ipaddress.IPv6Address

#: the prefix an IPv6 client is counted by
IPV6_PREFIX = 64
#: the most X-Forwarded-For entries looked at, from the right
MAX_HOPS = 16
#: the key of a client whose address is unknown (not a TCP peer)
UNKNOWN = "?"


def parse_ip(text: str) -> IP | None:
    """``text`` as an address (``192.0.2.1``, ``2001:db8::1``, and as some proxies
    write them ``192.0.2.1:443``, ``[2001:db8::1]:443``), or None."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.partition(":")[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def trusted_by(ip: IP, trusted: Iterable[Network]) -> bool:
    return any(ip.version == net.version and ip in net for net in trusted)


def client_ip(peer: str | None, forwarded: Sequence[str], trusted: Sequence[Network]) -> IP | None:
    """The client's address: ``peer`` (the connection's), or when it is a trusted proxy
    the rightmost address of the ``X-Forwarded-For`` headers ``forwarded`` that is
    not trusted (all trusted: the leftmost of them); None: not known."""
    ip = parse_ip(peer) if peer else None
    if ip is None or not trusted_by(ip, trusted):
        return ip
    hops = [hop for header in forwarded for hop in header.split(",")][-MAX_HOPS:]
    client = ip
    for hop in reversed(hops):
        if not hop.strip():
            continue
        step = parse_ip(hop)
        if step is None:  # what a trusted proxy wrote is not an address
            return ip
        client = step
        if not trusted_by(step, trusted):
            break
    return client


def address_key(ip: IP | None) -> str:
    """The bucket of ``ip``: an IPv4 address, an IPv6 /64 (``2001:db8:1:2::/64``)."""
    if ip is None:
        return UNKNOWN
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


def client_address(request: web.BaseRequest, trusted: Sequence[Network]) -> str:
    """The bucket of the client of ``request`` (see the module's words)."""
    forwarded = request.headers.getall("X-Forwarded-For", [])
    return address_key(client_ip(request.remote, forwarded, trusted))
