"""A computer player that thinks one move ahead: :class:`HeuristicPlayer`.

Each legal move gets a score in "squares of progress" and the best one is
played.  The score adds up:

- the progress the move makes (less for moves inside the home column, which
  are never in a hurry);
- leaving the base, reaching home, capturing (more for a victim far along);
- the change in risk: a piece standing where an opponent could hit it next
  turn risks its progress; moving it away removes that risk, landing on such
  a square adds it.  Safe squares (start and star squares when the rule set
  protects them, the home column), towers, barriers and shared squares carry
  no risk;
- the pieces the move leaves alone (breaking a pair) or covers (making one);
- blockades (towers, barriers) that hold opponents behind them;
- the lone opponents the piece threatens from where it lands.

Danger is an opponent piece 1..6 squares behind (7..12 when a 6 rolls again,
counted at a sixth of the weight), in its own walking direction and only if it
would still be on the main track there; or an opponent in its base when the
square is its start square and coming out captures.  Partners (italian teams)
are never a threat nor a target.

The player reads only the engine's state; the rng breaks ties and nothing else.
"""

from __future__ import annotations

import random

from engine import GameState, Move
from engine.board import COLOUR_INDEX, HOME, LAST_TRACK
from engine.board import TRACK_SQUARES as TRACK

# The weights below were tuned with bench/ai.py (one heuristic seat against
# three random movers, 4000 games per trial).

#: the score of leaving the base (besides the one square of progress)
ENTER = 20.0
#: the score of reaching home
REACH_HOME = 4.0
#: the score of a capture, plus CAPTURE_PROGRESS per square the victim had walked
CAPTURE = 20.0
CAPTURE_PROGRESS = 1.0
#: the score of an extra roll (capture or home, when the rule set gives one)
EXTRA_ROLL = 8.0
#: the score of a bonus move per square (super: 6 squares after a capture or home)
BONUS_SQUARE = 1.0
#: what a capture costs its victim besides its progress (getting out again)
LOSS = 20.0
#: weight of the expected loss (probability of being hit times what is lost)
RISK = 1.0
#: weight of progress inside the home column (safe already)
COLUMN_PROGRESS = 0.4
#: per opponent piece held behind a blockade within reach
BLOCKADE = 2.0
#: per square the moving piece has walked (advance the leaders), by rule set
LEAD: dict[str, float] = {"classic": 0.15, "tower": 0.2, "italian": 0.1, "super": 0.0}
#: per lone opponent piece 1..6 squares ahead of the landing square
THREATEN = 1.0


class HeuristicPlayer:
    """Scores every legal move with simple Ludo rules of thumb and plays the best.

    Ties go to the rng when one is given, else to the lowest-numbered piece.
    """

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    def choose(self, state: GameState, moves: list[Move]) -> Move:
        if len(moves) == 1:
            return moves[0]
        scores = score_moves(state, moves)
        best = max(scores)
        ties = [m for m, s in zip(moves, scores, strict=True) if s == best]
        if len(ties) == 1 or self.rng is None:
            return ties[0]
        return ties[int(self.rng.random() * len(ties))]


def score_moves(state: GameState, moves: list[Move]) -> list[float]:
    """The heuristic score of each of ``moves`` (legal moves of ``state``)."""
    view = _View(state, state.cur)
    return [view.score(m) for m in moves]


def danger(state: GameState, colour: str, progress: int) -> float:
    """The chance that a lone piece of ``colour`` at ``progress`` is hit next round.

    0 off the main track (base, home column, home) and on squares the rule set
    protects.  Partners (italian teams) are no danger.
    """
    if not 1 <= progress <= LAST_TRACK:
        return 0.0
    c = COLOUR_INDEX[colour]
    return _View(state, c).hit_chance((13 * c + progress - 1) % TRACK, -1, -1)


def exposure(state: GameState, c: int) -> float:
    """The expected loss of colour ``c``'s lone track pieces next round (RISK weighted).

    What the search's position value subtracts: each lone piece's chance of
    being hit times its progress plus :data:`LOSS`.
    """
    view: _View | None = None
    occ = state.occ
    total = 0.0
    for p in state.pos[c]:
        if 1 <= p <= LAST_TRACK:
            key = (13 * c + p - 1) % TRACK
            if len(occ.get(key, ())) == 1:
                if view is None:
                    view = _View(state, c)
                total += RISK * view.hit_chance(key, -1, -1) * (p + LOSS)
    return total


