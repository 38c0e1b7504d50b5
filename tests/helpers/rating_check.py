"""An independent count of the ratings of finished games, for the tests: openskill's
Plackett-Luce applied directly to the games' places, in the order they were played."""

from __future__ import annotations

from collections.abc import Callable

from openskill.models import PlackettLuce

from bot.hosting import Game, User


def expected_ratings(
    games: list[Game], key: Callable[[User], str], without: str = ""
) -> dict[str, tuple[int, int]]:
    """Person key -> (shown rating, games) after ``games`` (people only, no teams),
    leaving out the person ``without`` (forgotten: as if they had never sat there)."""
    model = PlackettLuce()
    rated: dict[str, tuple[float, float, int]] = {}
    for game in games:
        state = game.state
        assert state is not None and state.places is not None
        seats = [s for s in game.seats if s.user is not None and key(s.user) != without]
        who = [key(s.user) for s in seats if s.user is not None]
        ranks = [float(state.places[s.colour or ""]) for s in seats]
        before = [rated.get(k, (model.mu, model.sigma, 0)) for k in who]
        teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma, _ in before]
        after = model.rate(teams, ranks=ranks)
        for k, (_, _, n), (r,) in zip(who, before, after, strict=True):
            rated[k] = (r.mu, r.sigma, n + 1)
    return {k: (round(1000 + 25 * (mu - 3 * sigma)), n) for k, (mu, sigma, n) in rated.items()}


def signed(change: int) -> str:
    """A change of rating as the standings write it: +23, −12 (a true minus), ±0."""
    return f"{'+' if change > 0 else '−' if change < 0 else '±'}{abs(change):,}"


def expected_told(games: list[Game], key: Callable[[User], str]) -> str:
    """What the standings of the last of ``games`` say of the new ratings, best place
    first: ``Ana 1,040 (+40), Ben 960 (-40)``."""
    game = games[-1]
    state = game.state
    assert state is not None and state.places is not None
    places = state.places
    before = expected_ratings(games[:-1], key)
    after = expected_ratings(games, key)
    told = []
    for seat in sorted(game.seats, key=lambda s: (places[s.colour or ""], s.colour or "")):
        if seat.user is None:
            continue
        k = key(seat.user)
        change = after[k][0] - before.get(k, (1000, 0))[0]
        told.append(f"{seat.user.name} {after[k][0]:,} ({signed(change)})")
    return ", ".join(told)


def expected_top(
    games: list[Game], key: Callable[[User], str], without: str = ""
) -> list[tuple[str, int]]:
    """(person key, shown rating) best first: the rating, then more games, then the key."""
    found = expected_ratings(games, key, without)
    order = sorted(found, key=lambda k: (-found[k][0], -found[k][1], k))
    return [(k, found[k][0]) for k in order]
