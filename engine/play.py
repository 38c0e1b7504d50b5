"""Applying an action to a state in place: the real work behind :func:`engine.apply`.

These functions change the :class:`GameState` they are given (:func:`engine.apply`
hands them a copy).  Fast random play (``ludo-bot simulate``) calls
:func:`roll_in_place`, :func:`move_in_place` and :func:`engine.current_moves`
on a state it owns, with ``events=None`` so nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping

from .actions import Event
from .board import COLOUR_INDEX, COLOURS, HOME, LAST_TRACK, SQUARE_KEYS
from .errors import IllegalAction
from .moves import generate
from .refusals import find_move, out_of_order, parse_action
from .state import GameState

Action = Mapping[str, int]


def act_in_place(s: GameState, action: Action, events: list[Event] | None) -> None:
    """Apply ``{"roll": d}`` or ``{"move": i}`` to ``s`` itself."""
    kind, value = parse_action(action)
    if kind == "roll":
        roll_in_place(s, value, events)
    else:
        move_in_place(s, value, events)


def roll_in_place(s: GameState, die: int, events: list[Event] | None) -> None:
    """Apply a roll of ``die`` to ``s`` itself."""
    if s.phase != "roll":
        raise out_of_order(s, "roll")
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
        raise IllegalAction(f"a die shows 1 to 6, not {die!r}", "bad_die")
    c = s.cur
    o = s.options
    s.die = die
    if events is not None:
        events.append(Event("roll", COLOURS[c], die=die))
    if die == 6:
        s.sixes += 1
        if s.sixes >= 3 and o.three_sixes != "none":
            if o.three_sixes == "send_back" and s.last >= 0:
                p = s.pos[c][s.last]
                if 1 <= p <= LAST_TRACK:
                    _place(s, c, s.last, 0)
                    if events is not None:
                        events.append(
                            Event("penalty", COLOURS[c], s.last, p, 0, reason="three_sixes")
                        )
            if events is not None:
                events.append(Event("pass", COLOURS[c], die=die, reason="three_sixes"))
            _next_turn(s, events)
            return
    else:
        s.sixes = 0
    moves = generate(s, c, die, False)
    if not moves:
        if events is not None:
            events.append(Event("pass", COLOURS[c], die=die, reason="no_move"))
        _next_turn(s, events)
        return
    s.phase = "move"
    s._moves = moves


def move_in_place(s: GameState, piece: int, events: list[Event] | None) -> None:
    """Move the current player's ``piece`` in ``s`` itself."""
    phase = s.phase
    if phase != "move" and phase != "bonus":
        raise out_of_order(s, "move")
    c = s.cur
    m = find_move(s, piece)
    o = s.options
    name = COLOURS[c]
    if m.captures is not None:
        vc = COLOUR_INDEX[m.captures[0]]
        vi = m.captures[1]
        at = s.pos[vc][vi]
        _place(s, vc, vi, 0)
        if events is not None:
            events.append(Event("capture", name, piece, frm=at, to=0, target=m.captures))
    _place(s, c, piece, m.to)
    s.last = piece
    s._moves = None
    if events is not None:
        events.append(
            Event(
                "move",
                name,
                piece,
                m.frm,
                m.to,
                m.steps,
                reason="bounce" if m.bounce else ("enter" if m.enter else None),
            )
        )
        if m.forms is not None:
            events.append(Event("stack", name, piece, to=m.to, reason=m.forms))
    home = m.to == HOME
    if home:
        if events is not None:
            events.append(Event("home", name, piece, to=HOME))
        if _check_finish(s, c, events):
            return
    if phase == "bonus":
        s.bonus = s.bonus[1:]
    elif s.die == 6 and o.six_extra_turn:
        _extra(s, "six", events)
    if m.captures is not None:
        if o.capture_extra_turn:
            _extra(s, "capture", events)
        if o.capture_bonus:
            _bonus(s, o.capture_bonus, "capture", events)
    if home:
        if o.home_extra_turn:
            _extra(s, "home", events)
        if o.home_bonus:
            _bonus(s, o.home_bonus, "home", events)
    if m.enter and o.exit_follow_up and s.follow < 0:
        # tower rule 4: roll again at once, and that roll moves this piece
        s.follow = piece
        s.phase = "roll"
        s.die = 0
        return
    s.follow = -1
    _continue(s, events)


