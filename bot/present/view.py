"""The table view: what the chat should show of a game now, as one plain value.

:func:`table_view` is a pure function of the saved game and what just
happened: the one table message (a caption, the buttons, the board or the
standings picture), who is on turn and who must be notified.  Adapters never
decide what to say; they bring the chat to the newest view (see
:mod:`bot.adapters.reconcile`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import engine
from engine import HOME, Move

from ..hosting import ENDED, LOBBY, OVER, PLAYING, Game, Happened, Note, Refusal, User
from . import buttons as codec
from .after import ratings_line, season_line
from .catalog import language_name, languages
from .levels import computer_name, level_choices, level_name, next_level
from .narrate import mark, name_of, narrate, one_of, seating, together
from .pictures import board_png, standings_png
from .text import Button, Text, echoed
from .timer import bad_timer, per_turn
from .toast import toast_lines
from .wording import MESSAGES


@dataclass(frozen=True)
class TableView:
    """The one message of a game in its chat, as it should be now."""

    game_id: str
    channel: str
    #: the store revision of the game shown: a view of a lower one is older
    rev: int
    #: the buttons' version
    version: int
    #: what just happened (the latest few lines)
    story: tuple[Text, ...]
    #: whose turn it is and what they must do, the lobby's state, or who won
    status: tuple[Text, ...]
    buttons: tuple[tuple[Button, ...], ...]
    #: "board", "standings", or None (a text message: the lobby)
    picture: str | None
    #: the person who must act now (None: nobody, or a computer)
    turn: User | None
    #: the person to notify: who must act, unless they caused this view themselves
    ping: User | None
    finished: bool
    game: Game = field(compare=False, repr=False)
    size: int = 600
    #: what the person who caused this view did, said to them alone (a toast)
    toast: tuple[Text, ...] = ()
    #: the person on turn let their time run out: remind them (a new message notifies)
    nudge: bool = False
    #: a slow turn's reminder: a quarter of the person on turn's time is left, and
    #: nothing moved (:attr:`bot.hosting.Happened.reminder`)
    remind: bool = False
    #: the people the message calls by name (a tournament's table calling its players)
    call: tuple[User, ...] = ()
    #: the language of the table
    lang: str = "en"

    @property
    def lines(self) -> tuple[Text, ...]:
        """The caption: what just happened, then whose turn it is and what they must do."""
        return self.story + self.status

    @property
    def lobby(self) -> bool:
        return self.game.status == LOBBY

    def after(self, older: TableView) -> TableView:
        """This view telling the story of ``older`` too (``older`` was never shown:
        the chat skipped to this newer view), still in the latest few lines."""
        if older.rev >= self.rev:
            return self
        return self._same_picture(replace(self, story=latest(older.story + self.story)))

    def final_board(self) -> TableView:
        """A finished game's last position, without buttons, told with how it ended
        (the new ratings and a season's end are the standings' to tell)."""
        status = tuple(t for t in self.status if t.key not in ("standings.ratings", "season.over"))
        return replace(self, picture="board", buttons=(), turn=None, ping=None, status=status)

    def standings(self) -> TableView:
        """A finished game's standings, told in one line (who won), with its Rematch."""
        return self._same_picture(replace(self, story=(), turn=None, ping=None))

    def quiet(self) -> TableView:
        """This view notifying nobody (the turn did not pass to anyone)."""
        return self._same_picture(replace(self, ping=None)) if self.ping is not None else self

    def _same_picture(self, other: TableView) -> TableView:
        """``other`` (a copy showing the same picture) with the picture drawn already."""
        if "image" in self.__dict__:
            other.__dict__["image"] = self.__dict__["image"]
        return other

    @cached_property
    def image(self) -> bytes | None:
        """The picture as PNG, drawn once on first use."""
        if self.picture == "standings":
            return standings_png(self.game, self.size, self.lang)
        if self.picture == "board":
            return board_png(self.game, self.size, self.lang)
        return None


#: a caption tells at most this many lines of what happened (the latest ones)
MAX_STORY = 6
#: the parameters of a set-up refused that are what the person typed
ECHOED = ("name", "option", "value")


