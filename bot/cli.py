"""The ``ludo-bot`` command: replay, simulate, play (and run, for the chat bots)."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from engine import (
    COLOURS,
    RULE_SETS,
    IllegalAction,
    LudoError,
    apply,
    legal_moves,
    new_game,
    replay,
)

from .narrate import describe, describe_move, where
from .players import RandomPlayer
from .simulate import simulate


def _options(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError as e:
        raise SystemExit(f"ludo-bot: --options is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise SystemExit("ludo-bot: --options must be a JSON object, e.g. '{\"teams\": true}'")
    return value


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        print(f"ludo-bot: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        state = replay(text)
    except LudoError as e:
        print(str(e) if isinstance(e, IllegalAction) else f"record: {e}", file=sys.stderr)
        return 1
    json.dump(state.summary(), sys.stdout)
    sys.stdout.write("\n")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    try:
        result = simulate(
            args.rules,
            args.games,
            seed=args.seed,
            players=args.players,
            options=_options(args.options),
        )
    except LudoError as e:
        print(f"ludo-bot: {e}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def cmd_play(
    args: argparse.Namespace, stdin: TextIO | None = None, out: TextIO | None = None
) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    rng = random.Random(args.seed)
    try:
        state = new_game(args.rules, args.players, options=_options(args.options))
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
        args.rules, args.players, options=_options(args.options), turn=rng.choice(state.players)
    )
    computer = RandomPlayer(rng)
    print(f"{state.rules} Ludo: {', '.join(state.players)}; {state.turn} starts.", file=out)
    while not state.is_over:
        if state.phase == "roll":
            state, events = apply(state, {"roll": rng.randint(1, 6)})
        else:
            moves = legal_moves(state)
            if state.turn in humans and len(moves) > 1:
                piece = _ask(state, moves, stdin, out)
                if piece is None:
                    print("bye", file=out)
                    return 0
            else:
                piece = (moves[0] if len(moves) == 1 else computer.choose(state, moves)).piece
            state, events = apply(state, {"move": piece})
        for ev in events:
            line = describe(ev)
            if line and ev.kind != "turn":
                print(line, file=out)
    print("Final ranking:", file=out)
    scores = state.scores
    for k, colour in enumerate(state.ranking or [], 1):
        extra = f" ({scores[colour]} points)" if scores else ""
        print(f"  {k}. {colour}{extra}", file=out)
    return 0


def _ask(state: Any, moves: list[Any], stdin: TextIO, out: TextIO) -> int | None:
    pieces = ", ".join(f"{i + 1}: {where(p)}" for i, p in enumerate(state.pieces[state.turn]))
    print(f"{state.turn}, you rolled {state.die or ''}. Your pieces: {pieces}", file=out)
    for m in moves:
        print(f"  {describe_move(m)}", file=out)
    allowed = {m.piece + 1 for m in moves}
    base_ok = any(m.enter for m in moves)
    while True:
        print("piece number? ", end="", file=out, flush=True)
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
        print(f"choose one of {', '.join(map(str, sorted(allowed)))}", file=out)


def cmd_run(args: argparse.Namespace) -> int:
    print(
        "ludo-bot: no chat platform is configured yet: set TELEGRAM_TOKEN or DISCORD_TOKEN "
        "(the chat adapters are not part of this version)",
        file=sys.stderr,
    )
    return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ludo-bot", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay a game record and print the final state as JSON")
    p.add_argument("file", help="the record (JSON), or - for standard input")
    p.set_defaults(func=cmd_replay)

    def common(p: argparse.ArgumentParser, default_rules: str | None) -> None:
        p.add_argument(
            "--rules", choices=RULE_SETS, default=default_rules, required=default_rules is None
        )
        p.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
        p.add_argument("--seed", type=int, default=None, help="seed for the die and the choices")
        p.add_argument("--options", help="rule options as JSON, e.g. '{\"teams\": true}'")

    p = sub.add_parser("simulate", help="play many computer games and print figures as JSON")
    common(p, None)
    p.add_argument("--games", type=int, default=100)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("play", help="play a game in the terminal")
    common(p, "classic")
    p.add_argument(
        "--human",
        action="append",
        choices=COLOURS,
        metavar="COLOUR",
        help="a colour you play yourself (repeatable); the others are computer players",
    )
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("run", help="run the chat bot")
    p.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "games", 1) < 0:
        print("ludo-bot: --games cannot be negative", file=sys.stderr)
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
