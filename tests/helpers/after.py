"""Games played to their end through the game service, for the tests of what comes after
(rematches, ratings, seasons, privacy, limits): every person on turn presses the first
button of the table until the game is over."""

from __future__ import annotations

from typing import Any

from bot.hosting import OVER, PLAYING, Game, Intent, User
from bot.present import say, table_view
from bot.present.buttons import parse_press
from bot.service.game import GameService
from bot.store import Store
from tests.helpers.service import Dice
from tests.helpers.stores import FakeClock

CHAN = "test:group"


def service(store: Store, clock: FakeClock, seed: int = 3) -> GameService:
    return GameService(store, dice=Dice(seed), draw=lambda n: 0, clock=clock)


def play_out(svc: GameService, channel: str = CHAN) -> Game:
    """Every person on turn presses the first button of the table until the game ends."""
    game = svc.game_in(channel)
    assert game is not None and game.status == PLAYING
    game_id = game.id
    for _ in range(5000):
        game = svc.get(game_id)
        assert game is not None
        if game.status != PLAYING:
            return game
        seat = game.on_turn()
        assert seat is not None and seat.user is not None
        press = parse_press(table_view(game).buttons[0][0].data)
        assert press is not None
        outcome = svc.press(channel, seat.user, press.game_id, press.version, press.intent)
        assert outcome.refusal is None, outcome.refusal
    raise AssertionError("the game did not end")


def finished_game(
    svc: GameService, people: tuple[User, ...], computers: int = 0, channel: str = CHAN, **kw: Any
) -> Game:
    host, *others = people
    assert svc.open(channel, host, **kw).refusal is None
    for user in others:
        assert svc.act(channel, user, Intent("join")).refusal is None
    for _ in range(computers):
        assert svc.act(channel, host, Intent("add_computer")).refusal is None
    assert svc.act(channel, host, Intent("start")).refusal is None
    game = play_out(svc, channel)
    assert game.status == OVER
    return game


def rematch_button(game: Game) -> tuple[str, int, Intent]:
    view = table_view(game)
    (button,) = [b for row in view.buttons for b in row]
    assert say(button.label) == "Rematch"
    press = parse_press(button.data)
    assert press is not None and press.intent.kind == "rematch"
    return press.game_id, press.version, press.intent