def latest(story: tuple[Text, ...], limit: int | None = MAX_STORY) -> tuple[Text, ...]:
    """``story`` in at most ``limit`` lines: its first line (what the person who acted
    did), a "…", and the latest lines."""
    if limit is None or len(story) <= limit:
        return story
    more = Text("caption.more")
    tail = [t for t in story[len(story) - (limit - 2) :] if t.key != more.key]
    return (story[0], more, *tail)


def table_view(
    game: Game,
    happened: Happened | None = None,
    *,
    size: int = 600,
    max_story: int | None = MAX_STORY,
    lang: str | None = None,
) -> TableView:
    """The view of ``game`` after ``happened`` (None: just looking); the caption tells
    the latest ``max_story`` lines of what happened (None: all of them)."""
    story = narrate(game, happened.facts) if happened is not None else []
    status: list[Text] = []
    if game.status == LOBBY:
        status.append(lobby_status(game))
        if game.waiting and game.tour is None:
            names = tuple(s.user.name for s in game.waiting if s.user is not None)
            status.append(Text("lobby.waiting", {"players": names}))
    elif game.status == PLAYING:
        status.append(prompt(game))
    elif game.status == OVER and game.state is not None and game.state.winner:
        story = [t for t in story if t.key != "ev.game_over"]
        status.append(prompt(game))
        for told in (ratings_line(game, lang or game.lang), season_line(game, lang or game.lang)):
            if told is not None:
                status.append(told)
    elif not story:
        status.append(prompt(game))
    seat = game.on_turn()
    turn = seat.user if seat is not None else None
    by = happened.by if happened is not None else None
    picture = None
    if game.state is not None:
        picture = "standings" if game.status == OVER else "board"
    return TableView(
        game_id=game.id,
        channel=game.channel,
        rev=game.rev,
        version=game.version,
        story=latest(tuple(story), max_story),
        status=tuple(status),
        buttons=table_buttons(game),
        picture=picture,
        turn=turn,
        call=_called(game),
        ping=turn if turn is not None and not turn.same(by) else None,
        finished=game.status in (OVER, ENDED),
        game=game,
        size=size,
        toast=toast_lines(game, happened),
        nudge=turn is not None and happened is not None and _timed_out(happened),
        remind=turn is not None and happened is not None and happened.reminder,
        lang=lang or game.lang,
    )


def _called(game: Game) -> tuple[User, ...]:
    """A tournament's table waiting for its players: they are called by name."""
    if game.status != LOBBY or game.tour is None:
        return ()
    return tuple(s.user for s in game.seats if s.user is not None)


def _timed_out(happened: Happened) -> bool:
    return any(isinstance(f, Note) and f.key.startswith("timer.") for f in happened.facts)


def lobby_status(game: Game) -> Text:
    names = tuple(s.user.name if s.user else computer_name(s.level) for s in game.seats)
    if game.tour is not None:
        _, round_, table = game.tour
        facts = {"round": round_, "table": table, "players": names, "timer": game.timer}
        return Text("tour.table_opened", facts)
    opts = engine.rules_for(game.rules, game.options)
    return Text(
        "lobby.status",
        {
            "rules": game.rules,
            "host": game.creator.name,
            "players": names,
            "count": len(game.seats),
            "max": opts.max_players,
            "timer": per_turn(game.timer),  # "2 minutes per turn"
        },
    )


def status_lines(game: Game) -> list[Text]:
    """A short text: the lobby, or the players, the timer and whose turn it is."""
    if game.status == LOBBY:
        return [lobby_status(game)]
    facts = {"rules": game.rules, "players": seating(game), "timer": per_turn(game.timer)}
    line = Text("game.status", facts)
    return [line, prompt(game)] if game.status == PLAYING else [line]


def prompt(game: Game) -> Text:
    """Whose turn it is and what they must do (or who won)."""
    state = game.state
    if game.status != PLAYING or state is None:
        if state is not None and state.winner:
            return Text(
                "ev.game_over", {"winners": together([name_of(game, w) for w in state.winner])}
            )
        return Text("game.no_turn")
    who = name_of(game, state.turn)
    if state.phase == "roll":
        return Text("turn.roll", {"who": who, "colour": state.turn})
    if state.phase == "bonus":
        return Text("turn.bonus", {"who": who, "colour": state.turn, "steps": state.bonus[0]})
    return Text("turn.move", {"who": who, "colour": state.turn, "die": state.die})


