"""What the web client draws of a game, for one viewer, as JSON (docs/web-protocol.md
``<game>``).

Pure: a function of the saved game, the viewer and the language.  The words are the
chat's (the presenter's table view, button labels and standings wording, said from
the same catalogs in the viewer's language), and so is every press ``data``
(:mod:`bot.present.buttons`): a press from the page is a press of the chat's button.
Only the actions the viewer may take are offered; a spectator (``viewer`` None) is
offered none.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import engine
from engine import COLOUR_INDEX, HOME, Event, GameState, Move

from ..hosting import LOBBY, OVER, PLAYING, Game, Happened, User
from ..present import Text, say, table_view
from ..present.after import rating_text, signed
from ..present.buttons import game_button, parse_press
from ..present.catalog import translations
from ..present.levels import computer_name
from ..present.narrate import name_of
from ..present.pictures import picture_names, picture_words, theme_of
from ..present.view import move_label
from . import speech
from .geometry import square_name
from .names import isolated, plain
from .speech import Action

YARD, HOME_AT = "yard", "home"
#: the caption's story tells what the game's last few actions did
STORY_ACTIONS = 6
#: the page's live region is told the game's last actions (each once: a page that saw
#: the game fewer actions ago is told all it missed)
TOLD_ACTIONS = 16
#: games replayed so far: game key -> (actions replayed, actions replayed in the record's
#: terms, state, the last actions: each one's index and events)
_REPLAYED: OrderedDict[str, tuple[str, int, GameState, tuple[Action, ...]]] = OrderedDict()
REPLAYED_KEPT = 512
_LOCK = threading.Lock()


def recent_actions(game: Game) -> tuple[Action, ...]:
    """The game's last :data:`TOLD_ACTIONS` actions: each one's index in the record and
    the engine's events of it (its record replayed, from where the last replay of this
    game stopped: a page is told the story whoever made the change, a chat button, a
    timer or another worker)."""
    if game.state is None or game.start is None or not game.actions:
        return ()
    with _LOCK:
        kept = _REPLAYED.get(game.key)
    record = game.record()
    actions = record["actions"]
    try:
        if kept is not None and game.actions.startswith(kept[0]):
            done, state, recent = kept[1], kept[2], list(kept[3])
        else:
            done, state, recent = 0, engine.start_of(record), []
        for n in range(done, len(actions)):
            state, happened = engine.apply(state, actions[n])
            recent = [*recent[1 - TOLD_ACTIONS :], (n, tuple(happened))]
    except engine.LudoError:
        return ()
    with _LOCK:
        _REPLAYED[game.key] = (game.actions, len(actions), state, tuple(recent))
        _REPLAYED.move_to_end(game.key)
        while len(_REPLAYED) > REPLAYED_KEPT:
            _REPLAYED.popitem(last=False)
    return tuple(recent)


def recent_events(game: Game) -> tuple[Event, ...]:
    """The engine's events of the game's last :data:`STORY_ACTIONS` actions."""
    return tuple(e for _, events in recent_actions(game)[-STORY_ACTIONS:] for e in events)


def where(colour: str, progress: int) -> str:
    """The place of a piece: a square's name of the geometry, ``yard`` or ``home``."""
    if progress >= HOME:
        return HOME_AT
    return square_name(COLOUR_INDEX[colour], progress) or YARD


def _to(m: Move) -> str:
    return where(m.colour, m.to)


