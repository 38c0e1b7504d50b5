"""The board in words: the description of a known position, exactly, in every
language; the game's theme for its pictures."""

from __future__ import annotations

import pytest

import engine
from bot.hosting import Game, Seat, User
from bot.present import refusal_text, say
from bot.present.alt import alt_lines, alt_text
from bot.present.pictures import board_png, theme_of
from bot.service.game import GameService
from bot.store import Store
from tests.helpers.service import ANA, Dice
from tests.helpers.stores import FakeClock

BIA = User("test", "2", "Bia")


def known() -> Game:
    """Red: two home, one in its home column at 3, one on square 14; yellow: one on 40,
    three in the yard; Bia (yellow) rolled a 4 and must choose."""
    start = engine.new_game("classic", ["red", "yellow"], turn="yellow")
    d = start.to_dict()
    d["pieces"] = {"red": [57, 57, 54, 14], "yellow": [40, 0, 0, 0]}
    state = engine.GameState.from_dict(d)
    state, _ = engine.apply(state, {"roll": 4})
    return Game(
        "abcd1234",
        "test:chan",
        "classic",
        {},
        ANA,
        0,
        status="playing",
        seats=[Seat(ANA, "red"), Seat(BIA, "yellow")],
        state=state,
        last={"roll": ["yellow", 4]},
    )


def test_the_words_of_a_known_board_are_exact() -> None:
    assert alt_text(known()) == (
        "A board of classic Ludo.\n"
        "Bia (yellow) rolled 4: choose a piece.\n"
        "The marks show where each piece would land: ① on square 44.\n"
        "Ana (red): 2 pieces home, 1 on square 14, 1 in the home column at 3.\n"
        "Bia (yellow): 3 in the yard, 1 on square 40."
    )


@pytest.mark.parametrize(
    ("lang", "first", "marks", "red"),
    [
        (
            "pt_BR",
            "Um tabuleiro de Ludo clássico.",
            "As marcas mostram onde cada peça vai parar: ① na casa 44.",
            "2 peças na casa final",
        ),
        (
            "es",
            "Un tablero de Ludo clásico.",
            "Las marcas muestran dónde caería cada ficha: ① en la casilla 44.",
            "2 fichas en la meta",
        ),
        (
            "it",
            "Un tabellone di Ludo classico.",
            "I segni mostrano dove arriverebbe ogni pedina: ① sulla casella 44.",
            "2 pedine a casa",
        ),
    ],
)
def test_the_words_of_a_board_are_in_the_tables_language(
    lang: str, first: str, marks: str, red: str
) -> None:
    game = known()
    game.lang = lang
    lines = alt_text(game).splitlines()
    assert lines[0] == first and red in lines[3]
    assert lines[2] == marks
    assert alt_text(game, "en").splitlines()[0] == "A board of classic Ludo."
    assert len(alt_text(game, limit=40)) == 40


def test_a_lobby_has_no_board_to_describe() -> None:
    game = Game("abcd1234", "test:chan", "classic", {}, ANA, 0, seats=[Seat(ANA)])
    assert alt_lines(game) == [] and alt_text(game) == ""


def test_a_game_keeps_its_theme_and_an_unknown_one_is_refused(
    store: Store, clock: FakeClock
) -> None:
    svc = GameService(store, dice=Dice(1), clock=clock)
    refused = svc.open("test:chan", ANA, theme="neon")
    assert refused.refusal is not None and refused.refusal.key == "refuse.bad_theme"
    said = say(refusal_text(refused.refusal))
    assert said.startswith("I do not know that theme. Choose one of classic, dark"), said
    opened = svc.open("test:chan", ANA, theme="dark")
    assert opened.game is not None and opened.game.theme == "dark"
    saved = svc.game_in("test:chan")
    assert saved is not None and saved.theme == "dark"
    game = known()
    classic = board_png(game, 300)
    game.theme = "dark"
    assert theme_of(game) == "dark" and board_png(game, 300) != classic
    game.theme = "nosuch"  # saved by a newer ludo-bot with more themes
    assert theme_of(game) == "classic" and board_png(game, 300) == classic
