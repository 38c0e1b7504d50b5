"""The service layer: the only code that loads and saves games and tournaments.

Every request is one load, one step of the hosting domain (:mod:`bot.hosting`) on
that fresh copy, and one compare-and-set save; nothing is kept in memory between
calls.  :class:`~bot.service.game.GameService` is what the adapters, the web board
and the runner hold; it hands each request to the collaborator whose job it is:

- :mod:`.lobby`: opening a game (a lobby, within the opener's quota);
- :mod:`.turns`: playing a turn (a command, a press, a timer that ran out) and saving it;
- :mod:`.after`: what happens after a game (its stats and ratings kept, the rematch),
  with :mod:`.records`, the finished games kept for good;
- :mod:`.listeners`: who is told of each save and of each finished game;
- :mod:`.loading`: reading a stored game, a step of the domain on it, the dice;
- :mod:`.faults`: an unreachable store, a damaged game and a bug, each told once;
- :mod:`.outcome`: what a request came to, as the adapters show it.

Tournaments (:mod:`.tournaments`, :mod:`.tour_tables`, :mod:`.tour_store`) load and
save the tournaments of :mod:`bot.hosting.tournament` the same way, their tables
being ordinary games of this service.
"""