def game_json(
    game: Game, viewer: User | None, language: str, happened: Happened | None = None
) -> dict[str, Any]:
    """``game`` as ``viewer`` (None: a spectator) sees it, its words in ``language``;
    ``happened``: what just happened, told in the caption's story (None: the game's
    last few actions)."""
    lang = language
    recent = recent_actions(game) if game.status in (PLAYING, OVER) else ()
    if happened is None and game.status in (PLAYING, OVER):
        happened = Happened(None, [e for _, events in recent[-STORY_ACTIONS:] for e in events])
    view = table_view(game, happened, lang=lang)
    state = game.state
    me = game.seat_of(viewer) if viewer is not None else None
    seat = game.on_turn()
    yours = seat is not None and viewer is not None and viewer.same(seat.user)
    names = {colour: plain(name) for colour, name in picture_names(game, lang).items()}
    tr = translations(lang)
    out: dict[str, Any] = {
        "id": game.id,
        "rev": game.rev,
        "version": game.version,
        "rules": game.rules,
        "rules_name": tr.pgettext("rules", game.rules),
        "theme": theme_of(game),
        "status": game.status if game.status in (LOBBY, PLAYING) else OVER,
        "language": lang,
        "seats": [_seat(game, k, viewer, names, lang) for k in range(len(game.seats))],
        "pieces": _pieces(state, lang) if state is not None else [],
        "turn": None,
        "die": None,
        "last": _last(game),
        "moves": [],
        "actions": _actions(game, viewer, me is not None, yours, lang),
        "story": [say(t, isolated, lang) for t in view.story],
        # each of the last actions in words, for the page's live region (once each)
        "told": speech.told(recent, lambda c: name_of(game, c), lang),
        "status_lines": [say(t, isolated, lang) for t in view.status],
        "standings": _standings(game, state, names, lang) if game.status != LOBBY else None,
        "deadline": game.deadline,
        "player": me is not None,
        "words": _words(game, lang),
    }
    if state is not None and game.status == PLAYING:
        out["turn"] = {
            "colour": state.turn,
            "name": names.get(state.turn, ""),
            "phase": state.phase,
            "yours": yours,
        }
        out["die"] = state.die or None
        if yours and state.phase in ("move", "bonus"):
            out["moves"] = [_move(game, state, m, lang) for m in engine.legal_moves(state)]
    return out


def _seat(game: Game, k: int, viewer: User | None, names: dict[str, str], lang: str) -> Any:
    s = game.seats[k]
    name = names.get(s.colour or "", "") if s.colour else None
    if name is None:
        name = plain(s.user.name) if s.user is not None else say(computer_name(s.level), lang=lang)
    state = game.state
    places = state.places if state is not None else None
    return {
        "colour": s.colour,
        "name": name,
        "you": viewer is not None and viewer.same(s.user),
        "computer": s.computer or s.took_over,
        "waiting": s.waiting,
        "place": places.get(s.colour) if places and s.colour else None,
    }


def _pieces(state: GameState, lang: str) -> list[dict[str, Any]]:
    return [
        {
            "colour": colour,
            "number": n + 1,
            "progress": p,
            "at": where(colour, p),
            "says": speech.piece_says(colour, n + 1, p, lang),
        }
        for colour, pieces in state.pieces.items()
        for n, p in enumerate(pieces)
    ]


def _last(game: Game) -> dict[str, Any] | None:
    """The last move (colour, piece from 1, from/to progress and places, a capture)
    and the last roll, for the page to animate."""
    out: dict[str, Any] = {}
    lm = game.last.get("move")
    if lm and len(lm) >= 4:
        colour, piece, frm, to = lm[0], lm[1], lm[2], lm[3]
        out["move"] = {
            "colour": colour,
            "number": piece + 1,
            "from": frm,
            "to": to,
            "from_at": where(colour, frm),
            "to_at": where(colour, to),
            "captures": {"colour": lm[4], "number": lm[5] + 1} if len(lm) >= 6 else None,
        }
    roll = game.last.get("roll")
    if roll:
        out["roll"] = {"colour": roll[0], "die": roll[1]}
    return out or None


def _move(game: Game, state: GameState, m: Move, lang: str) -> dict[str, Any]:
    # coming out: any piece in the yard may be the one to come out (the renderer rings them all)
    pieces = state.pieces[m.colour]
    numbers = [k + 1 for k, p in enumerate(pieces) if p == 0] if m.enter else [m.piece + 1]
    return {
        "colour": m.colour,
        "number": m.piece + 1,
        "pieces": numbers,
        "from": m.frm,
        "to": m.to,
        "to_at": _to(m),
        "enter": m.enter,
        "home": m.to == HOME,
        "captures": m.captures is not None,
        "label": say(move_label(m), lang=lang),
        "data": game_button(game.id, game.version, "move", m.piece + 1),
        # each of the pieces' name on the page, with what pressing it does
        "says": [speech.move_says(m, n, pieces[n - 1], lang) for n in numbers],
        # the landing mark's
        "mark": speech.mark_says(m, lang),
    }


