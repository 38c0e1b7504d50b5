"""The public surface of ``engine``: ``move_for`` and the names other packages import."""

from __future__ import annotations

import pytest

import engine
from engine import GameState, IllegalAction, Move


def rolled(die: int, red: list[int], *, rules: str = "classic") -> GameState:
    """Red (against yellow, all in base) to move after rolling ``die``."""
    start = engine.new_game(rules, ["red", "yellow"], position={"red": red, "yellow": [0] * 4})
    state, _ = engine.apply(start, {"roll": die})
    assert state.phase == "move"
    return state


def refusal(state: GameState, piece: object) -> IllegalAction:
    """What ``apply`` says to moving ``piece``: ``move_for`` must say the same."""
    with pytest.raises(IllegalAction) as e:
        engine.apply(state, {"move": piece})  # type: ignore[dict-item]
    return e.value


def test_move_for_a_piece_on_the_track_is_its_legal_move() -> None:
    state = rolled(3, [0, 10, 0, 0])
    m = engine.move_for(state, 1)
    assert m == Move("red", 1, 10, 13, 3)
    assert m in engine.legal_moves(state)


def test_move_for_a_base_piece_stands_in_for_the_listed_one() -> None:
    state = rolled(6, [0, 0, 20, 0])
    listed = [m for m in engine.legal_moves(state) if m.enter]
    assert [m.piece for m in listed] == [0]  # base pieces are listed once
    for piece in (0, 1, 3):
        m = engine.move_for(state, piece)
        assert m == listed[0]._replace(piece=piece)
        assert (m.enter, m.frm, m.to) == (True, 0, 1)
    # and it is the move apply makes with that piece
    after, events = engine.apply(state, {"move": 3})
    assert after.pieces["red"] == (0, 0, 20, 1)
    assert [e.piece for e in events if e.kind == "move"] == [3]


@pytest.mark.parametrize(
    ("red", "die", "piece", "reason"),
    [
        ([0, 10, 0, 0], 3, 0, "in_base"),  # a base piece without a 6
        ([57, 10, 0, 0], 3, 0, "home"),
        ([0, 10, 0, 0], 3, 4, "no_such_piece"),
        ([0, 55, 0, 10], 5, 1, "overshoot"),
    ],
)
def test_move_for_an_illegal_piece_raises_the_engines_refusal(
    red: list[int], die: int, piece: int, reason: str
) -> None:
    state = rolled(die, red)
    before = state.to_dict()
    expected = refusal(state, piece)
    with pytest.raises(IllegalAction) as e:
        engine.move_for(state, piece)
    assert (str(e.value), e.value.reason, e.value.piece) == (
        str(expected),
        expected.reason,
        expected.piece,
    )
    assert e.value.reason == reason
    assert state.to_dict() == before


@pytest.mark.parametrize("piece", [True, "1", 1.0])
def test_move_for_a_piece_that_is_not_a_number_is_refused_like_apply(piece: object) -> None:
    state = rolled(3, [0, 10, 0, 0])
    expected = refusal(state, piece)
    with pytest.raises(IllegalAction) as e:
        engine.move_for(state, piece)  # type: ignore[arg-type]
    assert (str(e.value), e.value.reason) == (str(expected), "bad_action")


def test_move_for_before_the_roll_is_refused_like_apply() -> None:
    state = engine.new_game("classic", 2)
    expected = refusal(state, 0)
    with pytest.raises(IllegalAction) as e:
        engine.move_for(state, 0)
    assert (str(e.value), e.value.reason) == (str(expected), "roll_due")


def test_move_for_a_bonus_move() -> None:
    start = engine.new_game(
        "classic",
        ["red", "yellow"],
        options={"capture_bonus": 6},
        position={"red": [10, 30, 0, 0], "yellow": [39, 0, 0, 0]},  # yellow on square 12
    )
    state, _ = engine.apply(start, {"roll": 3})
    state, events = engine.apply(state, {"move": 0})  # red lands on square 12: a capture
    assert "capture" in [e.kind for e in events] and state.phase == "bonus"
    m = engine.move_for(state, 1)
    assert m == Move("red", 1, 30, 36, 6) and m in engine.legal_moves(state)
    with pytest.raises(IllegalAction, match="bonus move") as e:
        engine.move_for(state, 2)
    assert e.value.reason == "in_base"


def test_other_packages_need_no_deep_imports() -> None:
    for name in (
        "move_for",
        "current_moves",
        "move_in_place",
        "roll_in_place",
        "start_of",
        "DEFAULT_SEATS",
    ):
        assert name in engine.__all__ and hasattr(engine, name)
    # the old deep paths still work
    from engine.board import DEFAULT_SEATS
    from engine.game import current_moves, move_in_place, roll_in_place
    from engine.record import start_of

    assert engine.DEFAULT_SEATS is DEFAULT_SEATS and engine.start_of is start_of
    assert (engine.current_moves, engine.move_in_place, engine.roll_in_place) == (
        current_moves,
        move_in_place,
        roll_in_place,
    )


def test_the_in_place_api_plays_like_apply() -> None:
    pure = engine.new_game("tower", 4)
    fast = pure.copy()
    for die in (6, 6, 2, 5, 1, 6, 3, 4, 4, 6, 1, 2, 3, 5, 6, 6, 6, 2):
        if pure.is_over:
            break
        if pure.phase == "roll":
            pure, _ = engine.apply(pure, {"roll": die})
            engine.roll_in_place(fast, die, None)
        else:
            piece = engine.legal_moves(pure)[-1].piece
            pure, _ = engine.apply(pure, {"move": piece})
            engine.move_in_place(fast, engine.current_moves(fast)[-1].piece, None)
        assert fast == pure
