"""Games as words and pictures: the table view, narration, the English catalog, the button codec."""

from .animation import game_animation
from .buttons import Press, game_button, new_game_button, parse_new_game, parse_press
from .catalog import find_language, language_name, language_of, languages
from .levels import find_level
from .messages import say, say_all
from .text import ECHO_LIMIT, MAX_BUTTON_DATA, Button, Text, echoed
from .view import TableView, refusal_text, rules_lines, status_lines, table_view

__all__ = [
    "ECHO_LIMIT",
    "MAX_BUTTON_DATA",
    "Button",
    "Press",
    "TableView",
    "Text",
    "echoed",
    "find_language",
    "find_level",
    "game_animation",
    "game_button",
    "language_name",
    "language_of",
    "languages",
    "new_game_button",
    "parse_new_game",
    "parse_press",
    "refusal_text",
    "rules_lines",
    "say",
    "say_all",
    "status_lines",
    "table_view",
]
