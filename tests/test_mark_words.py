"""The piece buttons and the board's words name the landing marks the board draws:
``2 → ②`` (the piece, then its mark), a capture, home and the way out named as
such, in every language and rule set."""

from __future__ import annotations

import pytest

import engine
from bot.hosting import Game, Seat, User
from bot.present import say
from bot.present.alt import alt_text
from bot.present.catalog import languages
from bot.present.narrate import mark
from bot.present.view import move_label, table_buttons
from engine import GameState
from renderer.marks import landings
from tests.helpers.landing_shot import choice
from tests.helpers.rules import choices, game, on, run
from tests.helpers.service import ANA

BIA = User("test", "2", "Bia")
#: Discord's longest button label (Telegram's are shorter on screen, not in bytes)
MAX_LABEL = 80

#: red after a 6 (tests/helpers/landing_shot.py): 1 out, 2 to an empty square, 3 captures, 4 home
LABELS = {
    "en": ["1 → ① out", "2 → ②", "3 → ③ captures", "4 → ④ home"],
    "pt_BR": ["1 → ① sai da base", "2 → ②", "3 → ③ captura", "4 → ④ na casa final"],
    "es": ["1 → ① sale", "2 → ②", "3 → ③ come", "4 → ④ a la meta"],
    "it": ["1 → ①, esce", "2 → ②", "3 → ③, mangia", "4 → ④, a casa"],
}
#: the same choice in the board's words
MARKS = {
    "en": "The marks show where each piece would land: ① on the start square, ② on square 16, "
    "③ on square 20 captures a green piece, ④ at home.",
    "pt_BR": "As marcas mostram onde cada peça vai parar: ① na casa de saída, ② na casa 16, "
    "③ na casa 20 captura uma peça do verde, ④ na casa final.",
    "es": "Las marcas muestran dónde caería cada ficha: ① en la casilla de salida, "
    "② en la casilla 16, ③ en la casilla 20 se come una ficha del verde, ④ en la meta.",
    "it": "I segni mostrano dove arriverebbe ogni pedina: ① sulla casella di partenza, "
    "② sulla casella 16, ③ sulla casella 20 mangia una pedina del verde, ④ a casa.",
}


def table(state: GameState, rules: str = "classic", lang: str = "en") -> Game:
    """A game of Ana (red) and Bia (the others) at ``state``."""
    seats = [Seat(ANA if c == "red" else BIA, c) for c in state.players]
    return Game(
        "abcd1234",
        "test:chan",
        rules,
        {},
        ANA,
        0,
        status="playing",
        seats=seats,
        state=state,
        last={"roll": [state.turn, state.die]},
        lang=lang,
    )


def labels(game: Game, lang: str) -> list[str]:
    return [say(b.label, lang=lang) for row in table_buttons(game) for b in row]


def test_the_marks_are_the_pieces_numbers_in_rings() -> None:
    assert [mark(n) for n in range(1, 7)] == ["①", "②", "③", "④", "⑤", "⑥"]


@pytest.mark.parametrize("lang", languages())
def test_the_buttons_name_the_marks_in_every_language(lang: str) -> None:
    assert set(LABELS) == set(languages())
    game = table(choice(), lang=lang)
    assert labels(game, lang) == LABELS[lang]
    # the squares the engine counts are on no button: the board does not show them
    assert not any(str(n) in label for label in LABELS[lang] for n in (16, 20, 57))


@pytest.mark.parametrize("lang", languages())
def test_the_board_in_words_names_the_same_marks(lang: str) -> None:
    lines = alt_text(table(choice(), lang=lang), lang).splitlines()
    assert lines[2] == MARKS[lang]


def test_no_marks_are_named_between_rolls() -> None:
    state = game("classic", {"red": [0, 10, 14, 51]}, players=4)
    text = alt_text(table(state))
    assert "mark" not in text and "①" not in text


@pytest.mark.parametrize("rules", ["tower", "super"])
def test_a_piece_coming_out_onto_an_opponent_is_a_capture(rules: str) -> None:
    state = game(rules, {"red": [0, 0, 0, 0], "green": [on("green", 0), 0, 0, 0]}, players=4)
    state, _ = run(state, "r5")
    (move,) = engine.legal_moves(state)
    assert move.enter and move.captures == ("green", 0)
    assert [m.capture for m in landings(state)] == [True]
    said = {lang: say(move_label(move), lang=lang) for lang in languages()}
    assert said == {
        "en": "1 → ① out & captures",
        "pt_BR": "1 → ① sai e captura",
        "es": "1 → ① sale y come",
        "it": "1 → ①, esce e mangia",
    }
    text = alt_text(table(state, rules))
    assert "① on the start square captures a green piece" in text


@pytest.mark.parametrize("rules", engine.RULE_SETS)
def test_every_button_names_the_mark_drawn_for_its_piece(rules: str) -> None:
    # the word of a capture: the last of a capturing move's label
    moved = engine.Move("red", 0, 5, 9, 4, captures=("green", 0))
    capture = {lang: say(move_label(moved), lang=lang).split()[-1] for lang in languages()}
    captures = 0
    tried = choices(rules, 60, seed=5)
    capturing = [s for s in tried if any(m.captures for m in engine.legal_moves(s))]
    for state in capturing[:3] + tried[:9]:
        drawn = {m.piece + 1: m for m in landings(state)}
        for lang in languages():
            said = labels(table(state, rules, lang), lang)
            assert len(said) == len(set(said)) == len(drawn)
            for label, move in zip(said, engine.legal_moves(state), strict=True):
                n = move.piece + 1
                assert label.startswith(f"{n} → {mark(n)}") and n in drawn
                assert len(label) <= MAX_LABEL
                # a capture named as a capture, as the board draws it
                assert (label.split()[-1] == capture[lang]) == drawn[n].capture, label
                captures += drawn[n].capture
        text = alt_text(table(state, rules))
        assert all(f"{mark(n)} " in text for n in drawn)
    assert captures, "the games tried include a capture"
