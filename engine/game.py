"""The rules: starting a game, the legal moves, and applying an action.

:func:`apply` is pure: it copies the state and changes the copy.  The private
``roll_in_place`` / ``move_in_place`` do the real work on a state they own,
which is what fast random play (``ludo-bot simulate``) uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .board import (
    COLOUR_INDEX,
    COLOURS,
    DEFAULT_SEATS,
    HOME,
    LAST_TRACK,
    START_SQUARES,
    TRACK_SQUARES,
    is_star,
    square_key,
    start_colour,
)
from .errors import IllegalAction, RecordError
from .rules import Options, rules_for
from .state import Event, GameState, Move, build_occupancy

Action = Mapping[str, int]


def new_game(
    rules: str | Options,
    players: Sequence[str] | int,
    *,
    options: Mapping[str, Any] | None = None,
    position: Mapping[str, Sequence[int]] | None = None,
    turn: str | None = None,
) -> GameState:
    """A new game of ``rules`` (a rule set name or an :class:`Options`).

    ``players`` is the list of colours in the game (or their number); the
    seating order is always clockwise from red.  ``position`` gives each
    colour's piece progress values (default: the rule set's start position);
    ``turn`` the colour to play first (default: the first seat).
    """
    if isinstance(rules, Options):
        opts = rules_for(rules.name, rules.overrides() | dict(options or {}))
    else:
        opts = rules_for(rules, options)
    seats = _seats(opts, players)
    if position is None:
        pos = _start_position(opts, seats)
    else:
        pos = _check_position(opts, seats, position, check_over=True)
    s = GameState.__new__(GameState)
    s.options = opts
    s.seats = seats
    s.pos = pos
    s.occ = build_occupancy(pos)
    if turn is None:
        s.cur = seats[0]
    else:
        c = COLOUR_INDEX.get(turn) if isinstance(turn, str) else None
        if c is None or c not in seats:
            names = ", ".join(COLOURS[x] for x in seats)
            raise RecordError(
                f"turn must be one of the colours in the game ({names}), not {turn!r}"
            )
        if _all_home(s, c):
            raise RecordError(f"turn: {turn} has all pieces home and cannot play")
        s.cur = c
    s.won = ()
    _start_turn(s, s.cur)
    return s


def legal_moves(state: GameState) -> list[Move]:
    """The moves the player on turn may choose from now (empty unless a move is due).

    Pieces in the base are interchangeable: only the lowest-numbered one is
    listed for "bring a piece out", though moving any base piece is accepted.
    """
    if state.phase == "move" or state.phase == "bonus":
        return list(current_moves(state))
    return []


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """Apply ``{"roll": d}`` or ``{"move": i}``; return the new state and what happened.

    Passes, extra turns, bonus moves, penalties and the end of the game
    happen here and are reported as events.  An illegal action raises
    :class:`IllegalAction` and changes nothing.
    """
    kind, value = _parse_action(action)
    new = state.copy()
    events: list[Event] = []
    if kind == "roll":
        roll_in_place(new, value, events)
    else:
        move_in_place(new, value, events)
    return new, events


# --------------------------------------------------------------------------
# actions, in place


def _parse_action(action: Any) -> tuple[str, int]:
    if not isinstance(action, Mapping) or len(action) != 1:
        raise IllegalAction(
            f'an action is {{"roll": d}} or {{"move": i}}, not {action!r}', "bad_action"
        )
    ((kind, value),) = action.items()
    if kind not in ("roll", "move"):
        raise IllegalAction(f"unknown action {kind!r}: use roll or move", "bad_action")
    if isinstance(value, bool) or not isinstance(value, int):
        what = "die value" if kind == "roll" else "piece number"
        raise IllegalAction(f"{kind} needs a whole {what}, not {value!r}", "bad_action")
    return kind, value


def roll_in_place(s: GameState, die: int, events: list[Event] | None) -> None:
    """Apply a roll of ``die`` to ``s`` itself."""
    if s.phase != "roll":
        raise _out_of_order(s, "roll")
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
    moves = _generate(s, c, die, False)
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
        raise _out_of_order(s, "move")
    c = s.cur
    m = _find_move(s, c, piece)
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
    if _all_home(s, c):
        _next_turn(s, events)
        return
    while s.bonus:
        moves = _generate(s, c, s.bonus[0], True)
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
        if not _all_home(s, c):
            break
    _start_turn(s, c)
    if events is not None:
        events.append(Event("turn", COLOURS[c]))


def _start_turn(s: GameState, c: int) -> None:
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


def _all_home(s: GameState, c: int) -> bool:
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
    k = square_key(c, s.pos[c][i])
    if k >= 0:
        here = occ[k]
        if len(here) == 1:
            del occ[k]
        else:
            here.remove(code)
    s.pos[c][i] = to
    k = square_key(c, to)
    if k >= 0:
        if k in occ:
            occ[k].append(code)
        else:
            occ[k] = [code]


# --------------------------------------------------------------------------
# move generation


def current_moves(s: GameState) -> list[Move]:
    """The legal moves of ``s`` (cached in it: do not change the list)."""
    if s._moves is None:
        steps = s.die if s.phase == "move" else s.bonus[0]
        s._moves = _generate(s, s.cur, steps, s.phase == "bonus")
    return s._moves


def _generate(s: GameState, c: int, d: int, bonus: bool) -> list[Move]:
    """Every legal move of colour ``c`` for ``d`` squares (a die or a bonus)."""
    o = s.options
    moves: list[Move] = []
    may_enter = not bonus and s.follow < 0 and d in o.exit_rolls
    for i, p in enumerate(s.pos[c]):
        if p == HOME:
            continue
        if p == 0:
            if may_enter:
                may_enter = False  # base pieces are interchangeable: list one
                r = _try_enter(s, c, i)
                if type(r) is Move:
                    moves.append(r)
            continue
        r = _try_step(s, c, i, p, d)
        if type(r) is Move:
            moves.append(r)
    if bonus or len(moves) < 2:
        return moves
    return _constrain(s, c, d, moves)


def _constrain(s: GameState, c: int, d: int, moves: list[Move]) -> list[Move]:
    """Rules that narrow a roll's choice: forced exit, opening barriers, follow-up."""
    o = s.options
    if s.follow >= 0:
        follow = [m for m in moves if m.piece == s.follow]
        if follow:
            return follow
    if o.exit_forced and d in o.exit_rolls:
        enter = [m for m in moves if m.enter]
        if enter:
            return enter
    if o.open_barriers and d == 6:
        opening = [m for m in moves if _in_own_barrier(s, c, m.frm)]
        if opening:
            return opening
    return moves