def _actions(game: Game, viewer: User | None, seated: bool, yours: bool, lang: str) -> Any:
    """The chat's buttons (not the moves: those are the pieces) this viewer may press."""
    if viewer is None:
        return []
    allowed = _allowed(game, viewer, seated, yours)
    out = []
    for row in view_buttons(game):
        for b in row:
            press = parse_press(b.data)
            if press is not None and press.intent.kind in allowed:
                label = b.label
                if press.intent.kind == "roll":
                    label = Text("btn.roll", {})
                out.append(
                    {
                        "kind": press.intent.kind,
                        "label": say(label, lang=lang),
                        "style": b.style,
                        "data": b.data,
                    }
                )
    return out


def view_buttons(game: Game) -> Any:
    return table_view(game).buttons


def _allowed(game: Game, viewer: User, seated: bool, yours: bool) -> set[str]:
    if game.status == LOBBY and game.tour is not None:  # a tournament's table: ready or not
        seat = game.seat_of(viewer)
        return {"join"} if seat is not None and seat.waiting else set()
    if game.status == LOBBY:
        seat = game.seat_of(viewer)
        opts = engine.rules_for(game.rules, game.options)
        full = len(game.seats) >= opts.max_players
        ready = [s for s in game.seats if not s.waiting]
        host = viewer.same(game.creator)
        kinds = set()
        if (seat is None and not full) or (seat is not None and seat.waiting):
            kinds.add("join")
        if seat is not None:
            kinds.add("leave")
        if host and not full:
            kinds.add("add_computer")
        if host and any(s.computer for s in game.seats):
            kinds.add("remove_computer")
        if host:
            kinds.add("level")  # the computers' level
        if seat is not None and not seat.waiting and (host or len(ready) >= opts.max_players):
            kinds.add("start")
        return kinds
    if game.status == PLAYING:
        return {"roll"} if yours else set()
    return {"rematch"} if seated else set()


def _standings(
    game: Game, state: GameState | None, names: dict[str, str], lang: str
) -> dict[str, Any] | None:
    if state is None:
        return None
    words = picture_words(lang)
    ranking = state.ranking or sorted(state.players, key=state.distance)
    places = state.places or {c: k + 1 for k, c in enumerate(ranking)}
    winners = set(state.winner or ())
    rows = []
    for colour in ranking:
        if state.scores is not None:
            detail = words.points(state.scores[colour])
        else:
            left = state.distance(colour)
            detail = words.all_home if left == 0 else words.to_go(left)
        rows.append(
            {
                "colour": colour,
                "place": places[colour],
                "name": names.get(colour, words.colour(colour)),
                "winner": colour in winners,
                "detail": detail,
                "rating": _rating(game, colour, lang),
            }
        )
    return {"title": words.title(state.is_over, game.rules), "rows": rows}


def _rating(game: Game, colour: str, lang: str) -> str | None:
    """A person's new rating and its change, as the chat's standings tell it."""
    if colour not in game.rated:
        return None
    shown, change = game.rated[colour]
    return f"{rating_text(shown, lang)} ({signed(change, lang)})"


def _words(game: Game, lang: str) -> dict[str, Any]:
    """The page's own words, from the catalogs: the colours, the bar's words, the names
    of the board and of the spectator link."""
    tr = translations(lang)
    words = picture_words(lang)
    return {
        "board": speech.capital(say(Text("a11y.board", {"rules": game.rules}), lang=lang)),
        "watch": say(Text("a11y.watch"), lang=lang),
        "colours": {c: tr.pgettext("colour", c) for c in engine.COLOURS},
        "to_roll": words.to_roll,
        "choose": words.choose,
        "roll": say(Text("btn.roll", {}), lang=lang),
        "computer": say(Text("who.a_computer"), lang=lang),
    }