class _View:
    """The position seen by colour ``c``: who is an enemy, what is safe."""

    __slots__ = (
        "blocks",
        "c",
        "capture_value",
        "enemy",
        "exit_captures",
        "exit_chance",
        "home_value",
        "lead",
        "occ",
        "pos",
        "reach",
        "safe_stars",
        "safe_starts",
    )

    def __init__(self, state: GameState, c: int) -> None:
        o = state.options
        self.c = c
        self.pos = state.pos
        self.occ = state.occ
        self.blocks = o.stacking != "free"
        self.safe_starts = o.safe_starts
        self.safe_stars = o.safe_stars
        # coming out of the base captures a lone piece on the start square
        self.exit_captures = o.stacking == "barrier" or not o.safe_starts
        self.exit_chance = len(o.exit_rolls) / 6.0
        # a 6 rolls again: 7..12 squares behind is danger too (a sixth as likely)
        self.reach = 12 if o.six_extra_turn else 6
        partner = (c + 2) % 4 if o.teams else -1
        enemy = [False, False, False, False]
        for x in state.seats:
            if x != c and x != partner:
                enemy[x] = True
        self.enemy = enemy
        self.lead = LEAD.get(o.name, 0.1)
        self.capture_value = (
            CAPTURE + (EXTRA_ROLL if o.capture_extra_turn else 0.0) + BONUS_SQUARE * o.capture_bonus
        )
        self.home_value = (
            REACH_HOME + (EXTRA_ROLL if o.home_extra_turn else 0.0) + BONUS_SQUARE * o.home_bonus
        )

    def hit_chance(self, key: int, skip: int, emptied: int) -> float:
        """The chance an enemy hits a lone piece of ours on track square ``key``.

        ``skip`` is the code of a piece that will have left its square (it
        breaks no block); ``emptied`` a colour that will have a piece in its
        base (a victim of the move), or -1.
        """
        enemy = self.enemy
        pos = self.pos
        r = key % 13
        landing = True
        base = -1
        if r == 0:
            sc = key // 13
            if self.safe_starts:
                landing = False
            if self.exit_captures and enemy[sc] and (sc == emptied or 0 in pos[sc]):
                base = sc
            if not landing and base < 0:
                return 0.0
        elif r == 8 and self.safe_stars:
            return 0.0
        masks = [0, 0, 0, 0]
        if landing:
            occ = self.occ
            blocks = self.blocks
            for j in range(1, self.reach + 1):
                sq = key - j
                if sq < 0:
                    sq += TRACK
                here = occ.get(sq)
                if here:
                    for code in here:
                        oc = code >> 3
                        if enemy[oc] and pos[oc][code & 7] + j <= LAST_TRACK:
                            masks[oc] |= 1 << j
                    if (
                        blocks
                        and len(here) == 2
                        and here[0] >> 3 == here[1] >> 3
                        and skip != here[0]
                        and skip != here[1]
                    ):
                        break  # nobody behind a tower or barrier gets past it
        miss = 1.0
        for oc in range(4):
            m = masks[oc]
            if m or oc == base:
                # each distance 1..6 is one die face; 7..12 needs a 6 first
                p = (m & 0x7E).bit_count() / 6.0 + (m >> 7).bit_count() / 36.0
                if oc == base:
                    p += self.exit_chance
                if p >= 1.0:
                    return 1.0
                miss *= 1.0 - p
        return 1.0 - miss

    def lone_targets(self, key: int, progress: int, skip: int) -> int:
        """Lone enemy pieces 1..6 squares ahead of ``key`` that a piece there could hit."""
        enemy = self.enemy
        occ = self.occ
        n = 0
        for j in range(1, min(6, LAST_TRACK - progress) + 1):
            sq = key + j
            if sq >= TRACK:
                sq -= TRACK
            here = occ.get(sq)
            if here:
                if len(here) == 1:
                    r = sq % 13
                    if (
                        enemy[here[0] >> 3]
                        and not (r == 0 and self.safe_starts)
                        and not (r == 8 and self.safe_stars)
                    ):
                        n += 1
                elif (
                    self.blocks
                    and len(here) == 2
                    and here[0] >> 3 == here[1] >> 3
                    and skip not in here
                ):
                    break
        return n

    def held(self, key: int) -> int:
        """Enemy pieces 1..6 squares behind track square ``key`` (a block there holds them)."""
        enemy = self.enemy
        pos = self.pos
        occ = self.occ
        n = 0
        for j in range(1, 7):
            sq = key - j
            if sq < 0:
                sq += TRACK
            here = occ.get(sq)
            if here:
                for code in here:
                    oc = code >> 3
                    if enemy[oc] and pos[oc][code & 7] + j <= LAST_TRACK:
                        n += 1
        return n

    def score(self, m: Move) -> float:
        c = self.c
        mine = self.pos[c]
        occ = self.occ
        frm = m.frm
        to = m.to
        code = c * 8 + m.piece
        # progress, slower inside the home column (safe already)
        if frm > LAST_TRACK:
            score = (to - frm) * COLUMN_PROGRESS
        elif to > LAST_TRACK:
            score = (LAST_TRACK - frm) + (to - LAST_TRACK) * COLUMN_PROGRESS + self.lead * frm
        else:
            score = to - frm + self.lead * frm
        if m.enter:
            score += ENTER
        if to == HOME:
            score += self.home_value
        victim = -1
        if m.captures is not None:
            victim = COLOUR_INDEX[m.captures[0]]
            score += self.capture_value + CAPTURE_PROGRESS * self.pos[victim][m.captures[1]]
        # the risk where the piece stands now, and a companion it leaves alone
        if 1 <= frm <= LAST_TRACK:
            kf = (13 * c + frm - 1) % TRACK
            here = occ[kf]
            n = len(here)
            if n == 1:
                score += RISK * self.hit_chance(kf, -1, -1) * (frm + LOSS)
            elif n == 2:
                other = here[0] if here[1] == code else here[1]
                if other >> 3 == c:
                    score -= RISK * self.hit_chance(kf, code, -1) * (mine[other & 7] + LOSS)
                    if self.blocks:
                        score -= BLOCKADE * self.held(kf)
        # the risk where it lands, and a lone companion it covers there
        if 1 <= to <= LAST_TRACK:
            kt = (13 * c + to - 1) % TRACK
            here_t = occ.get(kt)
            if not here_t or victim >= 0:
                score -= RISK * self.hit_chance(kt, code, victim) * (to + LOSS)
            elif len(here_t) == 1 and here_t[0] >> 3 == c:
                score += RISK * self.hit_chance(kt, -1, -1) * (mine[here_t[0] & 7] + LOSS)
                if self.blocks:
                    score += BLOCKADE * self.held(kt)
            score += THREATEN * self.lone_targets(kt, to, code)
        return score
