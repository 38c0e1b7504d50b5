"""The terminal game (``ludo-bot play``): a game against the computer, told in the
player's language, with a board image after every move."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from engine import GameState, LudoError, Move, legal_moves, new_game
from renderer import render_board, render_standings
from renderer.board import MAX_SIZE, MIN_SIZE

from ..players import HeuristicPlayer
from ..players.loop import Action, Step, play_on
from ..present import Text, find_language, language_name, languages, say
from ..present.catalog import translations
from ..present.narrate import describe_move, event_texts, one_of, where
from ..present.pictures import picture_words


class CommandError(Exception):
    """An argument or a file that cannot work; ``ludo-bot`` says the message in one
    line and exits with status 2."""


def rule_options(text: str | None) -> dict[str, Any] | None:
    """``--options``: the rule options as JSON (None if not given)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError as e:
        raise CommandError(f"--options is not valid JSON: {e}") from None
    except RecursionError:
        raise CommandError("--options is nested too deeply") from None
    if not isinstance(value, dict):
        raise CommandError("--options must be a JSON object, e.g. '{\"teams\": true}'")
    return value


def image_size(size: int) -> int:
    """``--size``, checked before anything is drawn."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise CommandError(f"--size must be from {MIN_SIZE} to {MAX_SIZE} pixels, not {size}")
    return size


def image_folder(path: str | None) -> Path:
    """``--images``: the folder for the board images, made if need be (a new
    temporary folder if not given)."""
    if path is None:
        return Path(tempfile.mkdtemp(prefix="ludo-"))
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise CommandError(f"--images {path}: there is a file of that name") from None
    except OSError as e:
        raise CommandError(f"--images {path}: cannot make the folder: {e.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(f"--images {path}: the folder is not writable")
    return folder


def language_arg(code: str | None) -> str | None:
    """The language ``--lang`` names (English if not given), or None after saying why not."""
    if code is None:
        return "en"
    lang = find_language(code)
    if lang is None:
        known = ", ".join(f"{k} ({language_name(k)})" for k in languages())
        print(f"ludo-bot: --lang {code!r} is not a language I speak: {known}", file=sys.stderr)
    return lang


def cmd_play(
    args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None
) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    lang = language_arg(args.lang)
    if lang is None:
        return 2
    words = picture_words(lang)
    tr = translations(lang)

    def colour_word(colour: str) -> str:
        return tr.pgettext("colour", colour)

    def tell(text: Text, indent: str = "") -> None:
        print(indent + say(text, lang=lang), file=out, flush=True)

    rng = random.Random(args.seed)
    image_size(args.size)
    try:
        state = new_game(args.rules, args.players, options=rule_options(args.options))
    except LudoError as e:
        print(f"ludo-bot: {e}", file=sys.stderr)
        return 2
    humans = set(args.human or [])
    for h in humans:
        if h not in state.players:
            print(
                f"ludo-bot: {h} is not playing (colours: {', '.join(state.players)})",
                file=sys.stderr,
            )
            return 2
    # the first player is drawn (classic 1, tower 1), or rolls highest (italian 1):
    # with a fair die both come to a uniform draw
    state = new_game(
        args.rules, args.players, options=rule_options(args.options), turn=rng.choice(state.players)
    )
    images = None if args.no_images else image_folder(args.images)
    computer = HeuristicPlayer(rng)
    tell(
        Text(
            "term.begins",
            {
                "rules": state.rules,
                "players": tuple(colour_word(c) for c in state.players),
                "who": colour_word(state.turn),
            },
        )
    )
    if images is not None:
        tell(Text("term.images", {"path": str(images)}))
    shots = 0
    quit_ = False

    def decide(s: GameState) -> Action | None:
        nonlocal quit_
        if s.phase == "roll":
            return {"roll": rng.randint(1, 6)}
        moves = legal_moves(s)
        if s.turn in humans and len(moves) > 1:
            if images is not None:
                (images / "now.png").write_bytes(render_board(s, size=args.size, words=words))
            piece = _ask(s, moves, stdin, out, lang)
            if piece is None:
                quit_ = True
                return None
            return {"move": piece}
        return {"move": (moves[0] if len(moves) == 1 else computer.choose(s, moves)).piece}

    def shown(step: Step) -> None:
        nonlocal shots
        if images is not None and step.move is not None:
            shots += 1
            rolled = (step.colour, step.die) if step.phase == "move" else None
            png = render_board(
                state, last_move=step.move, rolled=rolled, size=args.size, words=words
            )
            (images / f"{shots:04d}.png").write_bytes(png)
        for text in event_texts(step.events, colour_word):
            tell(text)

    try:
        play_on(state, decide, shown)
    except BrokenPipeError:  # the reader of the output went away: ludo-bot ends quietly
        raise
    except OSError as e:  # the images' folder went away, or the disk is full
        raise CommandError(f"cannot write the board images in {images}: {e.strerror}") from None
    if quit_:
        tell(Text("term.bye"))
        return 0
    tell(Text("term.ranking"))
    scores = state.scores
    for k, colour in enumerate(state.ranking or [], 1):
        if scores:
            tell(
                Text("term.place_points", {"place": k, "colour": colour, "count": scores[colour]}),
                "  ",
            )
        else:
            tell(Text("term.place", {"place": k, "colour": colour}), "  ")
    if images is not None:
        standings = render_standings(state, size=args.size, words=words)
        try:
            (images / "standings.png").write_bytes(standings)
        except OSError as e:
            raise CommandError(f"cannot write the standings in {images}: {e.strerror}") from None
        tell(Text("term.images_done", {"count": shots, "path": str(images)}))
    return 0


def _ask(state: GameState, moves: list[Move], stdin: TextIO, out: TextIO, lang: str) -> int | None:
    """The piece a person at the terminal moves (None: they ended the input)."""
    pieces = tuple(
        Text("term.piece", {"piece": i + 1, "where": where(p)})
        for i, p in enumerate(state.pieces[state.turn])
    )
    your_turn = {"colour": state.turn, "die": state.die or "", "pieces": pieces}
    print(say(Text("term.your_turn", your_turn), lang=lang), file=out)
    for m in moves:
        # a move, then what else it does, said with commas as a list is
        print("  " + ", ".join(say(t, lang=lang) for t in describe_move(m)), file=out)
    allowed = {m.piece + 1 for m in moves}
    base_ok = any(m.enter for m in moves)
    while True:
        print(say(Text("term.ask"), lang=lang), end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            return None
        text = line.strip()
        if text.isdigit():
            n = int(text)
            if n in allowed or (
                base_ok
                and 1 <= n <= len(state.pieces[state.turn])
                and state.pieces[state.turn][n - 1] == 0
            ):
                return n - 1
        choices = one_of(sorted(allowed))
        print(say(Text("term.choose", {"choices": choices}), lang=lang), file=out)
