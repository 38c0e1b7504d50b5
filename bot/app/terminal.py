"""The terminal game (``ludo-bot play``): a game against the computer, told in the
player's language.

In a terminal (standard input and output both one) the person plays red unless
told otherwise (``--human``, ``--watch``): the board is drawn in colour
(:mod:`bot.app.tboard`) when it is their turn and after it, they roll with Enter
and type the number of the piece to move, and each computer move is one short
line, a moment apart (``--fast``: no pause).  Elsewhere (a pipe, a file) every
seat is a computer and the story is short: only the moves that change the game
(pieces out, captures, pieces home), by round (``--verbose``: every move).
Board images are drawn only into the folder ``--images`` names.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import TextIO

from rich.console import Console

from engine import GameState, LudoError, Move, legal_moves, new_game
from renderer import render_board, render_standings

from ..players import Policy, player_for
from ..players.loop import Action, Step, play_on
from ..present import Text, say
from ..present.catalog import translations
from ..present.narrate import describe_move, event_texts, one_of, where
from ..present.pictures import picture_words
from .arguments import image_folder, image_size, language_arg, rule_options
from .inputs import CommandError
from .records import Recorder, dice_seed, record_file, write_record
from .story import NOTABLE, TOLD, together
from .tboard import draw_board

#: seconds between two computer moves in a terminal (``--fast``: none)
PAUSE = 0.4


def interactive(stdin: TextIO, out: TextIO) -> bool:
    """Is a person at the terminal (standard input and output both a terminal)?"""
    try:
        return stdin.isatty() and out.isatty()
    except ValueError:  # a closed stream
        return False


def cmd_play(
    args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None
) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    lang = language_arg(args.lang)
    if lang is None:
        return 2
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
    at_terminal = interactive(stdin, out)
    if at_terminal and not humans and not args.watch:
        humans = {"red" if "red" in state.players else state.players[0]}
    # the first player is drawn (classic 1, tower 1), or rolls highest (italian 1):
    # with a fair die both come to a uniform draw
    state = new_game(
        args.rules, args.players, options=rule_options(args.options), turn=rng.choice(state.players)
    )
    kept = None if args.record is None else record_file(args.record)
    images = None if args.no_images or args.images is None else image_folder(args.images)
    board = Console(file=out, highlight=False, markup=False, emoji=False) if at_terminal else None
    table = Table(state, lang, humans, stdin, out, rng=rng, board=board)
    table.images, table.size = images, args.size
    table.computer = player_for(args.level, rng)  # the computer players' level
    table.pause = PAUSE if at_terminal and not args.fast else 0.0
    table.verbose = at_terminal or args.verbose
    if kept is not None:  # dice anyone can verify, repeatable with --seed
        table.dice = Recorder(state, dice_seed(None if args.seed is None else rng))
    try:
        return table.play()
    except KeyboardInterrupt:  # Ctrl-C: a goodbye, no traceback
        print(file=out)
        table.tell(Text("term.bye"))
        return 130
    except BrokenPipeError:  # the reader of the output went away: ludo-bot ends quietly
        raise
    except OSError as e:  # the images' folder went away, or the disk is full
        if images is None:
            raise
        raise CommandError(f"cannot write the board images in {images}: {e.strerror}") from None
    finally:  # the game over, or its player gone: its record
        if kept is not None and table.dice is not None:
            write_record(kept, table.dice.record())


class Table:
    """A game at the terminal: who plays, what is told and drawn, and the moves asked for."""

    def __init__(
        self,
        state: GameState,
        lang: str,
        humans: set[str],
        stdin: TextIO,
        out: TextIO,
        *,
        rng: random.Random,
        board: Console | None = None,
    ) -> None:
        self.state, self.lang, self.humans, self.stdin, self.out = state, lang, humans, stdin, out
        self.tr = translations(lang)
        self.words = picture_words(lang)
        #: the die, and the computer players' choices
        self.rng = rng
        #: the dice anyone can verify, and the record of the game (``--record``)
        self.dice: Recorder | None = None
        self.computer: Policy = player_for("normal", rng)
        #: where the board is drawn (None: no board, only the story)
        self.board = board
        #: the folder of the board images (None: no images)
        self.images: Path | None = None
        self.size = 0
        self.shots = 0
        self.pause = 0.0
        #: every move told (else only a computer's moves that change something)
        self.verbose = False
        self.quit = False
        #: texts of a roll waiting for the move it makes
        self.pending: list[Text] = []
        self.rolled: tuple[str, int] | None = None
        #: pieces moved since the board was last drawn
        self.moved = False
        self.round = 1
        self.first = state.turn

    def colour_word(self, colour: str) -> str:
        return self.tr.pgettext("colour", colour)

    def tell(self, text: Text, indent: str = "") -> None:
        print(indent + say(text, lang=self.lang), file=self.out, flush=True)

    def play(self) -> int:
        state = self.state
        players = tuple(self.colour_word(c) for c in state.players)
        who = self.colour_word(state.turn)
        self.tell(Text("term.begins", {"rules": state.rules, "players": players, "who": who}))
        if self.images is not None:
            self.tell(Text("term.images", {"path": str(self.images)}))
        if self.board is not None and self.humans:
            seats = tuple(self.colour_word(c) for c in state.players if c in self.humans)
            self.tell(Text("term.you", {"players": seats}))
        self.draw()
        play_on(state, self.decide, self.shown)
        if self.quit:
            self.tell(Text("term.bye"))
            return 0
        if self.moved:
            self.draw()
        self.standings()
        return 0

    def draw(self) -> None:
        """The board, in a terminal."""
        if self.board is None:
            return
        self.board.print()
        lines = draw_board(self.state, self.rolled, self.colour_word, self.board.width)
        for line in lines:
            self.board.print(line, no_wrap=True, crop=True)
        self.board.print()
        self.moved = False

    def decide(self, s: GameState) -> Action | None:
        person = s.turn in self.humans
        if s.phase == "roll":
            if person and self.board is not None and not self.roll_asked(s):
                return None
            return {"roll": self.rng.randint(1, 6) if self.dice is None else self.dice.roll()}
        moves = legal_moves(s)
        if person and len(moves) > 1:
            if self.images is not None:
                png = render_board(s, size=self.size, words=self.words)
                (self.images / "now.png").write_bytes(png)
            # the die is said by the question: the roll is not told on its own
            self.pending = [t for t in self.pending if t.key != "ev.roll"]
            self.flush(s.turn, [])
            piece = ask(s, moves, self.stdin, self.out, self.lang)
            if piece is None:
                if self.board is not None:  # Ctrl-D: the goodbye on a line of its own
                    print(file=self.out)
                self.quit = True
                return None
            return {"move": piece}
        return {"move": (moves[0] if len(moves) == 1 else self.computer.choose(s, moves)).piece}

    def roll_asked(self, s: GameState) -> bool:
        """A person at the terminal rolls with Enter (False: they ended the input)."""
        if self.moved:
            self.draw()
        prompt = say(Text("term.roll", {"colour": s.turn}), lang=self.lang)
        print(prompt, end="", file=self.out, flush=True)
        if not self.stdin.readline():
            print(file=self.out)
            self.quit = True
            return False
        return True

    def shown(self, step: Step) -> None:
        state = self.state
        if self.dice is not None:
            self.dice.add(step.action)
        if step.move is not None:
            self.moved = True
            if self.images is not None:
                self.shots += 1
                rolled = (step.colour, step.die) if step.phase == "move" else None
                png = render_board(
                    state, last_move=step.move, rolled=rolled, size=self.size, words=self.words
                )
                (self.images / f"{self.shots:04d}.png").write_bytes(png)
        texts = event_texts(step.events, self.colour_word)
        if step.phase == "roll":
            self.rolled = (step.colour, step.die)
            self.pending = texts
            if state.phase != "move" or state.turn != step.colour:
                self.flush(step.colour, [])  # no move follows: a pass
        else:
            self.flush(step.colour, texts)
        over = state.phase == "over"
        turn_ended = over or state.turn != step.colour
        if turn_ended and step.colour in self.humans and self.moved:
            self.draw()  # the person sees what their turn did
        if turn_ended and not over and self.seat(state.turn) < self.seat(step.colour):
            self.round += 1
            if not self.humans and self.moved:
                self.draw()  # watching: the board once a round

    def seat(self, colour: str) -> int:
        """The colour's place in the order of play, from the one who began."""
        players = self.state.players
        return (players.index(colour) - players.index(self.first)) % len(players)

    def flush(self, colour: str, texts: list[Text]) -> None:
        """Tell a roll and the move it made, in one line."""
        lines = together([*self.pending, *texts])
        self.pending = []
        computer = colour not in self.humans
        if computer and not self.verbose:  # the short story: what changes the game
            if not any(t.key in NOTABLE for t in lines):
                return
            lines = [t for t in lines if t.key in TOLD]
        if not lines:
            return
        said = [] if self.verbose else [say(Text("term.round", {"n": self.round}), lang=self.lang)]
        said += [say(t, lang=self.lang) for t in lines]
        print(" ".join(said), file=self.out, flush=True)
        if computer and self.pause:
            time.sleep(self.pause)

    def standings(self) -> None:
        state = self.state
        self.tell(Text("term.ranking"))
        scores = state.scores
        for k, colour in enumerate(state.ranking or [], 1):
            if scores:
                count = scores[colour]
                self.tell(
                    Text("term.place_points", {"place": k, "colour": colour, "count": count}),
                    "  ",
                )
            else:
                self.tell(Text("term.place", {"place": k, "colour": colour}), "  ")
        if self.images is not None:
            png = render_standings(state, size=self.size, words=self.words)
            try:
                (self.images / "standings.png").write_bytes(png)
            except OSError as e:
                raise CommandError(
                    f"cannot write the standings in {self.images}: {e.strerror}"
                ) from None
            self.tell(Text("term.images_done", {"count": self.shots, "path": str(self.images)}))


def ask(state: GameState, moves: list[Move], stdin: TextIO, out: TextIO, lang: str) -> int | None:
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
