"""Playing a hosted game: rolls, moves, computers' turns, forced moves, turn timers."""

from __future__ import annotations

import engine
from engine import GameState, LudoError

from ..players.loop import Action, Decide, Step, play, play_on
from . import dice, slow
from .checks import need, pass_host, your_turn
from .game import ENDED, LOBBY, OVER, PLAYING, Game, User, encode_action
from .happened import Happened, Luck, Refusal

#: a game that loops this often without a person acting is stopped (never happens)
MAX_CHAIN = 5000
#: after this many timeouts in a row a computer player takes the seat over
MAX_TIMEOUTS = 3


def roll(game: Game, user: User, luck: Luck, happened: Happened) -> None:
    need(game, PLAYING)
    seat = your_turn(game, user)
    state = _state(game)
    if state.phase != "roll":
        raise Refusal(
            "refuse.move_first" if state.phase == "move" else "refuse.bonus_first", die=state.die
        )
    seat.timeouts = 0
    act(game, {"roll": next_die(game, luck)}, happened)
    advance(game, luck, happened)


def move(game: Game, user: User, piece: int, luck: Luck, happened: Happened) -> None:
    """Move piece number ``piece`` (counted from 1, as on the board)."""
    need(game, PLAYING)
    seat = your_turn(game, user)
    state = _state(game)
    if state.phase == "roll":
        raise Refusal("refuse.roll_first")
    try:
        engine.move_for(state, piece - 1)
    except LudoError as e:
        bonus = state.phase == "bonus"
        raise Refusal(
            "refuse.illegal_move",
            piece=piece,
            reason=getattr(e, "reason", "illegal"),
            die=state.bonus[0] if bonus else state.die,
            bonus=bonus,
            need=state.options.exit_rolls,
            follow=state.follow + 1,
            count=len(state.pieces[state.turn]),
        ) from None
    seat.timeouts = 0
    act(game, {"move": piece - 1}, happened)
    advance(game, luck, happened)


def timeout(game: Game, luck: Luck, happened: Happened) -> None:
    """The game's deadline passed: a lobby nobody started closes (see
    :func:`bot.hosting.open_game`); in a game, the turn timer ran out, and the
    computer plays the turn (and, the third time, the seat).  Before that, in a slow
    turn, its reminder came due: the person on turn is reminded, once (nothing moves)."""
    if game.status == LOBBY:
        if game.deadline is None or game.deadline > luck.now:
            raise Refusal("timer.not_due")
        minutes = max(1, round((game.deadline - game.created) / 60))
        _finish(game, ENDED)
        happened.note("lobby.expired", count=minutes)
        return
    seat = game.on_turn()
    if game.deadline is None or seat is None or seat.user is None:
        raise Refusal("timer.not_due")  # someone acted in time: nothing to do
    name, colour = seat.user.name, seat.colour
    if game.deadline > luck.now:
        remind = slow.reminder_at(game.timer, game.deadline, game.reminded)
        if remind is None or remind > luck.now:
            raise Refusal("timer.not_due")  # acted in time, or reminded already
        game.reminded = happened.reminder = True  # the buttons stay: same version
        left = round(game.deadline - luck.now)
        happened.note("remind.turn", who=name, colour=colour, left=left)
        return
    seat.timeouts += 1
    happened.note("timer.expired", who=name, colour=colour)
    if seat.timeouts >= MAX_TIMEOUTS:
        pass_host(game, seat)
        seat.was, seat.user = seat.user, None
        seat.took_over = True
        happened.note("timer.took_over", who=name, colour=colour, count=MAX_TIMEOUTS)
    else:
        # the computer plays this one turn for them
        _play_on(game, lambda s: _computer(game, s, luck) if s.turn == colour else None, happened)
    advance(game, luck, happened)


def advance(game: Game, luck: Luck, happened: Happened) -> None:
    """Play on until a person must act: computers' turns, forced moves, the end."""
    if game.status == PLAYING:

        def decide(s: GameState) -> Action | None:
            seat = game.seat_for(s.turn)
            if seat is None or seat.computer:
                return _computer(game, s, luck)
            if game.auto_move and s.phase in ("move", "bonus"):
                moves = engine.legal_moves(s)
                if len(moves) == 1:
                    return {"move": moves[0].piece}
            return None

        _play_on(game, decide, happened)
        if _state(game).is_over:
            _finish(game, OVER)
    if game.status == PLAYING:
        game.version += 1
        seat = game.on_turn()
        if game.timer and seat is not None and not seat.computer:
            game.deadline = luck.now + game.timer
        else:
            game.deadline = None
        game.reminded = False  # a new deadline: its own reminder, if slow


def act(game: Game, action: Action, happened: Happened) -> None:
    """Apply one action, add it to the record and to what happened."""
    _record(game, play(_state(game), action), happened)


def _play_on(game: Game, decide: Decide, happened: Happened) -> None:
    play_on(_state(game), decide, lambda step: _record(game, step, happened), MAX_CHAIN)


def _record(game: Game, step: Step, happened: Happened) -> None:
    game.actions += encode_action(step.action)
    if step.move is not None:
        m = step.move
        if step.phase == "bonus":
            game.last.pop("roll", None)  # a bonus move: no roll of its own
        game.last["move"] = [step.colour, m.piece, m.frm, m.to, *(m.captures or ())]
    else:
        game.last = {"roll": [step.colour, step.die]}
    happened.facts.extend(step.events)


def next_die(game: Game, luck: Luck) -> int:
    """The next roll of ``game``: from its seed (verifiable), else from ``luck``."""
    return dice.roll(game.seed, game.rolls) if game.seed is not None else luck.die()


def _computer(game: Game, s: GameState, luck: Luck) -> Action:
    if s.phase == "roll":
        return {"roll": next_die(game, luck)}
    moves = engine.legal_moves(s)
    if len(moves) == 1:
        return {"move": moves[0].piece}
    return {"move": luck.computer(level_of(game, s.turn)).choose(s, moves).piece}


def level_of(game: Game, colour: str) -> str:
    """The level the computer plays ``colour`` at: a computer seat's own; a seat taken
    over (or a person's turn the timer plays): the table's."""
    seat = game.seat_for(colour)
    if seat is not None and seat.user is None and not seat.took_over:
        return seat.level
    return game.level


def _finish(game: Game, status: str) -> None:
    game.status = status
    game.deadline = None
    game.reminded = False
    game.version += 1


def finish(game: Game, status: str = ENDED) -> None:
    """End the game (``over``: played to the end; ``ended``: stopped)."""
    _finish(game, status)


def _state(game: Game) -> GameState:
    if game.state is None:
        raise Refusal("refuse.not_started")
    return game.state
