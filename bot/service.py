"""The game service: lobby, turns, computer players and timers, over a store.

Every operation loads the game, changes a copy, and saves it with a
compare-and-set on the store revision; on a conflict (another worker saved in
between) it starts again from the fresh copy, so two presses never both apply
to one version and none is lost.  Nothing is kept in memory between calls: a
restarted or second process picks up where the first left off.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
from engine import HOME, Event, LudoError, Move
from engine.board import DEFAULT_SEATS

from .ai import HeuristicPlayer
from .model import ENDED, LOBBY, OVER, PLAYING, DamagedGame, Game, Seat, User, encode_action
from .narrate import event_texts, where
from .players import Policy
from .replies import Button, Reply, Text
from .store import Store

#: a game that loops this often without a person acting is stopped (never happens)
MAX_CHAIN = 5000
#: how often a save is retried after a conflicting save by another worker
MAX_RETRIES = 20
#: a claimed deadline is someone's for this long before another worker may take it
DEADLINE_LEASE = 30.0
#: after this many timeouts in a row a computer player takes the seat over
MAX_TIMEOUTS = 3
TIMER_RANGE = (10, 24 * 3600)

_BUTTON = re.compile(r"g:([0-9a-f]{8}):(\d{1,9}):([a-z])([1-6]?)")


class Refusal(Exception):
    """A request that cannot be done now: nothing changes, the asker is told why."""

    def __init__(self, key: str, *, board: bool = False, public: bool = False, **params: Any):
        super().__init__(key)
        self.text = Text(key, params)
        self.board = board
        self.public = public


@dataclass
class _Outcome:
    """What an operation did, before the reply is dressed (image, buttons)."""

    lines: list[Text]
    board: bool = True
    mention: bool = True


def secure_die() -> int:
    """A fair die from the operating system's cryptographic random source."""
    return secrets.randbelow(6) + 1