def _in_own_barrier(s: GameState, c: int, p: int) -> bool:
    k = square_key(c, p)
    if k < 0:
        return False
    here = s.occ.get(k, ())
    return len(here) == 2 and here[0] >> 3 == c and here[1] >> 3 == c


def _try_enter(s: GameState, c: int, i: int) -> Move | str:
    """Bring piece ``i`` out onto the start square, or say why it cannot."""
    o = s.options
    key = START_SQUARES[c]
    here = s.occ.get(key, ())
    captures = None
    forms = None
    if here:
        stacking = o.stacking
        own = [x for x in here if x >> 3 == c]
        if stacking == "barrier":
            if own:
                return "own_on_start"
            if len(here) == 1:  # super 5: coming out captures an opponent on the start square
                captures = (COLOURS[here[0] >> 3], here[0] & 7)
            else:
                return "start_full"
        elif stacking == "tower":
            if len(here) >= 2:
                return "tower_on_start"
            if own:
                forms = "tower"
            elif not o.safe_starts:
                captures = (COLOURS[here[0] >> 3], here[0] & 7)
        else:
            captures = _free_capture(s, c, key, here)
    return Move(COLOURS[c], i, 0, 1, 1, True, captures, forms)


def _free_capture(s: GameState, c: int, key: int, here: Sequence[int]) -> tuple[str, int] | None:
    """Free stacking: a lone opponent off a safe square is captured (classic 6)."""
    if len(here) != 1:
        return None
    oc = here[0] >> 3
    if oc == c:
        return None
    o = s.options
    if o.teams and (oc - c) % 4 == 2:
        return None
    if key < TRACK_SQUARES and (
        (o.safe_starts and key % 13 == 0) or (o.safe_stars and key % 13 == 8)
    ):
        return None
    return (COLOURS[oc], here[0] & 7)