def _continue(s: GameState, events: list[Event] | None) -> None:
    """After a move: bonus moves first, then extra rolls, then the next player."""
    c = s.cur
    if all_home(s, c):
        _next_turn(s, events)
        return
    while s.bonus:
        moves = generate(s, c, s.bonus[0], True)
        if moves:
            s.phase = "bonus"
            s._moves = moves
            return
        if events is not None:
            events.append(Event("bonus_lost", COLOURS[c], die=s.bonus[0], reason="no_move"))
        s.bonus = s.bonus[1:]
    if s.extra > 0:
        s.extra -= 1
        s.phase = "roll"
        s.die = 0
        return
    _next_turn(s, events)


def _next_turn(s: GameState, events: list[Event] | None) -> None:
    seats = s.seats
    n = len(seats)
    k = seats.index(s.cur)
    for step in range(1, n + 1):
        c = seats[(k + step) % n]
        if not all_home(s, c):
            break
    start_turn(s, c)
    if events is not None:
        events.append(Event("turn", COLOURS[c]))


def start_turn(s: GameState, c: int) -> None:
    """Colour ``c`` is to roll, with nothing owed from anyone's earlier turn."""
    s.cur = c
    s.phase = "roll"
    s.die = 0
    s.sixes = 0
    s.extra = 0
    s.bonus = ()
    s.last = -1
    s.follow = -1
    s._moves = None


def _extra(s: GameState, why: str, events: list[Event] | None) -> None:
    s.extra += 1
    if events is not None:
        events.append(Event("extra_turn", COLOURS[s.cur], reason=why))


def _bonus(s: GameState, steps: int, why: str, events: list[Event] | None) -> None:
    s.bonus = (*s.bonus, steps)
    if events is not None:
        events.append(Event("bonus", COLOURS[s.cur], die=steps, reason=why))


def all_home(s: GameState, c: int) -> bool:
    return all(p == HOME for p in s.pos[c])


def _finished(s: GameState, c: int) -> bool:
    return s.pos[c].count(HOME) >= s.options.needed_home(COLOURS[c])


def _check_finish(s: GameState, c: int, events: list[Event] | None) -> bool:
    """Has the move just made ended the game?  Sets the winner if so."""
    if not _finished(s, c):
        return False
    if s.options.teams:
        partner = (c + 2) % 4
        if not _finished(s, partner):
            # said once, when the last needed piece arrives
            if events is not None and s.pos[c].count(HOME) == s.options.needed_home(COLOURS[c]):
                events.append(Event("finish", COLOURS[c]))
            return False
        s.won = (min(c, partner), max(c, partner))
    else:
        s.won = (c,)
    s.phase = "over"
    s._moves = None
    s.extra = 0
    s.bonus = ()
    if events is not None:
        events.append(Event("game_over", COLOURS[c], reason=",".join(COLOURS[w] for w in s.won)))
    return True


def _place(s: GameState, c: int, i: int, to: int) -> None:
    """Move piece ``i`` of colour ``c`` to progress ``to``, keeping ``occ`` in step."""
    occ = s.occ
    code = c * 8 + i
    keys = SQUARE_KEYS[c]
    k = keys[s.pos[c][i]]
    if k >= 0:
        here = occ[k]
        if len(here) == 1:
            del occ[k]
        else:
            here.remove(code)
    s.pos[c][i] = to
    k = keys[to]
    if k >= 0:
        if k in occ:
            occ[k].append(code)
        else:
            occ[k] = [code]