class GameService:
    """One per process; holds no game in memory."""

    def __init__(
        self,
        store: Store,
        *,
        dice: Callable[[], int] = secure_die,
        clock: Callable[[], float] = time.time,
        computer: Policy | None = None,
        default_timer: int = 120,
        render: bool = True,
        image_size: int = 600,
    ) -> None:
        self.store = store
        self.dice = dice
        self.clock = clock
        self.computer = computer or HeuristicPlayer()
        self.default_timer = default_timer
        self.render = render
        self.image_size = image_size

    # ------------------------------------------------------------------
    # lobby

    def new_game(
        self,
        channel: str,
        user: User,
        rules: str = "classic",
        options: dict[str, Any] | None = None,
        *,
        timer: int | None = None,
        auto_move: bool = True,
    ) -> Reply:
        """Open a lobby in ``channel`` with ``user`` in the first seat."""
        try:
            opts = engine.rules_for(rules, options or {})
        except LudoError as e:
            return self._refuse(Refusal("refuse.bad_rules", why=str(e)), channel)
        if timer is None:
            timer = self.default_timer
        if timer and not TIMER_RANGE[0] <= timer <= TIMER_RANGE[1]:
            return self._refuse(
                Refusal("refuse.bad_timer", low=TIMER_RANGE[0], high=TIMER_RANGE[1]), channel
            )
        existing = self.store.channel_game(channel)
        if existing is not None:
            try:
                old = self._load(existing)
            except Refusal:
                old = None  # damaged or gone: the channel is free again
                self.store.release_channel(channel, existing)
            if old is not None and old.status in (LOBBY, PLAYING):
                return self._refuse(Refusal("refuse.game_running"), channel)
        game = Game(
            id=secrets.token_hex(4),
            channel=channel,
            rules=rules,
            options=opts.overrides(),
            creator=user,
            timer=timer,
            auto_move=auto_move,
            seats=[Seat(user)],
            created=self.clock(),
        )
        if not self.store.create(game.id, game.to_bytes(), channel=channel):
            return self._refuse(Refusal("refuse.game_running"), channel)
        game.rev = 1
        return self._dress(
            game, self._lobby_outcome(game, Text("lobby.opened", self._lobby_params(game)))
        )

    def join(self, channel: str, user: User, *, version: int | None = None) -> Reply:
        def op(game: Game) -> _Outcome:
            self._need(game, LOBBY, version)
            if game.seat_of(user):
                raise Refusal("refuse.already_seated")
            if len(game.seats) >= self._opts(game).max_players:
                raise Refusal("refuse.full")
            game.seats.append(Seat(user))
            return _Outcome(
                [Text("lobby.joined", {"who": user.name}), self._lobby_status(game)],
                board=False,
                mention=False,
            )

        return self._run(channel, op)

    def add_computer(self, channel: str, user: User, *, version: int | None = None) -> Reply:
        def op(game: Game) -> _Outcome:
            self._need(game, LOBBY, version)
            self._seated(game, user)
            if len(game.seats) >= self._opts(game).max_players:
                raise Refusal("refuse.full")
            game.seats.append(Seat(None))
            return _Outcome(
                [Text("lobby.computer_added"), self._lobby_status(game)], board=False, mention=False
            )

        return self._run(channel, op)

    def remove_computer(self, channel: str, user: User, *, version: int | None = None) -> Reply:
        def op(game: Game) -> _Outcome:
            self._need(game, LOBBY, version)
            self._seated(game, user)
            for k in range(len(game.seats) - 1, -1, -1):
                if game.seats[k].computer:
                    del game.seats[k]
                    break
            else:
                raise Refusal("refuse.no_computer")
            return _Outcome(
                [Text("lobby.computer_removed"), self._lobby_status(game)],
                board=False,
                mention=False,
            )

        return self._run(channel, op)

    def leave(self, channel: str, user: User, *, version: int | None = None) -> Reply:
        """Leave the lobby, or hand a running game's seat to a computer player."""

        def op(game: Game) -> _Outcome:
            self._need(game, (LOBBY, PLAYING), version)
            seat = self._seated(game, user)
            if game.status == LOBBY:
                game.seats.remove(seat)
                if not game.humans:
                    self._finish(game, ENDED)
                    return _Outcome([Text("lobby.closed_empty", {"who": user.name})], board=False)
                if user.same(game.creator):
                    game.creator = game.humans[0].user  # type: ignore[assignment]
                return _Outcome(
                    [Text("lobby.left", {"who": user.name}), self._lobby_status(game)],
                    board=False,
                    mention=False,
                )
            seat.user = None
            seat.took_over = True
            lines = [Text("game.left", {"who": user.name, "colour": seat.colour})]
            if not game.humans:
                self._finish(game, ENDED)
                lines.append(Text("game.ended_empty"))
                return _Outcome(lines)
            self._advance(game, lines)
            return _Outcome(lines)

        return self._run(channel, op)

    def start(self, channel: str, user: User, *, version: int | None = None) -> Reply:
        """Start the game: the creator at any time, anyone once the seats are full."""

        def op(game: Game) -> _Outcome:
            self._need(game, LOBBY, version)
            self._seated(game, user)
            opts = self._opts(game)
            full = len(game.seats) >= opts.max_players
            if not (user.same(game.creator) or full):
                raise Refusal("refuse.only_host_starts", host=game.creator.name)
            lines: list[Text] = []
            # super is played by exactly 4 and teams need 4: computers fill the empty seats
            if opts.min_players == 4 or opts.teams:
                empty = 4 - len(game.seats)
                if empty > 0:
                    game.seats.extend(Seat(None) for _ in range(empty))
                    lines.append(Text("lobby.computer_filled", {"count": empty}))
            if len(game.seats) < opts.min_players:
                raise Refusal("refuse.need_players", need=opts.min_players)
            colours = DEFAULT_SEATS[len(game.seats)]
            for seat, colour in zip(game.seats, colours, strict=True):
                seat.colour = colour
            first = self._first_player(game, colours, lines)
            state = engine.new_game(game.rules, list(colours), options=game.options, turn=first)
            game.state = state
            game.start = {
                "players": list(state.players),
                "position": {c: list(v) for c, v in state.pieces.items()},
                "turn": first,
            }
            game.status = PLAYING
            game.version += 1
            lines.insert(
                0, Text("game.started", {"rules": game.rules, "players": self._seating(game)})
            )
            self._advance(game, lines)
            return _Outcome(lines)

        return self._run(channel, op)

    def _first_player(self, game: Game, colours: tuple[str, ...], lines: list[Text]) -> str:
        if self._opts(game).first_player == "highest_roll":
            # italian 1: everybody rolls, the highest starts, ties roll again
            contenders = list(colours)
            while True:
                rolls = {c: self.dice() for c in contenders}
                lines.append(
                    Text(
                        "game.start_rolls",
                        {"rolls": ", ".join(f"{self._who(game, c)} {d}" for c, d in rolls.items())},
                    )
                )
                top = max(rolls.values())
                contenders = [c for c in contenders if rolls[c] == top]
                if len(contenders) == 1:
                    return contenders[0]
        # classic 1, tower 1: drawn at random
        return colours[secrets.randbelow(len(colours))]

    # ------------------------------------------------------------------
    # playing

    def roll(self, channel: str, user: User, *, version: int | None = None) -> Reply:
        def op(game: Game) -> _Outcome:
            self._need(game, PLAYING, version)
            seat = self._your_turn(game, user)
            state = game.state
            assert state is not None
            if state.phase != "roll":
                raise Refusal(
                    "refuse.move_first" if state.phase == "move" else "refuse.bonus_first",
                    die=state.die,
                )
            seat.timeouts = 0
            lines: list[Text] = []
            self._act(game, {"roll": self.dice()}, lines)
            self._advance(game, lines)
            return _Outcome(lines)

        return self._run(channel, op)

    def move(self, channel: str, user: User, piece: int, *, version: int | None = None) -> Reply:
        """Move piece number ``piece`` (counted from 1, as on the board)."""

        def op(game: Game) -> _Outcome:
            self._need(game, PLAYING, version)
            seat = self._your_turn(game, user)
            state = game.state
            assert state is not None
            if state.phase == "roll":
                raise Refusal("refuse.roll_first")
            if not isinstance(piece, int) or isinstance(piece, bool):
                raise Refusal("refuse.no_such_piece", piece=piece, count=len(state.pos[state.cur]))
            try:
                engine.apply(state, {"move": piece - 1})
            except LudoError as e:
                reason = getattr(e, "reason", "illegal")
                raise Refusal(
                    "refuse.illegal_move", piece=piece, why=_why(e, piece), reason=reason
                ) from None
            seat.timeouts = 0
            lines: list[Text] = []
            self._act(game, {"move": piece - 1}, lines)
            self._advance(game, lines)
            return _Outcome(lines)

        return self._run(channel, op)

    def movable(self, channel: str, user: User | None = None) -> list[tuple[int, str]]:
        """The pieces the player on turn can move now, as (number from 1, where it goes).

        For autocompletion: empty when no move is due (or ``user`` is not on turn).
        """
        game_id = self.store.channel_game(channel)
        if game_id is None:
            return []
        try:
            game = self._load(game_id)
        except Refusal:
            return []
        seat = game.on_turn()
        if seat is None or game.state is None or (user is not None and not user.same(seat.user)):
            return []
        return [(m.piece + 1, _where(m.to)) for m in engine.legal_moves(game.state)]

    # ------------------------------------------------------------------
    # looking

    def board(self, channel: str, user: User | None = None) -> Reply:
        """The current board and whose turn it is (changes nothing)."""
        try:
            game = self._load(self._game_id(channel))
        except Refusal as r:
            return self._refuse(r, channel)
        if game.status == LOBBY:
            return self._dress(
                game,
                _Outcome(
                    [Text("lobby.status", self._lobby_params(game))], board=False, mention=False
                ),
            )
        return self._dress(game, _Outcome([self._prompt(game)], mention=False))

    def status(self, channel: str) -> Reply:
        """A short text: the lobby, or whose turn it is and the timer."""
        try:
            game = self._load(self._game_id(channel))
        except Refusal as r:
            return self._refuse(r, channel)
        if game.status == LOBBY:
            line = Text("lobby.status", self._lobby_params(game))
        else:
            line = Text(
                "game.status",
                {"rules": game.rules, "players": self._seating(game), "timer": game.timer},
            )
        reply = self._dress(
            game,
            _Outcome(
                [line, self._prompt(game)] if game.status == PLAYING else [line],
                board=False,
                mention=False,
            ),
        )
        reply.buttons = []
        return reply

    def rules(self, channel: str | None = None, rules: str | None = None) -> Reply:
        """The rules of ``rules``, or of the game in ``channel`` (classic if none)."""
        options: dict[str, Any] = {}
        if rules is None and channel is not None:
            game_id = self.store.channel_game(channel)
            if game_id is not None:
                try:
                    game = self._load(game_id)
                    rules, options = game.rules, game.options
                except Refusal:
                    pass
        rules = rules or "classic"
        if rules not in engine.RULE_SETS:
            return self._refuse(
                Refusal("refuse.bad_rules", why=f"unknown rule set {rules!r}"), channel
            )
        lines = [Text(f"rules.{rules}")]
        if options:
            lines.append(
                Text(
                    "rules.options", {"options": ", ".join(f"{k}={v}" for k, v in options.items())}
                )
            )
        return Reply(lines, channel=channel, private=False)

    # ------------------------------------------------------------------
    # ending

    def end(self, channel: str, user: User, *, can_manage: bool = False) -> Reply:
        """End the game: its creator, or someone the platform lets manage the channel."""

        def op(game: Game) -> _Outcome:
            self._need(game, (LOBBY, PLAYING), None)
            if not (user.same(game.creator) or can_manage):
                raise Refusal("refuse.only_creator_ends", host=game.creator.name)
            self._finish(game, ENDED)
            return _Outcome(
                [Text("game.ended_by", {"who": user.name})],
                board=game.state is not None,
                mention=False,
            )

        return self._run(channel, op)

    # ------------------------------------------------------------------
    # buttons

    def button(
        self, game: Game | None, action: str, label: Text, style: str = "secondary"
    ) -> Button:
        assert game is not None
        return Button(label, f"g:{game.id}:{game.version}:{action}", style)

    def press(self, channel: str, user: User, data: str, *, can_manage: bool = False) -> Reply:
        """A button press: ``data`` as the button carried it (``g:<id>:<version>:<action>``)."""
        m = _BUTTON.fullmatch(data) if isinstance(data, str) else None
        if m is None:
            return self._refuse(Refusal("refuse.bad_button"), channel)
        game_id, ver, act, arg = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        try:
            game = self._load(game_id)
        except Refusal as r:
            return self._refuse(r, channel)
        if game.channel != channel:
            return self._refuse(Refusal("refuse.bad_button"), channel)
        if game.status not in (LOBBY, PLAYING):
            return self._refuse(Refusal("refuse.game_over"), channel)
        if ver != game.version:
            return self._refuse(Refusal("refuse.outdated", board=True), channel, game)
        if act == "m" and arg:
            return self.move(channel, user, int(arg), version=ver)
        if act == "b":
            return self.board(channel, user)
        ops = {
            "j": self.join,
            "l": self.leave,
            "c": self.add_computer,
            "x": self.remove_computer,
            "s": self.start,
            "r": self.roll,
        }
        if act in ops and not arg:
            return ops[act](channel, user, version=ver)
        return self._refuse(Refusal("refuse.bad_button"), channel)

    # ------------------------------------------------------------------
    # timers

    def fire_due(self, now: float | None = None) -> list[Reply]:
        """Play the turns whose timer ran out; one reply per game, for its channel.

        Safe to call from every worker at once: a deadline is claimed by one,
        and the move it makes is saved only if nobody else changed the game.
        """
        now = self.clock() if now is None else now
        replies = []
        for game_id in self.store.claim_due(now, DEADLINE_LEASE):
            reply = self._timeout(game_id, now)
            if reply is not None:
                replies.append(reply)
        return replies

    def _timeout(self, game_id: str, now: float) -> Reply | None:
        def op(game: Game) -> _Outcome:
            seat = game.on_turn()
            if game.deadline is None or game.deadline > now or seat is None or seat.computer:
                raise Refusal("timer.not_due")  # someone acted in time: nothing to do
            assert game.state is not None and seat.user is not None
            name, colour = seat.user.name, seat.colour
            seat.timeouts += 1
            lines = [Text("timer.expired", {"who": name, "colour": colour})]
            if seat.timeouts >= MAX_TIMEOUTS:
                seat.user = None
                seat.took_over = True
                lines.append(
                    Text("timer.took_over", {"who": name, "colour": colour, "count": MAX_TIMEOUTS})
                )
            else:
                # the computer plays this one turn for them
                while (
                    game.status == PLAYING and game.state.turn == colour and len(lines) < MAX_CHAIN
                ):
                    self._computer_step(game, lines)
            self._advance(game, lines)
            return _Outcome(lines)

        try:
            return self._mutate(game_id, op)
        except Refusal as r:
            if r.text.key == "timer.not_due":
                self._sync_deadline(game_id)
            elif r.text.key in ("refuse.no_game", "refuse.damaged"):
                self.store.unschedule(game_id)  # nothing left to time
            return None

    def _sync_deadline(self, game_id: str) -> None:
        stored = self.store.load(game_id)
        if stored is None:
            self.store.unschedule(game_id)
            return
        try:
            game = Game.from_bytes(stored.data, stored.rev)
        except DamagedGame:
            self.store.unschedule(game_id)
            return
        if game.deadline is None or game.status != PLAYING:
            self.store.unschedule(game_id)
        else:
            self.store.schedule(game_id, game.deadline)

    # ------------------------------------------------------------------
    # adapters' notes

    def set_meta(self, game_id: str, **values: Any) -> None:
        """Remember adapter data with the game (e.g. the board message to edit)."""
        for _ in range(MAX_RETRIES):
            stored = self.store.load(game_id)
            if stored is None:
                return
            try:
                game = Game.from_bytes(stored.data, stored.rev)
            except DamagedGame:
                return
            game.meta.update(values)
            if self.store.save(game_id, game.to_bytes(), stored.rev):
                return

    def get(self, game_id: str) -> Game | None:
        """The game ``game_id``, read-only, finished or not (None if gone or unreadable)."""
        try:
            return self._load(game_id)
        except Refusal:
            return None

    def game_in(self, channel: str) -> Game | None:
        """The game bound to ``channel``, read-only (None if none or unreadable)."""
        game_id = self.store.channel_game(channel)
        if game_id is None:
            return None
        try:
            return self._load(game_id)
        except Refusal:
            return None

    # ------------------------------------------------------------------
    # the machinery

    def _run(self, channel: str, op: Callable[[Game], _Outcome]) -> Reply:
        try:
            return self._mutate(self._game_id(channel), op)
        except Refusal as r:
            game = None
            if r.board:
                game_id = self.store.channel_game(channel)
                game = self.game_in(channel) if game_id else None
            return self._refuse(r, channel, game)

    def _mutate(self, game_id: str, op: Callable[[Game], _Outcome]) -> Reply:
        """Load, change, compare-and-set; again from the fresh copy on a conflict."""
        for _ in range(MAX_RETRIES):
            game = self._load(game_id)
            outcome = op(game)
            due = game.deadline if game.status == PLAYING else None
            timed = due is not None
            if due is not None:
                # scheduled before the save, so a crash in between cannot lose the
                # deadline: at worst it fires early, finds nothing due and is set right
                self.store.schedule(game.id, due)
            if self.store.save(game.id, game.to_bytes(), game.rev):
                game.rev += 1
                if not timed:
                    self.store.unschedule(game.id)
                if game.status in (OVER, ENDED):
                    self.store.release_channel(game.channel, game.id)
                return self._dress(game, outcome)
        raise Refusal("refuse.busy")

    def _game_id(self, channel: str) -> str:
        game_id = self.store.channel_game(channel)
        if game_id is None:
            raise Refusal("refuse.no_game")
        return game_id

    def _load(self, game_id: str) -> Game:
        stored = self.store.load(game_id)
        if stored is None:
            raise Refusal("refuse.no_game")
        try:
            return Game.from_bytes(stored.data, stored.rev)
        except DamagedGame as e:
            raise Refusal("refuse.damaged", why=str(e)) from None

    def _opts(self, game: Game) -> engine.Options:
        return engine.rules_for(game.rules, game.options)

    def _need(self, game: Game, status: str | tuple[str, ...], version: int | None) -> None:
        wanted = (status,) if isinstance(status, str) else status
        if version is not None and version != game.version:
            raise Refusal("refuse.outdated", board=True)
        if game.status not in wanted:
            key = {LOBBY: "refuse.not_started", PLAYING: "refuse.already_started"}.get(
                game.status, "refuse.game_over"
            )
            raise Refusal(key)

    def _seated(self, game: Game, user: User) -> Seat:
        seat = game.seat_of(user)
        if seat is None:
            raise Refusal("refuse.not_seated")
        return seat

    def _your_turn(self, game: Game, user: User) -> Seat:
        seat = self._seated(game, user)
        on_turn = game.on_turn()
        if seat is not on_turn:
            who = on_turn.user.name if on_turn and on_turn.user else "the computer"
            raise Refusal("refuse.not_your_turn", who=who)
        return seat

    def _act(self, game: Game, action: dict[str, int], lines: list[Text]) -> None:
        """Apply one action, append it to the record, and say what happened."""
        state = game.state
        assert state is not None
        colour = state.turn
        move: Move | None = None
        if "move" in action:
            moves = engine.legal_moves(state)
            move = next((m for m in moves if m.piece == action["move"]), None)
            if move is None:  # another piece from the base: the same move
                move = next(m for m in moves if m.enter)._replace(piece=action["move"])
        new, events = engine.apply(state, action)
        game.state = new
        game.actions += encode_action(action)
        if move is not None:
            game.last["move"] = [
                colour,
                move.piece,
                move.frm,
                move.to,
                *(list(move.captures) if move.captures else []),
            ]
            if state.phase == "bonus":
                game.last.pop("roll", None)
        else:
            game.last = {"roll": [colour, action["roll"]]}
        said = self._narrate(game, events)
        if (
            move is not None
            and said
            and lines
            and lines[-1].key == "ev.roll"
            and lines[-1].params.get("colour") == colour
            and said[0].key in ("ev.move", "ev.enter", "ev.home")
        ):
            # "rolled 4 and moved piece 2 from 10 to 14": one line, not two
            said[0] = Text(said[0].key, said[0].params | {"die": lines.pop().params["die"]})
        lines.extend(said)

    def _computer_step(self, game: Game, lines: list[Text]) -> None:
        state = game.state
        assert state is not None
        if state.phase == "roll":
            self._act(game, {"roll": self.dice()}, lines)
        else:
            moves = engine.legal_moves(state)
            choice = moves[0] if len(moves) == 1 else self.computer.choose(state, moves)
            self._act(game, {"move": choice.piece}, lines)

    def _advance(self, game: Game, lines: list[Text]) -> None:
        """Play on until a person must act: computers' turns, forced moves, the end."""
        steps = 0
        while game.status == PLAYING and steps < MAX_CHAIN:
            state = game.state
            assert state is not None
            if state.is_over:
                self._finish(game, OVER)
                return
            seat = game.seat_for(state.turn)
            if seat is None or seat.computer:
                self._computer_step(game, lines)
            elif game.auto_move and state.phase in ("move", "bonus"):
                moves = engine.legal_moves(state)
                if len(moves) != 1:
                    break
                self._act(game, {"move": moves[0].piece}, lines)
            else:
                break
            steps += 1
        if game.status == PLAYING:
            game.version += 1
            seat = game.on_turn()
            if game.timer and seat is not None and not seat.computer:
                game.deadline = self.clock() + game.timer
            else:
                game.deadline = None

    def _finish(self, game: Game, status: str) -> None:
        game.status = status
        game.deadline = None
        game.version += 1

    # ------------------------------------------------------------------
    # words and pictures

    def _who(self, game: Game, colour: str) -> str:
        seat = game.seat_for(colour)
        if seat is None or seat.user is None:
            return f"Computer ({colour})"
        return seat.user.name

    def _seating(self, game: Game) -> str:
        return ", ".join(
            f"{self._who(game, s.colour)} ({s.colour})" if s.user else f"Computer ({s.colour})"
            for s in game.seats
            if s.colour
        )

    def _lobby_params(self, game: Game) -> dict[str, Any]:
        names = [s.user.name if s.user else "Computer" for s in game.seats]
        opts = self._opts(game)
        return {
            "rules": game.rules,
            "host": game.creator.name,
            "players": ", ".join(names),
            "count": len(game.seats),
            "max": opts.max_players,
            "timer": game.timer,
        }

    def _lobby_status(self, game: Game) -> Text:
        return Text("lobby.status", self._lobby_params(game))

    def _lobby_outcome(self, game: Game, first: Text) -> _Outcome:
        return _Outcome([first, self._lobby_status(game)], board=False, mention=False)

    def _narrate(self, game: Game, events: list[Event]) -> list[Text]:
        return event_texts(events, lambda colour: self._who(game, colour))

    def _prompt(self, game: Game) -> Text:
        """Whose turn it is and what they must do."""
        state = game.state
        if game.status != PLAYING or state is None:
            if state is not None and state.winner:
                return Text(
                    "ev.game_over",
                    {"winners": " & ".join(self._who(game, w) for w in state.winner)},
                )
            return Text("game.no_turn")
        who = self._who(game, state.turn)
        if state.phase == "roll":
            return Text("turn.roll", {"who": who, "colour": state.turn})
        if state.phase == "bonus":
            return Text("turn.bonus", {"who": who, "colour": state.turn, "steps": state.bonus[0]})
        return Text("turn.move", {"who": who, "colour": state.turn, "die": state.die})

    def _buttons(self, game: Game) -> list[list[Button]]:
        if game.status == LOBBY:
            return [
                [
                    self.button(game, "j", Text("btn.join"), "primary"),
                    self.button(game, "l", Text("btn.leave")),
                ],
                [
                    self.button(game, "c", Text("btn.add_computer")),
                    self.button(game, "x", Text("btn.remove_computer")),
                    self.button(game, "s", Text("btn.start"), "primary"),
                ],
            ]
        seat = game.on_turn()
        if seat is None or seat.computer or game.state is None:
            return []
        state = game.state
        if state.phase == "roll":
            return [
                [
                    self.button(
                        game,
                        "r",
                        Text("btn.roll", {"who": seat.user.name if seat.user else ""}),
                        "primary",
                    )
                ]
            ]
        row = []
        for m in engine.legal_moves(state):
            row.append(self.button(game, f"m{m.piece + 1}", _move_label(m)))
        return [row[k : k + 3] for k in range(0, len(row), 3)]

    def _dress(self, game: Game, outcome: _Outcome) -> Reply:
        """Turn an outcome into a reply: the prompt, the picture, the buttons, the mention."""
        lines = list(outcome.lines)
        finished = game.status in (OVER, ENDED)
        if game.status == PLAYING and outcome.board:
            prompt = self._prompt(game)
            if not lines or lines[-1] != prompt:
                lines.append(prompt)
        reply = Reply(
            lines,
            channel=game.channel,
            game_id=game.id,
            version=game.version,
            buttons=self._buttons(game),
            finished=finished,
        )
        seat = game.on_turn()
        if outcome.mention and seat is not None and seat.user is not None:
            reply.mention = [seat.user]
        if self.render and game.state is not None and (outcome.board or finished):
            if game.status == OVER:
                from renderer import render_standings

                reply.image = render_standings(game.state, names=game.names(), size=self.image_size)
                reply.image_kind = "standings"
            elif outcome.board:
                reply.image = self._board_png(game)
                reply.image_kind = "board"
        return reply

    def board_png(self, game: Game) -> bytes:
        """The board image of ``game`` as the players last saw it."""
        return self._board_png(game)

    def _board_png(self, game: Game) -> bytes:
        from renderer import render_board

        assert game.state is not None
        last = None
        lm = game.last.get("move")
        if lm:
            captures = (lm[4], lm[5]) if len(lm) >= 6 else None
            last = Move(lm[0], lm[1], lm[2], lm[3], 0, lm[2] == 0, captures)
        roll = game.last.get("roll")
        rolled = (roll[0], roll[1]) if roll else None
        return render_board(
            game.state, names=game.names(), last_move=last, rolled=rolled, size=self.image_size
        )

    def _refuse(self, r: Refusal, channel: str | None, game: Game | None = None) -> Reply:
        reply = Reply([r.text], channel=channel, private=not r.public, refused=True)
        if game is not None:
            reply.game_id = game.id
            reply.version = game.version
            if r.board and self.render and game.state is not None:
                reply.image = self._board_png(game)
                reply.image_kind = "board"
                reply.buttons = self._buttons(game)
        return reply


def _where(p: int) -> str:
    return where(p, short=True)


def _move_label(m: Move) -> Text:
    """A move as a button says it: ``2 → 23``, ``3 home``, ``1 out``, ``1 captures``."""
    n = m.piece + 1
    if m.enter:
        return Text("btn.enter", {"piece": n, "captures": m.captures is not None})
    if m.to == HOME:
        return Text("btn.home", {"piece": n})
    if m.captures is not None:
        return Text("btn.capture", {"piece": n, "to": _where(m.to)})
    return Text("btn.move", {"piece": n, "to": _where(m.to)})


def _why(e: LudoError, piece: int) -> str:
    """The engine's reason, with pieces numbered from 1 as players see them."""
    text = re.sub(r"\bpiece (-?\d+)", lambda m: f"piece {int(m.group(1)) + 1}", str(e))
    return re.sub(r"\bpieces 0 to (\d+)", lambda m: f"pieces 1 to {int(m.group(1)) + 1}", text)
