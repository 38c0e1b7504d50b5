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

TRACK = 52
LAST_TRACK = 51
HOME = 57

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
#: per square the moving piece has walked (positive: advance the leaders)
LEAD = 0.0
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
    o = state.options
    c = state.cur
    pos = state.pos
    occ = state.occ
    stacking = o.stacking
    blocks = stacking != "free"
    safe_starts = o.safe_starts
    safe_stars = o.safe_stars
    # coming out of the base captures a lone piece on the start square
    exit_captures = stacking == "barrier" or not safe_starts
    exit_chance = len(o.exit_rolls) / 6.0
    reach = 12 if o.six_extra_turn else 6
    partner = (c + 2) % 4 if o.teams else -1
    enemy = [False, False, False, False]
    for x in state.seats:
        if x != c and x != partner:
            enemy[x] = True
    mine = pos[c]
    capture_value = (
        CAPTURE
        + (EXTRA_ROLL if o.capture_extra_turn else 0.0)
        + BONUS_SQUARE * o.capture_bonus
    )
    home_value = (
        REACH_HOME + (EXTRA_ROLL if o.home_extra_turn else 0.0) + BONUS_SQUARE * o.home_bonus
    )

    def hit_chance(key: int, skip: int) -> float:
        """The chance an opponent hits a lone own piece on track square ``key``.

        ``skip`` is the code of a piece that will have left (it breaks no block).
        """
        r = key % 13
        landing = True
        base = -1
        if r == 0:
            sc = key // 13
            if safe_starts:
                landing = False
            if exit_captures and enemy[sc] and 0 in pos[sc]:
                base = sc
        elif r == 8 and safe_stars:
            return 0.0
        masks = [0, 0, 0, 0]
        if landing:
            j = 1
            while j <= reach:
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
                        break
                j += 1
        miss = 1.0
        for oc in range(4):
            m = masks[oc]
            if m or oc == base:
                p = (m & 0x7E).bit_count() / 6.0 + (m >> 7).bit_count() / 36.0
                if oc == base:
                    p += exit_chance
                if p >= 1.0:
                    return 1.0
                miss *= 1.0 - p
        return 1.0 - miss

    def lone_targets(key: int, progress: int, skip: int) -> int:
        """Lone opponent pieces 1..6 squares ahead of ``key`` that could be hit."""
        n = 0
        for j in range(1, min(6, LAST_TRACK - progress) + 1):
            sq = key + j
            if sq >= TRACK:
                sq -= TRACK
            here = occ.get(sq)
            if here:
                if len(here) == 1:
                    code = here[0]
                    oc = code >> 3
                    r = sq % 13
                    if enemy[oc] and not (r == 0 and safe_starts) and not (r == 8 and safe_stars):
                        n += 1
                elif blocks and len(here) == 2 and here[0] >> 3 == here[1] >> 3 and skip not in here:
                    break
        return n

    def held(key: int) -> int:
        """Opponent pieces 1..6 squares behind track square ``key`` (held by a block there)."""
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

    out: list[float] = []
    for m in moves:
        frm = m.frm
        to = m.to
        code = c * 8 + m.piece
        score = 0.0
        # progress
        if frm > LAST_TRACK:
            score += (to - frm) * COLUMN_PROGRESS
        elif to > LAST_TRACK:
            score += (LAST_TRACK - frm) + (to - LAST_TRACK) * COLUMN_PROGRESS
        else:
            score += to - frm
        if m.enter:
            score += ENTER
        if to == HOME:
            score += home_value
        if m.captures is not None:
            victim = pos[COLOUR_NUMBER[m.captures[0]]][m.captures[1]]
            score += capture_value + CAPTURE_PROGRESS * victim
        if frm <= LAST_TRACK:
            score += LEAD * frm
        # risk where the piece stands now, and what leaving does to a companion
        if 1 <= frm <= LAST_TRACK:
            kf = (13 * c + frm - 1) % TRACK
            here = occ[kf]
            n = len(here)
            if n == 1:
                score += RISK * hit_chance(kf, -1) * (frm + LOSS)
            elif n == 2:
                other = here[0] if here[1] == code else here[1]
                if other >> 3 == c:
                    # the companion is left alone
                    op = mine[other & 7]
                    score -= RISK * hit_chance(kf, code) * (op + LOSS)
                    if blocks:
                        score -= BLOCKADE * held(kf)
        # risk where it lands, and the companion it covers
        if 1 <= to <= LAST_TRACK:
            kt = (13 * c + to - 1) % TRACK
            here_t = occ.get(kt)
            n = len(here_t) if here_t else 0
            if m.captures is not None:
                n -= 1
            if n == 0:
                score -= RISK * hit_chance(kt, code) * (to + LOSS)
            elif n == 1 and here_t is not None and m.captures is None:
                other = here_t[0]
                if other >> 3 == c:
                    score += RISK * hit_chance(kt, -1) * (mine[other & 7] + LOSS)
                    if blocks:
                        score += BLOCKADE * held(kt)
            score += THREATEN * lone_targets(kt, to, code)
        out.append(score)
    return out


COLOUR_NUMBER = {"red": 0, "green": 1, "yellow": 2, "blue": 3}