def table_buttons(game: Game) -> tuple[tuple[Button, ...], ...]:
    def button(kind: str, label: Text, style: str = "secondary", piece: int = 0) -> Button:
        return Button(label, codec.game_button(game.id, game.version, kind, piece), style)

    if game.status in (OVER, ENDED):
        # the same table again, for the people still at it
        if game.state is None or not game.humans or game.tour is not None:
            return ()
        return ((button("rematch", Text("btn.rematch"), "primary"),),)
    if game.status == LOBBY and game.tour is not None:
        return ((button("join", Text("btn.ready"), "primary"),),)  # seated by the tournament
    if game.status == LOBBY:
        join = Text("btn.ready" if game.after else "btn.join")
        level = Button(
            Text("btn.level", {"level": level_name(game.level)}),
            codec.level_button(game.id, game.version, next_level(game.level)),
            "secondary",
        )
        return (
            (button("join", join, "primary"), button("leave", Text("btn.leave"))),
            (
                button("add_computer", Text("btn.add_computer")),
                button("remove_computer", Text("btn.remove_computer")),
                button("start", Text("btn.start"), "primary"),
            ),
            (level,),  # a row of its own, under the computers' buttons
        )
    seat = game.on_turn()
    state = game.state
    if seat is None or seat.user is None or state is None:
        return ()
    if state.phase == "roll":
        return ((button("roll", Text("btn.roll", {"who": seat.user.name}), "primary"),),)
    row = [button("move", move_label(m), piece=m.piece + 1) for m in engine.legal_moves(state)]
    return tuple(tuple(row[k : k + 3]) for k in range(0, len(row), 3))


def move_label(m: Move) -> Text:
    """A move as a button says it: the piece's number, then the mark the board draws
    where it would land (its number in a ring), and what the move does:
    ``2 → ②``, ``3 → ③ captures``, ``4 → ④ home``, ``1 → ① out``."""
    n = m.piece + 1
    p: dict[str, Any] = {"piece": n, "mark": mark(n)}
    if m.enter:
        return Text("btn.enter", p | {"captures": m.captures is not None})
    if m.to == HOME:
        return Text("btn.home", p)
    if m.captures is not None:
        return Text("btn.capture", p)
    return Text("btn.move", p)


def refusal_text(refusal: Refusal, game: Game | None = None) -> Text:
    """Why a request was refused, in words for the asker."""
    params: dict[str, Any] = dict(refusal.params)
    if refusal.key == "refuse.not_your_turn" and params.get("who") is None:
        params["who"] = Text("who.computer", {"colour": params.get("colour") or ""})
    if refusal.key == "refuse.illegal_move":
        reason = params.get("reason")
        key = f"illegal.{reason}"
        params["need"] = one_of(params.get("need") or (6,))
        return Text(key if key in MESSAGES else "illegal.other", params)
    if refusal.key == "refuse.bad_rules":
        return rules_error(params)
    if refusal.key == "refuse.bad_timer":
        return bad_timer()  # the range in words
    if refusal.key == "refuse.bad_level":
        params["levels"] = level_choices()
    if refusal.key == "refuse.bad_language":
        params["languages"] = one_of([language_name(lang) for lang in languages()])
    return Text(refusal.key, params)


def rules_error(params: dict[str, Any]) -> Text:
    """Why a game cannot be set up so: the engine's reason code, in words."""
    key = f"rules_error.{params.get('reason')}"
    # the rule set, option or value as typed: quoted back, but never at length
    typed = {k: echoed(v) for k, v in params.items() if k in ECHOED and isinstance(v, str)}
    params = params | typed
    if isinstance(params.get("choices"), tuple):
        params = params | {"choices": one_of(params["choices"])}
    return Text(key if key in MESSAGES else "rules_error.bad_rules", params)


def rules_lines(name: str | None, game: Game | None = None) -> list[Text]:
    """The rules of ``name``, or of ``game`` with its options (classic if neither)."""
    options: dict[str, Any] = {}
    if name is None and game is not None:
        name, options = game.rules, game.options
    name = name or "classic"
    if name not in engine.RULE_SETS:
        return [rules_error({"reason": "unknown_rules", "name": name, "choices": engine.RULE_SETS})]
    lines = [Text(f"rules.{name}")]
    if options:
        listed = ", ".join(f"{k}={v}" for k, v in options.items())
        lines.append(Text("rules.options", {"options": listed}))
    return lines
