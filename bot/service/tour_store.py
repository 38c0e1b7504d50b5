"""A tournament as the store keeps it: a record of its own beside the games, its id in
the bucket of its key ``tour:<channel>``, which it holds while it runs (so a chat runs
one at a time, and a Redis Cluster keeps both in one slot).  Read fresh for each
request; saved with one compare-and-set, which lets the key go once it is over."""

from __future__ import annotations

import logging

from ..hosting import tournament as tour
from ..hosting.tour_codec import dump, load
from ..hosting.tournament import Tournament
from ..store import Store
from ..store.base import DamagedRecord

log = logging.getLogger(__name__)

#: how often a save is retried after a conflicting save by another worker
MAX_RETRIES = 20


def key_of(channel: str) -> str:
    """The key a channel's tournament holds while it runs."""
    return f"tour:{channel}"


def load_in(store: Store, channel: str) -> Tournament | None:
    """The tournament held by ``channel``'s key (None: none, or unreadable)."""
    key = key_of(channel)
    try:
        stored = store.load_in(key)
    except DamagedRecord:
        return None
    if stored is None:
        return None
    try:
        return load(stored.data, stored.rev)
    except ValueError:
        log.warning("the tournament of %s cannot be read", channel)
        return None


def load_id(store: Store, tid: str) -> Tournament | None:
    """Tournament ``tid`` (None: gone, or unreadable)."""
    try:
        stored = store.load(tid)
    except DamagedRecord:
        return None
    try:
        return load(stored.data, stored.rev) if stored is not None else None
    except ValueError:
        log.warning("tournament %s cannot be read", tid)
        return None


def reload(store: Store, t: Tournament) -> Tournament:
    """``t`` read afresh (after a conflicting save); gone meanwhile: ``t`` ended."""
    fresh = load_id(store, t.id)
    if fresh is None or fresh.id != t.id:
        fresh = t
        fresh.status = tour.ENDED  # gone meanwhile: nothing more to drive
    return fresh


def save(store: Store, t: Tournament) -> bool:
    """Compare-and-set ``t`` (False: someone saved it first); a tournament over lets its
    channel's key go."""
    finished = t.status in (tour.DONE, tour.ENDED)
    if not store.save(t.id, dump(t), t.rev, due=None, release=finished):
        return False
    t.rev += 1
    return True
