"""The table view: what the chat should show of a game now, as one plain value.

:func:`table_view` is a pure function of the saved game and what just
happened: the one table message (a caption, the buttons, the board or the
standings picture), who is on turn and who must be notified.  Adapters never
decide what to say; they bring the chat to the newest view (see
:mod:`bot.adapters.reconcile`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import engine
from engine import HOME, Move

from ..hosting import ENDED, LOBBY, OVER, PLAYING, Game, Happened, Refusal, User
from . import buttons as codec
from .narrate import name_of, narrate, seating, where
from .pictures import board_png, standings_png
from .text import Button, Text


@dataclass(frozen=True)
class TableView:
    """The one message of a game in its chat, as it should be now."""

    game_id: str
    channel: str
    #: the store revision of the game shown: a view of a lower one is older
    rev: int
    #: the buttons' version
    version: int
    #: the caption: what just happened, then whose turn it is and what they must do
    lines: tuple[Text, ...]
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

    @property
    def lobby(self) -> bool:
        return self.game.status == LOBBY

    @cached_property
    def image(self) -> bytes | None:
        """The picture as PNG, drawn once on first use."""
        if self.picture == "standings":
            return standings_png(self.game, self.size)
        if self.picture == "board":
            return board_png(self.game, self.size)
        return None


def table_view(game: Game, happened: Happened | None = None, *, size: int = 600) -> TableView:
    """The view of ``game`` after ``happened`` (None: just looking)."""
    lines = narrate(game, happened.facts) if happened is not None else []
    if game.status == LOBBY:
        lines.append(lobby_status(game))
    elif game.status == PLAYING or not lines:
        lines.append(prompt(game))
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
        lines=tuple(lines),
        buttons=table_buttons(game),
        picture=picture,
        turn=turn,
        ping=turn if turn is not None and not turn.same(by) else None,
        finished=game.status in (OVER, ENDED),
        game=game,
        size=size,
    )


def lobby_status(game: Game) -> Text:
    names = [s.user.name if s.user else "Computer" for s in game.seats]
    opts = engine.rules_for(game.rules, game.options)
    return Text(
        "lobby.status",
        {
            "rules": game.rules,
            "host": game.creator.name,
            "players": ", ".join(names),
            "count": len(game.seats),
            "max": opts.max_players,
            "timer": game.timer,
        },
    )


def status_lines(game: Game) -> list[Text]:
    """A short text: the lobby, or the players, the timer and whose turn it is."""
    if game.status == LOBBY:
        return [lobby_status(game)]
    line = Text("game.status", {"rules": game.rules, "players": seating(game), "timer": game.timer})
    return [line, prompt(game)] if game.status == PLAYING else [line]


def prompt(game: Game) -> Text:
    """Whose turn it is and what they must do (or who won)."""
    state = game.state
    if game.status != PLAYING or state is None:
        if state is not None and state.winner:
            return Text(
                "ev.game_over", {"winners": " & ".join(name_of(game, w) for w in state.winner)}
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

    if game.status == LOBBY:
        return (
            (button("join", Text("btn.join"), "primary"), button("leave", Text("btn.leave"))),
            (
                button("add_computer", Text("btn.add_computer")),
                button("remove_computer", Text("btn.remove_computer")),
                button("start", Text("btn.start"), "primary"),
            ),
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
    """A move as a button says it: ``2 → 23``, ``3 home``, ``1 out``, ``1 captures at 17``."""
    n = m.piece + 1
    if m.enter:
        return Text("btn.enter", {"piece": n, "captures": m.captures is not None})
    if m.to == HOME:
        return Text("btn.home", {"piece": n})
    if m.captures is not None:
        return Text("btn.capture", {"piece": n, "to": where(m.to, short=True)})
    return Text("btn.move", {"piece": n, "to": where(m.to, short=True)})


def refusal_text(refusal: Refusal, game: Game | None = None) -> Text:
    """Why a request was refused, in words for the asker."""
    params: dict[str, Any] = dict(refusal.params)
    if refusal.key == "refuse.not_your_turn" and params.get("who") is None:
        params["who"] = "the computer"
    if refusal.key == "refuse.illegal_move":
        params["why"] = _people_numbers(str(params.get("why", "")))
    return Text(refusal.key, params)


def _people_numbers(text: str) -> str:
    """The engine's reason, with pieces numbered from 1 as players see them."""
    text = re.sub(r"\bpiece (-?\d+)", lambda m: f"piece {int(m.group(1)) + 1}", text)
    return re.sub(r"\bpieces 0 to (\d+)", lambda m: f"pieces 1 to {int(m.group(1)) + 1}", text)


def rules_lines(name: str | None, game: Game | None = None) -> list[Text]:
    """The rules of ``name``, or of ``game`` with its options (classic if neither)."""
    options: dict[str, Any] = {}
    if name is None and game is not None:
        name, options = game.rules, game.options
    name = name or "classic"
    if name not in engine.RULE_SETS:
        return [Text("refuse.bad_rules", {"why": f"unknown rule set {name!r}"})]
    lines = [Text(f"rules.{name}")]
    if options:
        listed = ", ".join(f"{k}={v}" for k, v in options.items())
        lines.append(Text("rules.options", {"options": listed}))
    return lines
