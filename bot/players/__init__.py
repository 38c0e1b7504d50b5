"""Computer players (a policy picks a move for the player on turn) and the one game loop."""

from .heuristic import HeuristicPlayer
from .levels import LEVELS, player_for
from .policy import Policy, RandomPlayer, choose_move

__all__ = ["LEVELS", "HeuristicPlayer", "Policy", "RandomPlayer", "choose_move", "player_for"]