def _try_step(s: GameState, c: int, i: int, p: int, d: int) -> Move | str:
    """Move piece ``i`` (at ``p`` > 0) ``d`` squares, or say why it cannot."""
    o = s.options
    q = p + d
    bounce = False
    if q > HOME:
        if o.overshoot != "bounce":
            return "overshoot"
        q = 2 * HOME - q
        bounce = True
    stacking = o.stacking
    if stacking == "free":
        if q == HOME:
            return Move(COLOURS[c], i, p, q, d)
        if q > LAST_TRACK:
            return Move(COLOURS[c], i, p, q, d, bounce=bounce)
        key = (13 * c + q - 1) % TRACK_SQUARES
        here = s.occ.get(key)
        captures = _free_capture(s, c, key, here) if here else None
        return Move(COLOURS[c], i, p, q, d, False, captures, None, bounce)
    # towers and barriers: nothing passes a stack of two of one colour
    origin = square_key(c, p)
    occ = s.occ
    for step in range(1, d):
        w = p + step
        if w >= HOME:
            if w == HOME:
                continue  # home holds no tower: the bounce turns there
            w = 2 * HOME - w
        k = square_key(c, w)
        here = occ.get(k)
        if here and _is_block(here, k == origin):
            return "blocked"
    if q == HOME:
        return Move(COLOURS[c], i, p, q, d)
    key = square_key(c, q)
    here_list = [x for x in occ.get(key, ()) if x != c * 8 + i]
    if not here_list:
        return Move(COLOURS[c], i, p, q, d, bounce=bounce)
    if len(here_list) >= 2:
        return "blocked" if stacking == "tower" or _is_block(here_list, False) else "full"
    other = here_list[0]
    oc = other >> 3
    if oc == c:
        if stacking == "barrier" and start_colour(key) >= 0:
            return "no_barrier_on_start"
        return Move(COLOURS[c], i, p, q, d, False, None, stacking, bounce)
    if stacking == "barrier" and key < TRACK_SQUARES:
        if o.safe_stars and is_star(key):
            return Move(COLOURS[c], i, p, q, d)  # a shelter holds two colours
        sc = start_colour(key)
        if o.safe_starts and sc >= 0:
            if sc in (c, oc):
                return Move(COLOURS[c], i, p, q, d)
            return "foreign_start"
    return Move(COLOURS[c], i, p, q, d, False, (COLOURS[oc], other & 7), None, bounce)


def _is_block(here: Sequence[int], minus_mover: bool) -> bool:
    """Two pieces of one colour on a square: a tower or barrier nobody passes."""
    n = len(here) - (1 if minus_mover else 0)
    if n < 2:
        return False
    return here[0] >> 3 == here[1] >> 3


# --------------------------------------------------------------------------
# refusals a player understands


def _find_move(s: GameState, c: int, piece: int) -> Move:
    moves = current_moves(s)
    for m in moves:
        if m.piece == piece:
            return m
    ps = s.pos[c]
    if 0 <= piece < len(ps) and ps[piece] == 0:
        for m in moves:
            if m.enter:  # any base piece may be the one brought out
                return m._replace(piece=piece)
    raise _why_not(s, c, piece, moves)


def _why_not(s: GameState, c: int, piece: int, moves: list[Move]) -> IllegalAction:
    ps = s.pos[c]
    bonus = s.phase == "bonus"
    d = s.bonus[0] if bonus else s.die
    what = f"make the bonus move of {d}" if bonus else f"move {d}"
    if isinstance(piece, bool) or not 0 <= piece < len(ps):
        return IllegalAction(
            f"piece {piece} does not exist: {COLOURS[c]} has pieces 0 to {len(ps) - 1}",
            "no_such_piece",
            piece,
        )
    p = ps[piece]
    o = s.options
    if p == HOME:
        return IllegalAction(f"piece {piece} is already home", "home", piece)

    def no(why: str, reason: str) -> IllegalAction:
        return IllegalAction(f"piece {piece} cannot {what}: {why}", reason, piece)

    if p == 0:
        if bonus:
            return no("a bonus move cannot bring a piece out of the base", "in_base")
        if s.follow >= 0:
            return no("the piece that just came out moves with this roll", "follow_up")
        if d not in o.exit_rolls:
            need = " or ".join(str(x) for x in o.exit_rolls)
            return IllegalAction(
                f"piece {piece} is in the base: it needs a {need} to come out", "in_base", piece
            )
        r: Move | str = _try_enter(s, c, piece)
    else:
        r = _try_step(s, c, piece, p, d)
    if isinstance(r, Move):
        # the move exists but a rule of the roll narrows the choice
        if s.follow >= 0:
            return no(f"piece {s.follow} just came out and must move with this roll", "follow_up")
        if o.exit_forced and any(m.enter for m in moves):
            return no(f"a {d} must bring a piece out of the base", "must_enter")
        if o.open_barriers and d == 6:
            return no("a 6 must open one of your barriers", "must_open_barrier")
        return no("another move is required", "constrained")
    return no(_REASONS.get(r, r), r)


_REASONS = {
    "overshoot": "it would overshoot home",
    "blocked": "a tower or barrier blocks the way",
    "full": "the square it would land on is full",
    "no_barrier_on_start": "a barrier cannot form on a start square",
    "foreign_start": "that start square takes a second piece only of its own colour",
    "own_on_start": "a piece of yours already stands on the start square",
    "start_full": "the start square is full",
    "tower_on_start": "a tower stands on the start square",
}


def _out_of_order(s: GameState, doing: str) -> IllegalAction:
    if s.phase == "over":
        return IllegalAction("the game is over", "game_over")
    if doing == "roll":
        if s.phase == "bonus":
            return IllegalAction(
                f"{COLOURS[s.cur]} must first make the bonus move of {s.bonus[0]}", "bonus_due"
            )
        return IllegalAction(
            f"{COLOURS[s.cur]} has rolled {s.die} and must move a piece first", "move_due"
        )
    return IllegalAction(f"{COLOURS[s.cur]} must roll the die before moving", "roll_due")


# --------------------------------------------------------------------------
# setting up


def _seats(opts: Options, players: Any) -> tuple[int, ...]:
    if isinstance(players, int) and not isinstance(players, bool):
        if players not in DEFAULT_SEATS:
            raise RecordError(f"a game has 2 to 4 players, not {players}")
        players = DEFAULT_SEATS[players]
    if not isinstance(players, list | tuple) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of colours (red, green, yellow, blue)")
    for p in players:
        if p not in COLOUR_INDEX:
            raise RecordError(f"unknown colour {p!r}: colours are {', '.join(COLOURS)}")
    if len(set(players)) != len(players):
        raise RecordError("a colour cannot play twice")
    n = len(players)
    if not opts.min_players <= n <= opts.max_players:
        if opts.min_players == opts.max_players:
            raise RecordError(
                f"{opts.name} is played by exactly {opts.min_players} players, not {n}"
            )
        raise RecordError(
            f"{opts.name} is played by {opts.min_players} to {opts.max_players} players, not {n}"
        )
    if opts.teams and n != 4:
        raise RecordError(f"teams play 2 against 2: they need 4 players, not {n}")
    expected = DEFAULT_SEATS[n]
    if set(players) != set(expected):
        raise RecordError(
            f"with {n} players the colours are {', '.join(expected)}, not {', '.join(players)}"
        )
    return tuple(COLOUR_INDEX[p] for p in expected)


def _start_position(opts: Options, seats: tuple[int, ...]) -> list[list[int]]:
    pos: list[list[int]] = [[] for _ in COLOURS]
    for c in seats:
        n = opts.pieces_for(COLOURS[c])
        pos[c] = [1 if i < opts.start_out else 0 for i in range(n)]
    return pos


def _check_position(
    opts: Options, seats: tuple[int, ...], position: Any, *, check_over: bool
) -> list[list[int]]:
    if not isinstance(position, Mapping):
        raise RecordError("position must map each colour to its pieces' progress values")
    names = {COLOURS[c] for c in seats}
    extra = set(position) - names
    if extra:
        raise RecordError(
            f"position names colours not in the game: {', '.join(sorted(map(str, extra)))}"
        )
    pos: list[list[int]] = [[] for _ in COLOURS]
    for c in seats:
        name = COLOURS[c]
        values = position.get(name)
        n = opts.pieces_for(name)
        if not isinstance(values, list | tuple) or len(values) != n:
            raise RecordError(f"position: {name} needs a list of {n} progress values")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= HOME:
                raise RecordError(f"position: progress runs from 0 (base) to 57 (home), not {v!r}")
        pos[c] = list(values)
    _check_capacity(opts, pos)
    if check_over:
        done = [c for c in seats if pos[c].count(HOME) >= opts.needed_home(COLOURS[c])]
        if opts.teams:
            if any((c + 2) % 4 in done for c in done):
                raise RecordError("position: a team has already won")
        elif done:
            raise RecordError(f"position: {COLOURS[done[0]]} has already won")
    return pos


def _check_capacity(opts: Options, pos: list[list[int]]) -> None:
    if opts.stacking == "free":
        return
    occ = build_occupancy(pos)
    for key, here in occ.items():
        colours = {x >> 3 for x in here}
        where = f"square {key}" if key < TRACK_SQUARES else "a home column square"
        if len(here) > 2:
            raise RecordError(f"position: {where} holds {len(here)} pieces; at most 2 fit")
        if len(here) == 2:
            if opts.stacking == "tower" and len(colours) == 2:
                raise RecordError(
                    f"position: {where} holds two colours; only towers share a square"
                )
            if opts.stacking == "barrier":
                sc = start_colour(key)
                if len(colours) == 1 and sc >= 0:
                    raise RecordError(
                        f"position: a barrier cannot stand on a start square ({where})"
                    )
                if len(colours) == 2 and not (is_star(key) or (sc >= 0 and sc in colours)):
                    raise RecordError(f"position: {where} cannot hold two colours")
